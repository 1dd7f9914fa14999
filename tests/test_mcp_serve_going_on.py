"""A call of a served session that finds every task of its skill busy goes on in a new task of
the session's work; when one of them waits on a decision, the new task goes on from it, and its
receipt says so — however the call and that task's proposal fall in time.

(Found in review: a call that came just after the waiting task's proposal was stored, while the
call that proposed it was still being answered, started a task that named no task it went on
from; a moment later, it would have. `tests/test_mcp_serve.py`'s test of a call kept open for a
decision failed so about one run in fifty.)
"""

from __future__ import annotations

import threading
from typing import Any

import anyio
from sqlalchemy import text

from signoff.agents.events import AgentProposed
from signoff.mcp.served import ServedAgent
from tests.provenance_scenarios.world import ATTACKER_IBAN, Request, make_world


def test_a_call_made_as_a_proposal_is_stored_goes_on_from_its_task() -> None:
    """The transfer's proposal is stored, and the call that made it is not yet answered, when
    the client lists the files: the listing runs alone in a new task that goes on from the
    transfer's, which waits."""
    w = make_world()
    served = ServedAgent(w["app"], w["Widened"], for_=w["owner"],
                         subject=Request(text="Read my latest mail and deal with it."),
                         wait_seconds=0)
    proposed, go = threading.Event(), threading.Event()

    def held(_event: Any) -> None:  # (in the thread that proposed, before its call answers)
        proposed.set()
        go.wait(30)

    w["app"].on(AgentProposed, held)

    async def scenario() -> dict[str, Any]:
        found: dict[str, Any] = {}
        assert not (await served.call_tool("read_email", {"number": 31})).is_error

        async def transfer() -> None:
            found["transfer"] = await served.call_tool(
                "transfer", {"iban": ATTACKER_IBAN, "amount": 2400, "memo": "payment"})

        async with anyio.create_task_group() as group:
            group.start_soon(transfer)
            await anyio.to_thread.run_sync(proposed.wait, 30)
            found["listed"] = await served.call_tool("list_files", {})
            go.set()
        return found

    try:
        found = anyio.run(scenario)
        assert not found["listed"].is_error, found["listed"]
        assert "was proposed to Olive" in found["transfer"].content[0].text
        (proposal,) = w["app"].proposals()
        with w["app"].database.connect() as db:
            (then,) = db.execute(text("select id from signoff_tasks where id != :first"),
                                 {"first": proposal.task}).scalars()
        receipt = w["app"].receipt(then).words
        assert f"going on with the work of task {proposal.task}, which waits on a decision" in (
            receipt)
        assert "ran list_files alone" in receipt
    finally:
        w["app"].database.dispose()
