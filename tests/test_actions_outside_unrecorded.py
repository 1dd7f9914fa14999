"""An outside call that ran, whose outcome could not be recorded as it came back (SQLite's write
lock held by another process past signoff's wait), is not told as Failed — it happened, and a
model told "Failed" would ask for it again — but ends the step (or the yes) as a crash would:
`StoreError`, the call left marked running, and told as of unknown outcome when the task goes
on, not run again. A real SQLite file, its lock taken by a real second connection."""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace

import pytest
from sqlalchemy import select

from signoff import AgentRefused, App, Permits, TaskStatus
from signoff.exceptions import StoreError
from signoff.store import database as store_database
from signoff.store.tables import tasks
from tests.post_office import postie


def _post_office(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, may: Permits) -> SimpleNamespace:
    """An app whose agent posts a letter (a line of a file); once it is posted, a second
    connection takes the database's write lock (the action waits for it), until a failure is
    logged (`office.lock_held()`)."""
    monkeypatch.setattr(store_database, "_WAIT_SECONDS", 0.3)  # (30 s in use)
    db = tmp_path / "post.db"
    app = App("post", database=f"sqlite:///{db}", key=b"p" * 32)
    letters = tmp_path / "letters.txt"
    locker = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
    locked = threading.Event()

    @app.action("Post a letter")
    def post_letter(text: str) -> str:
        """Posts a letter (here: a line of a file, and the database locked meanwhile)."""
        with open(letters, "a", encoding="utf-8") as file:
            file.write(text + "\n")
        locked.wait(10)
        return "Posted."

    posting = postie(app, post_letter, may)

    def lock_once_posted() -> None:
        while not letters.exists():
            time.sleep(0.01)
        locker.execute("BEGIN EXCLUSIVE")
        locked.set()

    class LetGo(logging.Handler):  # the lock is let go once a failure is logged: the step
        def emit(self, record: logging.LogRecord) -> None:  # could write again after it
            if locker.in_transaction:
                locker.rollback()

    @contextmanager
    def lock_held() -> Iterator[None]:
        threading.Thread(target=lock_once_posted, daemon=True).start()
        let_go = LetGo(level=logging.ERROR)
        logging.getLogger("signoff").addHandler(let_go)
        try:
            yield
        finally:
            logging.getLogger("signoff").removeHandler(let_go)
            assert locked.is_set()
            locker.close()

    return SimpleNamespace(app=app, letters=letters, lock_held=lock_held, **vars(posting))


def _goes_on_told_unknown(office: SimpleNamespace, task_id: str) -> None:
    """A worker takes the task on: the call is told as of unknown outcome, not Failed, the task
    ends Done, and the letter was posted once."""
    worker = office.app.worker(model_for=lambda _agent, _task: office.model)
    worker.recover(older_than=timedelta(0))
    worker.run_once()
    outcome = office.app.outcome(task_id)
    assert outcome.status is TaskStatus.DONE, outcome.problem
    told = [m.text for m in office.model.seen.messages[-1] if m.role == "tool"]
    assert len(told) == 1
    assert "unknown" in told[0], told
    assert not told[0].startswith("Failed"), told
    assert office.letters.read_text() == "hello\n"  # (not posted again)
    office.app.database.dispose()


def test_an_outside_call_whose_outcome_cannot_be_kept_is_not_told_failed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run alone: the step ends with `StoreError`; the task goes on with the call told as of
    unknown outcome."""
    office = _post_office(tmp_path, monkeypatch, Permits.everything())
    with office.lock_held(), pytest.raises(StoreError, match="locked"):
        office.app.agent(office.agent).do(office.skill, None, model=office.model)
    assert office.letters.read_text() == "hello\n"
    with office.app.database.connect() as connection:
        (task_id,) = connection.execute(select(tasks.c.id)).scalars()
    _goes_on_told_unknown(office, task_id)


def test_an_approved_outside_call_whose_outcome_cannot_be_kept_is_settled_unknown(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On a yes: the yes ends with `StoreError`; a worker settles the call as of unknown
    outcome."""
    office = _post_office(tmp_path, monkeypatch, Permits())
    outcome = office.app.agent(office.agent).do(office.skill, None, model=office.model)
    assert outcome.status is TaskStatus.WAITING
    (proposal,) = office.app.proposals(task=outcome.task)
    with office.lock_held(), pytest.raises(StoreError, match="locked"):
        office.app.approve(proposal, by=office.noor)
    with pytest.raises(AgentRefused) as again:  # (a second yes: what the record shows)
        office.app.approve(proposal, by=office.noor)
    assert str(again.value).startswith("This proposal was already decided: approved by Noor "
                                       "at "), again.value
    assert ("its call, post_letter, has not reported back: its outcome is not known yet. It is "
            "not run again blindly") in str(again.value)
    _goes_on_told_unknown(office, outcome.task)
