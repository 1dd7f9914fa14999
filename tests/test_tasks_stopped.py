"""A person stops a task: it ends Halted in their words, and what it waits on is withdrawn.

Before, nothing could end a task no process could step: one left Running by a process that
stopped with a model no worker can make stayed Running for ever (`signoff tasks` showed it
Stuck, and every look of a worker said so again), and one waiting on a decision nobody would
make waited for ever, its proposal in an inbox. On SQLite and PostgreSQL; a real process
killed mid-step; a real thread holding a task while another tries to stop it.
"""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from sqlalchemy import text

from signoff import ProposalStatus, TaskStatus
from signoff.cli import main
from signoff.exceptions import AgentRefused, ReasonRefused, UnknownId, UserError
from signoff.store import points
from tests.deadlines_app import build, runs, script
from tests.killed_child import run_until_killed

GONE_WORDS = "that Fay may stop: it is stopped by whoever the work is for"


def _waiting(shop: Any) -> str:
    """A task of Mia's waiting on Noor's decision of its price."""
    outcome = shop.app.agent(shop.Clerk).do(shop.PriceTicket(), None, for_=shop.mia,
                                            model=script(shop))
    assert outcome.status is TaskStatus.WAITING
    return outcome.task


def test_a_waiting_task_stopped_by_whoever_it_is_for_ends_halted_its_proposal_withdrawn(
        database: str) -> None:
    shop = build(database)
    try:
        task = _waiting(shop)
        (proposal,) = shop.app.proposals(task=task)

        ended = shop.app.stop(task, by=shop.mia, reason="The customer took the bike back.")
        assert (ended.status, ended.problem) == (
            TaskStatus.HALTED, "Mia stopped it: The customer took the bike back.")
        assert shop.app.proposal(proposal).status is ProposalStatus.WITHDRAWN
        with pytest.raises(AgentRefused, match=r"This proposal was withdrawn at .*, not decided: "
                                               "its task stopped before anyone decided it"):
            shop.app.approve(proposal, by=shop.noor)
        assert runs(shop) == 0  # (nothing of it ran, before or after)
        receipt = shop.app.receipt(task).words
        assert "Mia stopped it: The customer took the bike back." in receipt
        assert "set_price was withdrawn: its task stopped before anyone decided it" in receipt

        with pytest.raises(AgentRefused, match=rf"Task {task} has already ended \(Halted\): "
                                               "there is nothing to stop"):
            shop.app.stop(task, by=shop.mia)
    finally:
        shop.app.database.dispose()


def test_only_whoever_the_work_is_for_its_sponsor_or_a_supervisor_may_stop_it(
        database: str) -> None:
    """Fay (of Finance, no part of Mia's work) is told of it as of a task that is not there,
    in the same words; the agent's sponsor may stop its work for nobody; a reason that cannot
    be kept is refused before anything is done."""
    shop = build(database)
    try:
        task = _waiting(shop)
        with pytest.raises(UnknownId, match=f"There is no task with id {task} {GONE_WORDS}"):
            shop.app.stop(task, by=shop.fay)
        absent = "00000000-0000-4000-8000-000000000000"
        with pytest.raises(UnknownId, match=f"There is no task with id {absent} {GONE_WORDS}"):
            shop.app.stop(absent, by=shop.fay)
        with pytest.raises(ReasonRefused, match="at most"):
            shop.app.stop(task, by=shop.mia, reason="x" * 100_000)
        with pytest.raises(UserError, match="reason is words"):
            shop.app.stop(task, by=shop.mia, reason=3)  # type: ignore[arg-type]
        assert shop.app.outcome(task).status is TaskStatus.WAITING  # none of it stopped it

        nobodys = shop.app.agent(shop.Clerk).do(shop.PriceTicket(), None, model=script(shop))
        with pytest.raises(UnknownId):
            shop.app.stop(nobodys.task, by=shop.mia)
        assert shop.app.stop(nobodys.task, by=shop.noor).problem == "Noor stopped it."
    finally:
        shop.app.database.dispose()


def _step_then_die(url: str) -> None:
    """Start a task of Mia's, and die as its model has replied, before the reply is stored."""
    shop = build(url)

    def die(point: str, _where: dict[str, Any]) -> None:
        if point == "loop.model_replied":
            os.kill(os.getpid(), signal.SIGKILL)

    with points.pausing(die):
        shop.app.agent(shop.Clerk).do(shop.PriceTicket(), None, for_=shop.mia,
                                      model=script(shop))


def test_a_task_its_process_left_running_is_stopped(database: str) -> None:
    """A process killed in the middle of a step leaves its task Running, held by nobody
    alive: it is stopped, and no worker steps it after."""
    shop = build(database)
    try:
        run_until_killed(_step_then_die, database)
        with shop.app.database.connect() as db:
            (task,) = db.execute(text("select id from signoff_tasks")).scalars()
        assert shop.app.outcome(task).status is TaskStatus.RUNNING

        assert shop.app.stop(task, by=shop.mia).status is TaskStatus.HALTED
        shop.app.worker().run_once()
        assert shop.app.outcome(task).status is TaskStatus.HALTED
        assert runs(shop) == 0
    finally:
        shop.app.database.dispose()


def test_a_task_a_live_process_is_stepping_is_not_stopped_under_it(database: str) -> None:
    """Another thread holds the task, paused as its model is asked: stopping it is refused,
    and the step it was in goes on to its end."""
    shop = build(database)
    asked, go = threading.Event(), threading.Event()
    found: dict[str, Any] = {}

    def held(point: str, _where: dict[str, Any]) -> None:
        if point == "loop.model_reserved" and threading.current_thread().name == "stepping":
            asked.set()
            go.wait(60)

    def step() -> None:
        found["outcome"] = shop.app.agent(shop.Clerk).do(shop.PriceTicket(), None,
                                                         for_=shop.mia, model=script(shop))

    try:
        with points.pausing(held):
            stepping = threading.Thread(target=step, name="stepping")
            stepping.start()
            assert asked.wait(60)
            with shop.app.database.connect() as db:
                (task,) = db.execute(text("select id from signoff_tasks")).scalars()
            with pytest.raises(AgentRefused, match=rf"Task {task} is being stepped by a process "
                                                   "now, and was not stopped under it"):
                shop.app.stop(task, by=shop.mia)
            go.set()
            stepping.join(60)
        assert found["outcome"].status is TaskStatus.WAITING  # its step went on, whole
        assert shop.app.stop(task, by=shop.mia).status is TaskStatus.HALTED
    finally:
        go.set()
        shop.app.database.dispose()


def test_the_command_stops_a_task_and_tells_who_may_not(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`signoff stop` as Mia: exit 0 and the task's new state; as Fay: exit 3, in words."""
    url = f"sqlite:///{tmp_path / 'stop.db'}"
    shop = build(url)
    try:
        task = _waiting(shop)
        fays, mias = (shop.app.credentials.issue_token(p, label="stop") for p in (shop.fay,
                                                                                   shop.mia))
    finally:
        shop.app.database.dispose()
    monkeypatch.setenv("DEADLINES_DATABASE", url)
    app = f"{Path(__file__).parent / 'deadlines_app.py'}:app"
    refused = CliRunner().invoke(main, ["stop", task, "--app", app, "--token", fays])
    assert refused.exit_code == 3, refused.output
    assert GONE_WORDS in " ".join(refused.output.split())
    stopped = CliRunner().invoke(main, ["stop", task, "--reason", "Not needed.", "--app", app,
                                        "--token", mias])
    assert stopped.exit_code == 0, stopped.output
    assert stopped.output == f"Task {task} is Halted: Mia stopped it: Not needed.\n"
