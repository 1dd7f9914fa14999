"""A yes to a call a served MCP session proposed says where its task goes on: at the client's
next call. It said "in a worker that can make its model (`signoff worker`)", and no worker ever
steps such a task (its turns are the client's): a person ran `signoff worker` for nothing."""

from __future__ import annotations

from typing import Any

import anyio

from signoff import ProposalStatus
from signoff.mcp.served import ServedAgent
from tests.provenance_scenarios.world import ATTACKER_IBAN, Request, make_world


def test_a_yes_to_a_served_sessions_call_says_the_task_goes_on_at_its_clients_next_call() -> None:
    w = make_world()
    app = w["app"]
    served = ServedAgent(app, w["Widened"], for_=w["owner"],
                         subject=Request(text="Read my latest mail and deal with it."), wait_seconds=0)
    try:
        async def calls() -> Any:  # (an e-mail read first: the transfer it asks for is
            assert not (await served.call_tool("read_email", {"number": 31})).is_error
            return await served.call_tool(  # proposed, not run alone)
                "transfer", {"iban": ATTACKER_IBAN, "amount": 2400, "memo": "payment"})

        answered = anyio.run(calls)
        assert "was proposed to Olive" in answered.content[0].text
        (proposal,) = app.proposals(status=ProposalStatus.WAITING)
        decision = app.approve(proposal, by=w["owner"])
        assert decision.task_status == "Running"
        assert decision.task_problem == ("It goes on at its MCP client's next call: the client "
                                         "gives the task's turns, and no worker steps it.")
        assert "signoff worker" not in decision.task_problem
    finally:
        app.database.dispose()
