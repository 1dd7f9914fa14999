"""A Temporal worker's sweep that settles an approved call whose process was killed (its
outcome told unknown, its task woken) hands the task to its workflow and goes on: it does not
wait, as a person's decision does, for the task to wait or end. It waited `settle_within` for
each such task (an app's own choice: half a minute by default, or an hour), and meanwhile the
worker swept nothing else, nor stopped when told to (SIGTERM, Ctrl-C)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace

import pytest

from signoff import App, TaskStatus, Temporal
from signoff.agents.proposals import ProposalStatus
from signoff.testing import ScriptedModel, says
from tests.letter_clerk import letter_clerk
from tests.temporal_server import DevServer, until

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def server(temporal_server: DevServer) -> DevServer:
    """The test session's Temporal dev server."""
    return temporal_server


def build(database: str, address: str, queue: str) -> SimpleNamespace:
    """The app: a clerk proposes posting a letter (an outside call), which the post office
    holds until the test lets it go. Whoever decides waits an hour for the task to settle."""
    app = App("sweeps", database=database, runner=Temporal(
        address=address, task_queue=queue, settle_within=timedelta(hours=1)))
    folder = database.removeprefix("sqlite:///").rsplit("/", 1)[0]

    @app.action("Post a letter")
    def post_letter(text: str) -> str:
        """Reaches outside: the letter is posted, then held until the test lets it go."""
        with open(folder + "/letters.txt", "a", encoding="utf-8") as letters:
            letters.write(text + "\n")
        while not os.path.exists(folder + "/release"):
            time.sleep(0.05)
        return "Posted."

    return letter_clerk(app, post_letter, folder=folder, me="me@sweeps.example", alone=False)


def decide(database: str, address: str, queue: str) -> None:
    """A process that approves the letter, and is killed as the letter is posted."""
    shop = build(database, address, queue)
    (proposal,) = shop.app.proposals()
    shop.app.approve(proposal, by=shop.me)


def test_a_sweep_that_settles_a_killed_approval_does_not_wait_for_the_task_to_settle(
    tmp_path: Path, server: DevServer,
) -> None:
    """The decider is killed as its approved call posts the letter; a worker's sweep finds the
    call's process gone, tells its outcome unknown and wakes the task — and returns, though
    no worker steps the task yet (the app waits an hour for a task to settle)."""
    database = f"sqlite:///{tmp_path / 'sweeps.db'}"
    queue = f"sweeps-{uuid.uuid4().hex[:8]}"
    shop = build(database, server.address, queue)
    script = ScriptedModel(says.tool(shop.post_letter, text="hello"), says.hand_back("posted"))
    try:
        with shop.app.temporal_worker(model_for=lambda _agent, _task: script).running():
            started = shop.app.agent(shop.Clerk).do(shop.Posting(), None, for_=shop.me,
                                                    model=script)
            assert started.status is TaskStatus.WAITING
        decider = subprocess.Popen(
            [sys.executable, "-c", "import sys; from tests.test_temporal_sweep_recovery import "
             "decide; decide(*sys.argv[1:])", database, server.address, queue], cwd=ROOT)
        try:
            until(lambda: (shop.folder / "letters.txt").exists(), "the letter being posted")
        finally:
            decider.send_signal(signal.SIGKILL)
            decider.wait()
        (shop.folder / "release").write_text("go")
        (proposal,) = shop.app.proposals(task=started.task)
        assert proposal.status is ProposalStatus.APPROVED  # its call's process is gone

        worker = shop.app.temporal_worker(stuck_after=timedelta(0))
        swept: list[int] = []
        sweeping = threading.Thread(target=lambda: swept.append(worker.sweep()), daemon=True)
        sweeping.start()
        sweeping.join(60)
        assert not sweeping.is_alive(), "the sweep waited for the task it woke to settle"
        assert swept == [1]
        assert "The outcome of post_letter is unknown" in shop.app.receipt(started.task).words
        with shop.app.temporal_worker(model_for=lambda _agent, _task: script).running():
            until(lambda: shop.app.outcome(started.task).status is TaskStatus.DONE,
                   "the task going on in a worker")
        assert (shop.folder / "letters.txt").read_text().splitlines() == ["hello"]
    finally:
        (shop.folder / "release").write_text("go")
        shop.app.database.dispose()
