"""A spending call whose cost fits exactly what is left of the budget runs: dollars are added
as binary floats ($0.10 three times reads $0.30000000000000004), and that error is not spend.
The budget still holds: one cent more than is left is refused.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest

from signoff import Agent, App, Permits, ProposalStatus, Skill, TaskStatus, spends
from signoff.testing import ScriptedModel, says
from tests.box_world import Report

NOOR = "noor@tips.example"


@pytest.fixture
def shop(database: str, tmp_path: Path) -> Iterator[SimpleNamespace]:
    app = App("tips", database=database, key=b"t" * 32)
    paid: list[str] = []

    @app.action("Tip a courier")
    @spends(cost=0.1)
    def tip(text: str) -> str:
        """Spends $0.10, alone."""
        paid.append(text)
        return "Tipped."

    @app.action("Pay a supplier")
    @spends(cost=0.1)
    def pay(text: str) -> str:
        """Spends $0.10, proposed."""
        paid.append(text)
        return "Paid."

    class Tend(Skill[None, Report]):
        """Tip and pay."""

        description = "Tip and pay."
        tools = [tip, pay]

    class Clerk(Agent):
        """Tips alone, pays by proposal."""

        purpose = "You tip and pay."
        skills = [Tend()]
        may = Permits(alone=[tip])

    noor = app.people.add(NOOR, "Noor", roles=["manager"])
    app.add_agent(Clerk, sponsor=noor)
    yield SimpleNamespace(app=app, Clerk=Clerk, Tend=Tend, noor=noor, tip=tip, pay=pay,
                          paid=paid)
    app.database.dispose()


def test_alone_spending_calls_that_fit_the_budget_exactly_all_run(
        shop: SimpleNamespace) -> None:
    """Three tips of $0.10 on a budget of $0.30 all run (the third was refused as "more than
    the $0.1000 left"); a fourth does not, told that nothing is left; and the budget spent,
    the task stops there."""
    script = ScriptedModel(says.tools(*(says.tool(shop.tip, text=t) for t in "abcd")),
                           says.hand_back(Report(summary="Tipped.")))
    outcome = shop.app.agent(shop.Clerk).do(shop.Tend(), None, model=script, budget_usd=0.3)
    receipt = shop.app.receipt(outcome.task).words
    assert shop.paid == ["a", "b", "c"], receipt
    assert receipt.count("tip could spend $0.1000, more than the $0.0000 left") == 1, receipt
    assert outcome.status is TaskStatus.HALTED, receipt
    assert "it reached its budget of $0.3000" in outcome.problem
    assert outcome.spend_usd == pytest.approx(0.3)


def test_approved_spending_calls_that_fit_the_budget_exactly_all_run(
        shop: SimpleNamespace) -> None:
    """Three approved payments of $0.10 on a budget of $0.30 all run; a fourth is refused."""
    script = ScriptedModel(says.tools(*(says.tool(shop.pay, text=t) for t in "abcd")),
                           says.hand_back(Report(summary="Paid.")))
    waiting = shop.app.agent(shop.Clerk).do(shop.Tend(), None, model=script, budget_usd=0.3)
    assert waiting.status is TaskStatus.WAITING
    proposals = sorted(shop.app.proposals(task=waiting.task), key=lambda p: p.arguments["text"])
    decisions = [shop.app.approve(p.id, by=shop.noor) for p in proposals]
    receipt = shop.app.receipt(waiting.task).words
    assert [d.status for d in decisions] == [ProposalStatus.DONE] * 3 + [
        ProposalStatus.FAILED], receipt
    assert shop.paid == ["a", "b", "c"], receipt
    assert shop.app.outcome(waiting.task).spend_usd == pytest.approx(0.3)
