"""A person's second yes to a proposal whose first yes (theirs) still runs its call, the second
meeting a database it cannot use (SQLite's write lock held past signoff's wait): it is told the
call still runs — not "Your yes was recorded … but its outcome could not be recorded", nor that
a worker will settle it as of unknown outcome, when the first yes goes on and records how it
ended. A real SQLite file, its lock taken by a real second connection."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from pydantic import BaseModel

from signoff import Agent, App, Permits, ProposalStatus, Skill
from signoff.store import database as store_database
from signoff.testing import ScriptedModel, says
from signoff.web import create_web_app


class Report(BaseModel):
    summary: str


def test_a_second_yes_cut_off_while_the_first_runs_is_told_it_runs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first yes's call runs (it waits on `going`); the second, the database locked, is
    told the call is still running; the first then ends Done, the letter posted once."""
    monkeypatch.setattr(store_database, "_WAIT_SECONDS", 0.3)  # (30 s in use)
    app = App("post", database=f"sqlite:///{tmp_path / 'post.db'}", key=b"p" * 32)
    letters = tmp_path / "letters.txt"
    going = threading.Event()

    @app.action("Post a letter")
    def post_letter(text: str) -> str:
        """Posts a letter (a line of a file), then waits until it is let go."""
        with open(letters, "a", encoding="utf-8") as file:
            file.write(text + "\n")
        going.wait(30)
        return "Posted."

    class Post(Skill[None, Report]):
        description = "Post a letter."
        tools = [post_letter]

        def brief(self, subject: None) -> str:
            return "Post one letter."

    class Postie(Agent):
        purpose = "You post letters."
        skills = [Post()]
        may = Permits()

    noor = app.people.add("noor@post.example", "Noor")
    app.add_agent(Postie, sponsor=noor)
    model = ScriptedModel(says.tool(post_letter, text="hello"),
                          says.hand_back(Report(summary="Posted.")))
    outcome = app.agent(Postie).do(Post(), None, model=model)
    (proposal,) = app.proposals(task=outcome.task)
    client = TestClient(create_web_app(app, secure_cookies=False))
    bearer = {"Authorization": f"Bearer {app.credentials.issue_token(noor, 'test')}"}
    approve = f"/api/proposals/{proposal.id}/approve"

    answers: list[int] = []
    first = threading.Thread(target=lambda: answers.append(
        client.post(approve, headers=bearer).status_code))
    first.start()
    locker = sqlite3.connect(tmp_path / "post.db", isolation_level=None,
                             check_same_thread=False)
    try:
        while not letters.exists() and first.is_alive():
            time.sleep(0.01)
        assert letters.exists(), answers  # (the first yes's call runs: it waits on `going`)
        locker.execute("BEGIN EXCLUSIVE")
        try:
            second = client.post(approve, headers=bearer)
        finally:
            locker.rollback()
    finally:
        locker.close()
        going.set()
        first.join(timeout=60)
    told = second.json()["detail"]
    assert "could not be recorded" not in told, told
    assert "settles it" not in told, told
    assert "is still running: its outcome is not known yet" in told, told
    assert answers == [200]
    assert app.proposal(proposal.id).status is ProposalStatus.DONE  # (recorded, as it ran)
    assert letters.read_text() == "hello\n"
    app.database.dispose()
