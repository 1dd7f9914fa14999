"""What becomes of each tool call of a model turn (the base of `Loop`, above `StepUnits`).

Each call is gated on its own (`signoff.agents.gate`): refused and told to the model, handed back
as the task's result, run alone as the agent (its row and receipt entry committed with what the
action wrote, and the turn closed in the same transaction when it is the turn's only call), or
proposed to a person, with the model's reason and what it had seen. An outside call is marked
running before it starts, so that one found running after a crash is told as such, never run
blindly again (`_recover_call`).
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import TypeAdapter
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from signoff.actions.catalog import Action
from signoff.actions.effects import EffectKind, Effects
from signoff.actions.nesting import too_deep
from signoff.actions.problems import cut_short
from signoff.actions.results import ActionOutcome, ActionResult
from signoff.actions.running import RunAborted
from signoff.agents import holds, runs
from signoff.agents import repository as repo
from signoff.agents.agent import Registered
from signoff.agents.gate import Verdict, gate
from signoff.agents.handing_back import read_result, task_view
from signoff.agents.labelling import evidence_of, trusted_text
from signoff.agents.permits import Leave
from signoff.agents.proposals import Proposal
from signoff.agents.proposing import Kept, asked_before, fingerprint_of, proposal_of
from signoff.agents.skills import Route, Skill
from signoff.agents.standing import StandingRules
from signoff.agents.states import HAND_BACK, CallOutcome, CallState, ReceiptKind
from signoff.agents.steps import Failed, Step
from signoff.agents.tasks import ALSO_THE_PROBLEM
from signoff.agents.units import StepUnits
from signoff.exceptions import Invalid, NotFound
from signoff.limits import budget
from signoff.limits.provenance import NOTHING_SEEN, Labels
from signoff.limits.steps import NextAction, next_action
from signoff.models.base import left_out_reason
from signoff.security.acting import ActingAs
from signoff.security.principals import Principal
from signoff.store import points
from signoff.store.database import reading_only

__all__ = ["CallSteps", "answer_of"]

log = logging.getLogger("signoff.agents")
T = TypeVar("T")


def answer_of(result: ActionResult) -> str:
    """What the model is told of a run."""
    if result.done:
        if result.said:
            return result.said
        return _json_of(result.value) if result.value is not None else "Done."
    return f"{result.outcome.value}: {result.problem}"


def _json_of(value: Any) -> str:
    """`value` as JSON, a float that is no number (NaN, an infinity: JSON has none, and a
    provider may refuse the conversation that holds one) written as the text Python gives it."""
    try:
        return json.dumps(value, allow_nan=False)
    except ValueError:
        return json.dumps(_finite(value), allow_nan=False)


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)  # ("nan", "inf", "-inf")
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def began_field(result: ActionResult) -> dict[str, bool]:
    """What a call's row keeps of whether the tool's own code ran: that it did not, when
    signoff refused the call before (its answer is then in signoff's words, not the tool's:
    see `signoff.agents.labelling`); nothing otherwise (a row says it may have)."""
    return {} if result.began else {"began": False}


class CallSteps(StepUnits):
    """What becomes of each tool call of a turn (see the module)."""

    standing: StandingRules | None = None
    """The app's standing rules, to check that a rule still holds where it would let a call
    run alone (set by the app's agency; without them, no rule lets anything run alone)."""

    def instructions(self, registered: Registered, skill: Skill[Any, Any]) -> str:
        """What the model is told of its purpose and skill."""
        agent = registered.agent
        parts = [agent.purpose, skill.description, agent.instructions,
                 f"Use the tools to do the work. When it is done, call {HAND_BACK} with the result. "
                 "A call that changes things may be put to a person, who decides; you are told "
                 "what they decided."]
        return "\n\n".join(p.strip() for p in parts if p.strip())

    def _gate_call(
        self, task: repo.TaskRow, registered: Registered, skill: Skill[Any, Any],
        call: repo.CallRow, turn: list[repo.CallRow], only: bool = False,
    ) -> Step | None:
        """Gate one new call: run it alone, propose it, or refuse it. Given `only` (the turn's
        only call), the turn settles in the call's own transaction, and what happens next is
        returned; else None."""
        if why := left_out_reason(call.arguments):  # (arguments too large to keep: not read)
            self._refuse(task, call, f"Invalid: {why[:1].upper()}{why[1:]}. Nothing was run or "
                                     "proposed.", state=CallState.DONE,
                         outcome=CallOutcome.INVALID)
            return None
        if call.tool == HAND_BACK:
            return self._hand_back(task, skill, call, len(turn), only)
        in_skill = self.offers(skill, call.tool)
        if not in_skill:
            self.observer.gated(gate(call.tool, Effects(), [], in_skill=False))
            offered = ", ".join(s.name for s in self.tool_specs(registered, skill))
            self._refuse(task, call, f"There is no tool named “{cut_short(call.tool)}” for "
                                     "this work; the "
                                     f"tools are: {offered}. Nothing was run.")
            return None
        action = self._actions.get(call.tool)
        permits = self._permits(registered, skill)
        labels = self._labels_of(task, skill, action, call)
        verdict = gate(call.tool, action.info.effects, permits, query=action.info.query,
                       labels=labels)
        lifted: Verdict | None = None  # what a standing rule would make of it, if one lifts
        if verdict.leave is Leave.PROPOSE:  # only a PROPOSE can a standing rule lift
            lifted = gate(call.tool, action.info.effects, permits, query=action.info.query,
                          rule=True, labels=labels)
        if lifted is None or lifted.leave is Leave.PROPOSE:
            lifted = None  # no rule could lift it: none is looked up
            self.observer.gated(verdict, action)  # (else once the rule is looked up, as it is
            # proposed)
        if verdict.leave is Leave.NEVER:
            never = (f"{call.tool} is a tool {registered.agent.__name__} may never use"
                     if verdict.declared is Leave.NEVER else
                     f"{call.tool} was not run: outside content may have steered it "
                     f"({labels.words.rstrip('.')}), and {registered.agent.__name__} never runs "
                     "such a call")
            self._refuse(task, call, f"{never}. Nothing was run, and nothing was proposed.",
                         labels=labels)
            return None

        def refuse(answer: str, outcome: CallOutcome) -> None:
            if lifted is not None:  # refused before a rule was looked up
                self.observer.gated(verdict, action)
            self._refuse(task, call, answer, state=CallState.DONE, outcome=outcome)

        try:
            values = self._actions.values_from_json(call.tool, call.arguments)
        except (Invalid, NotFound) as refusal:
            refuse(f"Invalid: {refusal.message} Nothing was run or proposed.", CallOutcome.INVALID)
            return None
        over = self.spend_problem(task.id, action)
        if over:
            refuse(f"{over} Nothing was run or proposed.", CallOutcome.DENIED)
            return None
        spent = task.spend_usd
        if action.info.effects.spends:  # what this turn's tools spent so far counts too
            with self._database.connect() as db:
                spent = repo.spend_of(db, task.id)
        decision = next_action(task.steps - 1, task.max_steps, spent, task.budget_usd,
                               verdict.leave is not Leave.ALONE, False)
        if decision is NextAction.CONTINUE:
            return self._run_alone(task, registered, action, call, values, None, only, labels)
        if decision is NextAction.ESCALATE:
            proposed = self._propose(task, registered, skill, action, call, verdict, only,
                                     labels, lifted)
            while isinstance(proposed, _Lifted):  # a standing rule lets it run alone
                points.reached("loop.rule_held", task=task.id, rule=proposed.rule)
                try:
                    return self._run_alone(task, registered, action, call, values, proposed,
                                           only, labels)
                except _TakenBack:  # since it was found to hold: gated again, as it is now
                    proposed = self._propose(task, registered, skill, action, call, verdict,
                                             only, labels, lifted, taken_back=proposed)
            if isinstance(proposed, _Gone):
                self._refuse(task, call, f"Gone: {proposed.problem} Nothing was run or proposed.",
                             state=CallState.DONE, outcome=CallOutcome.GONE)
                return None
            if isinstance(proposed, _Asked):
                self._refuse(task, call, proposed.answer, state=CallState.DONE,
                             outcome=proposed.outcome)
                return None
            return proposed
        refuse(f"{call.tool} was not run: the task has spent its budget of "
               f"${task.budget_usd:.4f}.", CallOutcome.DENIED)
        return None

    def _labels_of(self, task: repo.TaskRow, skill: Skill[Any, Any], action: Action,
                   call: repo.CallRow) -> Labels:
        """The labels of the call's arguments, from what the task saw before this turn."""
        if not self._labels.label(action):
            return NOTHING_SEEN
        try:
            arguments = json.loads(call.arguments)
        except (ValueError, RecursionError):  # not JSON, or nested too deeply to read
            return NOTHING_SEEN  # refused as Invalid when its values are read
        if not isinstance(arguments, dict) or too_deep(arguments):
            return NOTHING_SEEN

        return self._labels.of(task.id, task.turn, action, arguments, endorses=skill.endorses,
                               free_text=skill.free_text, **self._seen(task))

    def _seen(self, task: repo.TaskRow) -> dict[str, Any]:
        """How what the task has seen is read when this process does not know it: its trusted
        text and its tool calls; and where the other tasks of its work stand (`others`), with
        how what they saw since is read (an approved call's result, another skill's read may
        have come in). See `TaskLabels`."""
        others = self._work_heads.get(task.id, ())
        if task.work_id is not None and task.id not in self._work_heads:  # (held since start)
            with self._database.connect() as db:
                others = repo.work_heads(db, task)

        read: dict[str, Any] = {}

        def calls() -> list[repo.CallRow]:
            if "calls" not in read:
                read_both()
            found: list[repo.CallRow] = read.pop("calls")
            return found

        def trusted() -> list[str]:
            if "served" not in read:  # (read with its calls: what it has seen is read as one)
                read_both()
            served: list[str] = read.pop("served")
            return trusted_text(self.messages(task), task.subject_id, task.subject_json) + served

        def read_both() -> None:
            """The task's calls, and who its work is for (their handle and name: no outside
            content wrote them, so a call to them, a reply to its requester, is not held as one
            a note may have steered), in one transaction."""
            with self._database.connect() as db:
                read["calls"] = repo.calls_of(db, task.id)
                served = self._people.find_each([task.for_id], within=db) if (
                    task.for_id is not None) else {}
                read["served"] = [w for p in served.values() for w in (p.handle, p.name)]

        def others_since(other: str, seq: int, folded: dict[str, dict[str, Any]]
                         ) -> tuple[int, list[repo.CallRow]]:
            with self._database.connect() as db:
                return repo.calls_since(db, other, seq, folded)

        return {"calls": calls, "others": others, "others_since": others_since,
                "trusted": trusted}

    def spend_problem(self, task_id: str, action: Action) -> str:
        """Why running `action` now would not fit the task's budget ("" when it fits): a tool
        that spends reserves its declared cost before it runs, like a model call."""
        effects = action.info.effects
        if not effects.spends:
            return ""
        with self._database.connect() as db:
            task = repo.load_task(db, task_id)
        assert task is not None
        if effects.cost_usd is None:
            if task.budget_usd == float("inf"):
                return ""
            if effects.cost_repeats:
                return (f"{action.name} calls something that spends inside a loop (or in a "
                        "function that calls itself), so how much "
                        "one run spends is not known and cannot be kept within the task's "
                        f"budget: declare the most a whole run spends on {action.name} itself, "
                        "with @spends(cost=...).")
            unseen = next((e for e in effects.effects
                           if e.kind is EffectKind.SPENDS and e.reason), None)
            if unseen is not None:  # (code the analysis could not see is taken to spend)
                where = f" at {unseen.at}" if unseen.at else ""
                return (f"{action.name} runs code the analysis cannot see "
                        f"(`{unseen.path[-1] if unseen.path else action.name}`{where}: "
                        f"{unseen.reason}), which is taken to spend an amount not known, so it "
                        "cannot be kept within the task's budget: declare the most a whole run "
                        f"spends on {action.name} itself, with @spends(cost=...).")
            return (f"{action.name} spends an amount it does not declare, so it cannot be kept "
                    "within the task's budget: declare it with @spends(cost=...).")
        left = max(task.budget_usd - task.spend_usd, 0.0)  # (float error is no spend)
        if not budget.fits(task.spend_usd, effects.cost_usd, task.budget_usd):
            return (f"{action.name} could spend ${effects.cost_usd:.4f}, more than the "
                    f"${left:.4f} left of the task's budget.")
        return ""

    def _refuse(self, task: repo.TaskRow, call: repo.CallRow, answer: str, *,
                state: CallState = CallState.REFUSED, outcome: CallOutcome | str = "",
                labels: Labels = NOTHING_SEEN) -> None:
        with self._writing(task.id) as db:
            repo.update_call(db, task.id, call.id, state=state, answer=answer, outcome=outcome,
                             problem=answer, finished_at=repo.now(), began=False)
            repo.note(db, task.id, ReceiptKind.TOOL_CALL,
                      f"{cut_short(call.tool)} was asked for: {answer}",
                      tool=call.tool, arguments=call.arguments, labels=labels.to_json())
        self.observer.tool_ended(state=state, outcome=outcome, answer=answer)

    def _hand_back(self, task: repo.TaskRow, skill: Skill[Any, Any], call: repo.CallRow,
                   calls_in_turn: int, only: bool) -> Step | None:
        """Take the result handed back, if it fits and the skill's check accepts it (the task's
        calls are read for the check only when the skill has one). Given `only` (the turn's only
        call), the turn closes — the task is done — in the same transaction, and what happens
        next is returned; else None."""
        _, result_type = skill.types()
        if calls_in_turn > 1:
            self._refuse(task, call, f"Call {HAND_BACK} on its own, once the other tools have "
                                     "answered.", state=CallState.DONE, outcome=CallOutcome.INVALID)
            return None
        handed = read_result(result_type, call.arguments)
        if isinstance(handed, str):
            self._refuse(task, call, f"Invalid: the result does not fit ({handed}); hand it back "
                                     "again.", state=CallState.DONE, outcome=CallOutcome.INVALID)
            return None
        if getattr(skill.check_result, "__func__", None) is not Skill.check_result:
            with self._database.connect() as db:
                calls = repo.calls_of(db, task.id)
            try:
                problem = _of_skill(skill, "check_result", lambda: skill.check_result(
                    handed.result, task_view(task.id, calls, self.subject_of(task, skill))),
                    "the result handed back could not be checked. Nothing was accepted")
            except _SkillFailed as failed:
                return self._end(task, Failed(problem=failed.problem))
            if problem:
                self._refuse(task, call, f"Invalid: {problem} Nothing was accepted; hand it back "
                                         "again, corrected.", state=CallState.DONE,
                             outcome=CallOutcome.INVALID)
                return None
        closed: Step | None = None
        with self._writing(task.id, closing=only) as db:
            repo.update_call(db, task.id, call.id, state=CallState.DONE, outcome=CallOutcome.DONE,
                             value=handed.value, answer="Result received.",
                             finished_at=repo.now())
            if only:
                closed = self._close_turn(db, task, [call.changed(
                    state=CallState.DONE, outcome=CallOutcome.DONE, value=handed.value,
                    answer="Result received.")])
        self.observer.tool_ended(state=CallState.DONE, outcome=CallOutcome.DONE,
                                 answer="Result received.")
        return closed

    # -- running alone -------------------------------------------------------------------

    def _run_alone(self, task: repo.TaskRow, registered: Registered, action: Action,
                   call: repo.CallRow, values: dict[str, Any], lifted: _Lifted | None,
                   only: bool = False, labels: Labels = NOTHING_SEEN) -> Step | None:
        """Run the call as the agent — and, when a standing rule (`lifted`) lets it run alone,
        as the rule's maker too, as a yes of theirs would (only what both may, as the
        directory held them where the rule was found to hold: a rule does not let the agent do
        what its maker could not, or can no longer, do). Its tool-call row and receipt entry
        commit with what the action wrote. Given `only` (the turn's only call), the turn closes
        in the same transaction, and what happens next is returned; else None."""
        rule_id = lifted.rule if lifted is not None else None
        maker = lifted.maker if lifted is not None else None
        effects = action.info.effects
        outside = effects.external or effects.sends or effects.spends
        cost = effects.cost_usd or 0.0 if effects.spends else 0.0
        if outside and not self._mark_running(task, call, cost, rule_id):
            return None
        acting = ActingAs.of([maker, registered.account] if maker is not None
                             else registered.account)
        ruled = f" (a standing rule of {maker.name}'s let it run alone)" if maker else ""
        as_whom = f"as {maker.name} and itself" if maker else "as itself"
        closed: Step | None = None

        def before(db: repo.Executor) -> None:
            self._check(db, task.id, closing=only and effects.writes_records_only)
            if rule_id and not outside:  # (an outside call's rule: read as it is marked)
                _still_standing(db, rule_id)

        def record(db: repo.Executor, result: ActionResult) -> None:
            nonlocal closed
            answer = answer_of(result)
            ran_as, explained = [p.name for p in result.ran_as], list(effects.explain())
            state = CallState.UNKNOWN if result.outcome is ActionOutcome.UNKNOWN else (
                CallState.DONE)
            outcome = result.outcome.value
            repo.update_call(db, task.id, call.id, state=state, leave=Leave.ALONE.words,
                             outcome=outcome, said=result.said, value=result.value,
                             problem=result.problem, ran_as=ran_as, effects=explained,
                             answer=answer, finished_at=repo.now(), **began_field(result))
            # (refused before its code began, nothing of it ran: said so, as a yes's is)
            ran = (f"ran {call.tool} alone{ruled}, {as_whom}: {outcome}." if result.began else
                   f"did not run {call.tool} alone{ruled}, {as_whom}: {outcome} — "
                   f"{result.problem}")
            repo.note(db, task.id, ReceiptKind.TOOL_CALL,
                      f"{registered.agent.__name__} {ran}", tool=call.tool, arguments=call.arguments,
                      outcome=outcome, ran_as=ran_as, effects=explained,
                      labels=labels.to_json())
            self.observer.tool_ended(state=state, outcome=outcome, answer=answer,
                                     result=result)
            if rule_id:
                repo.use_rule(db, rule_id)
            if cost and result.spent_nothing:  # what was reserved, given back
                repo.give_back(db, task.id, cost, tool=call.tool,
                               why=f"it ended {outcome}, before anything of it could spend")
            closed = None
            if only:
                done = call.changed(state=state, outcome=outcome,
                                    value=result.value, answer=answer)
                closed = self._close_turn(db, task, [done])

        # A call that only reaches outside runs in no writer's transaction, with nothing
        # written until it is back: its task's hold is kept alive meanwhile, however long it
        # takes, so that no other process takes the call for one a crash cut off. (One that
        # writes records too runs in its writer's transaction, which checked the hold.)
        hold = self._holds().get(task.id) if outside and action.reaches_out_only else None
        with runs.holding(self._database, hold) if hold is not None else (
                contextlib.nullcontext()):
            if outside:
                points.reached("loop.call_marked", task=task.id, tool=call.tool)
            try:
                result = self._actions.run_values(
                    action, values, acting=acting, cause=f"task {task.id}",
                    before=None if action.info.query else before,
                    within=None if action.info.query else record,
                )
                if action.info.query or not result.done:
                    if closed is not None:  # its transaction did not commit: nor did the reply
                        closed = None  # held back for it, which is stored with the record below
                        reply = self._replies.get(task.id)
                        self.forget(task.id)
                        if reply is not None:
                            self._replies[task.id] = reply
                    with self._writing(task.id, closing=only) as db:
                        record(db, result)
                else:
                    self._replies.pop(task.id, None)  # stored with the run (`_check`), committed
            except holds.LostHold:  # found by `_check` as the run began: the drive hands it on
                self.forget(task.id)
                raise
        return closed

    def _mark_running(self, task: repo.TaskRow, call: repo.CallRow, cost: float,
                      rule_id: str | None) -> bool:
        """Mark an outside call running before it starts (and reserve what it spends, when the
        budget has room): whether it is to run (not when its cost does not fit). Only the
        task's holder marks its calls, in a write that checks its hold — and, for a call a
        standing rule (`rule_id`) lets run alone, that the rule still stands (`_TakenBack`)."""
        with self._writing(task.id) as db:
            if rule_id is not None:
                _still_standing(db, rule_id)
            repo.update_call(db, task.id, call.id, state=CallState.RUNNING, started_at=repo.now(),
                             leave=Leave.ALONE.words)
            if cost and not repo.reserve_for(db, task.id, cost, tool=call.tool):
                shared = " (which the tasks of its work share)" if task.work_id else ""
                answer = (f"{call.tool} could spend ${cost:.4f}, more than is left of the task's "
                          f"budget of ${task.budget_usd:.4f}{shared}. Nothing was run.")
                repo.update_call(db, task.id, call.id, state=CallState.DONE, answer=answer,
                                 outcome=CallOutcome.DENIED, problem=answer,
                                 finished_at=repo.now(), began=False)
                repo.note(db, task.id, ReceiptKind.TOOL_CALL,
                          f"{call.tool} was asked for: {answer}", tool=call.tool,
                          arguments=call.arguments)
                return False
        return True

    def _recover_call(self, task: repo.TaskRow, registered: Registered, skill: Skill[Any, Any],
                      call: repo.CallRow) -> Step | None:
        """An alone outside call a holder before this one marked running, and never recorded.
        One that says it is idempotent is gated again, as a new call would be now: it runs
        again only as it would run now (alone as the agent while its declaration lets it; under
        a standing rule only while one still holds, as that rule's maker and the agent
        together), and is otherwise proposed, or refused. Any other is told as of unknown
        outcome. What happens next when the gate ends the task; else None."""
        action = self._actions.get(call.tool) if call.tool in self._actions else None
        if action is None or not action.info.idempotent:
            with self._writing(task.id) as db:
                self._told_unknown(db, task.id, call)
            return None
        with self._writing(task.id) as db:
            repo.update_call(db, task.id, call.id, state=CallState.NEW)
            repo.note(db, task.id, ReceiptKind.TOOL_CALL,
                      f"The work stopped while {call.tool} ran, before its outcome was recorded. "
                      "It may safely run again (its action says so), so it is gated again, as a "
                      "new call would be now.", tool=call.tool, arguments=call.arguments)
        fresh = call.changed(state=CallState.NEW)
        return self._gate_call(task, registered, skill, fresh, [fresh])

    def _told_unknown(self, db: repo.Executor, task_id: str, call: repo.CallRow) -> None:
        """In the transaction `db`: an alone call a holder before this one marked running, and
        never recorded, is told as of unknown outcome (not run again blindly)."""
        answer = (f"The outcome of {call.tool} is unknown: the work stopped while it ran, and it "
                  "is not run again blindly. Check whether it happened before trying again.")
        repo.update_call(db, task_id, call.id, state=CallState.UNKNOWN,
                         outcome=CallOutcome.UNKNOWN, answer=answer, finished_at=repo.now())
        repo.note(db, task_id, ReceiptKind.TOOL_CALL, f"{call.tool}: {answer}",
                  tool=call.tool, outcome=CallOutcome.UNKNOWN)
        self.observer.tool_ended(state=CallState.UNKNOWN, outcome=CallOutcome.UNKNOWN,
                                 answer=answer)

    # -- proposing -----------------------------------------------------------------------

    def _propose(self, task: repo.TaskRow, registered: Registered, skill: Skill[Any, Any],
                 action: Action, call: repo.CallRow, verdict: Verdict, only: bool = False,
                 labels: Labels = NOTHING_SEEN, lifted: Verdict | None = None, *,
                 taken_back: _Lifted | None = None) -> Step | _Lifted | _Gone | _Asked | None:
        """Put the call to a person; given `only` (the turn's only call), the task waits on it
        from the same transaction, and what happens next is returned; else None. Given
        `lifted` (what a standing rule would make of it), the rules are looked up first, in
        the same transaction: when one lifts it, nothing is proposed (`_Lifted`); nor when a record
        the call names is not there for the agent to read (`_Gone`). `taken_back`: the rule that
        was to let it run alone, and was taken back before it began (said with the proposal,
        when no other rule is found)."""
        try:
            return self._put(task, registered, skill, action, call, verdict, only, labels,
                             lifted, taken_back)
        except _SkillFailed as failed:  # (its transaction, if it had begun, kept nothing)
            return self._end(task, Failed(problem=failed.problem))

    def _put(self, task: repo.TaskRow, registered: Registered, skill: Skill[Any, Any],
             action: Action, call: repo.CallRow, verdict: Verdict, only: bool,
             labels: Labels, lifted: Verdict | None, taken_back: _Lifted | None = None
             ) -> Step | _Lifted | _Gone | _Asked | None:
        """`_propose`'s work; `_SkillFailed` when the skill's own code raised."""
        leave = verdict.leave
        arguments = json.loads(call.arguments)
        unput = (f"{call.tool} could not be put to anyone (who decides it, or how it reads, is "
                 "not known). Nothing was proposed")
        routing = _of_skill(skill, "decided_by", lambda: self._decider_of(
            registered, skill, call.tool, task.for_id), unput)
        # Built before the transaction: the skill's names and versions may read records. (It
        # is fingerprinted in it, under the instructions as its record reads there.)
        proposal = repo.replaced(_of_skill(skill, "names or version_of", (
            lambda: proposal_of(task, skill, action, call, arguments, routing)), unput),
            labels=labels.untrusted)
        steered = f" Outside content may have steered it: {labels.words}" if (
            labels.untrusted) else ""
        reason = call.why.strip()
        why = f": “{reason}”" if reason else ", giving no reason."
        if reason and steered and reason[-1] not in ".!?":  # (a sentence of its own follows)
            why += "."
        words = self._route_words(proposal)
        earlier = self._labels.evidence(task.id, task.turn, **self._seen(task))
        # Where the skill routes the call now, should a rule be found: whether its maker could
        # make it now depends on it (asked here, as the skill's code may read records).
        route = _of_skill(skill, "decided_by", lambda: skill.decided_by(call.tool), unput) if (
            lifted is not None) else None
        with self._writing(task.id, closing=only) as db:
            held = self._rule_holding(db, task, registered, call.tool, route) if (
                lifted is not None) else ""
            if taken_back is not None and not held:
                held = (f"A standing rule of {taken_back.maker.name}'s would have let it run "
                        "alone, but was taken back before it ran.")
            if isinstance(held, _Lifted):
                self.observer.gated(lifted or verdict, action)
                return held
            self.observer.gated(verdict, action)
            if held:  # a rule matched, and no longer holds: said after the call's reason
                why += "." if reason and not steered and reason[-1] not in ".!?" else ""
                steered += f" {held}"
            # A record the agent cannot read is one no yes could run the call on (it runs as
            # the agent and the approver together): nobody is asked.
            gone = self._actions.unreadable(action, arguments, acting=ActingAs.of(
                registered.account), within=db)
            if gone:
                return _Gone(problem=gone)
            # What the calls before it in its turn answered (the first has none to read).
            this_turn = [c for c in repo.calls_of(db, task.id, task.turn)
                         if c.position < call.position] if call.position else []
            instructions = _of_skill(skill, "brief",
                                     lambda: self.instructions_now(task, within=db), unput)
            proposal = repo.replaced(
                proposal, evidence=tuple(earlier + evidence_of(this_turn)), decide_by=words,
                fingerprint=fingerprint_of(proposal, instructions))
            asked = asked_before(db, proposal)  # the very same call, said no to before
            if asked is not None:
                return self._asked_again(db, call.tool, asked)
            repo.update_call(db, task.id, call.id, state=CallState.PROPOSED, leave=leave.words,
                             effects=list(proposal.effects))
            repo.insert_proposal(db, proposal, call=call, instructions=instructions,
                                 trace_context=self.observer.trace_context(),
                                 told_at=self.telling.told_at())
            repo.note(db, task.id, ReceiptKind.PROPOSAL,
                      f"{registered.agent.__name__} proposed {call.tool} to {words}{why}"
                      f"{steered}", proposal=proposal.id, tool=call.tool, arguments=arguments,
                      shown=proposal.shown, subject_version=proposal.subject_version,
                      labels=labels.to_json())
            waits = self._store_wait(db, task, (proposal.id,), (f"a decision from {words}",),
                                     proposal.deadline_at) if only else None
        self.kept_proposals.keep(Kept(proposal=proposal, call_id=call.id,
                                      instructions=instructions, task=task))
        self.observer.proposed(proposal, waits_on=words)
        self.telling.tell(proposal)
        return waits

    def _asked_again(self, db: repo.Executor, tool: str, asked: Proposal) -> _Asked:
        """What the agent is told of a call its task put to a person before, the very same,
        who said no to it (`asked_before`), in place of asking them again."""
        key = asked.decided_by
        by = self._people.find_each([key], within=db).get(key) if key else None
        who = by.name if by is not None else "Someone"
        return _Asked(outcome=CallOutcome.REJECTED, answer=(
            f"{who} already said no to {tool} with these very arguments: "
            f"{asked.reason.strip()} It was not put to them again: propose something else, "
            "or go on without it."))

    def _rule_holding(self, db: repo.Executor, task: repo.TaskRow, registered: Registered,
                      tool: str, route: Route | None) -> _Lifted | str:
        """In the transaction `db` (the call's proposal's): the oldest active standing rule
        that lets the call run alone and still holds — its maker, as the directory holds them
        now, could make it now, with the task's skill routing the call to `route`
        (`StandingRules.lapsed`) — as `_Lifted`; else why the first rule that matched no longer
        holds, in a sentence ("" when none matched)."""
        rules = repo.matching_rules(db, agent=task.agent, tool=tool, skill=task.skill,
                                    for_id=task.for_id)
        if not rules:
            return ""
        standing = self.standing
        makers = self._people.find_each([r.made_by for r in rules], within=db)
        lapsed = ""
        for rule in rules:
            maker = makers.get(rule.made_by)
            if standing is None:  # (no app's agency set them: fail closed)
                why = "the app's standing rules could not be checked."
            else:
                why = standing.lapsed(rule, registered, task.skill, maker, route=route)
            if not why and maker is not None:
                return _Lifted(rule=rule.id, maker=maker)
            if not lapsed:
                whose = f" of {maker.name}'s" if maker is not None else ""
                lapsed = (f"A standing rule{whose} would have let it run alone, but no longer "
                          f"holds: {why}")
        return lapsed

    def instructions_now(self, task: repo.TaskRow, *, within: repo.Executor | None = None) -> str:
        """The instruction set as it reads now: purpose, skill, app instructions, the brief
        (its record read in the transaction `within`, when given)."""
        registered = self._agents(task.agent)
        skill = registered.agent.skill(task.skill)
        subject = self.subject_of(task, skill, within=within)
        return self.instructions(registered, skill) + "\n\n" + skill.brief(subject)

    def subject_of(self, task: repo.TaskRow, skill: Skill[Any, Any], *,
                   within: repo.Executor | None = None) -> Any:
        """The task's subject as it is now (a record read afresh: in the transaction `within`,
        when given, else in one of its own)."""
        subject_type, _ = skill.types()
        if task.subject_id is not None:
            bind = within.connection() if isinstance(within, Session) else within
            if bind is not None and not isinstance(bind, Connection):
                raise TypeError(f"A subject is read on a connection or a session, not {bind!r}.")
            with Session(bind if bind is not None else self._database.engine,
                         expire_on_commit=False) as session, (
                    reading_only() if bind is None else contextlib.nullcontext()):
                return session.get(subject_type, uuid.UUID(task.subject_id))
        if task.subject_json is not None and subject_type not in (None, type(None)):
            return TypeAdapter(subject_type).validate_python(task.subject_json)
        return None


class _SkillFailed(Exception):
    """The skill's own code raised as a call was proposed, or a result checked: the task cannot
    go on."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


def _of_skill(skill: Skill[Any, Any], method: str, work: Callable[[], T], so: str) -> T:
    """What `work` (which runs the skill's `method`, the app's code) gives; `_SkillFailed`,
    told in a sentence (`so`: what became of the step) and logged with its traceback, when it
    raises. (A call proposed to nobody, or to someone the skill did not mean, would wait on
    nothing, or be shown to the wrong person; a result unchecked would be taken unchecked: the
    task stops, and says why.)"""
    try:
        return work()
    except Exception as error:
        named = f"{type(skill).__name__}.{method}"
        said = f": {error}" if str(error) else ""
        log.error("%s raised %s%s", named, type(error).__name__, said, exc_info=True,
                  extra={ALSO_THE_PROBLEM: True})
        raise _SkillFailed(f"{named} raised {type(error).__name__}{said.rstrip('.')}, so {so}, "
                           "and the task stops; the app's log has the traceback.") from error


def _still_standing(db: repo.Executor, rule_id: str) -> None:
    """In the transaction that runs a call under standing rule `rule_id` (or marks it running),
    before the call begins: `_TakenBack` when the rule was taken back since it was found to
    hold; else a revoke waits for the transaction (`repo.rule_stands`)."""
    if not repo.rule_stands(db, rule_id):
        raise _TakenBack(f"The standing rule {rule_id} was taken back before its call ran.")


class _TakenBack(RunAborted):
    """The standing rule a call was to run alone under was taken back after it was found to
    hold, and before the call began: nothing of the run is kept (its transaction rolls back),
    and the call is gated again, as it would be now."""


@dataclass(frozen=True, kw_only=True)
class _Lifted:
    """A call about to be proposed that a standing rule lets run alone."""

    rule: str
    """The rule's id."""
    maker: Principal
    """Whoever made it, as the directory held them where the rule was found to hold: the call
    runs as them and the agent together."""


@dataclass(frozen=True, kw_only=True)
class _Asked:
    """A call about to be proposed that its task put to a person before, the very same."""

    answer: str
    """What the agent is told instead."""
    outcome: CallOutcome
    """How the call ended."""


@dataclass(frozen=True, kw_only=True)
class _Gone:
    """A call about to be proposed that names a record the agent cannot read."""

    problem: str
    """Which, in the words a run would be Gone with."""
