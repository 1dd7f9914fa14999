"""The people's verbs on proposals: approve and reject, each decided once (a yes may also say
"from now on, alone": `signoff.agents.standing` makes that rule).

A yes runs the exact call that was shown, now, as the agent on behalf of the approver: only what
both may. A proposal whose fingerprint reads differently now is stale and does not run. A tool the
declaration has since ruled out does not run, whoever says yes. A yes whose call could not reach
what it needs, and so sent nothing (`Unavailable`), is not used up: the proposal waits as it did,
and the approver is told to try again later; nor is one the skill's `version_of` failed to
check. Decisions are people's: an agent's own account decides none.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import Connection
from sqlalchemy.orm import Session

from signoff.actions.registry import Actions
from signoff.actions.results import ActionOutcome, ActionResult
from signoff.actions.running import RunAborted
from signoff.agents import holds, runs
from signoff.agents import repository as repo
from signoff.agents.agent import Registered
from signoff.agents.calling import answer_of, began_field
from signoff.agents.deadlines import refusal_after_deadline
from signoff.agents.edits import changed_values, said_changed
from signoff.agents.events import AgentProposalDecided, Events
from signoff.agents.loop import Loop
from signoff.agents.model_specs import where_it_goes_on
from signoff.agents.oversight import Oversight, said_why
from signoff.agents.permits import Leave
from signoff.agents.proposals import Decision, Proposal, ProposalStatus, fingerprint
from signoff.agents.proposing import does_otherwise, fingerprint_of, refusal_of_withdrawn
from signoff.agents.skills import Skill
from signoff.agents.standing import StandingRules
from signoff.agents.states import CallOutcome, CallState, ReceiptKind
from signoff.agents.tasks import TaskStatus
from signoff.exceptions import (
    AgentRefused,
    EditRefused,
    Invalid,
    StoreError,
    Unavailable,
    UnknownId,
    UserError,
)
from signoff.security.acting import ActingAs
from signoff.security.principals import People, Principal, PrincipalKind
from signoff.store import points
from signoff.store.database import Database

__all__ = ["Decider"]

log = logging.getLogger("signoff.agents")

class Decider:
    """Carries out the people's decisions on proposals and rules."""

    def __init__(
        self, *, database: Database, actions: Actions, people: People, loop: Loop, events: Events,
        agents: Callable[[str], Registered], oversight: Oversight,
        route_words: Callable[[Proposal], str], pass_deadline: Callable[[str], object],
    ) -> None:
        self._database = database
        self._actions = actions
        self._people = people
        self._loop = loop
        self._events = events
        self._agents = agents
        self._oversight = oversight
        self._route_words = route_words
        self._pass_deadline = pass_deadline
        self.rules = StandingRules(database=database, actions=actions, people=people,
                                   agents=agents, oversight=oversight)
        """Makes the rule a yes "from now on, alone" asks for, and every other."""

    # -- who decides ---------------------------------------------------------------------

    def refusal_to_decide(self, proposal: Proposal, by: Principal) -> str:
        """Why `by` may not decide `proposal`, or "" when they may."""
        if by.kind is PrincipalKind.AGENT:  # whatever roles its account holds
            return (f"{by.name} is an agent's own account, and agents never decide proposals "
                    "(their own or another agent's): a person decides them.")
        if by.disabled:
            return f"{by.name} is disabled and may not decide anything."
        if not self._oversight.decides_agent_proposals.admits(by):
            return f"{by.name} may not decide agents' proposals."
        if proposal.routed and proposal.for_id == by.id:  # not even one who supervises agents
            if proposal.decide_person_id == by.id:
                return ("The work is for you, and the skill routes this proposal to you: the "
                        "person the work is for does not decide a routed proposal, so one who "
                        "supervises agents decides it.")
            return (f"This proposal is decided by {self._route_words(proposal)}: the skill that "
                    "proposed it says so. The work is for you; the decision is not yours.")
        if self._oversight.supervises_agents.admits(by):
            return ""
        refused = self._refusal_by_route(proposal, by)
        if refused and proposal.escalations:
            return refusal_after_deadline(proposal, self._route_words(proposal))
        return refused

    def _refusal_by_route(self, proposal: Proposal, by: Principal) -> str:
        who = self._route_words(proposal)
        if proposal.routed:
            if proposal.decide_person_id == by.id:
                return ""
            if proposal.decide_queue and proposal.decide_queue in by.roles:
                return ""
            tail = (" The work is for you; the decision is not yours."
                    if proposal.for_id == by.id else "")
            return f"This proposal is decided by {who}: the skill that proposed it says so.{tail}"
        if proposal.decide_person_id == by.id:
            return ""
        return f"This proposal is for {who} to decide; it is not yours."

    # -- approve -------------------------------------------------------------------------

    def approve(
        self, proposal_id: str, *, by: Principal, always_like_this: bool = False,
        edited: Mapping[str, Any] | None = None,
    ) -> Decision:
        """Run the proposed call now, as the agent on behalf of `by`."""
        with self._database.holding(), self._loop.observer.deciding(  # the decision, the run
                proposal_id, by=by, verb="approve") as deciding:  # and the task's next steps
            decision = self._approve(proposal_id, by=by, always_like_this=always_like_this,
                                     edited=edited)
            deciding.ended(decision)
            return decision

    def _approve(
        self, proposal_id: str, *, by: Principal, always_like_this: bool,
        edited: Mapping[str, Any] | None,
    ) -> Decision:
        # A standing rule asked for is checked against `by` as the directory holds them now
        # (before anything runs): the proposal is then read with them, not taken as kept.
        proposal, call_id, instructions, task, by = self._to_decide(
            proposal_id, by, read=always_like_this)
        registered = self._agents(proposal.agent)
        agent = registered.agent
        try:
            skill = agent.skill(proposal.skill)
        except LookupError:
            skill = None
        if skill is None or proposal.action not in skill.tool_names or \
                proposal.action not in self._actions or self.rules.declared(
                    registered, proposal.skill, proposal.action) is Leave.NEVER:
            return self._withdraw(proposal, call_id, by)
        if always_like_this and proposal.for_id is None:
            raise AgentRefused(
                "This work is for nobody, and a standing rule made with a yes covers the work "
                "of the person the work is for, so none would cover it; nothing was decided. "
                f"Approve it without “always like this”; for {agent.__name__} to run "
                f"{proposal.action} alone in work for nobody, a supervisor makes a rule for "
                "everybody's work (app.allow_alone(…, for_everybody=True)).")
        if always_like_this:
            self.rules.check_may_widen(registered, proposal.skill, proposal.action, by,
                                  for_everybody=False)
        changed = changed_values(
            self._actions, proposal, edited,
            names=lambda argument, value: skill.names(proposal.action, argument, value),
        ) if edited else {}
        if changed and always_like_this:
            raise EditRefused(
                "A yes with changed values cannot also make a standing rule: the rule would let "
                f"{agent.__name__} run {proposal.action} alone with any values, though you "
                "changed the ones it proposed; nothing was decided. Approve it with the changes "
                "alone, and make the rule with a later yes to values you take as they are.")
        arguments = {**proposal.arguments, **changed}  # the values that run, the edits in them
        action = self._actions.get(proposal.action)
        try:
            values = self._actions.values_from_json(proposal.action, json.dumps(arguments))
        except Invalid as invalid:
            raise EditRefused(f"The changed values do not fit {proposal.action}: "
                              f"{invalid.message}") from None
        if changed and self._version(skill, proposal, arguments) != self._version(
                skill, proposal, proposal.arguments):
            raise EditRefused(
                f"An edit changes argument values only: with {', '.join(changed)} changed, "
                f"{type(skill).__name__}.version_of reads what {proposal.action} acts on "
                "otherwise (another record, or another version of it), which an edit cannot "
                "change. Reject it with the reason instead; the agent is told and may propose "
                "again.")
        own = skill

        def stale_in(db: repo.Executor) -> _Stale | None:
            """How the call reads otherwise than when it was proposed, in `db`'s transaction
            (the one that claims it): another version of what it acts on (the skill's
            `version_of`, read in that transaction), another version of the skill, other
            instructions (its record read afresh), or its action doing otherwise than was shown
            (`does_otherwise`: what it does, not where in its code); None when it reads as
            proposed."""
            connection = db.connection() if isinstance(db, Session) else db
            if not isinstance(connection, Connection):
                raise TypeError(f"A call is claimed on a connection or a session, not {db!r}.")
            with self._database.joining(connection):  # the app's own reads, in the claim's
                version = self._version(own, proposal, arguments)  # transaction, of the values
            now = self._loop.instructions_now(task, within=db)
            effects = action.info.effects  # as the action's code reads now
            if now == instructions and fingerprint_of(
                    proposal, instructions, subject_version=version,
                    skill_version=own.version, effects=effects) == proposal.fingerprint:
                return None
            return _Stale(instructions_changed=now != instructions, instructions=now,
                          version=version, does=does_otherwise(proposal, effects))

        stale: _Stale | None = None  # found as it was claimed
        over = self._loop.spend_problem(proposal.task, action)
        points.reached("decider.checked", proposal=proposal.id)
        if over:  # unless the proposal is stale: then it is told so, and looked at again
            with self._database.reading() as db:
                stale = stale_in(db)
            if stale is not None:
                return self._stale(proposal, call_id, by, stale)
            return self._refused(proposal, call_id, by, registered, over)
        acting = ActingAs.of([by, registered.account])
        effects = action.info.effects
        outside = effects.external or effects.sends or effects.spends
        cost = effects.cost_usd or 0.0 if effects.spends else 0.0
        decided = {"decided_by_id": by.id, "decided_at": repo.now(),
                   "edited": changed or None}
        refused: AgentRefused | None = None  # by `before`: the decider may not decide it now
        # A query runs read-only, so nothing is written in its run's transaction: it is claimed
        # before it runs, as an outside call is, and recorded after.
        apart = outside or action.info.query
        # Claimed apart, its run is leased to this thread until it is recorded (`runs`): a
        # worker does not take it for stopped while it runs, however long it takes.
        lease: contextlib.AbstractContextManager[Callable[[], dict[str, Any]]] = runs.running(
            self._database, proposal.id) if apart else contextlib.nullcontext(dict)
        with lease as leased:
            if apart:  # at most once: marked before it starts, never run blindly again
                with self._database.connect() as db:
                    holds.lock(db, proposal.task)  # a decision and a step on the task take turns
                    self._decider_now(db, proposal, by)
                    stale = stale_in(db)
                    if stale is None and not repo.claim_proposal(
                            db, proposal, ProposalStatus.APPROVED, **decided, **leased()):
                        raise self._already(proposal.id, within=db)
                    # What it spends is reserved with the claim: the check and the reservation
                    # are one statement, so two approvals at once cannot both fit in what is left.
                    fits = stale is None and (
                        not cost or repo.reserve_for(db, proposal.task, cost,
                                                     tool=proposal.action))
                    if fits:
                        repo.update_call(db, proposal.task, call_id, state=CallState.RUNNING,
                                         started_at=repo.now())
                if stale is not None:
                    return self._stale(proposal, call_id, by, stale)
                if not fits:
                    shared = " (which the tasks of its work share)" if task.work_id else ""
                    return self._refused(proposal, call_id, by, registered, (
                        f"{proposal.action} could spend ${cost:.4f}, more than is left of the "
                        f"task's budget{shared}."), claimed=True)
                points.reached("decider.claimed", proposal=proposal.id)
                before = None
            else:
                def before(db: repo.Executor) -> None:  # exactly once: claimed with the run itself
                    nonlocal refused, stale
                    holds.lock(db, proposal.task)
                    try:
                        self._decider_now(db, proposal, by)
                        stale = stale_in(db)
                    except AgentRefused as refusal:  # not theirs, or the skill's version_of
                        refused = refusal           # failed: nothing is decided
                        raise RunAborted("refused") from None
                    if stale is not None:
                        raise RunAborted("stale")
                    if not repo.claim_proposal(db, proposal, ProposalStatus.APPROVED,
                                               **decided):
                        raise RunAborted("already decided")

            said_edit = said_changed(changed)
            told, woke, late = "", None, False

            def within(db: repo.Executor, result: ActionResult) -> None:
                nonlocal told, woke, late
                told, woke, late = self._record_run(db, proposal, call_id, by, result,
                                                    said_edit, changed, registered, reserved=cost)

            try:
                result = self._actions.run_values(action, values, acting=acting,
                                                  cause=f"task {proposal.task}", before=before,
                                                  within=None if action.info.query else within)
            except RunAborted:
                if stale is not None:
                    return self._stale(proposal, call_id, by, stale)
                raise refused or self._already(proposal.id) from None
            if result.outcome is ActionOutcome.UNAVAILABLE and (
                    not apart or self._unclaim(proposal, call_id, reserved=cost)):
                # Nothing was sent, so nothing ran: the yes is not used up (claimed with the
                # run, the claim was rolled back with it). The decider is told, in the action's
                # words, what could not be reached and to try again later.
                log.info("%s said yes to proposal %s, but %s did not run, and the proposal "
                         "waits: %s", by.name, proposal.id, proposal.action, result.problem)
                raise Unavailable(result.problem)
            if changed and result.outcome is ActionOutcome.INVALID and (
                    not apart or (action.info.query and self._unclaim(proposal, call_id,
                                                                      reserved=cost))):
                # The decider's own values do not make sense to the action (a price its column
                # cannot keep): refused as values that do not fit it are, nothing kept (its run
                # and the claim with it rolled back; a query's claim taken back), and the
                # proposal waits for a yes with other values. (An outside call's is used up: what
                # it did before it refused them cannot be known.)
                raise EditRefused(f"The changed values do not fit {proposal.action}: "
                                  f"{result.problem}")
            if not result.done or action.info.query:
                if told:  # recorded in a run whose transaction then did not commit: nothing
                    self._loop.forget(proposal.task)  # of that stands, nor what the loop kept
                with self._database.connect() as db:
                    holds.lock(db, proposal.task)
                    if not apart:
                        self._decider_now(db, proposal, by)
                    if not apart and not repo.claim_proposal(db, proposal,
                                                             ProposalStatus.APPROVED, **decided):
                        raise self._already(proposal.id, within=db)
                    told, woke, late = self._record_run(db, proposal, call_id, by, result,
                                                        said_edit, changed, registered,
                                                        reserved=cost)
        # "From now on, alone" follows a yes that ran: one that did not run (the decider may
        # not do it, or it failed) makes no rule, or the agent would be let do alone what the
        # decider could not do with it.
        rule, not_made = None, " No standing rule was made: one follows only a yes that ran."
        if always_like_this and result.done:
            try:
                rule = self.rules.allow_alone(
                    proposal.agent, proposal.action, skill=proposal.skill, by=by,
                    for_everybody=False,
                    for_id=by.id if proposal.for_id is None else proposal.for_id)
            except AgentRefused as refused:  # the right to widen lost while the call ran: the
                # yes that ran stands, and the task goes on; only the rule is not made
                not_made = f" No standing rule was made: {refused}"
        decision = replace(self._decision(proposal, by, result, said_edit, told), rule=rule)
        if late:  # settled meanwhile by a worker: as it was settled, with how this run ended
            decision = replace(decision, status=self._load(proposal.id)[0].status, said=told,
                               told_agent=self._told_of(proposal.task, call_id))
        if always_like_this and rule is None:
            decision = replace(decision, said=f"{decision.said}{not_made}")
        return self._after(proposal, decision, woke)

    def _unclaim(self, proposal: Proposal, call_id: str, *, reserved: float) -> bool:
        """Give back the claim of an approved call that sent nothing (its run ended
        Unavailable), in one transaction: the proposal waits again, undecided, its call is
        proposed again, and what was reserved for it is given back. False when the call was
        settled meanwhile (by a worker that took this run for stopped): then it is recorded as
        any run that ended after it was settled."""
        with self._database.connect() as db:
            holds.lock(db, proposal.task)
            if not repo.unclaim_proposal(db, proposal.id):
                return False
            repo.update_call(db, proposal.task, call_id, state=CallState.PROPOSED,
                             started_at=None)
            if reserved:
                repo.give_back(db, proposal.task, reserved, tool=proposal.action,
                               why="nothing was sent, and the proposal waits again")
        return True

    def _refused(self, proposal: Proposal, call_id: str, by: Principal, registered: Registered,
                 problem: str, *, claimed: bool = False) -> Decision:
        """An approval of a call that does not fit the task's budget: claimed (unless it is
        already) and recorded Denied, in one transaction; nothing runs."""
        refused = ActionResult(action=proposal.action, outcome=ActionOutcome.DENIED,
                               problem=problem, ran_as=(by, registered.account))
        with self._database.connect() as db:
            holds.lock(db, proposal.task)
            if not claimed:
                self._decider_now(db, proposal, by)
            if not claimed and not repo.claim_proposal(db, proposal, ProposalStatus.APPROVED,
                                                       decided_by_id=by.id,
                                                       decided_at=repo.now()):
                raise self._already(proposal.id, within=db)
            told, woke, _ = self._record_run(db, proposal, call_id, by, refused, "", {},
                                             registered)
        return self._after(proposal, self._decision(proposal, by, refused, "", told), woke)

    def _record_run(
        self, db: repo.Executor, proposal: Proposal, call_id: str, by: Principal,
        result: ActionResult, said_edit: str, changed: dict[str, Any], registered: Registered,
        *, reserved: float = 0.0,
    ) -> tuple[str, repo.TaskRow | None, bool]:
        """Store how an approved call ended, in `db`'s transaction (the task goes on with it
        when it waits on nothing more); what the agent is told, the task if it woke, and
        whether the call had been settled already (by a worker that took its runner for gone:
        then only how it ended is told, in the receipt, and the words say so).
        `reserved`: what was reserved for it, given back when it was refused before it ran."""
        done = result.done
        status = ProposalStatus.DONE if done else ProposalStatus.FAILED
        words = self._decision_words(proposal, by, result, said_edit)
        answer = answer_of(result) if done else f"{words}"
        if done and changed:
            answer = f"{by.name} approved {proposal.action}{said_edit}. {answer}"
        ran = fingerprint({"proposal": proposal.fingerprint, "edited": changed}) if changed else (
            proposal.fingerprint)
        if not repo.finish_proposal(db, proposal.id, status,
                                    reason="" if done else result.problem,
                                    result={"outcome": result.outcome.value, "said": result.said,
                                            "value": result.value, "problem": result.problem,
                                            "ran_as": [p.name for p in result.ran_as],
                                            "fingerprint": ran}):
            # Settled meanwhile by another run of it (a worker took this run's process for
            # stopped: its lease was not renewed in time): what the agent was told then stands;
            # how this run ended is told beside it, for the people who read the receipt.
            late = (f"{words.removesuffix('.')} (this run ended after the call had been "
                    "settled: what the agent was told then stands).")
            repo.note(db, proposal.task, ReceiptKind.DECISION, late, proposal=proposal.id,
                      decided_by=by.name, outcome=result.outcome.value, late=True)
            return late, None, True
        repo.update_call(db, proposal.task, call_id, state=CallState.DECIDED, outcome=result.outcome.value,
                         said=result.said, value=result.value, problem=result.problem,
                         ran_as=[p.name for p in result.ran_as], answer=answer,
                         finished_at=repo.now(), **began_field(result))
        noted = f"{words} It answered {_quoted(answer_of(result))}" if done else words
        repo.note(db, proposal.task, ReceiptKind.DECISION, noted, proposal=proposal.id,
                  decided_by=by.name, outcome=result.outcome.value, edited=changed or None,
                  ran_as=[p.name for p in result.ran_as], proposed_fingerprint=proposal.fingerprint,
                  ran_fingerprint=ran)
        if reserved and result.spent_nothing:
            repo.give_back(db, proposal.task, reserved, tool=proposal.action,
                           why=f"it ended {result.outcome.value}, before anything of it could "
                               "spend")
        return answer, self._loop.wake(db, proposal.task), False

    def _told_of(self, task_id: str, call_id: str) -> str:
        """What the agent was told of its call `call_id`."""
        with self._database.connect() as db:
            return next((c.answer for c in repo.calls_of(db, task_id) if c.id == call_id), "")

    def _decision_words(self, proposal: Proposal, by: Principal, result: ActionResult,
                        said_edit: str) -> str:
        if result.done:
            return (f"{by.name} approved {proposal.action}{said_edit}; it ran as {by.name} and the "
                    "agent together.")
        if result.outcome is ActionOutcome.FAILED:
            return f"{by.name} approved {proposal.action}{said_edit}, but it failed: {result.problem}"
        if result.outcome is ActionOutcome.UNKNOWN:
            return (f"{by.name} approved {proposal.action}{said_edit}, but whether it ran is not "
                    f"known: {result.problem}")
        return (f"{by.name} approved {proposal.action}{said_edit}, but it did not run: "
                f"{result.problem}")

    def _decision(self, proposal: Proposal, by: Principal, result: ActionResult,
                  said_edit: str, told: str) -> Decision:
        words = self._decision_words(proposal, by, result, said_edit)
        told = told or words
        return Decision(proposal=proposal.id,
                        status=ProposalStatus.DONE if result.done else ProposalStatus.FAILED,
                        said=words, told_agent=told)

    def _version(self, skill: Skill[Any, Any], proposal: Proposal, arguments: dict[str, Any]
                 ) -> str:
        """The version of what `proposal`'s call acts on with `arguments`, as the skill's
        `version_of` (the app's own code) reads it now; a refusal, in a sentence, when it
        raises: nothing is decided, and the proposal waits as it did."""
        try:
            return skill.version_of(proposal.action, arguments)
        except StoreError:  # the database itself: told as such, wherever it is met
            raise
        except Exception as error:
            named = f"{type(skill).__name__}.version_of"
            log.error("%s raised %s as proposal %s was decided", named, type(error).__name__,
                      proposal.id, exc_info=True)
            raise AgentRefused(
                f"{named} raised {type(error).__name__}, so whether what {proposal.action} acts "
                "on still reads as it was proposed cannot be checked, and nothing was decided: "
                "the proposal still waits. The app's log has the traceback; decide it once the "
                "skill is fixed, or reject it (a no does not ask the skill).") from None

    # -- reject, stale, withdraw ---------------------------------------------------------

    def reject(self, proposal_id: str, *, by: Principal, reason: str) -> Decision:
        """Say no, with a reason the agent is told as the tool's answer."""
        with self._database.holding(), self._loop.observer.deciding(
                proposal_id, by=by, verb="reject") as deciding:
            decision = self._reject(proposal_id, by=by, reason=reason)
            deciding.ended(decision)
            return decision

    def _reject(self, proposal_id: str, *, by: Principal, reason: str) -> Decision:
        self._loop.kept_proposals.take(proposal_id)  # read afresh, below
        by = self._people.get(by)
        proposal, call_id, _ = self._load(proposal_id)
        proposal = self._check_open(proposal, by)
        reason = said_why(reason, what="A no's reason", needed=True)
        told = f"{by.name} said no to {proposal.action}: {reason}"
        with self._database.connect() as db:
            holds.lock(db, proposal.task)
            self._decider_now(db, proposal, by)
            if not repo.claim_proposal(db, proposal, ProposalStatus.REJECTED,
                                       decided_by_id=by.id, decided_at=repo.now(),
                                       reason=reason):
                raise self._already(proposal.id, within=db)
            repo.update_call(db, proposal.task, call_id, state=CallState.DECIDED,
                             outcome=CallOutcome.REJECTED, answer=told, problem=reason,
                             finished_at=repo.now())
            repo.note(db, proposal.task, ReceiptKind.DECISION, told, proposal=proposal.id,
                      decided_by=by.name, outcome=CallOutcome.REJECTED)
            woke = self._loop.wake(db, proposal.task)
        decision = Decision(proposal=proposal.id, status=ProposalStatus.REJECTED, said=told,
                            told_agent=told)
        return self._after(proposal, decision, woke)

    def _stale(self, proposal: Proposal, call_id: str, by: Principal, stale: _Stale
               ) -> Decision:
        said = (f"{proposal.action} was not run: what it was proposed on has changed since "
                "(it is stale). The agent has been told to look again.")
        told = f"{proposal.action} was not run: what it acts on changed before {by.name} decided"
        if stale.version != proposal.subject_version:
            was = proposal.subject_version or "without a version"
            told += f" (it was {was}, it is now {stale.version})"
        if stale.does:  # the app was deployed again, its action doing otherwise than shown
            said = (f"{proposal.action} was not run: what it does has changed since it was "
                    f"proposed, so it is stale — {stale.does}. The agent has been told to look "
                    "again.")
            told = (f"{told}; what it does changed too — {stale.does}" if (
                stale.version != proposal.subject_version) else (
                f"{proposal.action} was not run: what it does changed before {by.name} "
                f"decided — {stale.does}"))
        if stale.instructions_changed and not stale.does and stale.version == proposal.subject_version:
            said = (f"{proposal.action} was not run: the agent's instructions have changed since "
                    "it was proposed, so it is stale. The agent has been told to look again.")
            told = f"{proposal.action} was not run: your instructions changed before {by.name} decided"
        told += ". Look again before proposing it again."
        if stale.instructions_changed:
            told += f" Your instructions have changed; they now read:\n{stale.instructions}"
        with self._database.connect() as db:
            holds.lock(db, proposal.task)
            self._decider_now(db, proposal, by)
            if not repo.claim_proposal(db, proposal, ProposalStatus.STALE,
                                       decided_by_id=by.id, decided_at=repo.now(),
                                       reason="stale"):
                raise self._already(proposal.id, within=db)
            repo.update_call(db, proposal.task, call_id, state=CallState.DECIDED,
                             outcome=CallOutcome.STALE, answer=told, finished_at=repo.now())
            repo.note(db, proposal.task, ReceiptKind.DECISION, f"{by.name} decided, but {said}",
                      proposal=proposal.id, outcome=CallOutcome.STALE)
            woke = self._loop.wake(db, proposal.task)
        return self._after(proposal, Decision(proposal=proposal.id, status=ProposalStatus.STALE,
                                              said=said, told_agent=told), woke)

    def _withdraw(self, proposal: Proposal, call_id: str, by: Principal) -> Decision:
        said = (f"{proposal.action} was not run: the agent's declaration no longer lets it use "
                "that tool, whoever says yes.")
        with self._database.connect() as db:
            holds.lock(db, proposal.task)
            self._decider_now(db, proposal, by)
            if not repo.claim_proposal(db, proposal, ProposalStatus.WITHDRAWN,
                                       decided_by_id=by.id, decided_at=repo.now(),
                                       reason="ruled out"):
                raise self._already(proposal.id, within=db)
            repo.update_call(db, proposal.task, call_id, state=CallState.DECIDED,
                             outcome=CallOutcome.WITHDRAWN, answer=said, finished_at=repo.now())
            repo.note(db, proposal.task, ReceiptKind.DECISION, said, proposal=proposal.id,
                      outcome=CallOutcome.WITHDRAWN)
            woke = self._loop.wake(db, proposal.task)
        return self._after(proposal, Decision(proposal=proposal.id,
                                              status=ProposalStatus.WITHDRAWN, said=said,
                                              told_agent=said), woke)

    # -- after a crash -------------------------------------------------------------------

    def recover(self, run: repo.ApprovedRun) -> bool:
        """Settle an approved call whose runner is gone (`runs.gone`): a query (it only reads)
        or a call that says it is idempotent runs again; any other is not run blindly, and its
        outcome is told as unknown. Whether this process settled it (not when it was recorded,
        or taken over by another worker, since `run` was read)."""
        with self._database.connect() as db:
            found = repo.load_proposal(db, run.id)
        if found is None or found[0].status is not ProposalStatus.APPROVED:
            return False
        proposal, call_id, _ = found
        registered = self._agents(proposal.agent)
        approver = self._people.find(proposal.decided_by or "")
        action = self._actions.get(proposal.action) if proposal.action in self._actions else None
        with runs.running(self._database, proposal.id) as leased:
            with self._database.connect() as db:
                if not repo.take_over_run(db, run, **leased()):
                    return False
            points.reached("decider.recovering", proposal=proposal.id)
            if action is not None and (action.info.idempotent or action.info.query) and (
                    approver is not None):
                changed = dict(proposal.edited or {})  # run with the values that were approved
                values = self._actions.values_from_json(
                    proposal.action, json.dumps({**proposal.arguments, **changed}))
                result = self._actions.run_values(
                    action, values, acting=ActingAs.of([approver, registered.account]),
                    cause=f"task {proposal.task}",
                )
                with self._database.connect() as db:
                    holds.lock(db, proposal.task)
                    self._record_run(db, proposal, call_id, approver, result,
                                     said_changed(changed), changed, registered)
            else:
                told = (f"The outcome of {proposal.action} is unknown: the work stopped while it "
                        "ran, after it was approved; it is not run again blindly. Check whether "
                        "it happened before trying again.")
                with self._database.connect() as db:
                    holds.lock(db, proposal.task)
                    if repo.finish_proposal(db, proposal.id, ProposalStatus.FAILED, reason=told):
                        repo.update_call(db, proposal.task, call_id, state=CallState.UNKNOWN,
                                         outcome=CallOutcome.UNKNOWN, answer=told,
                                         finished_at=repo.now())
                        repo.note(db, proposal.task, ReceiptKind.DECISION, told,
                                  proposal=proposal.id, outcome=CallOutcome.UNKNOWN)
                        self._loop.wake(db, proposal.task)
        self._loop.resume_after_decision(proposal.task)
        return True

    # -- shared --------------------------------------------------------------------------

    def _to_decide(self, proposal_id: str, by: Principal | str, *, read: bool = False
                   ) -> tuple[Proposal, str, str, repo.TaskRow, Principal]:
        """The proposal to decide, open and `by`'s to decide as far as is known before its
        claim; its tool call's id, the instructions it was made under, its task, and the
        decider. As this process made it when it did (nothing is read: whether it still waits,
        and whether `by` may decide it, are checked again where it is claimed), unless its
        deadline has passed or `by` may not decide it as it was made; else (or given `read`)
        read, with `by` as the directory holds them."""
        kept = self._loop.kept_proposals.take(proposal_id)
        if kept is not None and not read and isinstance(by, Principal) and not (
                kept.proposal.deadline_at is not None and kept.proposal.deadline_at <= repo.now()):
            proposal = replace(kept.proposal, decide_by=self._route_words(kept.proposal))
            # A refusal is not told from what was kept: the proposal may have gone on to `by`
            # since (its deadline passed); it is read afresh instead.
            if not self.refusal_to_decide(proposal, by):
                return proposal, kept.call_id, kept.instructions, kept.task, by
        proposal, call_id, instructions, task, by = self._load_with_task(proposal_id, by)
        return self._check_open(proposal, by), call_id, instructions, task, by

    def _decider_now(self, db: repo.Executor, proposal: Proposal, by: Principal) -> None:
        """In the transaction `db`, which claims `proposal`: `by`, as the directory holds them
        now, may decide it; else the refusal (and nothing of the transaction is kept)."""
        now = self._people.find_each([by.id], within=db).get(by.id)
        refused = f"{by.name} is not known to this app." if now is None else (
            self.refusal_to_decide(proposal, now))
        if refused:
            raise AgentRefused(refused)

    def _load_with_task(self, proposal_id: str, by: Principal | str
                        ) -> tuple[Proposal, str, str, repo.TaskRow, Principal]:
        """`_load`, with the proposal's task and the decider `by` (as the directory holds them
        now) read in the same transaction."""
        with self._database.connect() as db:
            found = repo.load_proposal(db, proposal_id)
            task = repo.load_task(db, found[0].task) if found is not None else None
            now = self._people.find_each([by.id], within=db).get(by.id) if isinstance(
                by, Principal) else None
        if now is None:  # given by handle, or nobody: the directory says which
            now = self._people.get(by)
        if found is None or task is None:
            raise UnknownId(f"There is no proposal with id {proposal_id}.")
        proposal, call_id, instructions = found
        return (replace(proposal, decide_by=self._route_words(proposal)), call_id, instructions,
                task, now)

    def _load(self, proposal_id: str | Proposal) -> tuple[Proposal, str, str]:
        key = proposal_id.id if isinstance(proposal_id, Proposal) else proposal_id
        with self._database.connect() as db:
            found = repo.load_proposal(db, key)
        if found is None:
            raise UnknownId(f"There is no proposal with id {key}.")
        proposal, call_id, instructions = found
        return replace(proposal, decide_by=self._route_words(proposal)), call_id, instructions

    def _check_open(self, proposal: Proposal, by: Principal) -> Proposal:
        """`proposal` as it is to be decided now, if it waits and `by` may decide it; else the
        refusal, in words."""
        if proposal.status is ProposalStatus.WAITING and proposal.deadline_at is not None and (
                proposal.deadline_at <= repo.now()):
            # Its deadline has passed, though no worker has passed it yet: it is passed now
            # (withdrawn, or put to the next decider), and this decision comes after it: the
            # next decider's to take, or refused.
            self._pass_deadline(proposal.id)
            proposal, _, _ = self._load(proposal.id)
        if proposal.status is ProposalStatus.APPROVED:
            raise self._unreported(proposal, None)
        if proposal.status is not ProposalStatus.WAITING:
            raise self._refusal_of(proposal)
        refused = self.refusal_to_decide(proposal, by)
        if refused:
            raise AgentRefused(refused)
        return proposal

    def _already(self, proposal_id: str, *, within: repo.Executor | None = None) -> AgentRefused:
        """The refusal of a decision that came second (to another, or to the proposal's
        deadline). Read in the transaction `within` when the caller holds one: a second
        connection would wait on the caller's own write lock."""
        if within is not None:
            found = repo.load_proposal(within, proposal_id)
        else:
            with self._database.connect() as db:
                found = repo.load_proposal(db, proposal_id)
        if found is None:
            return UnknownId(f"There is no proposal with id {proposal_id}.")
        if found[0].status is ProposalStatus.APPROVED:  # (its call has not reported back)
            return self._unreported(found[0], within)
        decider = found[0].decide_person_id
        if within is not None and decider and not found[0].decide_queue:
            person = self._people.find_each([decider], within=within).get(decider)
            return self._refusal_of(found[0], person.name if person else "someone no longer known")
        return self._refusal_of(found[0])

    def _unreported(self, proposal: Proposal, within: repo.Executor | None) -> AgentRefused:
        """The refusal of a decision on `proposal`, approved and its call not reported back:
        running still, or cut off (its runner stopped, or could not record how it ended)."""
        by = proposal.decided_by
        if by is not None and within is not None:
            person = self._people.find_each([by], within=within).get(by)
        else:
            person = self._people.find(by) if by is not None else None
        who = f" by {person.name}" if person is not None else ""
        when = f" at {proposal.decided_at:%Y-%m-%d %H:%M} UTC" if proposal.decided_at else ""
        return AgentRefused(
            f"This proposal was already decided: approved{who}{when}, and its call, "
            f"{proposal.action}, has not reported back: its outcome is not known yet. It is not "
            "run again blindly: once its runner has stopped, a worker settles it, told as of "
            "unknown outcome. A proposal is decided once.")

    def _refusal_of(self, proposal: Proposal, decide_by: str = "") -> AgentRefused:
        """Why `proposal`, decided or gone on to another decider (`decide_by`, in words: read
        when not given), is not decided now."""
        after_deadline = refusal_after_deadline(proposal,
                                                decide_by or self._route_words(proposal))
        if after_deadline:
            return AgentRefused(after_deadline)
        withdrawn = refusal_of_withdrawn(proposal)
        if withdrawn:
            return AgentRefused(withdrawn)
        return AgentRefused(f"This proposal was already decided ({proposal.status.value}): a "
                            "proposal is decided once.")

    def went_on(self, proposal: Proposal, decision: Decision, woke: repo.TaskRow | None
                ) -> Decision:
        """After `decision` on `proposal` was stored (by a person, or by its deadline): the
        handlers are told, and the task goes on (`woke`: it woke in the decision's own
        transaction); the decision, with where the task then stands."""
        return self._after(proposal, decision, woke)

    def _after(self, proposal: Proposal, decision: Decision, woke: repo.TaskRow | None
               ) -> Decision:
        """Tell the handlers; when the task waits on nothing more (`woke`: it was found so in
        the decision's own transaction), let it go on."""
        if self._events.has(AgentProposalDecided):
            with self._database.connect() as db:
                now_proposal = repo.load_proposal(db, proposal.id)
            decided = replace(now_proposal[0], decide_by=self._route_words(now_proposal[0])) if (
                now_proposal) else proposal
            self._events.emit(AgentProposalDecided(proposal=decided, decision=decision))
        problem = ""
        try:
            if woke is not None:
                went = self._loop.go_on(proposal.task, woke)
                status, problem = went.status, went.problem
            else:
                status = self._loop.resume_after_decision(proposal.task)
        except Exception:  # unforeseen, in the task's next step: the decision stands (it is
            # committed, and said so); the task is where that step left it, for a worker
            log.exception("Task %s failed to go on after the decision on proposal %s",
                          proposal.task, proposal.id)
            status = self._loop.outcome(proposal.task).status
        if status is TaskStatus.RUNNING and not problem:  # (not taken up here: said why)
            try:
                declared = self._agents(proposal.agent).agent.model is not None
            except UserError:  # an agent the app no longer declares: nothing here makes it
                declared = False
            with self._database.reading() as db:
                row = repo.load_task(db, proposal.task)
                problem = where_it_goes_on(db, proposal.task, row.model if row else "",
                                           declared=declared)
        return replace(decision, task_status=status.value,
                       task_problem=problem if status is TaskStatus.RUNNING else "")


@dataclass(frozen=True, kw_only=True)
class _Stale:
    """How a proposed call reads otherwise when a yes claims it."""

    instructions_changed: bool
    """Whether the agent's instructions read otherwise (its record changed, say)."""
    instructions: str
    """The instructions as they read now."""
    version: str
    """The version of what it acts on now (the skill's `version_of`)."""
    does: str = ""
    """How what its action does reads otherwise than was shown with it, in words ("it now also
    reaches outside the app (`httpx.post`)"); "" when it reads as shown."""


_ANSWER_SHOWN = 200
"""How much of what an approved call answered a receipt shows (the agent was told all of it)."""


def _quoted(answer: str) -> str:
    """`answer` in quotation marks, cut to `_ANSWER_SHOWN` characters (marked so) when longer,
    ending a sentence: “T-7 costs 42.” or “2”."""
    shown = answer if len(answer) <= _ANSWER_SHOWN else f"{answer[:_ANSWER_SHOWN].rstrip()}…"
    return f"“{shown}”" if shown.endswith((".", "!", "?")) else f"“{shown}”."
