"""Reading and writing tasks, tool calls, proposals, rules and receipt entries.

Every function takes the connection (or session) to work in, so that a caller decides what
commits together: an action's writes, its tool-call row and its proposal's status, at once.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol, TypeVar

from sqlalchemy import Select, Table, and_, bindparam, case, func, or_, select, update

from signoff.agents.proposals import Evidence, Proposal, ProposalStatus
from signoff.agents.receipts import ReceiptEntry
from signoff.agents.rules import StandingRule
from signoff.agents.states import ReceiptKind
from signoff.limits import budget
from signoff.limits.provenance import ArgumentLabel
from signoff.models.base import Message
from signoff.store import journal
from signoff.store.prepared import Rows, insert_of, prepare
from signoff.store.tables import proposals, standing_rules, tasks
from signoff.store.utc import aware

__all__ = [
    "CallRow",
    "Executor",
    "TaskRow",
    "now",
]


class Executor(Protocol):
    """A SQLAlchemy connection or session: anything statements can be executed in."""

    def execute(self, statement: Any, parameters: Any = None, /) -> Any: ...


def _update_by_id(table: Table, columns: tuple[str, ...], guards: tuple[str, ...] = ()) -> Any:
    """An UPDATE of `columns` of the row whose id is ``:key`` (and whose `guards` columns each
    equal ``:guard_<column>``)."""
    statement = update(table).where(table.c.id == bindparam("key"))
    for guard in guards:
        statement = statement.where(table.c[guard] == bindparam(f"guard_{guard}"))
    return statement.values({c: bindparam(f"set_{c}") for c in columns})


def _run_update(db: Executor, table: Table, key: str, values: dict[str, Any], *,
                guards: Mapping[str, Any] | None = None) -> int:
    """Update the row `key` with `values`, only if each column of `guards` holds its value
    there; how many rows changed (0 or 1)."""
    columns = tuple(sorted(values))
    guarded = tuple(sorted(guards or {}))
    params = {f"set_{c}": values[c] for c in columns}
    params["key"] = key
    params.update({f"guard_{g}": (guards or {})[g] for g in guarded})
    shape = ("update", table.name, columns, guarded)
    return _run(db, shape, lambda: _update_by_id(table, columns, guarded), params).rowcount


def _run(db: Executor, shape: Any, build: Callable[[], Any], params: dict[str, Any]) -> Rows:
    """Run the statement `build` makes (compiled once per `shape`) in `db`'s transaction."""
    return prepare(db, shape, build).run(db, params)  # type: ignore[arg-type]


def _insert(db: Executor, table: Table, values: dict[str, Any]) -> None:
    columns = tuple(sorted(values))
    _run(db, ("insert", table.name, columns), lambda: insert_of(table, columns), values)


def now() -> datetime:
    """The time, in UTC."""
    return datetime.now(UTC)


def new_id() -> str:
    """A fresh id: a random UUID (version 4), written as ``str(uuid.uuid4())`` writes one, in
    a third of its time (the loop makes one at every call)."""
    digits = os.urandom(16).hex()
    return (f"{digits[:8]}-{digits[8:12]}-4{digits[13:16]}-{_VARIANT[int(digits[16], 16)]}"
            f"{digits[17:20]}-{digits[20:]}")


_VARIANT = "89ab" * 4
"""A version 4 UUID's variant digit (RFC 9562: 10xx), by the random digit it takes the place of."""


@dataclass(frozen=True, kw_only=True)
class TaskRow:
    """A task as stored (its conversation is read separately: see `messages_of`)."""

    id: str
    agent: str
    skill: str
    for_id: str | None
    subject_type: str
    subject_id: str | None
    subject_json: Any
    status: str
    turn: int
    """The number of the latest model turn (1 for the first)."""
    turn_open: bool
    """Whether the latest model turn asked for tools whose answers are not all in yet."""
    message_count: int
    """How many messages its conversation has."""
    steps: int
    spend_usd: float
    max_steps: int
    budget_usd: float
    model: str
    result: Any
    problem: str
    revision: int
    holder: str | None = None
    """Who steps it now (see `signoff.agents.holds`)."""
    held_until: datetime | None = None
    fence: int = 0
    """The fence every write of its holder's steps checks."""
    reserved_usd: float = 0.0
    """What is reserved (and counted in `spend_usd`) for a model call not yet answered."""
    trace_context: Any = None
    """What a trace keeps to be continued (W3C trace context, when tracing was on)."""
    seq: int = 0
    """The number of its journal's last step (see `signoff.store.journal`)."""
    work_id: str | None = None
    """The work it shares with other tasks (a client's session: its skills' tasks, and those
    its calls go on in while one waits on a decision): what any of them has seen, it has seen
    (see `calls_seen`)."""

    def changed(self, **changes: Any) -> TaskRow:
        """This row with `changes` made (fields of it): `dataclasses.replace` without building
        the row again field by field, which the loop would do at every step."""
        return _changed(self, changes, _ROW_FIELDS)


_Row = TypeVar("_Row")


def _changed(row: _Row, changes: dict[str, Any], fields: frozenset[str]) -> _Row:
    """`row` (a frozen dataclass of plain fields) with `changes` made, copied by its
    ``__dict__`` (``dataclasses.replace`` calls ``__init__``, ``copy.copy`` goes by
    ``__reduce_ex__``: each costs several times this, at every step)."""
    unknown = changes.keys() - fields
    if unknown:
        raise TypeError(f"A {type(row).__name__} has no field {', '.join(sorted(unknown))}.")
    made: _Row = object.__new__(type(row))
    made.__dict__.update(row.__dict__, **changes)
    return made


_ROW_FIELDS = frozenset(f.name for f in dataclasses.fields(TaskRow))
_FIELDS_OF: dict[type, frozenset[str]] = {}


def replaced(row: _Row, **changes: Any) -> _Row:
    """`dataclasses.replace` for a frozen dataclass of plain fields and no ``__post_init__``
    (a `Proposal`): copied by its ``__dict__``, as `_changed` copies a row (``replace`` reads
    and sets each of a proposal's thirty fields one by one: some 25 calls, at each step)."""
    fields = _FIELDS_OF.get(type(row))
    if fields is None:
        fields = _FIELDS_OF[type(row)] = frozenset(f.name for f in dataclasses.fields(row))  # type: ignore[arg-type]
    return _changed(row, changes, fields)


@dataclass(frozen=True, kw_only=True)
class CallRow:
    """A tool call as stored."""

    id: str
    task_id: str
    turn: int
    position: int
    call_id: str
    tool: str
    arguments: str
    why: str
    state: str
    leave: str
    outcome: str
    said: str
    value: Any
    problem: str
    ran_as: Any
    effects: Any
    answer: str
    began: bool = True
    """Whether the tool's own code was called (False: refused by signoff before it ran, its
    answer in signoff's words; True for calls stored before this was kept)."""

    def changed(self, **changes: Any) -> CallRow:
        """This call with `changes` made (fields of it)."""
        return _changed(self, changes, _CALL_FIELD_SET)



# -- tasks ---------------------------------------------------------------------------------


def insert_task(db: Executor, task: TaskRow, opening: Sequence[Message]) -> None:
    """Store a new task with its opening messages: its first step, numbered `task.seq` (so
    that the step is appended in one statement)."""
    at = now()
    # Its fields as they are: `dataclasses.asdict` would copy each value deeply, to be dropped.
    _insert(db, tasks, {**task.__dict__, "created_at": at, "updated_at": at})
    step = journal.pending(db, task.id)
    step.seq, step.turn = task.seq, task.turn
    append_messages(db, task.id, opening)


def append_messages(db: Executor, task_id: str, added: Sequence[Message]) -> None:
    """Add messages to a task's conversation, with the step being written."""
    journal.pending(db, task_id).messages.extend(m.to_json() for m in added)


def messages_of(db: Executor, task_id: str, start: int = 0) -> list[Message]:
    """A task's conversation, from message `start` on."""
    found = [m for step in journal.steps_of(db, task_id) for m in step.data.get("messages", ())]
    return [Message.from_json(m) for m in found[start:]]


_LOAD_TASK = select(*[c for c in tasks.c if c.name not in ("created_at", "updated_at")]).where(
    tasks.c.id == bindparam("key")
)


def load_task(db: Executor, task_id: str) -> TaskRow | None:
    """The task `task_id`, or None."""
    row = _run(db, "load_task", lambda: _LOAD_TASK, {"key": task_id}).first()
    return TaskRow(**row) if row is not None else None


def save_task(db: Executor, task: TaskRow, *, added: Sequence[Message] = (),
              held_by: int | None = None, **changes: Any) -> bool:
    """Write `changes` (and append `added` messages) if nobody else has changed the task since it
    was read (and, given `held_by`, while its holder's fence is still that); False otherwise,
    and nothing is written."""
    if added:
        changes["message_count"] = task.message_count + len(added)
    changes.update(revision=task.revision + 1, updated_at=now())
    guards = {"revision": task.revision} if held_by is None else {
        "revision": task.revision, "fence": held_by}
    step = journal.numbered(db, task.id)
    if step is None:
        if _run_update(db, tasks, task.id, changes, guards=guards) != 1:
            return False
    else:  # the step being written takes its number in the same statement
        columns, guarded = tuple(sorted(changes)), tuple(sorted(guards))
        params = {f"set_{c}": changes[c] for c in columns}
        params.update({f"guard_{g}": guards[g] for g in guarded}, key=task.id)
        head = _run(db, ("save_numbered", columns, guarded), lambda: _update_by_id(
            tasks, columns, guarded).values(seq=tasks.c.seq + 1).returning(
            tasks.c.seq, tasks.c.turn), params).first()
        if head is None:
            return False
        step.seq, step.turn = head["seq"], head["turn"]
    if added:
        append_messages(db, task.id, added)
    return True


def spend_of(db: Executor, task_id: str) -> float:
    """What the task has spent so far."""
    found = _run(db, "spend_of", lambda: select(tasks.c.spend_usd).where(
        tasks.c.id == bindparam("key")), {"key": task_id})
    return float(found.scalar())


def add_spend(db: Executor, task_id: str, cost_usd: float) -> None:
    """Add what a spending tool spent to its task (a step of its own: the revision moves on)."""
    _run(db, "add_spend", lambda: update(tasks).where(tasks.c.id == bindparam("key")).values(
        spend_usd=tasks.c.spend_usd + bindparam("cost", type_=tasks.c.spend_usd.type),
        revision=tasks.c.revision + 1, updated_at=bindparam("at", type_=tasks.c.updated_at.type),
    ), {"key": task_id, "cost": cost_usd, "at": now()})


def reserve_spend(db: Executor, task_id: str, cost_usd: float) -> bool:
    """Count `cost_usd` as spent by the task if its budget has room for it (the check and the
    write are one statement); whether it had. The tasks of one work (a served MCP session's)
    spend from one budget: the task's, against what all of them have spent. (On PostgreSQL
    the work's advisory lock makes two such reservations take turns, as SQLite's writers do:
    each then reads what the other committed.)"""
    dialect = getattr(db, "dialect", None) or db.get_bind().dialect  # type: ignore[attr-defined]
    if dialect.name == "postgresql":
        _run(db, "work_lock_of", lambda: select(func.pg_advisory_xact_lock(
            func.hashtextextended(tasks.c.work_id, 0))).where(
            tasks.c.id == bindparam("key"), tasks.c.work_id.is_not(None)), {"key": task_id})
    cost = bindparam("cost", type_=tasks.c.spend_usd.type)
    return _run(db, "reserve_spend", lambda: update(tasks).where(
        tasks.c.id == bindparam("key"),  # (within the float error of adding: `budget.fits`)
        _SPENT_IN_WORK + cost <= tasks.c.budget_usd + tasks.c.budget_usd * budget.FLOAT_ERROR,
    ).values(
        spend_usd=case(  # never read over the budget (`budget.added`)
            (_SPENT_IN_WORK + cost <= tasks.c.budget_usd, tasks.c.spend_usd + cost),
            (tasks.c.work_id.is_(None), tasks.c.budget_usd),
            else_=tasks.c.spend_usd + (tasks.c.budget_usd - _SPENT_IN_WORK)),
        revision=tasks.c.revision + 1, updated_at=bindparam("at", type_=tasks.c.updated_at.type),
    ), {"key": task_id, "cost": cost_usd, "at": now()}).rowcount == 1


def reserve_for(db: Executor, task_id: str, cost_usd: float, *, tool: str) -> bool:
    """`reserve_spend` for a call of `tool` that spends up to `cost_usd`, and, when it fits, its
    receipt entry in the same transaction (the ledger: what the receipt says the task cost is
    what it has spent)."""
    if not reserve_spend(db, task_id, cost_usd):
        return False
    note(db, task_id, ReceiptKind.RESERVED,
         f"${cost_usd:.4f}, the most {tool} spends, is reserved from the budget before it runs, "
         "and counted as spent.", cost_usd=cost_usd, tool=tool, reserved_usd=cost_usd)
    return True


def give_back(db: Executor, task_id: str, cost_usd: float, *, tool: str, why: str) -> None:
    """Give back the `cost_usd` reserved for a call of `tool` that spent nothing (`why`, in
    words), with its receipt entry, in the same transaction."""
    add_spend(db, task_id, -cost_usd)
    note(db, task_id, ReceiptKind.RESERVED,
         f"The ${cost_usd:.4f} reserved for {tool} is given back: {why}.", cost_usd=-cost_usd,
         tool=tool, reserved_usd=cost_usd)


_WORKING = tasks.alias("working")
_SPENT_IN_WORK = case(
    (tasks.c.work_id.is_(None), tasks.c.spend_usd),
    else_=select(func.sum(_WORKING.c.spend_usd)).where(
        _WORKING.c.work_id == tasks.c.work_id).scalar_subquery())
"""What a task has spent, or with a work, what the work's tasks have."""


def let_go(db: Executor, task_id: str, fence: int) -> None:
    """Let a task go: nobody holds it (if the hold with `fence` is still the one it has)."""
    _run(db, "let_go", lambda: update(tasks).where(
        tasks.c.id == bindparam("key"), tasks.c.fence == bindparam("fence")).values(
        holder=None, held_until=None), {"key": task_id, "fence": fence})


def tasks_in(db: Executor, status: str) -> list[str]:
    """The ids of the tasks in `status`, oldest first."""
    return [r[0] for r in db.execute(
        select(tasks.c.id).where(tasks.c.status == status).order_by(tasks.c.created_at)
    )]


# -- tool calls ----------------------------------------------------------------------------


def insert_call(db: Executor, task_id: str, *, row_id: str | None = None, **values: Any) -> str:
    """Store a new tool call of `task_id` (its id `row_id`, else a new one), with the step
    being written; its id."""
    call_id = row_id or new_id()
    journal.pending(db, task_id).calls.append({"id": call_id, "task_id": task_id, **values})
    return call_id


def update_call(db: Executor, task_id: str, call_id: str, **values: Any) -> None:
    """Change a tool call of `task_id`, with the step being written."""
    change = {k: v.isoformat() if isinstance(v, datetime) else v for k, v in values.items()}
    journal.pending(db, task_id).calls.append({"id": call_id, **change})


def calls_of(db: Executor, task_id: str, turn: int | None = None) -> list[CallRow]:
    """The task's tool calls (of one model turn, when given), in order, as its steps left them."""
    found = _folded(journal.steps_of(db, task_id, turn=turn))
    return found if turn is None else [c for c in found if c.turn == turn]


_WORK_HEADS = select(tasks.c.id, tasks.c.seq).where(
    tasks.c.work_id == bindparam("work"), tasks.c.id != bindparam("besides")
).order_by(tasks.c.created_at, tasks.c.id)


def work_heads(db: Executor, task: TaskRow) -> tuple[tuple[str, int], ...]:
    """The other tasks of `task`'s work, each with the number of its journal's last step (what
    they have seen changes only when that moves on); none for a task that shares no work."""
    if task.work_id is None:
        return ()
    rows = _run(db, "work_heads", lambda: _WORK_HEADS, {"work": task.work_id,
                                                          "besides": task.id}).rows
    return tuple((r["id"], r["seq"]) for r in rows)


def calls_since(db: Executor, task_id: str, seq: int, folded: dict[str, dict[str, Any]]
                ) -> tuple[int, list[CallRow]]:
    """The tool calls of task `task_id` that its steps after `seq` stored or changed, folded
    into `folded` (its calls as the steps before left them, kept by the caller: changed in
    place), as they now stand; and the number of the last step read (`seq` when none)."""
    found = journal.steps_after(db, task_id, seq)
    touched = _fold(found, folded)
    return (found[-1].seq if found else seq), [
        _call(folded[c]) for c in touched if "tool" in folded[c]]


_WORK_OWNER = select(tasks.c.agent, tasks.c.for_id).where(
    tasks.c.work_id == bindparam("work")).limit(1)


def work_owner(db: Executor, work_id: str) -> tuple[str, str | None] | None:
    """The agent and the person of the tasks of a work (None: it has none yet), read in `db`'s
    transaction so that a task started in it after this read is the only one (SQLite's writers
    take turns; on PostgreSQL, one transaction at a time holds the work's advisory lock)."""
    dialect = getattr(db, "dialect", None) or db.get_bind().dialect  # type: ignore[attr-defined]
    if dialect.name == "postgresql":
        _run(db, "work_lock", lambda: select(func.pg_advisory_xact_lock(
            func.hashtextextended(bindparam("work"), 0))), {"work": work_id})
    row = _run(db, "work_owner", lambda: _WORK_OWNER, {"work": work_id}).first()
    return (row["agent"], row["for_id"]) if row is not None else None


def _folded(steps: Sequence[journal.StepRow]) -> list[CallRow]:
    """The tool calls `steps` stored, each as their changes left it, in order."""
    folded: dict[str, dict[str, Any]] = {}
    _fold(steps, folded)
    found = [_call(c) for c in folded.values() if "tool" in c]
    return sorted(found, key=lambda c: (c.turn, c.position))


def _fold(steps: Sequence[journal.StepRow], folded: dict[str, dict[str, Any]]) -> list[str]:
    """Fold the call changes `steps` stored into `folded` (by call id); the ids they touched,
    in order."""
    touched: dict[str, None] = {}
    for step in steps:
        for change in step.data.get("calls", ()):
            known = folded.get(change["id"])
            if known is None:
                folded[change["id"]] = dict(change)
            else:
                known.update(change)
            touched[change["id"]] = None
    return list(touched)


def _call(m: Any) -> CallRow:
    # (the defaults, then what the steps stored: one dict, not two look-ups a field; a change
    # may carry a column the row does not keep, such as ``finished_at``, which is left out)
    found = {**_CALL_BASE, **m}
    if len(found) != len(_CALL_FIELDS):
        found = {k: found[k] for k in _CALL_FIELDS}
    return CallRow(**found)


_CALL_FIELDS = ("id", "task_id", "turn", "position", "call_id", "tool", "arguments", "why",
                "state", "leave", "outcome", "said", "value", "problem", "ran_as", "effects",
                "answer", "began")
_CALL_FIELD_SET = frozenset(_CALL_FIELDS)
_CALL_DEFAULTS: dict[str, Any] = dict(leave="", outcome="", said="", value=None, problem="",
                                      ran_as=None, effects=None, answer="", why="",
                                      began=True)
_CALL_BASE: dict[str, Any] = {k: _CALL_DEFAULTS.get(k) for k in _CALL_FIELDS}
"""Each field's value when no step stored one (None where it has no default)."""


# -- proposals -----------------------------------------------------------------------------


def insert_proposal(db: Executor, proposal: Proposal, *, call: CallRow, instructions: str,
                    trace_context: Any = None, told_at: datetime | None = None) -> None:
    """Store a new proposal made for tool call `call` (`trace_context`: where its wait and
    decision join the trace, when tracing is on; `told_at`: when its deciders were told of it,
    None until they are: `signoff.agents.telling`)."""
    _insert(db, proposals, dict(
        id=proposal.id, task_id=proposal.task, tool_call_id=call.id, call_id=call.call_id,
        agent=proposal.agent, skill=proposal.skill, skill_version=proposal.skill_version,
        action=proposal.action, label=proposal.label, effects=list(proposal.effects),
        arguments=proposal.arguments, shown=proposal.shown, why=proposal.why,
        evidence=[e.__dict__ for e in proposal.evidence], subject_version=proposal.subject_version,
        fingerprint=proposal.fingerprint, instructions=instructions,
        decide_person_id=proposal.decide_person_id, decide_queue=proposal.decide_queue,
        routed=proposal.routed, for_id=proposal.for_id, status=proposal.status.value,
        created_at=proposal.created_at or now(), trace_context=trace_context,
        labels=[label.to_json() for label in proposal.labels] or None,
        deadline_at=proposal.deadline_at, escalations=proposal.escalations, told_at=told_at,
    ))


def proposals_where(db: Executor, *, status: str | None = None, agent: str | None = None,
                    task: str | None = None, limit: int | None = None) -> list[Proposal]:
    """The proposals with this status, agent and task (each when given), newest first."""
    given = {"status": status, "agent": agent, "task_id": task}
    columns = sorted(k for k, v in given.items() if v is not None)
    params: dict[str, Any] = {k: given[k] for k in columns}
    shape = ("proposals_where", tuple(columns), limit is not None)

    def build() -> Select[Any]:  # (built when first run: from `columns`, not `params`)
        query = proposal_query()
        for column in columns:
            query = query.where(proposals.c[column] == bindparam(column))
        return query.limit(bindparam("limit")) if limit is not None else query

    if limit is not None:
        params["limit"] = limit
    return [_proposal(r) for r in _run(db, shape, build, params).rows]


def proposal_query() -> Select[Any]:
    """All proposals, newest first."""
    return select(proposals).order_by(proposals.c.created_at.desc(), proposals.c.id)


def load_proposals(db: Executor, query: Select[Any]) -> list[Proposal]:
    """The proposals `query` selects."""
    return [_proposal(r._mapping) for r in db.execute(query)]


def proposal_from(row: Mapping[str, Any]) -> Proposal:
    """The proposal a row of the proposals' table holds."""
    return _proposal(row)


def said_no_to(db: Executor, task_id: str, fingerprint: str) -> str | None:
    """The id of the latest proposal of task `task_id` with `fingerprint` that a person said
    no to, or None (asked at every proposal: its id alone)."""
    found = _run(db, "said_no_to", lambda: select(proposals.c.id).where(
        proposals.c.task_id == bindparam("task"), proposals.c.fingerprint == bindparam("print"),
        proposals.c.status == ProposalStatus.REJECTED.value,
    ).order_by(proposals.c.created_at.desc()).limit(1), {"task": task_id, "print": fingerprint})
    said: str | None = found.scalar()
    return said


def load_proposal(db: Executor, proposal_id: str) -> tuple[Proposal, str, str] | None:
    """A proposal with its tool call's id and the instructions it was made under."""
    m = _run(db, "load_proposal", lambda: select(proposals).where(
        proposals.c.id == bindparam("key")), {"key": proposal_id}).first()
    if m is None:
        return None
    return _proposal(m), m["tool_call_id"], m["instructions"]


def claim_proposal(db: Executor, proposal: Proposal, status: ProposalStatus, **values: Any) -> bool:
    """Move a waiting proposal to `status`; False when it was no longer waiting (decided once),
    or went on to another decider since `proposal` was read (its deadline passed)."""
    values["status"] = status.value
    return _run_update(db, proposals, proposal.id, values, guards={
        "status": ProposalStatus.WAITING.value, "escalations": proposal.escalations}) == 1


def unclaim_proposal(db: Executor, proposal_id: str) -> bool:
    """Put an approved proposal whose run sent nothing back to waiting, undecided; False when
    it is no longer approved (its run was settled meanwhile), and nothing is written."""
    return _run_update(db, proposals, proposal_id, {
        "status": ProposalStatus.WAITING.value, "decided_by_id": None, "decided_at": None,
        "edited": None, "run_by": None, "run_until": None,
    }, guards={"status": ProposalStatus.APPROVED.value}) == 1


def escalate_proposal(db: Executor, proposal: Proposal, *, person_id: str | None,
                      queue: str | None, deadline_at: datetime | None, at: datetime,
                      told_at: datetime | None = None) -> bool:
    """Put a waiting proposal to another decider (a person or a queue), with its new deadline
    (`told_at`: when they were told of it, None until they are); False when it was decided, or
    went on, since `proposal` was read."""
    return _run_update(db, proposals, proposal.id, {
        "decide_person_id": person_id, "decide_queue": queue, "routed": True,
        "deadline_at": deadline_at, "escalations": proposal.escalations + 1, "escalated_at": at,
        "told_at": told_at, "tell_tries": 0, "tell_next_at": None,
    }, guards={"status": ProposalStatus.WAITING.value,
               "escalations": proposal.escalations}) == 1


_DUE = select(proposals.c.id).where(
    proposals.c.status == bindparam("waiting"), proposals.c.deadline_at <= bindparam("now"),
).order_by(proposals.c.deadline_at, proposals.c.id)


def due_proposals(db: Executor, now: datetime) -> list[str]:
    """The ids of the waiting proposals whose deadline is `now` or before, soonest first."""
    rows = _run(db, "due_proposals", lambda: _DUE,
                {"waiting": ProposalStatus.WAITING.value, "now": now})
    return [r["id"] for r in rows.rows]


_EARLIEST = select(func.min(proposals.c.deadline_at)).where(
    proposals.c.task_id == bindparam("task"), proposals.c.status == bindparam("waiting"))


def earliest_deadline(db: Executor, task_id: str) -> datetime | None:
    """The soonest deadline among the task's waiting proposals (None: none has one)."""
    found: datetime | None = _run(db, "earliest_deadline", lambda: _EARLIEST,
                 {"task": task_id, "waiting": ProposalStatus.WAITING.value}).scalar()
    return aware(found)


def finish_proposal(db: Executor, proposal_id: str, status: ProposalStatus, **values: Any) -> bool:
    """Set where an approved proposal ends; False when it has ended already (its run was
    recorded, or settled by a worker that took its runner for gone), and nothing is written."""
    return _run_update(db, proposals, proposal_id, {**values, "status": status.value}, guards={
        "status": ProposalStatus.APPROVED.value}) == 1


@dataclass(frozen=True, kw_only=True)
class ApprovedRun:
    """An approved proposal whose run is not recorded yet, and who runs it (`signoff.agents.runs`)."""

    id: str
    """The proposal's id."""
    run_by: str | None
    """Who runs it (a holder's id: `signoff.agents.holds.holder_id`); None when it was
    approved before runs were leased."""
    run_until: datetime | None
    """Until when they are known to run it (renewed while it runs)."""
    decided_at: datetime | None
    """When it was approved."""


def approved_runs(db: Executor) -> list[ApprovedRun]:
    """The approved proposals whose run is not recorded yet."""
    rows = _run(db, "approved_runs", lambda: select(
        proposals.c.id, proposals.c.run_by, proposals.c.run_until, proposals.c.decided_at,
    ).where(proposals.c.status == bindparam("approved")).order_by(proposals.c.decided_at),
        {"approved": ProposalStatus.APPROVED.value})
    return [ApprovedRun(**r) for r in rows.rows]


def take_over_run(db: Executor, seen: ApprovedRun, *, run_by: str, run_until: datetime) -> bool:
    """Lease an approved run, found with its runner gone, to `run_by`: False when it was
    recorded, or taken over, since it was read as `seen`."""
    return _run(db, "take_over_run", lambda: update(proposals).where(
        proposals.c.id == bindparam("key"), proposals.c.status == bindparam("approved"),
        proposals.c.run_by.is_not_distinct_from(bindparam("seen_by", type_=proposals.c.run_by.type)),
        proposals.c.run_until.is_not_distinct_from(
            bindparam("seen_until", type_=proposals.c.run_until.type)),
    ).values(run_by=bindparam("by"), run_until=bindparam("until")), {
        "key": seen.id, "approved": ProposalStatus.APPROVED.value, "seen_by": seen.run_by,
        "seen_until": seen.run_until, "by": run_by, "until": run_until}).rowcount == 1


def renew_run(db: Executor, proposal_id: str, run_by: str, until: datetime) -> None:
    """Renew the lease of an approved run `run_by` still has, to `until`."""
    _run_update(db, proposals, proposal_id, {"run_until": until}, guards={
        "status": ProposalStatus.APPROVED.value, "run_by": run_by})


def waiting_of_task(db: Executor, task_id: str) -> list[Proposal]:
    """The task's proposals still waiting (or approved and running)."""
    rows = _run(db, "waiting_of_task", lambda: _WAITING_OF_TASK, {
        "task": task_id, "waiting": ProposalStatus.WAITING.value,
        "approved": ProposalStatus.APPROVED.value})
    return [_proposal(r) for r in rows.rows]


_WAITING_OF_TASK = select(proposals).where(
    proposals.c.task_id == bindparam("task"),
    or_(proposals.c.status == bindparam("waiting"), proposals.c.status == bindparam("approved")),
)


def _proposal(m: Any) -> Proposal:
    return Proposal(
        id=m["id"], task=m["task_id"], agent=m["agent"], skill=m["skill"],
        skill_version=m["skill_version"], action=m["action"], label=m["label"],
        effects=tuple(m["effects"]), arguments=m["arguments"], shown=m["shown"], why=m["why"],
        evidence=tuple(Evidence(**e) for e in m["evidence"]),
        subject_version=m["subject_version"], fingerprint=m["fingerprint"],
        decide_by="", decide_person_id=m["decide_person_id"], decide_queue=m["decide_queue"],
        routed=m["routed"], for_id=m["for_id"], status=ProposalStatus(m["status"]),
        decided_by=m["decided_by_id"], reason=m["reason"], result=m["result"],
        edited=m["edited"], created_at=m["created_at"], decided_at=m["decided_at"],
        labels=tuple(ArgumentLabel.from_json(label) for label in m["labels"] or ()),
        deadline_at=m["deadline_at"], escalations=m["escalations"],
        escalated_at=m["escalated_at"],
    )


# -- standing rules ------------------------------------------------------------------------


def insert_rule(db: Executor, **values: Any) -> str:
    """Store a new standing rule; its id."""
    rule_id = new_id()
    db.execute(standing_rules.insert().values(id=rule_id, made_at=now(), used=0, **values))
    return rule_id


def matching_rules(
    db: Executor, *, agent: str, tool: str, skill: str, for_id: str | None
) -> list[StandingRule]:
    """The active rules that would let `agent` run `tool` alone in this work (of `skill`, for
    `for_id`), oldest first. Whether each still holds (its maker could make it now) is for the
    caller to check: one that no longer does lets nothing run, and the next may."""
    found = _run(db, "matching_rules", lambda: _MATCHING_RULES,
                 {"agent": agent, "tool": tool, "skill": skill, "for_id": for_id})
    return [_rule(row) for row in found.rows]


_r = standing_rules.c
_MATCHING_RULES = select(standing_rules).where(
    _r.agent == bindparam("agent"), _r.tool == bindparam("tool"), _r.revoked_at.is_(None),
    or_(_r.skill.is_(None), _r.skill == bindparam("skill")),
    or_(_r.for_id.is_(None), and_(_r.for_id.is_not(None), _r.for_id == bindparam("for_id"))),
).order_by(_r.made_at, _r.id)


def rule_stands(db: Executor, rule_id: str) -> bool:
    """Whether the rule is still active, read in `db`'s transaction with its row locked until
    that ends (on PostgreSQL; on SQLite the transaction holds the write lock): a revoke either
    was committed before, and is seen, or waits until the transaction has ended."""
    return bool(_run(db, "rule_stands", lambda: _RULE_STANDS, {"key": rule_id}).rows)


_RULE_STANDS = select(_r.id).where(_r.id == bindparam("key"), _r.revoked_at.is_(None)
                                   ).with_for_update()


def use_rule(db: Executor, rule_id: str) -> None:
    """Count one use of a rule."""
    _run(db, "use_rule", lambda: update(standing_rules).where(
        standing_rules.c.id == bindparam("key")).values(
        used=standing_rules.c.used + 1, last_used_at=bindparam("at")),
        {"key": rule_id, "at": now()})


def load_rules(db: Executor, *, active_only: bool = False) -> list[StandingRule]:
    """Every standing rule, oldest first."""
    query = select(standing_rules).order_by(standing_rules.c.made_at)
    if active_only:
        query = query.where(standing_rules.c.revoked_at.is_(None))
    return [_rule(r._mapping) for r in db.execute(query)]


def revoke_rule(db: Executor, rule_id: str, *, by: str, why: str) -> bool:
    """Take a rule back; False when it was already."""
    done = db.execute(
        update(standing_rules)
        .where(standing_rules.c.id == rule_id, standing_rules.c.revoked_at.is_(None))
        .values(revoked_by_id=by, revoked_at=now(), why=why)
    )
    return bool(done.rowcount == 1)


def _rule(m: Any) -> StandingRule:
    effects = m["effects"]
    return StandingRule(
        id=m["id"], agent=m["agent"], tool=m["tool"], skill=m["skill"], for_id=m["for_id"],
        made_by=m["made_by_id"], made_at=m["made_at"], used=m["used"],
        last_used_at=m["last_used_at"], revoked_by=m["revoked_by_id"],
        revoked_at=m["revoked_at"], why=m["why"],
        effects=None if effects is None else tuple(tuple(e) for e in json.loads(effects)),
    )


# -- receipts ------------------------------------------------------------------------------


def note(db: Executor, task_id: str, kind: ReceiptKind, words: str, cost_usd: float = 0.0,
         **data: Any) -> None:
    """Add an entry to a task's receipt, with the step being written."""
    journal.pending(db, task_id).entries.append({
        "kind": kind.value, "at": now().isoformat(), "words": words, "data": data,
        "cost_usd": cost_usd})


def entries_of(db: Executor, task_id: str) -> list[ReceiptEntry]:
    """A task's receipt entries, in order."""
    return [ReceiptEntry(at=datetime.fromisoformat(e["at"]), kind=ReceiptKind(e["kind"]),
                         words=e["words"], data=e["data"], cost_usd=e["cost_usd"])
            for step in journal.steps_of(db, task_id) for e in step.data.get("entries", ())]


def count(db: Executor, query: Select[Any]) -> int:
    """How many rows `query` selects."""
    return int(db.execute(select(func.count()).select_from(query.subquery())).scalar_one())
