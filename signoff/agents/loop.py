"""The loop, one step at a time: ``step(task)`` does one unit of work and persists it.

A unit is either one model call, or the tool calls of one model turn, each gated on its own:
those that may run alone run, the others are proposed, refused ones are told to the model. A
task whose turn has proposals waiting stops (``Waiting``): nothing runs and no model is asked
until a person decides.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import math
import threading
import uuid
from collections.abc import Callable, Container, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import TypeAdapter
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from signoff.actions.catalog import Action
from signoff.actions.effects import Effects
from signoff.actions.registry import Actions
from signoff.actions.results import ActionOutcome, ActionResult
from signoff.agents import holds
from signoff.agents import repository as repo
from signoff.agents.agent import Agent
from signoff.agents.events import AgentProposed, AgentTaskWaiting, Events
from signoff.agents.gate import Verdict, gate
from signoff.agents.handing_back import hand_back_spec, read_result, result_of, task_view
from signoff.agents.labelling import TaskLabels, evidence_of, trusted_text
from signoff.agents.observer import Observer
from signoff.agents.permits import Leave
from signoff.agents.proposals import Proposal, ProposalStatus
from signoff.agents.proposing import Kept, KeptProposals, Routing, proposal_of
from signoff.agents.runner import Runner
from signoff.agents.skills import Skill
from signoff.agents.states import HAND_BACK, CallOutcome, CallState, ReceiptKind
from signoff.agents.steps import Done, Failed, Halted, HandOn, RunAgain, Step, WaitOn
from signoff.agents.tasks import Outcome, TaskStatus
from signoff.exceptions import Invalid, NotFound
from signoff.limits import budget
from signoff.limits.provenance import NOTHING_SEEN, Labels
from signoff.limits.steps import NextAction, next_action
from signoff.models.base import Conversation, Message, Model, ToolCall, ToolSpec
from signoff.models.errors import ModelError
from signoff.security.acting import ActingAs
from signoff.security.principals import People, Principal
from signoff.store import journal, points
from signoff.store.database import Database

__all__ = ["HAND_BACK", "Loop", "Registered"]

log = logging.getLogger("signoff.agents")



@dataclass(frozen=True, kw_only=True)
class Registered:
    """An agent the app knows, with its own account and its sponsor."""

    agent: type[Agent]
    """The agent's class."""
    account: Principal
    """Its own account."""
    sponsor: Principal | None
    """The person who answers for it (decides proposals of work for nobody)."""


def answer_of(result: ActionResult) -> str:
    """What the model is told of a run."""
    if result.done:
        if result.said:
            return result.said
        return json.dumps(result.value) if result.value is not None else "Done."
    return f"{result.outcome.value}: {result.problem}"


class Loop:
    """Steps tasks: the state machine behind ``agent.do``."""

    def __init__(
        self,
        *,
        database: Database,
        actions: Actions,
        people: People,
        events: Events,
        agents: Callable[[str], Registered],
        route_words: Callable[[Proposal], str],
        decider_of: Callable[[Registered, Skill[Any, Any], str, str | None], Routing],
    ) -> None:
        self._database = database
        self._actions = actions
        self._people = people
        self._events = events
        self._agents = agents
        self._route_words = route_words
        self._decider_of = decider_of
        self.models: dict[str, Model] = {}
        self.observer = Observer()
        """Told what the loop does, at named points (tracing, when it is on)."""
        self._conversations: dict[str, Conversation] = {}
        self._saved: dict[str, repo.TaskRow] = {}
        self._specs: dict[tuple[Any, ...], list[ToolSpec]] = {}
        self._turn_calls: dict[str, tuple[int, list[repo.CallRow]]] = {}
        self._labels = TaskLabels(lambda name: actions.get(name) if name in actions else None)
        """What each task this process steps has seen, to label its calls' arguments."""
        """The tool calls of each task's open turn, as this process stored them."""
        self._local = threading.local()  # the holds of the tasks this thread steps
        self._fences: dict[str, int] = {}
        """The fence of this process's last hold on each task it keeps anything of: what it
        keeps is the store's only while no other held the task since."""
        self._ahead: dict[str, int] = {}
        """The revision at which this process reserved each task's next model call ahead."""
        self.kept_proposals = KeptProposals()
        """The proposals this process made that its tasks wait on (see `KeptProposals`)."""
        self.runner: Runner | None = None
        """Where tasks go on once they may (`go_on`): here when None."""

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
    ) -> str:
        """Store a new task and its opening messages; its id."""
        agent = registered.agent
        subject_type, _ = skill.types()
        subject_id, subject_json = _subject_ref(subject, subject_type)
        brief = skill.brief(subject)
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
            trace_context=trace, seq=1)
        with self._database.connect() as db:
            repo.insert_task(db, row, opening)
            whom = f" for {for_.name}" if for_ else ""
            repo.note(db, task_id, ReceiptKind.START, f"{agent.__name__} began {skill.name}{whom}.",
                      brief=brief, model=model.name, max_steps=max_steps,
                      budget_usd=budget_usd if math.isfinite(budget_usd) else None)  # JSON: none
        self.models[task_id] = model
        self._local.started = (row, Conversation(opening))  # (see `started`: one task's)
        return task_id

    def instructions(self, registered: Registered, skill: Skill[Any, Any]) -> str:
        """What the model is told of its purpose and skill."""
        agent = registered.agent
        parts = [agent.purpose, skill.description, agent.instructions,
                 f"Use the tools to do the work. When it is done, call {HAND_BACK} with the result. "
                 "A call that changes things may be put to a person, who decides; you are told "
                 "what they decided."]
        return "\n\n".join(p.strip() for p in parts if p.strip())

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
        return self.runner.go_on(task_id, task)

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
                if task.status != TaskStatus.RUNNING.value:
                    self._stopped(task)
                    return self._as_step(task)
                return self._drive_held(task, once=True, more=more, last=last, hold=hold)[1]

    def _read_and_hold(self, task_id: str) -> tuple[repo.TaskRow, holds.Hold | None]:
        """The task as it reads now and, when it runs, this thread's hold on it (None: another
        may be stepping it), read and taken in one transaction."""
        with self._database.connect() as db:
            task = repo.load_task(db, task_id)
            if task is None:
                raise NotFound(f"There is no task with id {task_id}.")
            if task.status != TaskStatus.RUNNING.value:
                return task, None
            if task.holder == holds.holder_id():
                return task, holds.Hold(task=task_id, fence=task.fence)
            return task, holds.take(db, task_id)

    def _drive(self, task: repo.TaskRow, *, once: bool) -> tuple[repo.TaskRow, Step]:
        """Hold the task and step it (once, or until it stops running); the task as it then
        reads, and what happens next."""
        if task.status != TaskStatus.RUNNING.value:
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
        if self._fences.get(task_id, task.fence) != task.fence:
            self._forget(task_id)  # another held it since this process did: read it afresh
        hold = hold or self._hold(task)
        if hold is None:  # another holds it, and goes on with it
            self._forget(task_id)
            return task, HandOn(why="another process is stepping the task")
        self._fences[task_id] = hold.fence
        held = self._holds()
        held[task_id] = hold
        step: Step = RunAgain()
        self._local.going_on = None if once else task_id  # (see `_holds_back`)
        try:
            while isinstance(step, RunAgain) and task.status == TaskStatus.RUNNING.value:
                self._local.closing = task_id if last is not None and last() else None
                step = self._step(task)
                task = self._take_saved(task_id) or self._task(task_id)
                if once and (more is None or not more(step)):
                    break
            let_go = getattr(self._local, "let_go", None) != task_id  # not with a turn's close
            if task.status == TaskStatus.RUNNING.value and let_go and (
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

    @property
    def _replies(self) -> dict[str, Callable[..., bool]]:
        """The model's reply to each task whose turn and call are one unit (`_holds_back`) in
        this thread, while that unit runs: how to store it, in the first transaction that writes
        (`_check`). This thread's alone: no other thread's `_forget` drops it."""
        found: dict[str, Callable[..., bool]] | None = getattr(self._local, "replies", None)
        if found is None:
            found = self._local.replies = {}
        return found

    def _holds(self) -> dict[str, holds.Hold]:
        """The holds of the tasks this thread is stepping."""
        found: dict[str, holds.Hold] | None = getattr(self._local, "holds", None)
        if found is None:
            found = self._local.holds = {}
        return found

    def _hold(self, task: repo.TaskRow) -> holds.Hold | None:
        """This thread's hold on `task`: given with it (this thread started or woke it), or
        taken now; None when another may still be stepping it."""
        if task.holder == holds.holder_id():
            return holds.Hold(task=task.id, fence=task.fence)
        with self._database.connect() as db:
            return holds.take(db, task.id)

    def _let_go(self, hold: holds.Hold) -> None:
        with self._database.connect() as db:
            repo.let_go(db, hold.task, hold.fence)

    @contextmanager
    def _writing(self, task_id: str, *, saving: bool = False, closing: bool = False
                 ) -> Iterator[Connection]:
        """A transaction writing a step of `task_id`: it begins by checking this thread's hold
        (which locks the task's head on PostgreSQL); `holds.LostHold` if it was lost. Given
        `saving`, its first statement is the task's save (`_save` with `held`), which checks the
        hold itself. Given `closing`, it closes the turn (see `_check`)."""
        with self._database.connect() as db:
            self._local.deferred = None  # (made in a transaction that has ended)
            if not saving:
                self._check(db, task_id, closing=closing)
            yield db
            deferred = self._deferred_in(db, task_id)
            if deferred is not None:  # no save followed the reply's: it is written now
                self._save(db, deferred.task)
        self._replies.pop(task_id, None)  # stored, if it was held back (`_check`)

    def _check(self, db: repo.Executor, task_id: str, *, closing: bool = False) -> None:
        """In the transaction `db`, before it writes anything of a step of `task_id`: this
        thread's hold on it is checked (`holds.LostHold` if it was lost), and the model's reply
        held back for the step (`_holds_back`) is stored first.

        Given `closing` (the transaction closes the turn: its last statement saves the task's
        head, and nothing it does before writes more than rows of this database), on SQLite the
        reply's save is that statement's too (`_save`'s `defer`): the transaction holds the
        database's write lock from its start (BEGIN IMMEDIATE), so that the hold checked as it
        ends is the hold as it began, and one statement does the work of two; were the task
        moved on, all the transaction wrote is rolled back, and nothing else was done. (On
        PostgreSQL the head is locked first, as every writer of it does.)"""
        self._local.deferred = None  # (made in a transaction that has ended)
        store = self._replies.get(task_id)
        if store is not None:  # its save checks the hold too
            if not store(db, held=True, defer=closing and self._database.is_sqlite):
                raise _MovedOn("another process moved the task on")  # (the hold is this
            return  # thread's still: it was checked)
        hold = self._holds().get(task_id)
        if hold is not None:
            holds.check(db, hold)

    def _stopped(self, task: repo.TaskRow) -> None:
        """Drop what this process keeps of a task it stops stepping: all of it once the task
        has ended; all but its model, conversation and what it has seen while it waits (a
        decision here goes on with them, without reading the task's steps again)."""
        conversation = self._conversations.get(task.id)
        seen = self._labels.take(task.id)
        proposed = self.kept_proposals.take_task(task.id)
        self._forget(task.id)
        if task.status in _ENDED:
            self.models.pop(task.id, None)
        elif task.status == TaskStatus.WAITING.value:
            if conversation is not None:
                self._conversations[task.id] = conversation
            if seen is not None:
                self._labels.keep(task.id, seen)
            for kept in proposed:
                self.kept_proposals.keep(kept)

    def memory_of(self, task_id: str) -> list[str]:
        """What this process keeps of task `task_id`, by kind (empty when nothing)."""
        kept: dict[str, Container[str]] = {
            "model": self.models, "conversation": self._conversations, "row": self._saved,
            "turn": self._turn_calls, "reservation": self._ahead, "labels": self._labels,
            "fence": self._fences, "proposals": self.kept_proposals, "reply": self._replies}
        return [kind for kind, known in kept.items() if task_id in known]

    def _take_saved(self, task_id: str) -> repo.TaskRow | None:
        return self._saved.pop(task_id) if task_id in self._saved else None

    def _forget(self, task_id: str) -> None:
        """Drop what this process keeps of a task (a write it expected did not happen, or it
        stopped stepping it): the next step reads it from the store."""
        self._saved.pop(task_id, None)
        if getattr(self._local, "let_go", None) == task_id:  # that write did not happen either
            self._local.let_go = None
        self._conversations.pop(task_id, None)
        self._turn_calls.pop(task_id, None)
        self._ahead.pop(task_id, None)
        self._fences.pop(task_id, None)
        self._replies.pop(task_id, None)
        deferred: _Deferred | None = getattr(self._local, "deferred", None)
        if deferred is not None and deferred.task.id == task_id:
            self._local.deferred = None
        self._labels.forget(task_id)
        self.kept_proposals.forget(task_id)

    def _save(self, db: repo.Executor, task: repo.TaskRow, *, added: list[Message] | None = None,
              held: bool = False, defer: bool = False, **changes: Any) -> bool:
        """Save the task's changes (guarded by its revision); on success, this process keeps the
        row as it now reads, so that the next step need not read it again. A task that stops
        running is let go in the same write. Given `held` (the transaction's first statement:
        see `_writing`), the save also checks and renews this thread's hold; `holds.LostHold`
        if it was lost.

        Given `defer` (see `_check`), nothing is written yet: the next save of the task, in the
        same transaction, writes these changes with its own, guarded by this row's revision and
        this thread's hold; if the task moved on meanwhile, that save raises `_MovedOn` (so
        that nothing of the transaction is kept)."""
        if changes.get("status", TaskStatus.RUNNING.value) != TaskStatus.RUNNING.value:
            changes.update(holder=None, held_until=None)
        if defer:
            self._local.deferred = _Deferred(task=task, added=added or [], changes=changes,
                                             held=held, step=journal.pending(db, task.id))
            return True
        deferred = self._deferred_in(db, task.id)
        if deferred is not None:
            self._local.deferred = None
            task, held = deferred.task, deferred.held
            added, changes = [*deferred.added, *(added or ())], {**deferred.changes, **changes}
        hold = self._holds().get(task.id) if held else None
        if hold is not None:
            changes.setdefault("held_until", holds.renewed())
        if not repo.save_task(db, task, added=added or (),
                              held_by=hold.fence if hold is not None else None, **changes):
            self._take_saved(task.id)
            if hold is not None:
                holds.check(db, hold)  # lost, or only the revision moved on
            if deferred is not None:
                raise _MovedOn("another process moved the task on")
            return False
        fields = {k: v for k, v in changes.items() if k in _TASK_FIELDS}
        self._saved[task.id] = task.changed(
            revision=task.revision + 1,
            message_count=task.message_count + len(added or ()), **fields,
        )
        return True

    def _deferred_in(self, db: repo.Executor, task_id: str) -> _Deferred | None:
        """The save this thread deferred for `task_id` in the transaction `db` (see `_save`),
        if there is one; one made in a transaction that has ended is dropped."""
        deferred: _Deferred | None = getattr(self._local, "deferred", None)
        if deferred is None or deferred.task.id != task_id:
            return None
        if deferred.step is not journal.pending(db, task_id):
            self._local.deferred = None
            return None
        return deferred

    def _step(self, task: repo.TaskRow) -> Step:
        points.reached("loop.stepping", task=task.id)
        if task.status != TaskStatus.RUNNING.value:
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

    def messages(self, task: repo.TaskRow) -> Conversation:
        """The task's conversation (kept in this process, read from the store only as far as
        it has grown since)."""
        known = self._conversations.get(task.id)
        if known is None or len(known) > task.message_count:
            known = Conversation()
        if len(known) < task.message_count:
            with self._database.connect() as db:
                known = known.grown(repo.messages_of(db, task.id, len(known)))
        self._conversations[task.id] = known
        return known

    def _remember(self, task: repo.TaskRow, added: list[Message]) -> None:
        known = self._conversations.get(task.id)
        if known is not None and len(known) == task.message_count:
            self._conversations[task.id] = known.grown(added)

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
            with self._database.connect() as db:
                pending = repo.waiting_of_task(db, task_id)
            waiting = tuple(f"a decision from {self._route_words(p)}" for p in pending)
            until = _soonest(pending)
        result = None
        if status is TaskStatus.DONE:
            registered = self._agents(task.agent)
            _, result_type = registered.agent.skill(task.skill).types()
            result = result_of(result_type, task.result)
        return Outcome(status=status, task=task_id, result=result,
                       waiting_on=waiting if status is TaskStatus.WAITING and waiting else (),
                       waiting_until=until,
                       problem=task.problem, steps=task.steps, spend_usd=task.spend_usd)

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

    def _task(self, task_id: str) -> repo.TaskRow:
        with self._database.connect() as db:
            task = repo.load_task(db, task_id)
        if task is None:
            raise NotFound(f"There is no task with id {task_id}.")
        return task

    # -- one model turn ------------------------------------------------------------------

    def _model_turn(self, task: repo.TaskRow) -> Step:
        registered = self._agents(task.agent)
        skill = registered.agent.skill(task.skill)
        model = self.models.get(task.id)
        if model is None:
            return HandOn(why="this process has no model for the task")
        # A reservation made with the write that closed the last turn (by this process, for
        # this very call) is the call's; any other was made for a reply never stored.
        ahead = task.reserved_usd if self._ahead.pop(task.id, None) == task.revision else 0.0
        if task.reserved_usd and not ahead:
            with self._writing(task.id) as db:
                if not self._save(db, task, reserved_usd=0.0):
                    return RunAgain()
                repo.note(db, task.id, ReceiptKind.RESERVED,
                          f"A call to {task.model} was made before the work stopped, and its reply "
                          f"was lost: the ${task.reserved_usd:.6f} reserved for it is counted as "
                          "spent (what it really cost is not known).",
                          reserved_usd=task.reserved_usd)
            task = self._saved.pop(task.id)
        spent = budget.unreserved(task.spend_usd, ahead)  # before this call's reservation
        unreserve = {"spend_usd": spent, "reserved_usd": 0.0} if ahead else {}
        decision = next_action(task.steps, task.max_steps, spent, task.budget_usd, False, False)
        if decision is NextAction.HALT:
            why = (f"it reached its budget of ${task.budget_usd:.4f}"
                   if spent >= task.budget_usd
                   else f"it reached its limit of {task.max_steps} steps")
            return self._end(task, Halted(problem=f"Halted: {why}."), unreserve)
        tools = self.tool_specs(registered, skill)
        max_out = registered.agent.max_output_tokens
        if model.price is None and task.budget_usd != float("inf"):
            return self._end(task, Failed(
                problem=f"The price of {model.name} is not known, so its cost cannot be kept "
                        "within the budget: set its price."), unreserve)
        conversation = self.messages(task)
        reserve = model.price.cost(model.count_tokens(conversation, tools), max_out) if (
            model.price) else 0.0
        if not budget.fits(spent, reserve, task.budget_usd):
            return self._end(task, Halted(
                problem=f"Halted: the next model call could cost up to ${reserve:.6f}, more "
                        f"than the ${task.budget_usd - spent:.6f} left of its budget."),
                unreserve, reserved_usd=reserve, spend_usd=spent, budget_usd=task.budget_usd)
        if reserve <= ahead:
            reserve = ahead  # reserved already, durably, with the last turn's close
        else:
            with self._writing(task.id) as db:  # reserved durably before the model is asked
                if not self._save(db, task, spend_usd=spent + reserve, reserved_usd=reserve):
                    return RunAgain()
            task = self._saved.pop(task.id)
        points.reached("loop.model_reserved", task=task.id)
        try:
            reply = self.observer.complete(task, model, conversation, tools,
                                           max_output_tokens=max_out)
            points.reached("loop.model_replied", task=task.id)
        except Exception as error:
            log.exception("The model %s failed in task %s", model.name, task.id)
            told = str(error) if isinstance(error, ModelError) else (  # a provider's sentence
                f"{type(error).__name__}. The log has the details.")
            return self._end(task, Failed(problem=f"The model failed: {told}"))
        cost = model.price.cost(reply.usage.input_tokens, reply.usage.output_tokens) if (
            model.price) else 0.0
        spent = budget.settled(task.spend_usd, reserve, cost)
        if budget.over_reserved(cost, reserve):
            return self._over_reserve(task, model.name, reply.text, reply.usage.input_tokens,
                                      reply.usage.output_tokens, cost, reserve, spent)
        turn = task.turn + 1
        calls = tuple(
            ToolCall(id=c.id or f"call_{turn}_{i}", name=c.name, arguments=c.arguments)
            for i, c in enumerate(reply.tool_calls)
        )
        added = [Message(role="assistant", text=reply.text, tool_calls=calls)]
        if not calls:
            added.append(Message(
                role="user", text=f"Use a tool, or hand back your result with {HAND_BACK}."
            ))
        rows = [repo.CallRow(id=repo.new_id(), task_id=task.id, turn=turn, position=position,
                             call_id=call.id, tool=call.name, arguments=call.arguments,
                             why=reply.text, state=CallState.NEW, **_NEW_CALL)
                for position, call in enumerate(calls)]
        asked = ", ".join(c.name for c in calls) or "no tool"
        changes: dict[str, Any] = dict(steps=task.steps + 1, spend_usd=spent, reserved_usd=0.0,
                                       turn=turn, turn_open=bool(calls))

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
                      f"{model.name} was asked (step {task.steps + 1}) and answered with {asked}; "
                      f"{reply.usage.input_tokens} tokens in, {reply.usage.output_tokens} out, "
                      f"${cost:.6f}.", cost_usd=cost, input_tokens=reply.usage.input_tokens,
                      output_tokens=reply.usage.output_tokens, text=reply.text,
                      reserved_usd=reserve)
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
                **changes))
        finally:
            if self._replies.pop(task.id, None) is not None:  # never stored: what this
                self._forget(task.id)  # process keeps ahead of the store goes too

    def _holds_back(self, task: repo.TaskRow, registered: Registered, skill: Skill[Any, Any],
                    calls: tuple[ToolCall, ...]) -> bool:
        """Whether the model's turn and the run of the call it asks for are one unit, stored as
        one step: when it asks for one call of a tool of the skill that writes no more than
        records, or hands back its result (the run, or the result, commits with its step, so a
        crash before it loses both, and the model is asked again, within its reservation), and
        this thread goes on stepping the
        task (a runner that steps a task unit by unit, elsewhere, is given the model's turn
        alone)."""
        if len(calls) != 1 or getattr(self._local, "going_on", None) != task.id:
            return False
        name = calls[0].name
        if name == HAND_BACK:
            return True  # the result handed back, and the task done, in the reply's step
        if name not in skill.tool_names or name not in self._actions:
            return False
        effects = self._actions.info(name).effects
        return not (effects.external or effects.sends or effects.spends)

    def _over_reserve(self, task: repo.TaskRow, model: str, text: str, tokens_in: int,
                      tokens_out: int, cost: float, reserve: float, spent: float) -> Step:
        """A reply that reports more usage than its reservation allowed: recorded as it cost,
        told as such, and the task stops (its budget could be passed unseen otherwise)."""
        problem = (f"Halted: {model} reported {tokens_in} tokens in and {tokens_out} out, "
                   f"${cost:.6f}, more than was reserved for the call (${reserve:.6f}); the task "
                   "stops so that its budget is not passed unseen. Check the model's price and "
                   "token counting.")
        with self._writing(task.id) as db:
            if not self._save(db, task, added=[Message(role="assistant", text=text)],
                              steps=task.steps + 1, spend_usd=spent, reserved_usd=0.0,
                              status=TaskStatus.HALTED.value, problem=problem):
                return RunAgain()
            repo.note(db, task.id, ReceiptKind.MODEL_CALL,
                      f"{model} was asked (step {task.steps + 1}); {tokens_in} tokens in, "
                      f"{tokens_out} out, ${cost:.6f}.", cost_usd=cost, input_tokens=tokens_in,
                      output_tokens=tokens_out, text=text, reserved_usd=reserve)
            repo.note(db, task.id, ReceiptKind.LIMIT, problem, cost_usd=0.0, reserved_usd=reserve,
                      spend_usd=spent, budget_usd=task.budget_usd)
        return Halted(problem=problem)

    def tool_specs(self, registered: Registered, skill: Skill[Any, Any]) -> list[ToolSpec]:
        """The tools offered to the model: the skill's tools that are not NEVER, and hand_back.
        They follow from the declaration alone, so they are worked out once per declaration."""
        key = (registered.agent, type(skill), id(registered.agent.may), id(skill.may),
               len(self._actions))
        cached = self._specs.get(key)
        if cached is None:
            cached = self._specs[key] = self._tool_specs(registered, skill)
        return cached

    def _tool_specs(self, registered: Registered, skill: Skill[Any, Any]) -> list[ToolSpec]:
        specs = []
        for name in skill.tool_names:
            if name not in self._actions:
                continue
            info = self._actions.info(name)
            verdict = gate(name, info.effects, self._permits(registered, skill), query=info.query)
            if verdict.leave is Leave.NEVER:
                continue
            text = f"{info.label}. {info.description}".strip()
            specs.append(ToolSpec(name=name, description=text, parameters=info.parameters_schema))
        _, result_type = skill.types()
        specs.append(hand_back_spec(result_type))
        return specs

    @staticmethod
    def _permits(registered: Registered, skill: Skill[Any, Any]) -> list[Any]:
        return [registered.agent.may] + ([skill.may] if skill.may is not None else [])

    # -- one tool turn -------------------------------------------------------------------

    def _tool_turn(self, task: repo.TaskRow) -> Step:
        """Gate and run (or propose, or refuse) each new call of the open turn, then settle the
        turn: closed with every answer told to the model, or waiting on its proposals. The calls
        are those this process stored with the model's turn when it has them; a turn of one call
        settles in that call's own transaction."""
        registered = self._agents(task.agent)
        skill = registered.agent.skill(task.skill)
        known = self._turn_calls.pop(task.id, None)
        if known is not None and known[0] == task.turn:
            calls = known[1]
        else:
            with self._database.connect() as db:
                calls = repo.calls_of(db, task.id, task.turn)
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
                    self._recover_call(task, registered, call)
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

    def _settle_turn(self, db: repo.Executor, task: repo.TaskRow, calls: list[repo.CallRow]
                     ) -> Step | list[Proposal]:
        """Once none of the turn's calls is left to run, the turn closes; with proposals in it,
        these are what the task is to wait on."""
        if not any(_awaits(c) for c in calls):
            return self._close_turn(db, task, calls)
        return repo.waiting_of_task(db, task.id)

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

    def _store_wait(self, db: repo.Executor, task: repo.TaskRow, proposals: tuple[str, ...],
                    waiting: tuple[str, ...], until: datetime | None) -> Step:
        if not self._save(db, task, status=TaskStatus.WAITING.value):
            return RunAgain()
        repo.note(db, task.id, ReceiptKind.WAITING, f"The task waits on {', '.join(waiting)}.")
        return WaitOn(proposals=proposals, waiting_on=waiting, waiting_until=until)

    def _close_turn(self, db: repo.Executor, task: repo.TaskRow, calls: list[repo.CallRow]
                    ) -> Step:
        """Give the model the answers of a turn whose calls have all ended (the task is done if
        one of them handed back its result)."""
        handed = [c for c in calls if c.tool == HAND_BACK and c.outcome == CallOutcome.DONE]
        added = [Message(role="tool", text=c.answer, tool_call_id=c.call_id) for c in calls]
        if handed:
            if not self._save(db, task, added=added, turn_open=False,
                              status=TaskStatus.DONE.value, result=handed[0].value):
                return RunAgain()
            repo.note(db, task.id, ReceiptKind.RESULT,
                      "The result was handed back, and the task is done.", result=handed[0].value)
            self._remember(task, added)
            return Done(result=handed[0].value)
        known = self._conversations.get(task.id)
        grown = known.grown(added) if known is not None and (
            len(known) == task.message_count) else None
        ahead = self._reserve_ahead(task, grown)
        # The last unit of a drive lets the task go with its turn's close (see `step`).
        let_go = getattr(self._local, "closing", None) == task.id
        self._local.let_go = None
        going: dict[str, Any] = {"holder": None, "held_until": None} if let_go else {}
        if not self._save(db, task, added=added, turn_open=False, **ahead, **going):
            return RunAgain()
        self._local.let_go = task.id if let_go else None
        if grown is not None:
            self._conversations[task.id] = grown
        self._labels.absorb(task.id, task.turn, calls)
        if ahead:
            self._ahead[task.id] = self._saved[task.id].revision
        return RunAgain(answered=tuple(calls))

    def _reserve_ahead(self, task: repo.TaskRow, grown: Conversation | None) -> dict[str, Any]:
        """The reservation of the next model call, to be made with the write that closes a
        turn (so that the call needs no transaction of its own): the task's changes, or none
        when it cannot be made here (no model or conversation at hand — `grown`, the
        conversation with the turn's answers — or a limit reached)."""
        model = self.models.get(task.id)
        if self.runner is not None:
            # Another runner may step the next turn in another process, which could not tell
            # this reservation from one made for a reply that was lost: it is made there.
            return {}
        if model is None or model.price is None or task.reserved_usd or grown is None:
            return {}
        if next_action(task.steps, task.max_steps, task.spend_usd, task.budget_usd, False,
                       False) is not NextAction.CONTINUE:
            return {}
        registered = self._agents(task.agent)
        tools = self.tool_specs(registered, registered.agent.skill(task.skill))
        reserve = model.price.cost(model.count_tokens(grown, tools),
                                   registered.agent.max_output_tokens)
        if not budget.fits(task.spend_usd, reserve, task.budget_usd):
            return {}
        return {"spend_usd": task.spend_usd + reserve, "reserved_usd": reserve}

    def _gate_call(
        self, task: repo.TaskRow, registered: Registered, skill: Skill[Any, Any],
        call: repo.CallRow, turn: list[repo.CallRow], only: bool = False,
    ) -> Step | None:
        """Gate one new call: run it alone, propose it, or refuse it. Given `only` (the turn's
        only call), the turn settles in the call's own transaction, and what happens next is
        returned; else None."""
        if call.tool == HAND_BACK:
            return self._hand_back(task, skill, call, len(turn), only)
        in_skill = call.tool in skill.tool_names and call.tool in self._actions
        if not in_skill:
            self.observer.gated(gate(call.tool, Effects(), [], in_skill=False))
            offered = ", ".join(s.name for s in self.tool_specs(registered, skill))
            self._refuse(task, call, f"There is no tool named “{call.tool}” for this work; the "
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
            self.observer.gated(verdict)  # (else once the rule is looked up, as it is proposed)
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
                self.observer.gated(verdict)
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
            if isinstance(proposed, _Lifted):  # a standing rule lets it run alone
                return self._run_alone(task, registered, action, call, values, proposed.rule,
                                       only, labels)
            return proposed
        refuse(f"{call.tool} was not run: the task has spent its budget of "
               f"${task.budget_usd:.4f}.", CallOutcome.DENIED)
        return None

    def _labels_of(self, task: repo.TaskRow, skill: Skill[Any, Any], action: Action,
                   call: repo.CallRow) -> Labels:
        """The labels of the call's arguments, from what the task saw before this turn."""
        try:
            arguments = json.loads(call.arguments)
        except ValueError:
            return NOTHING_SEEN  # refused as Invalid when its values are read
        if not isinstance(arguments, dict):
            return NOTHING_SEEN

        return self._labels.of(task.id, task.turn, action, arguments, endorses=skill.endorses,
                               **self._seen(task))

    def _seen(self, task: repo.TaskRow) -> dict[str, Callable[[], Any]]:
        """How what the task has seen is read when this process does not know it: its trusted
        text and its tool calls (see `TaskLabels`)."""

        def calls() -> list[repo.CallRow]:
            with self._database.connect() as db:
                return repo.calls_of(db, task.id)

        return {"calls": calls, "trusted": lambda: trusted_text(
            self.messages(task), task.subject_id, task.subject_json)}

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
            return (f"{action.name} spends an amount it does not declare, so it cannot be kept "
                    "within the task's budget: declare it with @spends(cost=...).")
        left = task.budget_usd - task.spend_usd
        if effects.cost_usd > left:
            return (f"{action.name} could spend ${effects.cost_usd:.4f}, more than the "
                    f"${left:.4f} left of the task's budget.")
        return ""

    def _refuse(self, task: repo.TaskRow, call: repo.CallRow, answer: str, *,
                state: CallState = CallState.REFUSED, outcome: CallOutcome | str = "",
                labels: Labels = NOTHING_SEEN) -> None:
        with self._writing(task.id) as db:
            repo.update_call(db, task.id, call.id, state=state, answer=answer, outcome=outcome,
                             problem=answer, finished_at=repo.now())
            repo.note(db, task.id, ReceiptKind.TOOL_CALL, f"{call.tool} was asked for: {answer}",
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
            problem = skill.check_result(handed.result, task_view(task.id, calls))
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
                closed = self._close_turn(db, task, [dataclasses.replace(
                    call, state=CallState.DONE, outcome=CallOutcome.DONE, value=handed.value,
                    answer="Result received.")])
        self.observer.tool_ended(state=CallState.DONE, outcome=CallOutcome.DONE,
                                 answer="Result received.")
        return closed

    # -- running alone -------------------------------------------------------------------

    def _run_alone(self, task: repo.TaskRow, registered: Registered, action: Action,
                   call: repo.CallRow, values: dict[str, Any], rule_id: str | None,
                   only: bool = False, labels: Labels = NOTHING_SEEN) -> Step | None:
        """Run the call as the agent; its tool-call row and receipt entry commit with what the
        action wrote. Given `only` (the turn's only call), the turn closes in the same
        transaction, and what happens next is returned; else None."""
        effects = action.info.effects
        outside = effects.external or effects.sends or effects.spends
        cost = effects.cost_usd or 0.0 if effects.spends else 0.0
        if outside:
            if not self._mark_running(task, call, cost):
                return None
            points.reached("loop.call_marked", task=task.id, tool=call.tool)
        acting = ActingAs.of(registered.account)
        ruled = " (a standing rule let it run alone)" if rule_id else ""
        closed: Step | None = None

        def record(db: repo.Executor, result: ActionResult) -> None:
            nonlocal closed
            answer = answer_of(result)
            ran_as, explained = [p.name for p in result.ran_as], list(effects.explain())
            repo.update_call(db, task.id, call.id, state=CallState.DONE, leave=Leave.ALONE.words,
                             outcome=result.outcome.value, said=result.said, value=result.value,
                             problem=result.problem, ran_as=ran_as, effects=explained,
                             answer=answer, finished_at=repo.now())
            repo.note(db, task.id, ReceiptKind.TOOL_CALL,
                      f"{registered.agent.__name__} ran {call.tool} alone{ruled}, as itself: "
                      f"{result.outcome.value}.", tool=call.tool, arguments=call.arguments,
                      outcome=result.outcome.value, ran_as=ran_as, effects=explained,
                      labels=labels.to_json())
            self.observer.tool_ended(state=CallState.DONE, outcome=result.outcome.value,
                                     answer=answer, result=result)
            if rule_id:
                repo.use_rule(db, rule_id)
            if cost and result.outcome in _NOT_RUN:
                repo.add_spend(db, task.id, -cost)  # what was reserved, given back
            closed = None
            if only:
                done = dataclasses.replace(call, state=CallState.DONE,
                                           outcome=result.outcome.value, value=result.value,
                                           answer=answer)
                closed = self._close_turn(db, task, [done])

        try:
            result = self._actions.run_values(
                action, values, acting=acting, cause=f"task {task.id}",
                before=None if action.info.query else lambda session: self._check(
                    session, task.id, closing=only and effects.writes_records_only),
                within=None if action.info.query else record,
            )
            if action.info.query or not result.done:
                if closed is not None:  # its transaction did not commit: nor did the reply
                    closed = None  # held back for it, which is stored with the record below
                    reply = self._replies.get(task.id)
                    self._forget(task.id)
                    if reply is not None:
                        self._replies[task.id] = reply
                with self._writing(task.id, closing=only) as db:
                    record(db, result)
            else:
                self._replies.pop(task.id, None)  # stored with the run (`_check`), committed
        except holds.LostHold:  # found by `_check` as the run began: the drive hands it on
            self._forget(task.id)
            raise
        return closed

    def _mark_running(self, task: repo.TaskRow, call: repo.CallRow, cost: float) -> bool:
        """Mark an outside call running before it starts (and reserve what it spends, when the
        budget has room): whether it is to run (not when its cost does not fit). Only the
        task's holder marks its calls, in a write that checks its hold."""
        with self._writing(task.id) as db:
            repo.update_call(db, task.id, call.id, state=CallState.RUNNING, started_at=repo.now(),
                             leave=Leave.ALONE.words)
            if cost and not repo.reserve_spend(db, task.id, cost):
                answer = (f"{call.tool} could spend ${cost:.4f}, more than is left of the task's "
                          f"budget of ${task.budget_usd:.4f}. Nothing was run.")
                repo.update_call(db, task.id, call.id, state=CallState.DONE, answer=answer,
                                 outcome=CallOutcome.DENIED, problem=answer,
                                 finished_at=repo.now())
                repo.note(db, task.id, ReceiptKind.TOOL_CALL,
                          f"{call.tool} was asked for: {answer}", tool=call.tool,
                          arguments=call.arguments)
                return False
        return True

    def _recover_call(self, task: repo.TaskRow, registered: Registered, call: repo.CallRow) -> None:
        """An alone outside call a holder before this one marked running, and never recorded:
        run again if it says it is idempotent, else its outcome is told as unknown."""
        action = self._actions.get(call.tool)
        if action.info.idempotent:
            with self._writing(task.id) as db:
                repo.update_call(db, task.id, call.id, state=CallState.NEW)
            values = self._actions.values_from_json(call.tool, call.arguments)
            fresh = dataclasses.replace(call, state=CallState.NEW)
            self._run_alone(task, registered, action, fresh, values, None)
            return
        answer = (f"The outcome of {call.tool} is unknown: the work stopped while it ran, and it "
                  "is not run again blindly. Check whether it happened before trying again.")
        with self._writing(task.id) as db:
            repo.update_call(db, task.id, call.id, state=CallState.UNKNOWN,
                             outcome=CallOutcome.UNKNOWN, answer=answer, finished_at=repo.now())
            repo.note(db, task.id, ReceiptKind.TOOL_CALL, f"{call.tool}: {answer}",
                      tool=call.tool, outcome=CallOutcome.UNKNOWN)
        self.observer.tool_ended(state=CallState.UNKNOWN, outcome=CallOutcome.UNKNOWN,
                                 answer=answer)

    # -- proposing -----------------------------------------------------------------------

    def _propose(self, task: repo.TaskRow, registered: Registered, skill: Skill[Any, Any],
                 action: Action, call: repo.CallRow, verdict: Verdict, only: bool = False,
                 labels: Labels = NOTHING_SEEN, lifted: Verdict | None = None
                 ) -> Step | _Lifted | None:
        """Put the call to a person; given `only` (the turn's only call), the task waits on it
        from the same transaction, and what happens next is returned; else None. Given
        `lifted` (what a standing rule would make of it), the rules are looked up first, in
        the same transaction: when one lifts it, nothing is proposed (`_Lifted`)."""
        leave = verdict.leave
        arguments = json.loads(call.arguments)
        routing = self._decider_of(registered, skill, call.tool, task.for_id)
        instructions = self.instructions_now(task)
        # Built before the transaction: the skill's names and versions may read records.
        proposal = dataclasses.replace(
            proposal_of(task, skill, action, call, arguments, routing, instructions),
            labels=labels.untrusted)
        steered = f" Outside content may have steered it: {labels.words}" if (
            labels.untrusted) else ""
        words = self._route_words(proposal)
        earlier = self._labels.evidence(task.id, task.turn, **self._seen(task))
        with self._writing(task.id, closing=only) as db:
            rule = repo.matching_rule(db, agent=task.agent, tool=call.tool, skill=task.skill,
                                      for_id=task.for_id) if lifted is not None else None
            self.observer.gated(lifted if lifted is not None and rule is not None else verdict)
            if rule is not None:
                return _Lifted(rule=rule)
            this_turn = [c for c in repo.calls_of(db, task.id, task.turn)
                         if c.position < call.position]
            proposal = dataclasses.replace(
                proposal, evidence=tuple(earlier + evidence_of(this_turn)))
            repo.update_call(db, task.id, call.id, state=CallState.PROPOSED, leave=leave.words,
                             effects=list(proposal.effects))
            repo.insert_proposal(db, proposal, call=call, instructions=instructions,
                                 trace_context=self.observer.trace_context())
            repo.note(db, task.id, ReceiptKind.PROPOSAL,
                      f"{registered.agent.__name__} proposed {call.tool} to {words}: “{call.why}”"
                      f"{steered}", proposal=proposal.id, tool=call.tool, arguments=arguments,
                      shown=proposal.shown, subject_version=proposal.subject_version,
                      labels=labels.to_json())
            waits = self._store_wait(db, task, (proposal.id,), (f"a decision from {words}",),
                                     proposal.deadline_at) if only else None
        self.kept_proposals.keep(Kept(proposal=proposal, call_id=call.id,
                                      instructions=instructions, task=task))
        self.observer.proposed(proposal, waits_on=words)
        self._events.emit(AgentProposed(proposal=proposal))
        return waits

    def instructions_now(self, task: repo.TaskRow) -> str:
        """The instruction set as it reads now: purpose, skill, app instructions, the brief."""
        registered = self._agents(task.agent)
        skill = registered.agent.skill(task.skill)
        subject = self.subject_of(task, skill)
        return self.instructions(registered, skill) + "\n\n" + skill.brief(subject)

    def subject_of(self, task: repo.TaskRow, skill: Skill[Any, Any]) -> Any:
        """The task's subject as it is now (a record read afresh)."""
        subject_type, _ = skill.types()
        if task.subject_id is not None:
            with Session(self._database.engine, expire_on_commit=False) as session:
                return session.get(subject_type, uuid.UUID(task.subject_id))
        if task.subject_json is not None and subject_type not in (None, type(None)):
            return TypeAdapter(subject_type).validate_python(task.subject_json)
        return None

    def end_given(self, task_id: str, why: str) -> bool:
        """End a task whose turns a client gave, now that the client has gone: it halts, and
        its receipt says `why`. A proposal it waits on stays to be decided (an approved call
        still runs once). Whether it has ended (not while another thread steps it)."""
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
                    if not self._save(db, task, status=TaskStatus.HALTED.value, problem=why):
                        return False
                    repo.note(db, task_id, ReceiptKind.ENDED, why)
            except holds.LostHold:
                return False
            finally:
                held.pop(task_id, None)
            self._stopped(self._take_saved(task_id) or task)
            return True

    def _end(self, task: repo.TaskRow, ended: Halted | Failed, changes: dict[str, Any] | None = None,
             **data: Any) -> Step:
        with self._writing(task.id) as db:
            if self._save(db, task, status=ended.status.value, problem=ended.problem,
                          **(changes or {})):
                repo.note(db, task.id, ReceiptKind.LIMIT if isinstance(ended, Halted)
                          else ReceiptKind.FAILURE, ended.problem, **data)
                return ended
        return RunAgain()


@dataclass(frozen=True, kw_only=True)
class _Deferred:
    """A save of a task's head that this thread's transaction makes with its next (`_save`'s
    `defer`): the model's reply, or a decision's waking of the task."""

    task: repo.TaskRow
    """The row as it read before the save."""
    added: list[Message]
    """The messages it adds."""
    changes: dict[str, Any]
    """What it changes."""
    held: bool
    """Whether it checks (and renews) this thread's hold."""
    step: journal.Pending
    """The step its transaction gathers: the transaction it belongs to."""


class _MovedOn(holds.LostHold):
    """The task moved on under this thread's hold (another process wrote it, as a decision
    may): what this thread was to store of it is not stored, and it lets the task go."""


@dataclass(frozen=True, kw_only=True)
class _Lifted:
    """A call about to be proposed that a standing rule lets run alone."""

    rule: str
    """The rule's id."""


_TASK_FIELDS = frozenset(f.name for f in dataclasses.fields(repo.TaskRow))
_ENDED = frozenset(s.value for s in (TaskStatus.DONE, TaskStatus.HALTED, TaskStatus.FAILED))
_NOT_RUN = (ActionOutcome.INVALID, ActionOutcome.DENIED, ActionOutcome.GONE)
"""The outcomes of a run refused before the action was called (so nothing was spent)."""


def _soonest(pending: list[Proposal]) -> datetime | None:
    """The soonest deadline of the proposals still waiting in `pending` (None: none has one)."""
    return min((p.deadline_at for p in pending
                if p.deadline_at is not None and p.status is ProposalStatus.WAITING), default=None)


def _awaits(call: repo.CallRow) -> bool:
    """Whether the turn waits on `call`: proposed, or approved and running (in the process of
    whoever approved it: that process records it, or a worker settles it when it stopped)."""
    return call.state == CallState.PROPOSED or (
        call.state == CallState.RUNNING and call.leave != Leave.ALONE.words)


def _unsettled(call: repo.CallRow) -> bool:
    """Whether `call` is left for the task's holder to run: new, or an alone outside call a
    holder before it marked running and never recorded."""
    return call.state == CallState.NEW or (
        call.state == CallState.RUNNING and call.leave == Leave.ALONE.words)
_NEW_CALL: dict[str, Any] = dict(leave="", outcome="", said="", value=None, problem="",
                                 ran_as=None, effects=None, answer="")
"""A new tool call's columns that the model's turn does not set (their defaults)."""


def _subject_ref(subject: Any, subject_type: Any) -> tuple[str | None, Any]:
    from signoff.security.records import RecordBase

    if subject is None:
        return None, None
    if isinstance(subject, RecordBase):
        return str(subject.id), None
    return None, TypeAdapter(subject_type if subject_type else type(subject)).dump_python(
        subject, mode="json"
    )
