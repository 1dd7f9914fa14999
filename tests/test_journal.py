"""The journal of steps (`signoff.store.journal`): a step is appended as its transaction commits,
numbered by its task's head, never twice with one number, and what a task did is read back from
its steps alone — on SQLite and a real PostgreSQL server."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from sqlalchemy import select, update

from signoff.agents import repository as repo
from signoff.agents.states import ReceiptKind
from signoff.models.base import Message
from signoff.store import journal
from signoff.store.database import Database
from signoff.store.tables import metadata as signoff_tables
from signoff.store.tables import steps, tasks


@pytest.fixture
def db(database: str) -> Iterator[Database]:
    """signoff's tables on the test's database."""
    found = Database(database)
    found.holds(signoff_tables)
    found.ensure_schema()
    yield found
    found.dispose()


def _task(db: Database, task_id: str = "t1") -> str:
    """A task head with nothing in its journal yet."""
    at = datetime.now(UTC)
    with db.connect() as c:
        c.execute(tasks.insert(), {
            "id": task_id, "agent": "a", "skill": "s", "subject_type": "", "status": "running",
            "turn": 0, "turn_open": False, "message_count": 0, "steps": 0, "spend_usd": 0.0,
            "max_steps": 10, "budget_usd": 1.0, "model": "m", "problem": "", "revision": 0,
            "created_at": at, "updated_at": at, "fence": 0, "reserved_usd": 0.0, "seq": 0})
    return task_id


def _seqs(db: Database, task_id: str) -> list[int]:
    with db.connect() as c:
        return [r.seq for r in c.execute(
            select(steps.c.seq).where(steps.c.task_id == task_id).order_by(steps.c.seq))]


def test_a_step_is_appended_as_its_transaction_commits(db: Database) -> None:
    """What a transaction writes of a task is one row, appended as it commits and numbered by
    the task's head; inside the transaction it is read back as the step being written (0)."""
    task = _task(db)
    with db.connect() as c:
        repo.note(c, task, ReceiptKind.START, "Began.")
        repo.append_messages(c, task, [Message(role="user", text="Hello.")])
        inside = journal.steps_of(c, task)
        assert [(s.seq, s.kind) for s in inside] == [(0, "start")]
        assert _seqs_in(c, task) == []  # not appended yet
    assert _seqs(db, task) == [1]
    with db.connect() as c:
        head = c.execute(select(tasks.c.seq).where(tasks.c.id == task)).scalar_one()
        (row,) = journal.steps_of(c, task)
    assert head == 1
    assert row.data == {"entries": [row.data["entries"][0]],
                        "messages": [{"role": "user", "text": "Hello."}]}
    assert row.data["entries"][0]["words"] == "Began."


def _seqs_in(c: object, task_id: str) -> list[int]:
    return [r.seq for r in c.execute(  # type: ignore[attr-defined]
        select(steps.c.seq).where(steps.c.task_id == task_id))]


def test_a_transaction_that_rolls_back_leaves_no_step(db: Database) -> None:
    """A step whose transaction fails is not appended, and takes no number: the next one is 1."""
    task = _task(db)
    def fails() -> None:
        with db.connect() as c:
            repo.note(c, task, ReceiptKind.START, "Began, then failed.")
            raise RuntimeError("the step fails")

    with pytest.raises(RuntimeError):
        fails()
    assert _seqs(db, task) == []
    with db.connect() as c:
        repo.note(c, task, ReceiptKind.START, "Began.")
    assert _seqs(db, task) == [1]
    with db.connect() as c:
        assert [e.words for e in repo.entries_of(c, task)] == ["Began."]


def test_two_writers_of_one_task_never_take_one_number(db: Database) -> None:
    """Two threads (each its own connection, as two processes would be) append to one task's
    journal at once: every step is kept, numbered 1 to N with no number taken twice."""
    task = _task(db)
    each, errors = 25, []

    def write(name: str) -> None:
        try:
            for i in range(each):
                with db.connect() as c:
                    repo.note(c, task, ReceiptKind.TOOL_CALL, f"{name} {i}")
        except Exception as error:  # reported below; a thread's exception would be lost
            errors.append(error)

    threads = [threading.Thread(target=write, args=(n,)) for n in ("one", "two")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not errors, errors
    assert _seqs(db, task) == list(range(1, 2 * each + 1))
    with db.connect() as c:
        words = [e.words for e in repo.entries_of(c, task)]
    for name in ("one", "two"):
        assert [w for w in words if w.startswith(name)] == [f"{name} {i}" for i in range(each)]


def test_the_conversation_calls_and_receipt_are_read_from_the_steps(db: Database) -> None:
    """The conversation is the steps' messages in order, a call is its changes folded in order
    (the model's turn stores it whole, its run changes it; a turn's calls are read from the steps
    written in it), the receipt is the steps' entries."""
    task = _task(db)
    with db.connect() as c:  # the model's turn: the head moves to turn 1 with it
        c.execute(update(tasks).where(tasks.c.id == task).values(turn=1))
        repo.append_messages(c, task, [Message(role="assistant", text="Adding.")])
        call = repo.insert_call(c, task_id=task, turn=1, position=0, call_id="c1", tool="add",
                                arguments='{"a": 1}', why="Adding.", state="new")
        repo.note(c, task, ReceiptKind.MODEL_CALL, "The model asked for add.")
    with db.connect() as c:  # the call's run
        repo.update_call(c, task, call, state="done", outcome="Done", value=2, answer="2",
                         finished_at=datetime.now(UTC))
        repo.append_messages(c, task, [Message(role="tool", text="2", tool_call_id="c1")])
        repo.note(c, task, ReceiptKind.TOOL_CALL, "add ran alone: Done.")
    with db.connect() as c:
        assert [m.text for m in repo.messages_of(c, task)] == ["Adding.", "2"]
        assert [m.text for m in repo.messages_of(c, task, 1)] == ["2"]
        (found,) = repo.calls_of(c, task, 1)
        assert (found.id, found.tool, found.state, found.value, found.answer) == (
            call, "add", "done", 2, "2")
        assert repo.calls_of(c, task, 2) == []
        assert [(e.kind, e.words) for e in repo.entries_of(c, task)] == [
            (ReceiptKind.MODEL_CALL, "The model asked for add."),
            (ReceiptKind.TOOL_CALL, "add ran alone: Done.")]
    assert _seqs(db, task) == [1, 2]


def test_an_id_is_a_random_uuid_as_python_writes_one() -> None:
    """`new_id` writes its UUIDs itself (the loop makes one at every call): each is version 4,
    of RFC 9562's variant, written as `str(uuid.UUID(...))` writes it, and none repeats."""
    made = [repo.new_id() for _ in range(20_000)]
    for id_ in made:
        read = uuid.UUID(id_)
        assert str(read) == id_
        assert read.version == 4
        assert read.variant == uuid.RFC_4122
    assert len(set(made)) == len(made)
    assert {id_[19] for id_ in made} == set("89ab")  # every variant digit is made


def test_a_turns_steps_are_read_from_the_tasks_end_whatever_their_number(db: Database) -> None:
    """A turn's steps are found by the journal's key alone, read from the task's end back: for
    every turn of a task whose turns take 1 to 9 steps (so that they start and end anywhere in
    a read of a few), they are exactly its steps in order, the one being written last."""
    task = _task(db)
    sizes = [1, 9, 2, 4, 5, 3, 1, 8, 4]
    for turn, size in enumerate(sizes):
        with db.connect() as c:
            c.execute(update(tasks).where(tasks.c.id == task).values(turn=turn))
        for i in range(size):
            with db.connect() as c:
                repo.note(c, task, ReceiptKind.TOOL_CALL, f"turn {turn}, step {i}")
    with db.connect() as c:
        every = journal.steps_of(c, task)
        assert [s.turn for s in every] == [t for t, n in enumerate(sizes) for _ in range(n)]
        for turn in [*range(len(sizes)), len(sizes)]:
            assert journal.steps_of(c, task, turn=turn) == [s for s in every if s.turn == turn]
        repo.note(c, task, ReceiptKind.TOOL_CALL, "being written")
        last = len(sizes) - 1
        found = journal.steps_of(c, task, turn=last)
        assert [s.data["entries"][0]["words"] for s in found] == [
            *(f"turn {last}, step {i}" for i in range(sizes[last])), "being written"]
        assert found[-1].seq == 0
