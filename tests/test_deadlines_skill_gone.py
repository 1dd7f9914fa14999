"""A proposal whose deadline passes after the app was deployed again without the skill that
proposed it: withdrawn at its deadline (it could neither run nor go on to another decider),
told in a sentence to the person deciding it and by the worker passing it, nothing lost.

It reached both as a bare `UserError` in a developer's words ("The deadline of proposal … is
not passed here: … Pass it where the app that proposed it runs."), and waited for ever: no yes
and no no could be given. Two deployments of one app on one SQLite file stand for the app
before and after."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace

import pytest
from pydantic import BaseModel
from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

from signoff import Agent, AgentRefused, App, ProposalStatus, Route, Skill, allow, policy
from signoff.agents.deadlines import DeadlineOutcome
from signoff.exceptions import UserError
from signoff.testing import ScriptedModel, says

NOOR = "noor@redeployed.example"
MIA = "mia@redeployed.example"


class Priced(BaseModel):
    """What the clerk hands back."""

    summary: str


def _deployed(url: str, *, quick: bool, clerk: bool = True) -> SimpleNamespace:
    """The app on `url`: a clerk with the skill `Other` and, when `quick`, `PriceAtOnce`,
    whose route gives Noor a microsecond, after which the proposal is withdrawn (without
    `clerk`, no agent at all)."""
    app = App("redeployed", database=url, key=b"r" * 32)

    class Ticket(app.Record):  # type: ignore[name-defined, misc]
        """What the clerk prices."""

        name: Mapped[str] = mapped_column(String(40), unique=True)
        price: Mapped[int] = mapped_column(default=0)
        __security__ = [allow("read", "create", "update", when=policy.anyone)]

    @app.action("Set the price")
    def set_price(ticket: Ticket, price: int) -> str:
        """Sets the price."""
        ticket.price = price
        return f"{ticket.name} costs {price}."

    class Other(Skill[None, Priced]):
        """A skill both deployments keep."""

        description = "Look at the ticket."
        tools = [set_price]

    class PriceAtOnce(Skill[None, Priced]):
        """Noor has a microsecond: the deadline has passed when anyone looks."""

        description = "Price the ticket at once."
        tools = [set_price]

        def decided_by(self, action: str) -> Route | None:
            noor = app.people.find(NOOR)
            assert noor is not None
            return Route.to_person(noor).within(timedelta(microseconds=1))

    class Clerk(Agent):
        """Prices tickets."""

        purpose = "You price tickets."
        skills = [Other(), PriceAtOnce()] if quick else [Other()]
        roles = ["clerk"]

    noor = app.people.find(NOOR) or app.people.add(NOOR, "Noor", roles=["pricing"])
    mia = app.people.find(MIA) or app.people.add(MIA, "Mia", roles=["desk"])
    if clerk:
        app.add_agent(Clerk, sponsor=noor)
    with app.session(as_=app.system) as s:
        if s.query(Ticket).count() == 0:
            s.add(Ticket(name="T-1"))
    with app.session(as_=app.system) as s:
        ticket = s.query(Ticket).one()
    return SimpleNamespace(app=app, Ticket=Ticket, set_price=set_price, Clerk=Clerk,
                           PriceAtOnce=PriceAtOnce, ticket=ticket, noor=noor, mia=mia)


@pytest.fixture
def redeployed(tmp_path: Path) -> SimpleNamespace:
    """A price proposed under `PriceAtOnce` for Mia, its deadline past; then the app deployed
    again, on the same file, without that skill: the second deployment."""
    url = f"sqlite:///{tmp_path / 'shop.db'}"
    before = _deployed(url, quick=True)
    outcome = before.app.agent(before.Clerk).do(before.PriceAtOnce(), None, for_=before.mia,
                                                model=ScriptedModel(
        says.tool("An hour of work.", before.set_price, ticket=before.ticket.id, price=45),
        says.hand_back(Priced(summary="Priced, or told why not."))))
    assert outcome.waiting
    before.app.database.dispose()
    after = _deployed(url, quick=False)
    (after.proposal,) = after.app.proposals()
    assert after.proposal.deadline_at is not None
    return after


def _price(shop: SimpleNamespace) -> int:
    with shop.app.session(as_=shop.app.system) as s:
        return int(s.get(shop.Ticket, shop.ticket.id).price)


@pytest.mark.parametrize("verb", ["approve", "reject"])
def test_deciding_it_tells_the_person_what_became_of_it(redeployed: SimpleNamespace,
                                                        verb: str) -> None:
    """Noor's yes (or no), after the deadline, is refused in a sentence saying that the app no
    longer declares the skill, so the proposal was withdrawn without running, and what to do;
    the agent was told, its task went on, and nothing ran."""
    shop = redeployed
    decide = (lambda: shop.app.approve(shop.proposal, by=shop.noor)) if verb == "approve" else (
        lambda: shop.app.reject(shop.proposal, by=shop.noor, reason="Too dear."))
    with pytest.raises(AgentRefused) as refused:
        decide()
    said = str(refused.value)
    assert "this app no longer declares clerk's skill price_at_once" in said, said
    assert "it was withdrawn at" in said, said
    assert "without running" in said, said
    assert "If what it asked is still wanted, ask for the work again." in said, said
    assert "Pass it where" not in said
    proposal = shop.app.proposal(shop.proposal.id)
    assert proposal.status is ProposalStatus.WITHDRAWN
    assert "no longer declares clerk's skill price_at_once" in proposal.reason
    assert _price(shop) == 0
    receipt = shop.app.receipt(proposal.task)
    assert any("no longer declares clerk's skill price_at_once" in e.words
               for e in receipt.entries if e.kind == "decision")
    assert not shop.app.outcome(proposal.task).waiting


def test_the_worker_withdraws_it_saying_why(redeployed: SimpleNamespace) -> None:
    """The worker's look withdraws it, saying why (it was left waiting, warned of at every
    look); a decision after that is refused in the same sentence."""
    shop = redeployed
    (passed,) = shop.app.pass_deadlines()
    assert passed.outcome is DeadlineOutcome.WITHDRAWN
    assert "this app no longer declares clerk's skill price_at_once" in passed.said
    assert "it could neither run nor go on to another decider" in passed.said
    assert shop.app.proposal(shop.proposal.id).status is ProposalStatus.WITHDRAWN
    with pytest.raises(AgentRefused, match="no longer declares clerk's skill price_at_once"):
        shop.app.approve(shop.proposal, by=shop.noor)
    assert _price(shop) == 0


def test_without_the_agent_a_person_is_told_and_it_waits(tmp_path: Path) -> None:
    """Deployed without the agent at all (or another app on the same database), the deadline is
    not passed here: the person deciding is told so in a sentence (not a `UserError`), and the
    proposal still waits."""
    url = f"sqlite:///{tmp_path / 'shop.db'}"
    before = _deployed(url, quick=True)
    before.app.agent(before.Clerk).do(before.PriceAtOnce(), None, for_=before.mia,
                                      model=ScriptedModel(
        says.tool("An hour.", before.set_price, ticket=before.ticket.id, price=45),
        says.hand_back(Priced(summary="Priced."))))
    before.app.database.dispose()
    after = _deployed(url, quick=False, clerk=False)
    (proposal,) = after.app.proposals()
    with pytest.raises(AgentRefused) as refused:
        after.app.approve(proposal, by=after.noor)
    assert not isinstance(refused.value, UserError)
    assert str(refused.value).startswith(
        "Its deadline has passed, and this app does not declare clerk, the agent that proposed "
        "it, so what becomes of it now cannot be told here. Nothing was decided, and it still "
        "waits")
    assert after.app.proposal(proposal.id).status is ProposalStatus.WAITING
    assert after.app.pass_deadlines() == []
    assert after.app.proposal(proposal.id).status is ProposalStatus.WAITING
