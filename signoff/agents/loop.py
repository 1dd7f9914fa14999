"""The loop, one step at a time: ``step(task)`` does one unit of work and persists it.

A unit is either one model call, or the tool calls of one model turn, each gated on its own:
those that may run alone run, the others are proposed, refused ones are told to the model. A
task whose turn has proposals waiting stops (``Waiting``): nothing runs and no model is asked
until a person decides.
"""

from __future__ import annotations

import contextlib
import logging
import math
from collections.abc import Callable, Container
from datetime import datetime
from typing import Any

from pydantic import TypeAdapter

from signoff.actions.problems import cut_short
from signoff.agents import holds, model_specs
from signoff.agents import repository as repo
from signoff.agents.agent import Registered
from signoff.agents.calling import CallSteps
from signoff.agents.events import AgentTaskWaiting
from signoff.agents.handing_back import result_of
from signoff.agents.permits import Leave
from signoff.agents.proposals import Proposal, ProposalStatus
from signoff.agents.proposing import withdraw_with_task
from signoff.agents.skills import Skill
from signoff.agents.states import HAND_BACK, CallState, ReceiptKind
from signoff.agents.steps import Done, Failed, Halted, HandOn, RunAgain, Step, WaitOn
from signoff.agents.tasks import ALSO_THE_PROBLEM, Outcome, TaskStatus
from signoff.agents.units import _ENDED, _RUNNING, _awaits, _Deferred, _MovedOn
from signoff.exceptions import Refusal, UnknownId, UserError
from signoff.limits import budget
from signoff.limits.steps import NextAction, next_action
from signoff.models.base import (
    Conversation,
    Message,
    Model,
    ToolCall,
    Usage,
    is_token_count,
    kept_arguments,
    kind_of,
    not_a_reply,
    whole,
)
from signoff.models.errors import ModelError
from signoff.security.principals import Principal
from signoff.store import journal, points

__all__ = ["HAND_BACK", "Loop"]

log = logging.getLogger("signoff.agents")


_WORK_ID_MOST = 36
"""The longest id a work may have (``signoff_tasks.work_id``)."""


class Loop(CallSteps):
    """Steps tasks: the state machine behind ``agent.do`` (its units of work: `StepUnits`;
    what becomes of each call: `CallSteps`)."""

    # -- starting ------------------------------------------------------------------------

    def start(
        self,
        registered: Registered,
        skill: Skill[Any, Any],
        subject: Any,
        *,
        for_: Principal | None,
        model: Model,
        max_steps: int,
        budget_usd: float,
        work: str | None = None,
        continues: str | None = None,
        asked_now: bool = False,
    ) -> str:
        """Store a new task and its opening messages; its id. Given `work`, the task shares
        that work with the other tasks started with it (of this agent, for the same person):
        what any of them has seen, or sees later, it has seen too, and they what it sees.
        `continues` names, in its receipt, the task of the work it goes on from. `asked_now`:
        this thread asks the model at once (`do`), so the first call's step is counted, and its
        worst case reserved, as the task is stored (a write fewer; see `_reserve_ahead`)."""
        if work is not None and not 0 < len(work) <= _WORK_ID_MOST:
            raise UserError(f"A work's id is 1 to {_WORK_ID_MOST} characters (a UUID fits); "
                            f"{len(work)} were given.")
        agent = registered.agent
        subject_type, _ = skill.types()
        subject_id, subject_json = _subject_ref(subject, subject_type)
        try:
            brief = skill.brief(subject)
        except Refusal:  # (refused in the app's own words: told as they are)
            raise
        except Exception as error:  # the app's code: told in a sentence, its traceback logged
            log.error("%s.brief raised %s", type(skill).__name__, type(error).__name__,
                      exc_info=True)
            raise UserError(f"{type(skill).__name__}.brief raised {type(error).__name__}, so the "
                            "task was not begun: mend the brief; the app's log has the "
                            "traceback.") from error
        if not isinstance(brief, str):
            raise UserError(f"{type(skill).__name__}.brief returned {brief!r}: it returns the "
                            "words the model is given about the task's subject.")
        task_id = repo.new_id()
        trace = self.observer.started(task_id=task_id, agent=agent.agent_name(), skill=skill.name,
                                      model=model)
        opening = [Message(role="system", text=self.instructions(registered, skill)),
                   Message(role="user", text=brief)]
        row = repo.TaskRow(
            id=task_id, agent=agent.agent_name(), skill=skill.name,
            for_id=for_.id if for_ else None, subject_type=getattr(subject_type, "__name__", ""),
            subject_id=subject_id, subject_json=subject_json, status=TaskStatus.RUNNING.value,
            turn=0, turn_open=False, message_count=len(opening), steps=0, spend_usd=0.0,
            max_steps=max_steps, budget_usd=budget_usd, model=model.name, result=None,
            problem="", revision=0, holder=holds.holder_id(),
            held_until=repo.now() + holds.HOLD_FOR, fence=1, reserved_usd=0.0,
            trace_context=trace, seq=1, work_id=work)
        ahead = self._reserve_ahead(row, Conversation(opening), model) if asked_now else {}
        row = row.changed(**ahead) if ahead else row
        with self._database.connect() as db:
            if for_ is not None and not self._people.find_each([for_.id], within=db):
                # (a person of another app: the task's proposals waited on nobody, for ever)
                raise UserError(f"{for_.name} is not one of this app's people: give a person "
                                "of this app's (app.people.get(handle)).")
            owner = repo.work_owner(db, work) if work is not None else None
            if owner is not None and owner != (row.agent, row.for_id):
                raise UserError(f"The work {work} is another's: a task shares work only with "
                                "tasks of the same agent, for the same person.")
            before = repo.load_task(db, continues) if continues is not None else None
            if continues is not None and (work is None or before is None or
                                          before.work_id != work):
                raise UserError(f"Task {continues} is not a task of the work {work}: a task "
                                "goes on only from one of its own work (give that work).")
            repo.insert_task(db, row, opening)
            whom = f" for {for_.name}" if for_ else ""
            going_on = (f", going on with the work of task {continues}, which waits on a "
                        "decision" if continues else "")
            shared: dict[str, Any] = {"work": work} if work else {}
            if continues:
                shared["continues"] = continues
            repo.note(db, task_id, ReceiptKind.START,
                      f"{agent.__name__} began {skill.name}{whom}{going_on}.",
                      brief=brief, model=model.name, max_steps=max_steps,
                      budget_usd=budget_usd if math.isfinite(budget_usd) else None,  # JSON: none
                      **shared)
        self.models[task_id] = model
        if ahead:
            self._ahead[task_id] = row.revision
        self._local.started = (row, Conversation(opening))  # (see `started`: one task's)
        return task_id

    # -- running -------------------------------------------------------------------------

    def run(self, task_id: str, task: repo.TaskRow | None = None) -> Outcome:
        """Step the task until it waits, ends, or this process has no model for it, or another
        holds it (`task`: its row, when the caller has just read it)."""
        with self._database.holding():
            task = task or self._task(task_id)
            with self.observer.running(task) as running:
                task, step = self._drive(task, once=False)
                outcome = self._outcome(task, step if isinstance(step, WaitOn) else None)
                running.ended(outcome)
            return outcome

    def started(self, task_id: str) -> repo.TaskRow | None:
        """Task `task_id`'s row as this thread's `start` has just written it, for its `go_on`
        next, so that the task is not read again (with its conversation, kept for its steps
        here when they run here); None when this thread started another since."""
        started: tuple[repo.TaskRow, Conversation] | None = getattr(self._local, "started", None)
        self._local.started = None
        if started is None or started[0].id != task_id:
            return None
        row, conversation = started
        if self.runner is None:
            self._conversations[task_id] = conversation
        return row

    def go_on(self, task_id: str, task: repo.TaskRow | None = None) -> Outcome:
        """Let the task go on where the app's runner says: here (`run`), or in its workers."""
        if self.runner is None:
            return self.run(task_id, task)
        with self.observer.handing_on(task_id) as handing:
            outcome = self.runner.go_on(task_id, task)
            handing.ended(outcome)
            return outcome

    def step(self, task_id: str, *, more: Callable[[Step], bool] | None = None,
             last: Callable[[], bool] | None = None) -> Step:
        """Do one unit of the task's work, persisted; what happens next. The task is held for
        the unit and let go after it, so that its next unit may run in any process.

        `more`, when given, is asked after each unit that leaves the task running: while it
        says yes, the next unit follows under the same hold (a turn given from outside is its
        model's unit and its tools' unit, taken and let go once). `last`, when given, is asked
        before each unit whether it is the last: if that unit closes a turn, the task is let
        go in the same write."""
        with self._database.holding(), holds.stepping(task_id):
            task, hold = self._read_and_hold(task_id)
            with self.observer.running(task):
                if task.status != _RUNNING:
                    if not holds.stepped_by_another(task_id):
                        self._stopped(task)
                    return self._as_step(task)
                return self._drive_held(task, once=True, more=more, last=last, hold=hold)[1]

    def _read_and_hold(self, task_id: str) -> tuple[repo.TaskRow, holds.Hold | None]:
        """The task as it reads now and, when it runs, this thread's hold on it (None: another
        may be stepping it), read and taken in one transaction."""
        with self._database.connect() as db:
            task = repo.load_task(db, task_id)
            if task is None:
                raise UnknownId(f"There is no task with id {task_id}.")
            if task.status != _RUNNING:
                return task, None
            hold = holds.Hold(task=task_id, fence=task.fence) if (
                task.holder == holds.holder_id()) else holds.take(db, task_id)
            if hold is not None:
                self._read_work(db, task)
            return task, hold

    def _drive(self, task: repo.TaskRow, *, once: bool) -> tuple[repo.TaskRow, Step]:
        """Hold the task and step it (once, or until it stops running); the task as it then
        reads, and what happens next."""
        if task.status != _RUNNING:
            if not holds.stepped_by_another(task.id):  # (read before that thread stepped it on)
                self._stopped(task)
            return task, self._as_step(task)
        with holds.stepping(task.id):  # no other thread here takes it over meanwhile
            return self._drive_held(task, once=once)

    def _drive_held(self, task: repo.TaskRow, *, once: bool,
                    more: Callable[[Step], bool] | None = None,
                    last: Callable[[], bool] | None = None,
                    hold: holds.Hold | None = None) -> tuple[repo.TaskRow, Step]:
        """Step the held task (`hold`: taken already, else taken here; once — and again while
        `more` says so — or until it stops running; `last`: see `step`)."""
        task_id = task.id
        hold = hold or self._hold(task)
        if hold is None:  # another holds it, and goes on with it
            if not holds.stepped_by_another(task_id):  # (what this process keeps of it is
                self.forget(task_id)                  # that thread's, when it is one of ours)
            return task, HandOn(why="another process is stepping the task")
        if self._fences.get(task_id, task.fence) != task.fence:
            work = self._work_heads.get(task_id)  # (read as the hold was taken: still true)
            self.forget(task_id)  # another held it since this process did: read it afresh
            if work is not None:
                self._work_heads[task_id] = work
        self._fences[task_id] = hold.fence
        held = self._holds()
        held[task_id] = hold
        step: Step = RunAgain()
        self._local.going_on = None if once else task_id  # (see `_holds_back`)
        try:
            while isinstance(step, RunAgain) and task.status == _RUNNING:
                self._local.closing = task_id if last is not None and last() else None
                step = self._step(task)
                task = self._take_saved(task_id) or self._task(task_id)
                if once and (more is None or not more(step)):
                    break
            let_go = getattr(self._local, "let_go", None) != task_id  # not with a turn's close
            if task.status == _RUNNING and let_go and (
                    once or not isinstance(step, RunAgain)):
                self._let_go(hold)  # it goes on elsewhere (a worker with its model, or the
                # next single step, which whoever runs it takes the task for)
        except holds.LostHold as lost:
            if isinstance(lost, _MovedOn):  # the hold is still this thread's: let go of it
                with contextlib.suppress(Exception):  # (others need not wait for it to expire)
                    self._let_go(hold)
            step = HandOn(why=str(lost) if isinstance(lost, _MovedOn) else
                          "another process took the task over")
            task = self._task(task_id)
        except BaseException:
            with contextlib.suppress(Exception):  # others need not wait for the hold to expire
                self._let_go(hold)
            raise
        finally:
            held.pop(task_id, None)
            self._local.closing = self._local.let_go = self._local.going_on = None
        if not isinstance(step, RunAgain):
            self._stopped(task)
        return task, step

    def _step(self, task: repo.TaskRow) -> Step:
        points.reached("loop.stepping", task=task.id)
        if task.status != _RUNNING:
            return self._as_step(task)
        if task.turn_open:
            return self._tool_turn(task)
        return self._model_turn(task)

    def _as_step(self, task: repo.TaskRow) -> Step:
        """What happens next with a task that is not running (as the store says)."""
        status = TaskStatus(task.status)
        if status is TaskStatus.DONE:
            return Done(result=task.result)
        if status is TaskStatus.HALTED:
            return Halted(problem=task.problem)
        if status is TaskStatus.FAILED:
            return Failed(problem=task.problem)
        if status is TaskStatus.WAITING:
            with self._database.connect() as db:
                pending = repo.waiting_of_task(db, task.id)
            return WaitOn(proposals=tuple(p.id for p in pending),
                          waiting_on=tuple(f"a decision from {self._route_words(p)}"
                                           for p in pending), waiting_until=_soonest(pending))
        return RunAgain()

    def outcome(self, task_id: str) -> Outcome:
        """Where the task stands now."""
        return self._outcome(self._task(task_id))

    def _outcome(self, task: repo.TaskRow, waited: WaitOn | None = None) -> Outcome:
        """Where `task` stands (`waited`: what it waits on, when the step that stopped it has
        just said so)."""
        task_id = task.id
        status = TaskStatus(task.status)
        waiting, until = (waited.waiting_on, waited.waiting_until) if waited else (None, None)
        if status is TaskStatus.WAITING and waited is None:
            with self._database.reading() as db:
                pending = repo.waiting_of_task(db, task_id)
            waiting = tuple(f"a decision from {self._route_words(p)}" for p in pending)
            until = _soonest(pending)
        problem = task.problem
        if status is TaskStatus.RUNNING and not problem:  # why no worker steps it, if one said
            with self._database.reading() as db:
                problem = model_specs.problems(db, [task_id]).get(task_id, "")
        result = None
        if status is TaskStatus.DONE:
            registered = self._agents(task.agent)
            _, result_type = registered.agent.skill(task.skill).types()
            result = result_of(result_type, task.result)
        return Outcome(status=status, task=task_id, result=result,
                       waiting_on=waiting if status is TaskStatus.WAITING and waiting else (),
                       waiting_until=until,
                       problem=problem, steps=task.steps, spend_usd=task.spend_usd)

    def resume_after_decision(self, task_id: str) -> TaskStatus:
        """After a decision: when the task waits on nothing more, it goes on (here, when this
        process has its model; else in a worker)."""
        task = self._task(task_id)
        if task.status == TaskStatus.WAITING.value:
            # One transaction reads and writes: it takes the write lock as it begins (SQLite
            # BEGIN IMMEDIATE, see signoff.store.database), and the revision guards the write.
            with self._database.connect() as db:
                woke = self.wake(db, task_id)
                if woke is None:
                    task = repo.load_task(db, task_id) or task
                    return TaskStatus(task.status)
            task = woke
        return self.go_on(task_id, task).status

    def wake(self, db: repo.Executor, task_id: str) -> repo.TaskRow | None:
        """In the transaction `db`: if the task waits on no proposal any more, it runs again,
        held by this thread, and its turn closes (a decision calls this in its own transaction,
        so that the task goes on with it, at its next model turn); the task as it then reads,
        or None when it still waits (or was not waiting)."""
        holds.lock(db, task_id)
        task = repo.load_task(db, task_id)
        if task is None or task.status != TaskStatus.WAITING.value:
            return None
        calls = repo.calls_of(db, task_id, task.turn)  # with what this transaction decided
        if any(_awaits(c) for c in calls):
            return None
        woken: dict[str, Any] = dict(status=TaskStatus.RUNNING.value, holder=holds.holder_id(),
                                     held_until=repo.now() + holds.HOLD_FOR,
                                     fence=task.fence + 1)
        if task.turn_open and not any(_unsettled(c) for c in calls):
            # Its turn closes in the same statement (`_save`'s `defer`): the head is locked.
            self._local.deferred = _Deferred(task=task, added=[], changes=woken, held=False,
                                             step=journal.pending(db, task_id))
            repo.note(db, task_id, ReceiptKind.RESUMED,
                      "Every proposal is decided; the task goes on.")
            self._close_turn(db, task.changed(**woken), calls)
            return self._take_saved(task_id)
        if not repo.save_task(db, task, **woken):
            return None
        repo.note(db, task_id, ReceiptKind.RESUMED, "Every proposal is decided; the task goes on.")
        # (a call of the turn left to run, its holder runs it)
        return task.changed(revision=task.revision + 1, **woken)

    # -- one model turn ------------------------------------------------------------------

    def _model_turn(self, task: repo.TaskRow) -> Step:
        model = self.models.get(task.id)
        if model is None:  # (nor, it may be, its agent: a decision made with the app alone)
            return HandOn(why="this process has no model for the task")
        registered = self._agents(task.agent)
        skill = registered.agent.skill(task.skill)
        # A call's step is counted, and its worst case reserved, durably before it is made (so
        # that a call whose reply is lost still counts: steps are the model calls asked). The
        # write that closed the last turn did both for this very call when this process made
        # it (`counted`); any other reservation was made for a call whose reply was lost.
        counted = self._ahead.pop(task.id, None) == task.revision
        ahead = task.reserved_usd if counted else 0.0
        if task.reserved_usd and not counted:
            with self._writing(task.id) as db:
                if not self._save(db, task, reserved_usd=0.0):
                    return RunAgain()
                repo.note(db, task.id, ReceiptKind.RESERVED,
                          f"A call to {task.model} was made before the work stopped, and its reply "
                          f"was lost: the ${task.reserved_usd:.6f} reserved for it is counted as "
                          "spent (what it really cost is not known), and the call as one of the "
                          "task's steps.", cost_usd=task.reserved_usd,
                          reserved_usd=task.reserved_usd)
            task = self._saved.pop(task.id)
        taken = task.steps - 1 if counted else task.steps  # the model calls asked before it
        spent = budget.unreserved(task.spend_usd, ahead)  # before this call's reservation
        unreserve = {"spend_usd": spent, "reserved_usd": 0.0, "steps": taken} if counted else {}
        decision = next_action(taken, task.max_steps, spent, task.budget_usd, False, False)
        if decision is NextAction.HALT:
            steps = "step" if task.max_steps == 1 else "steps"
            why = (f"it reached its budget of ${task.budget_usd:.4f}"
                   if spent >= task.budget_usd
                   else f"it reached its limit of {task.max_steps} {steps}")
            return self._end(task, Halted(problem=f"Halted: {why}."), unreserve)
        tools = self.tool_specs(registered, skill)
        max_out = registered.agent.max_output_tokens
        if model.price is None and task.budget_usd != float("inf"):
            return self._end(task, Failed(
                problem=f"The price of {model.name} is not known, so its cost cannot be kept "
                        "within the budget: set its price (a ModelSpec's or model_from's price=, "
                        "Price(input_per_mtok=0, output_per_mtok=0) for a free one; --price on "
                        "the command line), or give the task no budget (budget_usd=float('inf'))."
            ), unreserve)
        conversation = self.messages(task)
        tokens = _tokens_counted(model, conversation, tools) if model.price else 0
        if isinstance(tokens, str):
            return self._end(task, Failed(problem=tokens), unreserve)
        reserve = model.price.cost(tokens, max_out) if model.price else 0.0
        if not budget.fits(spent, reserve, task.budget_usd):
            return self._end(task, Halted(
                problem=f"Halted: the next model call could cost up to ${reserve:.6f}, more "
                        f"than the ${task.budget_usd - spent:.6f} left of its budget. Give "
                        "the work a larger budget (budget_usd), or its agent a smaller "
                        "max_output_tokens."),
                unreserve, reserved_usd=reserve, spend_usd=spent, budget_usd=task.budget_usd)
        if counted and reserve <= ahead:
            reserve = ahead  # counted and reserved already, durably, with the last turn's close
        elif reserve or not model_specs.given_from_outside(model.name):  # (a turn a client
            # gave asks no model here: its step is counted as it is stored)
            with self._writing(task.id) as db:  # durably, before the model is asked
                if not self._save(db, task, steps=taken + 1,
                                  spend_usd=budget.added(spent, reserve, task.budget_usd),
                                  reserved_usd=reserve):
                    return RunAgain()
            task = self._saved.pop(task.id)
        points.reached("loop.model_reserved", task=task.id)
        try:
            reply = self.observer.complete(task, model, conversation, tools,
                                           max_output_tokens=max_out)
            points.reached("loop.model_replied", task=task.id)
        except ModelError as error:  # told in words (the task's problem); its chain of causes
            log.warning("The model %s failed in task %s: %s", model.name, task.id, error,
                        exc_info=error if log.isEnabledFor(logging.DEBUG) else None,  # debugging
                        extra={ALSO_THE_PROBLEM: True})
            return self._model_failed(task, model.name, error, reserve)
        except Exception as error:  # unforeseen: where it came from is wanted
            log.exception("The model %s failed in task %s", model.name, task.id)
            return self._model_failed(task, model.name, error, reserve)
        unread = not_a_reply(reply)
        if unread:  # (a model of the app's own: told, as the provider's failures are)
            log.error("The model %s failed in task %s: it answered with %s", model.name,
                      task.id, unread)
            return self._model_failed(task, model.name, ModelError(
                f"{model.name} answered with {unread}, which is no reply: a model's complete "
                "returns a signoff.models.Reply (its text as str, its tool calls as "
                "ToolCall(id, name, arguments), each a str, the arguments JSON text; its usage a "
                "Usage).", model=model.name, sent=True), reserve)
        said = whole(reply.text)  # (what it says is kept, and told back, as text)
        usage = reply.usage
        if not usage.counted:
            return self._untrusted_usage(task, model.name, said, usage, None, reserve)
        cost = model.price.cost(usage.input_tokens, usage.output_tokens) if (
            model.price) else 0.0
        spent = budget.settled(task.spend_usd, reserve, cost)
        if budget.over_reserved(cost, reserve):
            return self._untrusted_usage(task, model.name, said, usage, cost, reserve)
        # (a model with no price runs only with no budget: what it cost is not known, not 0)
        priced = f"${cost:.6f}" if model.price else (
            f"its cost not known (no price was given for {model.name})")
        unpriced = {} if model.price else {"model": model.name, "priced": False}
        turn = task.turn + 1
        calls = _with_own_ids(reply.tool_calls, turn, conversation.call_ids)
        added = [Message(role="assistant", text=said, tool_calls=calls)]
        if not calls:
            added.append(Message(
                role="user", text=f"Use a tool, or hand back your result with {HAND_BACK}."
            ))
        rows = [repo.CallRow(id=repo.new_id(), task_id=task.id, turn=turn, position=position,
                             call_id=call.id, tool=call.name, arguments=call.arguments,
                             why=said, state=CallState.NEW, **_NEW_CALL)
                for position, call in enumerate(calls)]
        asked = ", ".join(cut_short(c.name) for c in calls) or "no tool"
        step = taken + 1
        changes: dict[str, Any] = dict(spend_usd=spent, reserved_usd=0.0, turn=turn,
                                       turn_open=bool(calls), steps=step)  # (counted as asked,
        # unless the turn was given)

        def store(db: repo.Executor, *, held: bool, defer: bool = False) -> bool:
            """The reply stored, in `db`'s transaction: False when the task moved on since
            (`defer`: see `_check`)."""
            if not self._save(db, task, added=added, held=held, defer=defer, **changes):
                return False
            for row in rows:
                repo.insert_call(db, task.id, row_id=row.id, turn=turn, position=row.position,
                                 call_id=row.call_id, tool=row.tool, arguments=row.arguments,
                                 why=row.why, state=CallState.NEW)
            repo.note(db, task.id, ReceiptKind.MODEL_CALL,
                      f"{model.name} was asked (step {step}) and answered with {asked}; "
                      f"{reply.usage.input_tokens} tokens in, {reply.usage.output_tokens} out, "
                      f"{priced}.", cost_usd=cost, input_tokens=reply.usage.input_tokens,
                      output_tokens=reply.usage.output_tokens, text=said,
                      reserved_usd=reserve, **unpriced)
            return True

        one_step = self._holds_back(task, registered, skill, calls)
        if not one_step:
            with self._writing(task.id, saving=True) as db:
                if not store(db, held=True):
                    return RunAgain()  # someone else stepped it: look again
        self._remember(task, added)
        if rows:
            self._turn_calls[task.id] = (turn, rows)
        if not one_step:
            return RunAgain()
        # One unit: the call is gated and run now, and the reply is stored with what that
        # writes first, in its transaction (`_check`): one step.
        self._replies[task.id] = store
        try:
            return self._tool_turn(task.changed(
                revision=task.revision + 1, message_count=task.message_count + len(added),
                **changes), registered, skill)
        finally:
            if self._replies.pop(task.id, None) is not None:  # never stored: what this
                self.forget(task.id)  # process keeps ahead of the store goes too

    def _holds_back(self, task: repo.TaskRow, registered: Registered, skill: Skill[Any, Any],
                    calls: tuple[ToolCall, ...]) -> bool:
        """Whether the model's turn and the run of the call it asks for are one unit, stored as
        one step: when it asks for one call of a tool of the skill that writes no more than
        records, or hands back its result (the run, or the result, commits with its step, so a
        crash before it loses both: the lost call stays counted, as spent and as a step, and the
        model is asked again), and this thread goes on stepping the task (a runner that steps a
        task unit by unit, elsewhere, is given the model's turn alone)."""
        if len(calls) != 1 or getattr(self._local, "going_on", None) != task.id:
            return False
        name = calls[0].name
        if name == HAND_BACK:
            return True  # the result handed back, and the task done, in the reply's step
        if not self.offers(skill, name):
            return False
        effects = self._actions.info(name).effects
        return not (effects.external or effects.sends or effects.spends)

    def _model_failed(self, task: repo.TaskRow, model: str, error: Exception,
                      reserve: float) -> Step:
        """The task fails, told in the model error's own sentence. What was reserved for the
        call is given back when the call cost nothing (nothing reached the provider, or it
        answered with an error status); else it is counted as spent, and the receipt says so
        (the provider may have billed a request it never answered)."""
        told = str(error) if isinstance(error, ModelError) else (  # a provider's sentence
            f"{type(error).__name__}. The log has the details.")
        failed = Failed(problem=f"The model failed: {told}")
        if isinstance(error, ModelError) and error.cost_nothing:  # (nor is it counted as asked)
            return self._end(task, failed, {"spend_usd": budget.unreserved(task.spend_usd, reserve),
                                            "reserved_usd": 0.0, "steps": task.steps - 1})
        if not reserve:
            return self._end(task, failed)
        with self._writing(task.id) as db:
            if not self._save(db, task, status=failed.status.value, problem=failed.problem,
                              reserved_usd=0.0):
                return RunAgain()
            repo.note(db, task.id, ReceiptKind.RESERVED,
                      f"The call to {model} failed after its request went out, and the provider "
                      f"may have billed it: the ${reserve:.6f} reserved for it is counted as spent "
                      "(what it really cost is not known).", cost_usd=reserve,
                      reserved_usd=reserve)
            repo.note(db, task.id, ReceiptKind.FAILURE, failed.problem)
        return failed

    def _untrusted_usage(self, task: repo.TaskRow, model: str, text: str, usage: Usage,
                         cost: float | None, reserve: float) -> Step:
        """A reply whose usage cannot be taken to fit its reservation, told as such, and the
        task stops (its budget could be passed unseen otherwise): usage that is more than the
        reservation allowed, recorded as it cost (`cost`); or usage that is no count of tokens
        (`cost` None: below 0, which would have lowered the spend recorded, or not a whole
        number), for which the reservation is counted as spent."""
        counts = usage.counted
        spent = budget.settled(task.spend_usd, reserve, reserve if cost is None else cost)
        tokens_in, tokens_out = _shown(usage.input_tokens), _shown(usage.output_tokens)
        if cost is None:
            cost = reserve
            problem = (f"Halted: {model} reported {tokens_in} tokens in and {tokens_out} out, "
                       "which is no count of tokens (a whole number, 0 or more): the "
                       f"${reserve:.6f} reserved for the call is counted as spent, and the task "
                       "stops so that its budget is not passed unseen. Check the model's token "
                       "counting.")
        else:
            passed = (f", which passes the task's budget of ${task.budget_usd:.6f}: the "
                      "task stops" if spent > task.budget_usd else
                      "; the task stops so that its budget is not passed unseen")
            problem = (f"Halted: {model} reported {tokens_in} tokens in and {tokens_out} out, "
                       f"${cost:.6f}, more than was reserved for the call (${reserve:.6f})"
                       f"{passed}. Check the model's price and token counting.")
        with self._writing(task.id) as db:
            if not self._save(db, task, added=[Message(role="assistant", text=text)],
                              spend_usd=spent, reserved_usd=0.0,
                              status=TaskStatus.HALTED.value, problem=problem):
                return RunAgain()
            repo.note(db, task.id, ReceiptKind.MODEL_CALL,
                      f"{model} was asked (step {task.steps}); {tokens_in} tokens in, "
                      f"{tokens_out} out, ${cost:.6f}.", cost_usd=cost,
                      input_tokens=usage.input_tokens if counts else None,
                      output_tokens=usage.output_tokens if counts else None,
                      reported=None if counts else f"{tokens_in} in, {tokens_out} out",
                      text=text, reserved_usd=reserve)
            repo.note(db, task.id, ReceiptKind.LIMIT, problem, cost_usd=0.0, reserved_usd=reserve,
                      spend_usd=spent, budget_usd=task.budget_usd)
        return Halted(problem=problem)

    # -- one tool turn -------------------------------------------------------------------

    def _tool_turn(self, task: repo.TaskRow, registered: Registered | None = None,
                   skill: Skill[Any, Any] | None = None) -> Step:
        """Gate and run (or propose, or refuse) each new call of the open turn, then settle the
        turn: closed with every answer told to the model, or waiting on its proposals. The calls
        are those this process stored with the model's turn when it has them; a turn of one call
        settles in that call's own transaction. (`registered` and `skill`: the task's, when the
        model's turn in the same unit has them.)"""
        if registered is None or skill is None:
            registered = self._agents(task.agent)
            skill = registered.agent.skill(task.skill)
        known = self._turn_calls.pop(task.id, None)
        if known is not None and known[0] == task.turn:
            calls = known[1]
        else:
            with self._writing(task.id) as db:  # (it may close the turn: a write of a step,
                calls = repo.calls_of(db, task.id, task.turn)  # which checks the hold first)
                settled = None if any(_unsettled(c) for c in calls) else (
                    self._settle_turn(db, task, calls))
            points.reached("loop.calls_read", task=task.id)
            if isinstance(settled, list):
                return self._wait(task, settled)
            if settled is not None:
                return settled
        only = len(calls) == 1  # a turn of one call is settled in that call's own transaction
        for call in calls:
            points.reached("loop.gating", task=task.id, tool=call.tool)
            ended: Step | None = None
            if not _unsettled(call):
                continue
            with self.observer.tool_call(task, call):
                if call.state == CallState.NEW:
                    ended = self._gate_call(task, registered, skill, call, calls, only)
                else:
                    ended = self._recover_call(task, registered, skill, call)
            if ended is not None:
                return self._told(task, ended)
        with self._writing(task.id) as db:
            settled = self._settle_turn(db, task, repo.calls_of(db, task.id, task.turn))
            if not isinstance(settled, list):
                return settled
        return self._wait(task, settled)

    def _told(self, task: repo.TaskRow, step: Step) -> Step:
        """`step`, once the handlers are told that the task waits (when it does)."""
        if isinstance(step, WaitOn):
            self._events.emit(AgentTaskWaiting(task=task.id, waiting_on=step.waiting_on))
        return step

    def _wait(self, task: repo.TaskRow, pending: list[Proposal]) -> Step:
        """Store that the task waits on what of `pending` still waits (who decides is told in
        words, read outside the transaction). The turn is read again in the transaction that
        stores it, after the task's head is locked: a decision taken since is not missed (the
        turn closes instead), and one taken later finds the task waiting, and wakes it."""
        words = {p.id: f"a decision from {self._route_words(p)}" for p in pending}
        points.reached("loop.turn_read", task=task.id)
        with self._writing(task.id) as db:
            settled = self._settle_turn(db, task, repo.calls_of(db, task.id, task.turn))
            if not isinstance(settled, list):
                return settled
            step = self._store_wait(db, task, tuple(p.id for p in settled), tuple(
                words.get(p.id) or f"a decision from {self._route_words(p)}" for p in settled),
                _soonest(settled))
        return self._told(task, step)

    def end_given(self, task_id: str, why: str, *, withdraw: bool = False) -> bool:
        """End a task whose turns a client gave, now that the client has gone (or one a person
        stops): it halts, and its receipt says `why`. A proposal it waits on stays to be decided
        (an approved call still runs once), unless `withdraw`; an alone call its last holder
        left running (its process killed while the call was out) is told as of unknown outcome.
        Whether it has ended (not while another thread steps it)."""
        with self._database.holding(), holds.stepping(task_id):
            task = self._task(task_id)
            if task.status in _ENDED:
                return True
            hold = self._hold(task)
            if hold is None:
                return False
            held = self._holds()
            held[task_id] = hold
            try:
                with self._writing(task_id) as db:
                    for call in repo.calls_of(db, task_id, task.turn):
                        if call.state == CallState.RUNNING and call.leave == Leave.ALONE.words:
                            self._told_unknown(db, task_id, call)
                    if not self._save(db, task, status=TaskStatus.HALTED.value, problem=why):
                        return False
                    repo.note(db, task_id, ReceiptKind.ENDED, why)
                    for withdrawn in withdraw_with_task(db, task_id, why) if withdraw else ():
                        self.kept_proposals.take(withdrawn)
            except holds.LostHold:
                return False
            finally:
                held.pop(task_id, None)
            self._stopped(self._take_saved(task_id) or task)
            return True


def _soonest(pending: list[Proposal]) -> datetime | None:
    """The soonest deadline of the proposals still waiting in `pending` (None: none has one)."""
    return min((p.deadline_at for p in pending
                if p.deadline_at is not None and p.status is ProposalStatus.WAITING), default=None)


def _unsettled(call: repo.CallRow) -> bool:
    """Whether `call` is left for the task's holder to run: new, or an alone outside call a
    holder before it marked running and never recorded."""
    return call.state == CallState.NEW or (
        call.state == CallState.RUNNING and call.leave == Leave.ALONE.words)


def _shown(count: Any) -> str:
    """A count a model reported, as a message names it (cut short when it is long)."""
    shown = str(count) if isinstance(count, int) else repr(count)
    return shown if len(shown) <= 24 else f"{shown[:12]}…{shown[-6:]}"


_NEW_CALL: dict[str, Any] = dict(leave="", outcome="", said="", value=None, problem="",
                                 ran_as=None, effects=None, answer="")
"""A new tool call's columns that the model's turn does not set (their defaults)."""


def _tokens_counted(model: Model, conversation: Conversation, tools: list[Any]) -> int | str:
    """How many tokens `model` counts the call it is asked next to take (its reservation is
    worked out from them); or why that cannot be known, in a sentence, when its `count_tokens`
    (a model of the app's own) raises or answers no count."""
    try:
        tokens = model.count_tokens(conversation, tools)
    except Exception as error:
        log.exception("The model %s could not count the tokens of its next call", model.name)
        return (f"{model.name}'s count_tokens raised {type(error).__name__}, so what its next "
                "call could cost cannot be kept within the budget (the log has the details). "
                "Nothing was asked of it.")
    if not is_token_count(tokens):
        return (f"{model.name}'s count_tokens answered {kind_of(tokens)}, not a count of "
                "tokens (a whole number, 0 or more), so what its next call could cost cannot "
                "be kept within the budget. Nothing was asked of it.")
    return tokens


def _with_own_ids(calls: tuple[ToolCall, ...], turn: int,
                  earlier: Container[str]) -> tuple[ToolCall, ...]:
    """A turn's calls, each with an id of its own: one the model left empty, or gave an earlier
    call of the turn or of the conversation (`earlier`) too, is replaced
    (``call_<turn>_<position>``), so that each answer names the one call it answers (the turn
    is stored, and sent back to the model, so: a provider refuses a conversation that asks two
    calls by one id); half a character in one is replaced as in its text (`whole`)."""
    taken: set[str] = set()
    own = []
    for position, call in enumerate(calls):
        given = whole(call.id)
        if not given or given in taken or given in earlier:
            given = f"call_{turn}_{position}"
            while given in taken or given in earlier:
                given += "_"
        taken.add(given)
        arguments = kept_arguments(call.arguments)  # (a model of the app's own: as a
        # provider's are kept)
        own.append(call if given == call.id and arguments is call.arguments else ToolCall(
            id=given, name=call.name, arguments=arguments))
    return tuple(own)


def _subject_ref(subject: Any, subject_type: Any) -> tuple[str | None, Any]:
    from signoff.security.records import RecordBase

    if subject is None:
        return None, None
    if isinstance(subject, RecordBase):
        return str(subject.id), None
    return None, TypeAdapter(subject_type if subject_type else type(subject)).dump_python(
        subject, mode="json"
    )
