"""A task's workflow history, recorded on a real server with this signoff, replays with this
signoff's workflow code: the workflow reads no clock, chance or I/O of its own (its timers,
its activities' answers and its signals are in the history), so a worker that takes a run up
after a restart, or once its cache let it go, finds it as it ran."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest
from temporalio.client import Client
from temporalio.worker import Replayer, UnsandboxedWorkflowRunner

from signoff import TaskStatus
from signoff.engine.temporal.workflow import TaskWorkflow
from tests import deadlines_app
from tests.temporal_server import DevServer, until


@pytest.fixture
def server(temporal_server: DevServer) -> DevServer:
    """The test session's Temporal dev server."""
    return temporal_server


async def _replayed(address: str, workflow_id: str) -> int:
    """Replay every run of the workflow, as this signoff's worker would; how many runs."""
    client = await Client.connect(address)
    replayer = Replayer(workflows=[TaskWorkflow], workflow_runner=UnsandboxedWorkflowRunner())
    runs = 0
    async for history in client.list_workflows(f'WorkflowId = "{workflow_id}"').map_histories():
        result = await replayer.replay_workflow(history, raise_on_replay_failure=False)
        assert result.replay_failure is None, f"{workflow_id}: {result.replay_failure!r}"
        runs += 1
    return runs


@pytest.mark.parametrize("local", [True, False], ids=["local-activities", "activities"])
def test_a_recorded_history_of_deadlines_and_decisions_replays_with_todays_code(
    tmp_path: Path, server: DevServer, monkeypatch: pytest.MonkeyPatch, local: bool,
) -> None:
    """A task whose deadline passes on its workflow's timer (withdrawn, done), and one whose
    deadline sends it on to Finance and that Fay then approves: both histories, read back from
    the server, replay without a nondeterminism error."""
    monkeypatch.setenv("SIGNOFF_TEMPORAL", server.address)
    monkeypatch.setenv("SIGNOFF_TEMPORAL_QUEUE", f"replay-{uuid.uuid4().hex[:8]}")
    shop = deadlines_app.build(f"sqlite:///{tmp_path / 'replay.db'}",
                               noors_time=timedelta(seconds=2))
    app = shop.app
    if not local:  # (the app is made with the runner SIGNOFF_TEMPORAL names: steps as ordinary activities)
        assert app.runner is not None
        app._run_on(replace(app.runner, local_activities=False))
    try:
        with app.temporal_worker().running():
            clerk = app.agent(shop.Clerk)
            plain = clerk.do(shop.PriceTicket(), model=deadlines_app.script(shop, price=40))
            fleet = clerk.do(shop.PriceFleetTicket(), model=deadlines_app.script(shop, price=50))
            until(lambda: app.outcome(plain).status is TaskStatus.DONE, "the withdrawal")
            until(lambda: app.proposals(task=fleet.task)[0].escalations == 1, "the escalation")
            decision = app.approve(app.proposals(task=fleet.task)[0], by=shop.fay)
            assert decision.task_status == TaskStatus.DONE.value
        for task in (plain.task, fleet.task):
            assert asyncio.run(_replayed(server.address, task)) >= 1
    finally:
        app.database.dispose()
