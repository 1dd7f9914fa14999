"""An outside call that ran, whose outcome could not be recorded as it came back (SQLite's write
lock held by another process past signoff's wait), is not told as Failed — it happened, and a
model told "Failed" would ask for it again — but ends the step as a crash would: `StoreError`,
the call left marked running, and told as of unknown outcome when the task goes on, not run
again. A real SQLite file, its lock taken by a real second connection."""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from datetime import timedelta
from pathlib import Path

import pytest
from pydantic import BaseModel
from sqlalchemy import select

from signoff import Agent, App, Permits, Skill, TaskStatus
from signoff.exceptions import StoreError
from signoff.store import database as store_database
from signoff.store.tables import tasks
from signoff.testing import ScriptedModel, says


class Report(BaseModel):
    summary: str


def test_an_outside_call_whose_outcome_cannot_be_kept_is_not_told_failed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The letter is posted while another connection takes the write lock: the step ends with
    `StoreError`; once the lock is let go, the task goes on with the call told as of unknown
    outcome (not Failed), and the letter is not posted again."""
    monkeypatch.setattr(store_database, "_WAIT_SECONDS", 0.3)  # (30 s in use)
    db = tmp_path / "post.db"
    app = App("post", database=f"sqlite:///{db}", key=b"p" * 32)
    letters = tmp_path / "letters.txt"
    locker = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
    locked = threading.Event()

    def lock_once_posted() -> None:  # (another writer takes the lock while the call is out)
        while not letters.exists():
            time.sleep(0.01)
        locker.execute("BEGIN EXCLUSIVE")
        locked.set()

    threading.Thread(target=lock_once_posted, daemon=True).start()

    @app.action("Post a letter")
    def post_letter(text: str) -> str:
        """Posts a letter (here: a line of a file, and the database locked meanwhile)."""
        with open(letters, "a", encoding="utf-8") as file:
            file.write(text + "\n")
        locked.wait(10)
        return "Posted."

    class Post(Skill[None, Report]):
        description = "Post a letter."
        tools = [post_letter]

        def brief(self, subject: None) -> str:
            return "Post one letter."

    class Postie(Agent):
        purpose = "You post letters."
        skills = [Post()]
        may = Permits.everything()

    app.add_agent(Postie)
    model = ScriptedModel(says.tool(post_letter, text="hello"),
                          says.hand_back(Report(summary="Posted.")))


    class LetGo(logging.Handler):  # the lock is let go once a failure is logged: the step
        def emit(self, record: logging.LogRecord) -> None:  # could write again after it
            if locker.in_transaction:
                locker.rollback()

    let_go = LetGo(level=logging.ERROR)
    logging.getLogger("signoff").addHandler(let_go)
    try:
        with pytest.raises(StoreError, match="locked"):
            app.agent(Postie).do(Post(), None, model=model)
    finally:
        logging.getLogger("signoff").removeHandler(let_go)
    assert locked.is_set()
    locker.close()
    assert letters.read_text() == "hello\n"
    worker = app.worker(model_for=lambda _agent, _task: model)
    worker.recover(older_than=timedelta(0))
    worker.run_once()
    with app.database.connect() as connection:
        (task_id,) = connection.execute(select(tasks.c.id)).scalars()
    outcome = app.outcome(task_id)
    assert outcome.status is TaskStatus.DONE, outcome.problem
    told = [m.text for m in model.seen.messages[-1] if m.role == "tool"]
    assert len(told) == 1
    assert "unknown" in told[0], told
    assert not told[0].startswith("Failed"), told
    assert letters.read_text() == "hello\n"  # (not posted again)
    app.database.dispose()


def test_an_approved_outside_call_whose_outcome_cannot_be_kept_is_settled_unknown(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same on a yes: the letter is posted, the decision's record cannot be written, and the
    yes ends with `StoreError`; a worker then settles the call as of unknown outcome (the model
    is not told it failed), and the letter is not posted again."""
    monkeypatch.setattr(store_database, "_WAIT_SECONDS", 0.3)
    db = tmp_path / "post.db"
    app = App("post", database=f"sqlite:///{db}", key=b"p" * 32)
    letters = tmp_path / "letters.txt"
    locker = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
    locked = threading.Event()

    def lock_once_posted() -> None:
        while not letters.exists():
            time.sleep(0.01)
        locker.execute("BEGIN EXCLUSIVE")
        locked.set()

    @app.action("Post a letter")
    def post_letter(text: str) -> str:
        """Posts a letter (here: a line of a file, and the database locked meanwhile)."""
        with open(letters, "a", encoding="utf-8") as file:
            file.write(text + "\n")
        locked.wait(10)
        return "Posted."

    class Post(Skill[None, Report]):
        description = "Post a letter."
        tools = [post_letter]

        def brief(self, subject: None) -> str:
            return "Post one letter."

    class Postie(Agent):
        purpose = "You post letters."
        skills = [Post()]

    noor = app.people.add("noor@post.example", "Noor")
    app.add_agent(Postie, sponsor=noor)
    model = ScriptedModel(says.tool(post_letter, text="hello"),
                          says.hand_back(Report(summary="Posted.")))
    outcome = app.agent(Postie).do(Post(), None, model=model)
    assert outcome.status is TaskStatus.WAITING
    (proposal,) = app.proposals(task=outcome.task)
    threading.Thread(target=lock_once_posted, daemon=True).start()

    class LetGo(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if locker.in_transaction:
                locker.rollback()

    let_go = LetGo(level=logging.ERROR)
    logging.getLogger("signoff").addHandler(let_go)
    try:
        with pytest.raises(StoreError, match="locked"):
            app.approve(proposal, by=noor)
    finally:
        logging.getLogger("signoff").removeHandler(let_go)
    locker.close()
    worker = app.worker(model_for=lambda _agent, _task: model)
    worker.recover(older_than=timedelta(0))
    worker.run_once()
    assert app.outcome(outcome.task).status is TaskStatus.DONE
    told = [m.text for m in model.seen.messages[-1] if m.role == "tool"]
    assert len(told) == 1
    assert "unknown" in told[0], told
    assert not told[0].startswith("Failed"), told
    assert letters.read_text() == "hello\n"
    app.database.dispose()
