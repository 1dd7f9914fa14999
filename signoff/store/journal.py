"""The journal of steps: what each task did, one append-only row per step of it.

A step is what one transaction wrote of one task: the messages it added to the conversation,
the changes of its tool calls, and its receipt entries. Whoever writes in a transaction gathers
these into the task's `Pending` step (`pending`); the step is appended when the transaction
commits (``flush``, called as it commits), numbered by the task's head (``signoff_tasks.seq``,
moved on in the same statement that reads it, so that two writers of one task never take one
number), and forgotten when it rolls back. The conversation, the tool calls, the evidence and
the receipt are read back from the rows (`steps_of`): nothing else stores them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import bindparam, select, update
from sqlalchemy.engine import Connection

from signoff.store.prepared import insert_of, prepare
from signoff.store.tables import steps, tasks

__all__ = ["Pending", "StepRow", "discard", "flush", "numbered", "pending", "steps_after",
           "steps_of"]

_KEY = "signoff.journal"
"""Where a connection keeps the steps its open transaction is gathering."""


@dataclass(kw_only=True)
class Pending:
    """What a transaction has written of one task so far: its step, appended as it commits."""

    entries: list[dict[str, Any]] = field(default_factory=list)
    """Receipt entries (kind, words, data, cost_usd, at)."""
    messages: list[dict[str, Any]] = field(default_factory=list)
    """Messages added to the conversation, as JSON."""
    calls: list[dict[str, Any]] = field(default_factory=list)
    """Tool calls stored (every column) or changed (their id and what changed)."""
    seq: int | None = None
    """Its number, once taken by a statement of the transaction that moved the task's head on
    (`numbered`); else taken as it is appended."""
    turn: int = 0
    """The task's model turn, as that statement left it."""

    def data(self) -> dict[str, Any]:
        """The row's data: only what the step has."""
        found = {"entries": self.entries, "messages": self.messages, "calls": self.calls}
        return {k: v for k, v in found.items() if v}

    @property
    def kind(self) -> str:
        """What the step is, in a word: its first receipt entry's kind, else what it wrote."""
        if self.entries:
            return str(self.entries[0]["kind"])
        return "calls" if self.calls else "messages"


@dataclass(frozen=True, kw_only=True)
class StepRow:
    """One step as stored."""

    seq: int
    """Its number in its task's journal, from 1."""
    turn: int
    """The model turn the task was in when it was written."""
    kind: str
    """What it is, in a word (see `Pending.kind`)."""
    data: dict[str, Any]
    """Its entries, messages and calls."""


def _info(db: Any) -> dict[str, Any]:
    """The info of the connection `db` (a connection or a session's) runs on: where its
    transaction's steps are gathered. (`Connection.info`, reached in fewer steps: a step
    reaches it several times.)"""
    connection: Connection = db if db.__class__ is Connection or isinstance(db, Connection) else (
        db.connection() if hasattr(db, "get_bind") else db)
    return connection.connection.info


def pending(db: Any, task_id: str) -> Pending:
    """The step the transaction of `db` (a connection or a session) is gathering for `task_id`."""
    # (reached several times a step: a connection's info read in place, and looked up with
    # `in` rather than `get`, so that finding the step takes one call where it took six)
    info = db.connection.info if db.__class__ is Connection else _info(db)
    gathered: dict[str, Pending] = info[_KEY] if _KEY in info else info.setdefault(_KEY, {})
    if task_id in gathered:
        return gathered[task_id]
    found = gathered[task_id] = Pending()
    return found


def numbered(db: Any, task_id: str) -> Pending | None:
    """The step `db`'s transaction gathers for `task_id`, when its number is still to be taken:
    a statement that moves the task's head on may take it (``seq = seq + 1 … RETURNING seq,
    turn``) and set it here, so that appending the step is one statement. (A step that then
    writes nothing of the journal leaves its number unused: the numbers of a task's steps rise,
    and need not follow on.)"""
    step = pending(db, task_id)
    return step if step.seq is None else None


def flush(connection: Connection) -> None:
    """Append the steps this connection's transaction gathered (it is committing)."""
    gathered: dict[str, Pending] | None = connection.info.pop(_KEY, None)
    if not gathered:
        return
    for task_id, step in gathered.items():
        data = step.data()
        if not data:
            continue
        head: dict[str, Any] | None = {"seq": step.seq, "turn": step.turn}
        if step.seq is None:
            head = prepare(connection, "journal_next", lambda: _NEXT).run_on(
                connection, {"key": task_id}).first()
        if head is None:  # no such task: its row is refused (a foreign key to nothing)
            head = {"seq": 1, "turn": 0}
        cost = 0.0
        for entry in step.entries:  # (a loop: each item a generator yields is a call)
            if "cost_usd" in entry:
                cost += entry["cost_usd"]
        prepare(connection, "journal_append", lambda: _APPEND).run_on(connection, {
            "task_id": task_id, "seq": head["seq"], "turn": head["turn"], "kind": step.kind,
            "at": datetime.now(UTC), "cost_usd": cost, "data": data,
        })


def steps_after(db: Any, task_id: str, seq: int) -> list[StepRow]:
    """A task's steps numbered after `seq`, in order (appended ones only)."""
    rows = prepare(db, "journal_after", lambda: _AFTER).run(db, {"task": task_id, "after": seq})
    return [StepRow(seq=r["seq"], turn=r["turn"], kind=r["kind"], data=r["data"])
            for r in rows.rows]


def discard(connection: Connection) -> None:
    """Forget the steps of a transaction that rolled back. (A connection an interrupt
    invalidated forgot them with its driver's connection: it has no steps to read.)"""
    if connection.invalidated or connection.closed:
        return
    connection.info.pop(_KEY, None)


def steps_of(db: Any, task_id: str, *, turn: int | None = None) -> list[StepRow]:
    """A task's steps in order (those written in model turn `turn`, when given), and last, the
    step the transaction of `db` is gathering for it, when it has one (numbered 0: it is not
    appended yet), so that a transaction reads what it wrote."""
    if turn is None:
        rows = prepare(db, "journal_all", lambda: _ALL).run(db, {"task": task_id}).rows
        found = [StepRow(seq=r["seq"], turn=r["turn"], kind=r["kind"], data=r["data"])
                 for r in rows]
    else:
        found = _of_turn(db, task_id, turn)
    gathered: dict[str, Pending] | None = _info(db).get(_KEY)
    step = gathered.get(task_id) if gathered else None
    if step is not None and step.data():
        found.append(StepRow(seq=0, turn=-1 if turn is None else turn, kind=step.kind,
                             data=step.data()))
    return found


def _of_turn(db: Any, task_id: str, turn: int) -> list[StepRow]:
    """A task's steps written in model turn `turn`, in order. The turn a step is written in
    never goes back as the steps' numbers rise (both are the head's, taken in one statement),
    so a turn's steps follow on, and the head's own turn's are the last: they are read from
    the task's end back, a few at a time, by the journal's key, until a step of an earlier
    turn (no index by turn: it was one more page written by every step)."""
    found: list[StepRow] = []
    before = _PAST_ANY_SEQ
    while True:
        rows = prepare(db, "journal_tail", lambda: _TAIL).run(
            db, {"task": task_id, "before": before}).rows
        for r in rows:
            if r["turn"] < turn:
                return found[::-1]
            if r["turn"] == turn:
                found.append(StepRow(seq=r["seq"], turn=turn, kind=r["kind"], data=r["data"]))
        if len(rows) < _TAIL_ROWS:
            return found[::-1]
        before = rows[-1]["seq"]


_TAIL_ROWS = 4
"""How many steps one read from a task's end takes (most turns are one to three steps)."""
_PAST_ANY_SEQ = 2**31 - 1
"""A number past any step's (`seq` is a 32-bit integer on PostgreSQL)."""

_NEXT = update(tasks).where(tasks.c.id == bindparam("key")).values(
    seq=tasks.c.seq + 1).returning(tasks.c.seq, tasks.c.turn)
_APPEND = insert_of(steps, ("task_id", "seq", "turn", "kind", "at", "cost_usd", "data"))
_ALL = select(steps.c.seq, steps.c.turn, steps.c.kind, steps.c.data).where(
    steps.c.task_id == bindparam("task")).order_by(steps.c.seq)
_TAIL = select(steps.c.seq, steps.c.turn, steps.c.kind, steps.c.data).where(
    steps.c.task_id == bindparam("task"), steps.c.seq < bindparam("before")).order_by(
    steps.c.seq.desc()).limit(_TAIL_ROWS)
_AFTER = _ALL.where(steps.c.seq > bindparam("after"))
