"""A task whose workflow a process started on a queue no worker of the app polls (it named
another: `Temporal(task_queue=...)`, or ``SIGNOFF_TEMPORAL_QUEUE`` changed since) is started
again on the app's queue by the workers' sweep, and goes on: the sweep signalled it there every
ten seconds, the task stood Running for ever, and nothing said why."""

from __future__ import annotations

import uuid
from datetime import timedelta
from pathlib import Path

import pytest

from signoff import Agent, App, Permits, Skill, TaskStatus, Temporal
from signoff.testing import ScriptedModel, says
from tests.temporal_server import DevServer, until


@pytest.fixture
def server(temporal_server: DevServer) -> DevServer:
    """The test session's Temporal dev server."""
    return temporal_server


def build(database: str, address: str, queue: str) -> tuple[App, type[Skill[None, str]],
                                                             type[Agent]]:
    """The app, on `queue`: a clerk notes something alone, and hands back."""
    app = App("queues", database=database, runner=Temporal(
        address=address, task_queue=queue, settle_within=timedelta(seconds=1)))

    @app.action("Note something down")
    def note(text: str) -> str:
        return f"Noted: {text}"

    class Noting(Skill[None, str]):
        """Note something."""

        description = "Note something."
        tools = [note]

    class Clerk(Agent):
        """Notes things."""

        purpose = "You note things."
        skills = [Noting()]
        may = Permits(alone=[note])

    if app.people.find("me@queues.example") is None:
        app.people.add("me@queues.example", "Me")
    app.add_agent(Clerk, sponsor="me@queues.example")
    return app, Noting, Clerk


def test_a_task_left_on_a_queue_no_worker_polls_is_moved_to_the_apps_own(
    tmp_path: Path, server: DevServer, caplog: pytest.LogCaptureFixture,
) -> None:
    """Started by a process that names the queue "old-…", which no worker polls: the workers
    of the queue "new-…" sweep, start its workflow again on theirs, and the task is done."""
    database = f"sqlite:///{tmp_path / 'queues.db'}"
    old, new = f"old-{uuid.uuid4().hex[:8]}", f"new-{uuid.uuid4().hex[:8]}"
    starter, Noting, Clerk = build(database, server.address, old)
    workers_app = build(database, server.address, new)[0]
    try:
        started = starter.agent(Clerk).do(Noting(), None, for_=starter.people.get(
            "me@queues.example"), model=ScriptedModel(says.hand_back("nothing to note")))
        assert started.status is TaskStatus.RUNNING  # no worker polls "old-…"
        worker = workers_app.temporal_worker(
            stalled_after=timedelta(0),
            model_for=lambda _agent, _task: ScriptedModel(says.hand_back("nothing to note")))
        with worker.running():  # (it sweeps as it starts)
            until(lambda: workers_app.outcome(started.task).status is TaskStatus.DONE,
                   "the task going on in a worker of the app's queue")
        assert f"stood Running on the Temporal queue {old}" in caplog.text
    finally:
        starter.database.dispose()
        workers_app.database.dispose()
