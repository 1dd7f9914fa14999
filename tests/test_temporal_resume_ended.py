"""A task on Temporal that has ended, resumed (as a restarted process resumes what it finds):
its outcome is told, and its workflow is not started again.

`resume` handed every task on, ended or not: on Temporal that signal starts a new run of the
task's workflow, which finds nothing to do. The crash campaign's replacement agents resumed
ended tasks so, and their new runs outlived the campaign's workers."""

from __future__ import annotations

import asyncio
from pathlib import Path

from temporalio.client import WorkflowExecutionStatus

from signoff import TaskStatus
from signoff.engine.temporal.runner import connect
from signoff.testing import ScriptedModel, says
from tests.stockroom import stockroom
from tests.temporal_server import DevServer, until


def test_resuming_an_ended_task_tells_its_outcome_and_starts_no_new_run(
        tmp_path: Path, temporal_server: DevServer) -> None:
    shop = stockroom(tmp_path, temporal_server)

    async def latest_run(task: str) -> tuple[str | None, WorkflowExecutionStatus | None]:
        client = await connect(shop.app.runner)
        described = await client.get_workflow_handle(task).describe()
        return described.run_id, described.status

    try:
        with shop.app.temporal_worker().running():
            done = shop.app.agent(shop.Stocker).do(shop.Stocking(), None, for_=shop.noor,
                                                   model=ScriptedModel(says.hand_back("Done.")))
            assert done.status is TaskStatus.DONE, shop.app.receipt(done.task).words
            until(lambda: asyncio.run(latest_run(done.task))[1]
                  is WorkflowExecutionStatus.COMPLETED, "its workflow completing")
            (first_run, _) = asyncio.run(latest_run(done.task))

            model = ScriptedModel(says.hand_back("Again."))
            resumed = shop.app.agent(shop.Stocker).resume(done.task, model=model)

            assert (resumed.status, resumed.result) == (TaskStatus.DONE, "Done.")
            assert asyncio.run(latest_run(done.task)) == (
                first_run, WorkflowExecutionStatus.COMPLETED), "a new run of its workflow began"
        assert model.seen.messages == [], "the model given to resume was asked"
        assert done.task not in shop.app._agency.loop.models
    finally:
        shop.app.database.dispose()
