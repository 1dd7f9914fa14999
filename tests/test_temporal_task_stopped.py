"""A task on Temporal that a person stops while it waits on a decision: its workflow, waiting
for that decision, ends with it (it would have waited open for ever: nothing else signals it)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from temporalio.client import WorkflowExecutionStatus

from signoff import ProposalStatus, TaskStatus
from signoff.engine.temporal.runner import connect
from signoff.testing import ScriptedModel, says
from tests.stockroom import stockroom
from tests.temporal_server import DevServer, until


def test_a_waiting_task_stopped_ends_its_workflow(tmp_path: Path,
                                                  temporal_server: DevServer) -> None:
    shop = stockroom(tmp_path, temporal_server)

    async def status() -> WorkflowExecutionStatus | None:
        client = await connect(shop.app.runner)
        return (await client.get_workflow_handle(asked.task).describe()).status

    try:
        with shop.app.temporal_worker().running():
            asked = shop.app.agent(shop.Stocker).do(shop.Stocking(), None, for_=shop.noor,
                                                    model=ScriptedModel(
                                                        says.tool(shop.restock, bin=shop.bin.id,
                                                                  by=3),
                                                        says.hand_back("Done.")))
            assert asked.status is TaskStatus.WAITING, shop.app.receipt(asked.task).words
            assert asyncio.run(status()) is WorkflowExecutionStatus.RUNNING

            stopped = shop.app.stop(asked.task, by=shop.noor, reason="Not needed.")
            assert (stopped.status, stopped.problem) == (TaskStatus.HALTED,
                                                         "Noor stopped it: Not needed.")
            until(lambda: asyncio.run(status()) is WorkflowExecutionStatus.COMPLETED,
                  "the workflow ending with its task")
        (proposal,) = shop.app.proposals(task=asked.task)
        assert proposal.status is ProposalStatus.WITHDRAWN
        assert shop.count() == 0
        assert shop.app.outcome(asked.task).status is TaskStatus.HALTED
    finally:
        shop.app.database.dispose()
