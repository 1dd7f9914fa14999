"""A process killed after it recorded a task Running, held by it, and before it handed the
task to its Temporal workflow — as it started the task, or as a decision it made woke the task —
leaves the task to the next sweep of a worker, which starts or signals its workflow at once.

The sweep skipped every task whose hold had not expired, a dead process's too: the task stood
Running for a minute (`holds.HOLD_FOR`) with no workflow stepping it. The crash campaign on
Temporal found one so, still Running after its settling half a minute."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import uuid
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from sqlalchemy import select

from signoff import App, TaskStatus, Temporal
from signoff.agents import holds
from signoff.agents.proposals import ProposalStatus
from signoff.agents.repository import now
from signoff.store import points
from signoff.store.tables import tasks
from signoff.testing import ScriptedModel, says
from tests.letter_clerk import letter_clerk
from tests.temporal_server import DevServer, until

ROOT = Path(__file__).resolve().parent.parent


def build(database: str, address: str, queue: str, folder: str) -> SimpleNamespace:
    """The app on `database`: a clerk proposes posting a letter (an outside call) to `folder`,
    once."""
    app = App("dead-holders", database=database, runner=Temporal(
        address=address, task_queue=queue, settle_within=timedelta(seconds=30)))
    @app.action("Post a letter")
    def post_letter(text: str) -> str:
        """Reaches outside: the letter is posted."""
        with open(folder + "/letters.txt", "a", encoding="utf-8") as letters:
            letters.write(text + "\n")
        return "Posted."

    return letter_clerk(app, post_letter, folder=folder, me="me@dead-holders.example",
                        alone=False)


def script(shop: SimpleNamespace) -> ScriptedModel:
    return ScriptedModel(says.tool(shop.post_letter, text="hello"), says.hand_back("posted"))


def _killed_as_handing_on(_point: str, where: dict[str, Any]) -> None:
    if _point == "temporal.handing_on":
        os.kill(os.getpid(), signal.SIGKILL)


def start_and_die(database: str, address: str, queue: str, folder: str) -> None:
    """A process that starts the task, and is killed before its workflow is started."""
    shop = build(database, address, queue, folder)
    with points.pausing(_killed_as_handing_on):
        shop.app.agent(shop.Clerk).do(shop.Posting(), None, for_=shop.me, model=script(shop))


def approve_and_die(database: str, address: str, queue: str, folder: str) -> None:
    """A process that approves the letter (the letter is posted here), and is killed before
    the task it woke is handed to its workflow."""
    shop = build(database, address, queue, folder)
    (proposal,) = shop.app.proposals()
    with points.pausing(_killed_as_handing_on):
        shop.app.approve(proposal, by=shop.me)


def _in_a_process_killed(role: str, *given: str) -> None:
    child = subprocess.run(
        [sys.executable, "-c", f"import sys; from tests.test_temporal_dead_holder import {role}; "
         f"{role}(*sys.argv[1:])", *given], cwd=ROOT, timeout=120, check=False)
    assert child.returncode == -signal.SIGKILL, f"the {role} process ended with {child.returncode}"


def _held_by_the_dead(shop: SimpleNamespace) -> str:
    """The one task: Running, held by a process that is gone, its hold not yet expired."""
    with shop.app.database.connect() as db:
        (task,) = db.execute(select(tasks.c.id, tasks.c.status, tasks.c.holder,
                                    tasks.c.held_until)).all()
    assert task.status == TaskStatus.RUNNING.value
    assert task.holder is not None
    assert holds.process_runs(task.holder) is False
    assert task.held_until is not None
    assert task.held_until > now()
    return str(task.id)


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
@pytest.mark.parametrize("dies_as", ["starting", "deciding"])
def test_a_task_held_by_a_killed_process_is_handed_to_its_workflow_by_the_next_sweep(
    dies_as: str, kind: str, tmp_path: Path, temporal_server: DevServer,
    request: pytest.FixtureRequest,
) -> None:
    database = (f"sqlite:///{tmp_path / 'dead.db'}" if kind == "sqlite"
                else request.getfixturevalue("postgres_database"))
    queue = f"dead-holders-{uuid.uuid4().hex[:8]}"
    given = (database, temporal_server.address, queue, str(tmp_path))
    shop = build(*given)
    try:
        if dies_as == "starting":
            _in_a_process_killed("start_and_die", *given)
        else:
            with shop.app.temporal_worker(model_for=lambda _a, _t: script(shop)).running():
                started = shop.app.agent(shop.Clerk).do(shop.Posting(), None, for_=shop.me,
                                                        model=script(shop))
                assert started.status is TaskStatus.WAITING
            _in_a_process_killed("approve_and_die", *given)
            (proposal,) = shop.app.proposals(task=started.task)
            assert proposal.status is ProposalStatus.DONE  # its letter posted, as it ran
        task = _held_by_the_dead(shop)

        worker = shop.app.temporal_worker(model_for=lambda _a, _t: script(shop),
                                          stalled_after=timedelta(0))
        assert worker.sweep() == 1, "the sweep left the task to its dead holder's hold"
        with worker.running():
            until(lambda: shop.app.outcome(task).status is TaskStatus.WAITING
                  if dies_as == "starting" else
                  shop.app.outcome(task).status is TaskStatus.DONE, "the task going on")
        letters = shop.folder / "letters.txt"
        assert (letters.read_text().splitlines() if letters.exists() else []) == (
            [] if dies_as == "starting" else ["hello"])
        if dies_as == "starting":  # it proposed its letter: a yes posts it, and it ends
            (proposal,) = shop.app.proposals(task=task)
            with worker.running():
                shop.app.approve(proposal, by=shop.me)
                until(lambda: shop.app.outcome(task).status is TaskStatus.DONE, "the task ending")
            assert letters.read_text().splitlines() == ["hello"]
    finally:
        shop.app.database.dispose()
