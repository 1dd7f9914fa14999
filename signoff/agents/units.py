"""A step's unit of work, and what the loop keeps of the tasks it steps (the base of `Loop`).

A unit (one model call, or the calls of one model turn) writes in one transaction of the loop's
connection (`_writing`), checked against this thread's hold on the task (`signoff.agents.holds`)
as it begins or, on SQLite, in the statement that closes it (`_check`). The model's reply is held
back to be stored with the step that acts on it, and a save may be deferred to the step's close
(`_save`), so that a step writes its task's head once. The writes that end a turn live here too:
the answers given to the model (`_close_turn`, with the next model call's reservation made
ahead), the task's wait (`_store_wait`), its end (`_end`).

What this process keeps of a task (its row as last saved, its conversation, its open turn's
calls, its labels, its hold's fence, where the other tasks of its work stood) spares a read at
each step; it is the store's only while no
other process held the task since (the fence says), and it is dropped when the task stops
running here (`forget`).
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Container, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.engine import Connection

from signoff.actions.registry import Actions
from signoff.agents import holds
from signoff.agents import repository as repo
from signoff.agents.agent import Registered
from signoff.agents.events import Events
from signoff.agents.gate import gate
from signoff.agents.handing_back import hand_back_spec
from signoff.agents.labelling import TaskLabels
from signoff.agents.observer import Observer
from signoff.agents.permits import Leave
from signoff.agents.proposals import Proposal
from signoff.agents.proposing import KeptProposals, Routing, withdraw_with_task
from signoff.agents.runner import Runner
from signoff.agents.skills import Skill
from signoff.agents.states import HAND_BACK, CallOutcome, CallState, ReceiptKind
from signoff.agents.steps import Done, Failed, Halted, RunAgain, Step, WaitOn
from signoff.agents.tasks import TaskStatus, waiting_words
from signoff.agents.telling import Telling
from signoff.exceptions import UnknownId
from signoff.limits import budget
from signoff.limits.steps import NextAction, next_action
from signoff.models.base import Conversation, Message, Model, ToolSpec, is_token_count
from signoff.security.principals import People
from signoff.store import journal
from signoff.store.database import Database

__all__ = ["StepUnits"]


class StepUnits:
    """The loop's units of work and its memory of the tasks it steps (see the module)."""

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
        self.telling = Telling(database=database, events=events, route_words=route_words)
        """Tells the app's handlers of each proposal made, at least once."""
        self.models: dict[str, Model] = {}
        self.made_models: set[str] = set()
        """The tasks whose model this process made from a spec: closed as the task ends (a
        model given as an object is for its giver to close)."""
        self.observer = Observer()
        """Told what the loop does, at named points (tracing, when it is on)."""
        self._conversations: dict[str, Conversation] = {}
        self._saved: dict[str, repo.TaskRow] = {}
        self._specs: dict[tuple[Any, ...], list[ToolSpec]] = {}
        self._offered: dict[type[Any], tuple[Any, int, frozenset[str]]] = {}
        """By skill class: its tools, how many actions the app had, and the names of those
        tools the app has (see `offers`)."""
        self._turn_calls: dict[str, tuple[int, list[repo.CallRow]]] = {}
        self._labels = TaskLabels(lambda name: actions.get(name) if name in actions else None)
        """What each task this process steps has seen, to label its calls' arguments."""
        """The tool calls of each task's open turn, as this process stored them."""
        self._local = _ThreadState()  # the holds of the tasks this thread steps
        self._fences: dict[str, int] = {}
        """The fence of this process's last hold on each task it keeps anything of: what it
        keeps is the store's only while no other held the task since."""
        self._ahead: dict[str, int] = {}
        """The revision at which this process reserved each task's next model call ahead."""
        self._work_heads: dict[str, tuple[tuple[str, int], ...]] = {}
        """Where the other tasks of each held task's work stood as this process took its hold
        (read in that transaction): what it has seen is read again once one of them has moved
        on (see `CallSteps._seen`)."""
        self.kept_proposals = KeptProposals()
        """The proposals this process made that its tasks wait on (see `KeptProposals`)."""
        self.runner: Runner | None = None
        """Where tasks go on once they may (`go_on`): here when None."""

    # -- holding and writing -----------------------------------------------------------

    @property
    def _replies(self) -> dict[str, Callable[..., bool]]:
        """The model's reply to each task whose turn and call are one unit (`_holds_back`) in
        this thread, while that unit runs: how to store it, in the first transaction that writes
        (`_check`). This thread's alone: no other thread's `forget` drops it."""
        return self._local.replies

    def _holds(self) -> dict[str, holds.Hold]:
        """The holds of the tasks this thread is stepping."""
        return self._local.holds

    def _hold(self, task: repo.TaskRow) -> holds.Hold | None:
        """This thread's hold on `task`: given with it (this thread started or woke it), or
        taken now; None when another may still be stepping it."""
        if task.holder == holds.holder_id():
            self._work_heads.pop(task.id, None)  # read again when its calls are labelled
            return holds.Hold(task=task.id, fence=task.fence)
        with self._database.connect() as db:
            hold = holds.take(db, task.id)
            if hold is not None:
                self._read_work(db, task)
            return hold

    def _read_work(self, db: repo.Executor, task: repo.TaskRow) -> None:
        """Where the other tasks of `task`'s work stand, read in the transaction that holds it
        (so that labelling its calls needs no transaction of its own)."""
        if task.work_id is not None:
            self._work_heads[task.id] = repo.work_heads(db, task)

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
        self._local.replies.pop(task_id, None)  # stored, if it was held back (`_check`)

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
        store = self._local.replies.get(task_id)
        if store is not None:  # its save checks the hold too
            if not store(db, held=True, defer=closing and self._database.is_sqlite):
                raise _MovedOn("another process moved the task on")  # (the hold is this
            return  # thread's still: it was checked)
        hold = self._local.holds.get(task_id)
        if hold is not None:
            holds.check(db, hold)

    def _stopped(self, task: repo.TaskRow) -> None:
        """Drop what this process keeps of a task it stops stepping: all of it once the task
        has ended; all but its model, conversation and what it has seen while it waits (a
        decision here goes on with them, without reading the task's steps again)."""
        conversation = self._conversations.get(task.id)
        seen = self._labels.take(task.id)
        proposed = self.kept_proposals.take_task(task.id)
        self.forget(task.id)
        if task.status in _ENDED:
            model = self.models.pop(task.id, None)
            if task.id in self.made_models:
                self.made_models.discard(task.id)
                close = getattr(model, "close", None)
                if callable(close):
                    close()
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
            "model": self.models, "made model": self.made_models,
            "conversation": self._conversations, "row": self._saved,
            "turn": self._turn_calls, "reservation": self._ahead, "labels": self._labels,
            "fence": self._fences, "proposals": self.kept_proposals, "reply": self._replies,
            "work": self._work_heads}
        return [kind for kind, known in kept.items() if task_id in known]

    def _take_saved(self, task_id: str) -> repo.TaskRow | None:
        return self._saved.pop(task_id) if task_id in self._saved else None

    def forget(self, task_id: str) -> None:
        """Drop what this process keeps of a task (a write it expected did not happen, or it
        stopped stepping it): the next step reads it from the store."""
        self._saved.pop(task_id, None)
        if self._local.let_go == task_id:  # that write did not happen either
            self._local.let_go = None
        self._conversations.pop(task_id, None)
        self._turn_calls.pop(task_id, None)
        self._ahead.pop(task_id, None)
        self._work_heads.pop(task_id, None)
        self._fences.pop(task_id, None)
        self._local.replies.pop(task_id, None)
        deferred = self._local.deferred
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
        if "status" in changes and changes["status"] != _RUNNING:
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
        hold = self._local.holds.get(task.id) if held else None
        if hold is not None and "held_until" not in changes:
            changes["held_until"] = holds.renewed()
        if not repo.save_task(db, task, added=added or (),
                              held_by=hold.fence if hold is not None else None, **changes):
            self._take_saved(task.id)
            if hold is not None:
                holds.check(db, hold)  # lost, or only the revision moved on
            if deferred is not None:
                raise _MovedOn("another process moved the task on")
            return False
        fields = changes if changes.keys() <= _TASK_FIELDS else {
            k: v for k, v in changes.items() if k in _TASK_FIELDS}
        self._saved[task.id] = task.changed(
            revision=task.revision + 1,
            message_count=task.message_count + len(added or ()), **fields,
        )
        return True

    def _deferred_in(self, db: repo.Executor, task_id: str) -> _Deferred | None:
        """The save this thread deferred for `task_id` in the transaction `db` (see `_save`),
        if there is one; one made in a transaction that has ended is dropped."""
        deferred = self._local.deferred
        if deferred is None or deferred.task.id != task_id:
            return None
        if deferred.step is not journal.pending(db, task_id):
            self._local.deferred = None
            return None
        return deferred

    def _task(self, task_id: str) -> repo.TaskRow:
        with self._database.reading() as db:
            task = repo.load_task(db, task_id)
        if task is None:
            raise UnknownId(f"There is no task with id {task_id}.")
        return task

    # -- the conversation ---------------------------------------------------------------

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

    def tool_specs(self, registered: Registered, skill: Skill[Any, Any]) -> list[ToolSpec]:
        """The tools offered to the model: the skill's tools that are not NEVER, and hand_back.
        They follow from the declaration alone, so they are worked out once per declaration."""
        key = (registered.agent, type(skill), id(registered.agent.may), id(skill.may),
               len(self._actions))
        cached = self._specs.get(key)
        if cached is None:
            cached = self._specs[key] = self._tool_specs(registered, skill)
        return cached

    def offers(self, skill: Skill[Any, Any], name: str) -> bool:
        """Whether `name` is a tool of `skill` that this app has. The skill's tools follow from
        its declaration, so their names are worked out once per declaration (as `tool_specs`)."""
        known = self._offered.get(type(skill))
        if known is None or known[0] is not skill.tools or known[1] != len(self._actions):
            known = self._offered[type(skill)] = (skill.tools, len(self._actions), frozenset(
                n for n in skill.tool_names if n in self._actions))
        return name in known[2]

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

    # -- ending a turn ------------------------------------------------------------------

    def _settle_turn(self, db: repo.Executor, task: repo.TaskRow, calls: list[repo.CallRow]
                     ) -> Step | list[Proposal]:
        """Once none of the turn's calls is left to run, the turn closes; with proposals in it,
        these are what the task is to wait on."""
        if not any(_awaits(c) for c in calls):
            return self._close_turn(db, task, calls)
        return repo.waiting_of_task(db, task.id)

    def _store_wait(self, db: repo.Executor, task: repo.TaskRow, proposals: tuple[str, ...],
                    waiting: tuple[str, ...], until: datetime | None) -> Step:
        if not self._save(db, task, status=TaskStatus.WAITING.value):
            return RunAgain()
        repo.note(db, task.id, ReceiptKind.WAITING, f"The task waits on {waiting_words(waiting)}.")
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
        # The last unit of a drive lets the task go with its turn's close (see `step`): its
        # next model call, if any, is then counted and reserved where it is made.
        let_go = self._local.closing == task.id
        ahead = {} if let_go else self._reserve_ahead(task, grown)
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

    def _reserve_ahead(self, task: repo.TaskRow, grown: Conversation | None,
                       model: Model | None = None) -> dict[str, Any]:
        """The reservation of the next model call, and its step counted, to be made with the
        write that closes a turn, or stores the task (so that the call needs no transaction of
        its own): the task's changes, or none when it cannot be made here (no model — the
        task's, unless given — or conversation at hand — `grown`, the conversation with the
        turn's answers — or a limit reached)."""
        model = model or self.models.get(task.id)
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
        try:
            tokens = model.count_tokens(grown, tools)
        except Exception:  # (told as the call is made: its count is asked again then)
            return {}
        if not is_token_count(tokens):
            return {}
        reserve = model.price.cost(tokens, registered.agent.max_output_tokens)
        if not budget.fits(task.spend_usd, reserve, task.budget_usd):
            return {}
        return {"spend_usd": budget.added(task.spend_usd, reserve, task.budget_usd),
                "reserved_usd": reserve,
                "steps": task.steps + 1}

    def _end(self, task: repo.TaskRow, ended: Halted | Failed, changes: dict[str, Any] | None = None,
             **data: Any) -> Step:
        with self._writing(task.id) as db:
            if self._save(db, task, status=ended.status.value, problem=ended.problem,
                          **(changes or {})):
                repo.note(db, task.id, ReceiptKind.LIMIT if isinstance(ended, Halted)
                          else ReceiptKind.FAILURE, ended.problem, **data)
                for withdrawn in withdraw_with_task(db, task.id, ended.problem):
                    self.kept_proposals.take(withdrawn)
                return ended
        return RunAgain()


class _ThreadState(threading.local):
    """What the loop keeps for the thread stepping a task, each thread its own (its attributes
    there from the start, so that reading one is no `getattr` with a default)."""

    def __init__(self) -> None:
        self.replies: dict[str, Callable[..., bool]] = {}
        """See `StepUnits._replies`."""
        self.holds: dict[str, holds.Hold] = {}
        """The holds of the tasks this thread is stepping."""
        self.deferred: _Deferred | None = None
        """The save this thread's transaction makes with its next (see `StepUnits._save`)."""
        self.let_go: str | None = None
        """The task the last turn's close let go (see `StepUnits._close_turn`)."""
        self.closing: str | None = None
        """The task whose drive's last unit this is (its turn's close lets it go)."""
        self.going_on: str | None = None
        """The task this thread drives on, unit after unit (see `Loop._holds_back`)."""
        self.started: Any = None
        """A task this thread has just started, and its opening (see `Loop.started`)."""


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


_TASK_FIELDS = frozenset(f.name for f in dataclasses.fields(repo.TaskRow))
_ENDED = frozenset(s.value for s in TaskStatus if s.ended)
_RUNNING = TaskStatus.RUNNING.value
"""A running task's status, as stored (an enum's value is looked up by a function each time:
the loop compares statuses at every step)."""


def _awaits(call: repo.CallRow) -> bool:
    """Whether the turn waits on `call`: proposed, or approved and running (in the process of
    whoever approved it: that process records it, or a worker settles it when it stopped)."""
    return call.state == CallState.PROPOSED or (
        call.state == CallState.RUNNING and call.leave != Leave.ALONE.words)

