"""A tool call whose arguments hold NaN or Infinity (as Python's JSON reads `NaN`, `Infinity`
and `1e999`): no JSON keeps such a number (PostgreSQL refuses it, and SQLite keeps text no
JSON reader takes), so the call is refused to the model, which is told and calls again — it is
neither proposed nor run, and the task goes on, on either database (proposed, it ended
`agent.do` in a StoreError on PostgreSQL)."""

from __future__ import annotations

from typing import Any

import pytest

from signoff import Agent, App, Permits, Skill, TaskStatus, sends
from signoff.testing import ScriptedModel, ScriptLine


@pytest.mark.parametrize("amount", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_a_call_holding_no_finite_number_is_refused_and_called_again(database: str,
                                                                    amount: str) -> None:
    """`refund` sends, so it is proposed: the call holding `amount` is refused before the gate,
    the model told why; its next call is proposed, and waits."""
    app = App("shop", database=database, key=b"k" * 32)

    @app.action("Refund an amount")
    @sends
    def refund(amount: float) -> str:
        """Refund it."""
        return "Refunded."

    class Refunding(Skill[None, str]):
        description = "Refund what is owed."
        tools: list[Any] = [refund]

    class Clerk(Agent):
        purpose = "You refund."
        skills = [Refunding()]
        may = Permits()

    sue = app.people.add("sue@shop.example", "Sue")
    app.add_agent(Clerk, sponsor=sue)
    model = ScriptedModel(
        ScriptLine(calls=(("refund", f'{{"amount": {amount}}}'),)),
        ScriptLine(calls=(("refund", '{"amount": 12.5}'),)),
    )
    outcome = app.agent(Clerk).do(Refunding(), None, for_=sue, model=model)
    assert outcome.status is TaskStatus.WAITING, outcome.problem
    (proposal,) = app.proposals(task=outcome.task)
    assert proposal.arguments == {"amount": 12.5}
    told = [m.text for m in model.seen.messages[-1] if m.role == "tool"]
    assert any(f"The arguments hold {amount}" in text and "give finite numbers" in text
               for text in told), told
    app.database.dispose()
