"""`signoff stop TASK_ID` without --app stops a task of `signoff research` (as `signoff tasks`
and `signoff receipt` show one): a research waiting on a page nobody wants fetched could only
be rejected, and its model went on asking."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from signoff import ProposalStatus, TaskStatus
from signoff.cli import main
from signoff.cli.research import _local_person
from signoff.research import ask, fetch_url, research_app
from signoff.research.corpus import Corpus
from signoff.testing import ScriptedModel, says


def _waiting(bundled: Corpus, database: str) -> str:
    """A research task, kept in `database`, waiting on a page to fetch: its id."""
    app = research_app(bundled, database=database)
    try:
        script = ScriptedModel(says.tool("The docs site may say more.", fetch_url,
                                         url="https://docs.python.org/3/reference/"))
        outcome = ask(app, "What does the with statement do?", model=script,
                      for_=_local_person(app))
        assert outcome.status is TaskStatus.WAITING
        return outcome.task
    finally:
        app.database.dispose()


def test_a_research_task_waiting_on_a_fetch_is_stopped_without_an_app(
        tmp_path: Path, bundled: Corpus, monkeypatch: pytest.MonkeyPatch) -> None:
    """Stopped with a reason as `signoff stop --help`'s example says (in research's own
    database), it is Halted, its proposal withdrawn; asked again, it has ended; an id of no
    research task is told so, naming how to stop a task of an app."""
    from signoff.research.skill import default_database

    monkeypatch.delenv("SIGNOFF_APP", raising=False)
    monkeypatch.setenv("SIGNOFF_DATA_DIR", str(tmp_path / "data"))
    database = default_database()
    task = _waiting(bundled, database)
    stopped = CliRunner().invoke(main, ["stop", task, "--reason", "Not that page."])
    assert stopped.exit_code == 0, stopped.output
    assert " ".join(stopped.output.split()) == (
        f"Task {task} is Halted: {_me()} stopped it: Not that page.")
    app = research_app(bundled, database=database)
    try:
        assert app.outcome(task).status is TaskStatus.HALTED
        (proposal,) = app.proposals(task=task)
        assert proposal.status is ProposalStatus.WITHDRAWN
    finally:
        app.database.dispose()
    again = CliRunner().invoke(main, ["stop", task, "--database", database, "--json"])
    assert again.exit_code == 1, again.output  # (refused)
    assert "has already ended (Halted)" in again.output
    absent = "ffffffff-ffff-ffff-ffff-ffffffffffff"
    nobody = CliRunner().invoke(main, ["stop", absent])
    assert nobody.exit_code == 3, nobody.output
    assert f"There is no research task {absent} of yours in {database}. Without --app" in (
        " ".join(nobody.output.split()))


def test_stopped_as_json(tmp_path: Path, bundled: Corpus,
                         monkeypatch: pytest.MonkeyPatch) -> None:
    """--json gives where the task stands, as `signoff stop --app … --json` does."""
    monkeypatch.delenv("SIGNOFF_APP", raising=False)
    database = f"sqlite:///{tmp_path / 'r.db'}"
    task = _waiting(bundled, database)
    told = CliRunner().invoke(main, ["stop", task, "--database", database, "--json"])
    assert told.exit_code == 0, told.output
    stood = json.loads(told.output)
    assert (stood["task"], stood["status"]) == (task, "Halted")


def _me() -> str:
    import getpass

    return getpass.getuser()


def test_signoff_tasks_shows_what_a_waiting_research_task_waits_on_and_how_to_end_it(
        tmp_path: Path, bundled: Corpus, monkeypatch: pytest.MonkeyPatch) -> None:
    """`signoff tasks` (no app) lists a research task waiting on a page with the commands that
    approve its proposal or stop it, run as written (it gave "Waiting" alone: only `research
    --go-on` printed them again)."""
    import shlex

    monkeypatch.delenv("SIGNOFF_APP", raising=False)
    database = f"sqlite:///{tmp_path / 'r.db'}"
    task = _waiting(bundled, database)
    listed = CliRunner().invoke(main, ["tasks", "--database", database])
    assert listed.exit_code == 0, listed.output
    said = " ".join(listed.output.split())
    app = research_app(bundled, database=database)
    try:
        (proposal,) = app.proposals(task=task)
    finally:
        app.database.dispose()
    assert f"Waits on {proposal.id}:" in said
    stop_words = said.split("or stop it: ")[1].split(" 1 research task")[0]
    stopped = CliRunner().invoke(main, shlex.split(stop_words)[1:])
    assert stopped.exit_code == 0, stopped.output
    assert f"Task {task} is Halted" in stopped.output
