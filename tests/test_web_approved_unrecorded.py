"""A yes over the API whose call ran but whose outcome could not be recorded (SQLite's write lock
held by another connection past signoff's wait) is answered with what happened — the yes was
recorded, the call started, its outcome not known, and what becomes of it — not "nothing was
done: try again later"; and a yes said again is told what the proposal's record shows, not
"already decided" alone; nor is the same person's second yes, cut off while the first still
runs its call, told its own outcome was not recorded. A real SQLite file, its lock taken by a
real second connection."""

from __future__ import annotations

import html
import re
import sqlite3
import threading
import time
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace

import pytest
from fastapi.testclient import TestClient

from signoff import App, Permits, ProposalStatus, TaskStatus
from signoff.store import database as store_database
from signoff.web import create_web_app
from tests.post_office import postie

PASSWORD = "correct horse battery"


def _post_office(tmp_path: Path, locked: threading.Event) -> SimpleNamespace:
    """An app whose agent proposes to post a letter (a line of a file, then it waits until
    `locked` is set), the proposal, the model, and a client of its API with Noor's token."""
    app = App("post", database=f"sqlite:///{tmp_path / 'post.db'}", key=b"p" * 32)
    letters = tmp_path / "letters.txt"

    @app.action("Post a letter")
    def post_letter(text: str) -> str:
        """Posts a letter (a line of a file); the database is locked meanwhile."""
        with open(letters, "a", encoding="utf-8") as file:
            file.write(text + "\n")
        locked.wait(10)
        return "Posted."

    noor = app.people.add("noor@post.example", "Noor")
    app.credentials.set_password(noor, PASSWORD)
    posting = postie(app, post_letter, Permits(), noor)
    model = posting.model
    outcome = app.agent(posting.agent).do(posting.skill, None, model=model)
    (proposal,) = app.proposals(task=outcome.task)
    return SimpleNamespace(
        app=app, task=outcome.task, proposal=proposal, model=model, letters=letters,
        client=TestClient(create_web_app(app, secure_cookies=False)),
        bearer={"Authorization": f"Bearer {app.credentials.issue_token(noor, 'test')}"},
        approve=f"/api/proposals/{proposal.id}/approve")


def test_a_yes_whose_outcome_was_not_recorded_is_told_so_and_so_is_a_second(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first yes: 503 saying the call was started and its outcome not recorded; the second:
    409 saying who approved it and that its outcome was not recorded, for a worker to settle;
    the letter posted once."""
    monkeypatch.setattr(store_database, "_WAIT_SECONDS", 0.3)  # (30 s in use)
    locked = threading.Event()
    office = _post_office(tmp_path, locked)
    app, proposal, letters = office.app, office.proposal, office.letters
    client, bearer, approve = office.client, office.bearer, office.approve
    locker = sqlite3.connect(tmp_path / "post.db", isolation_level=None,
                             check_same_thread=False)

    def lock_once_posted() -> None:
        while not letters.exists():
            time.sleep(0.01)
        locker.execute("BEGIN EXCLUSIVE")
        locked.set()

    threading.Thread(target=lock_once_posted, daemon=True).start()
    try:
        first = client.post(approve, headers=bearer)
    finally:
        assert locked.is_set()
        locker.rollback()
        locker.close()
    assert first.status_code == 503, first.text
    assert first.json()["type"] == "urn:signoff:problem:outcome-unknown"
    said = first.json()["detail"]
    assert said.startswith("Your yes was recorded and post_letter was started, but its outcome "
                           "could not be recorded"), said
    assert "nothing was done" not in said
    assert "not run again blindly" in said
    assert app.proposal(proposal.id).status is ProposalStatus.APPROVED

    second = client.post(approve, headers=bearer)
    assert second.status_code == 409, second.text
    told = second.json()["detail"]
    assert told.startswith("This proposal was already decided: approved by Noor at "), told
    assert "and its call, post_letter, was started, but its outcome was not recorded" in told
    assert "signoff worker" in told

    app.worker(model_for=lambda _agent, _task: office.model).recover(older_than=timedelta(0))
    assert app.proposal(proposal.id).status is ProposalStatus.FAILED  # (settled: unknown)
    assert app.outcome(office.task).status is TaskStatus.DONE
    assert letters.read_text() == "hello\n"  # (not posted again)
    app.database.dispose()


def test_a_yes_said_while_the_call_runs_is_told_it_runs(tmp_path: Path) -> None:
    """A second yes while the first one's call still runs: 409 saying it was approved and its
    call is still running, its outcome not known yet; the first then ends as it ran."""
    going = threading.Event()
    office = _post_office(tmp_path, going)
    answers: list[int] = []
    first = threading.Thread(target=lambda: answers.append(office.client.post(
        office.approve, headers=office.bearer).status_code))
    first.start()
    try:
        while not office.letters.exists() and first.is_alive():
            time.sleep(0.01)
        assert office.letters.exists(), answers  # (the call runs: it waits on `going`)
        second = office.client.post(office.approve, headers=office.bearer)
    finally:
        going.set()
        first.join(timeout=60)
    assert second.status_code == 409, second.text
    told = second.json()["detail"]
    assert told.startswith("This proposal was already decided: approved by Noor at "), told
    assert "and its call, post_letter, is still running: its outcome is not known yet" in told
    assert answers == [200]
    assert office.app.proposal(office.proposal.id).status is ProposalStatus.DONE
    office.app.database.dispose()


def test_a_yes_in_the_inbox_whose_outcome_was_not_recorded_comes_back_saying_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The inbox's Approve, its outcome not recorded: back to the proposal's page, which says
    that the yes was recorded and the call started, and what becomes of it (it was the error
    page's "nothing was done: try again later")."""
    monkeypatch.setattr(store_database, "_WAIT_SECONDS", 0.3)  # (30 s in use)
    locked = threading.Event()
    office = _post_office(tmp_path, locked)
    client = office.client
    login = re.search(r'name="csrf" value="([^"]+)"', client.get("/login").text)
    assert login is not None
    assert client.post("/login", data={"handle": "noor@post.example", "password": PASSWORD,
                                       "csrf": login.group(1)},
                       follow_redirects=False).status_code == 303
    page = f"/proposals/{office.proposal.id}"
    csrf = re.search(r'name="csrf" value="([^"]+)"', client.get(page).text)
    assert csrf is not None
    locker = sqlite3.connect(tmp_path / "post.db", isolation_level=None,
                             check_same_thread=False)

    def lock_once_posted() -> None:
        while not office.letters.exists():
            time.sleep(0.01)
        locker.execute("BEGIN EXCLUSIVE")
        locked.set()

    threading.Thread(target=lock_once_posted, daemon=True).start()
    try:
        answer = client.post(f"{page}/approve", data={"csrf": csrf.group(1)},
                             follow_redirects=False)
    finally:
        assert locked.is_set()
        locker.rollback()
        locker.close()
    assert (answer.status_code, answer.headers.get("location")) == (303, page), answer.text
    shown = html.unescape(client.get(page).text)
    assert "Your yes was recorded and post_letter was started, but its outcome could not be " \
           "recorded" in shown
    assert "nothing was done" not in shown
    office.app.database.dispose()


def test_a_second_yes_cut_off_while_the_first_runs_is_told_it_runs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same person's second yes, while their first yes's call still runs (it waits on
    `going`) and the database is locked, is told the call is still running — not that its yes
    was recorded and its outcome could not be, to be settled as unknown; the first then ends
    Done, the letter posted once."""
    monkeypatch.setattr(store_database, "_WAIT_SECONDS", 0.3)  # (30 s in use)
    going = threading.Event()
    office = _post_office(tmp_path, going)
    answers: list[int] = []
    first = threading.Thread(target=lambda: answers.append(
        office.client.post(office.approve, headers=office.bearer).status_code))
    first.start()
    locker = sqlite3.connect(tmp_path / "post.db", isolation_level=None,
                             check_same_thread=False)
    try:
        while not office.letters.exists() and first.is_alive():
            time.sleep(0.01)
        assert office.letters.exists(), answers  # (the first yes's call runs: it waits)
        locker.execute("BEGIN EXCLUSIVE")
        try:
            second = office.client.post(office.approve, headers=office.bearer)
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
    assert office.app.proposal(office.proposal.id).status is ProposalStatus.DONE
    assert office.letters.read_text() == "hello\n"
    office.app.database.dispose()
