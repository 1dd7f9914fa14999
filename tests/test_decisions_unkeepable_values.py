"""What no database keeps, in what a person decides with: a NUL character (U+0000) in a no's
reason or a value changed as they say yes (PostgreSQL keeps none in text, SQLite does), and NaN
or Infinity in a changed number (no JSON holds them). On either database it is refused in a
sentence before anything is decided: never a "database cannot be used" error, nor a yes used up
by a run that fails."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from types import SimpleNamespace

import pytest
from pydantic import BaseModel
from sqlalchemy import Float, Numeric, String, select
from sqlalchemy.orm import Mapped, mapped_column

from signoff import (
    Agent,
    App,
    EditRefused,
    Permits,
    ProposalStatus,
    ReasonRefused,
    Skill,
    TaskStatus,
    allow,
    policy,
)
from signoff.agents.proposals import Proposal
from signoff.testing import ScriptedModel, says


class Done(BaseModel):
    """What the clerk hands back."""

    ok: bool


@pytest.fixture
def world(database: str) -> Iterator[SimpleNamespace]:
    """Tag a, on SQLite or PostgreSQL; a clerk proposes to price it (with a note), for Pat."""
    app = App("tags", database=database, key=b"t" * 32)

    class Tag(app.Record):  # type: ignore[name-defined, misc]
        """A price tag."""

        name: Mapped[str] = mapped_column(String(40), unique=True)
        price: Mapped[Decimal] = mapped_column(Numeric(10, 2), default=Decimal(0))
        note: Mapped[str] = mapped_column(String(80), default="")
        weight: Mapped[float] = mapped_column(Float, default=0.0)
        __security__ = [allow("read", "create", "update", when=policy.anyone)]

    @app.action("Price a tag")
    def set_price(tag: Tag, price: Decimal, note: str = "", weight: float = 0.0) -> str:
        """Set a tag's price, with a note and its weight."""
        tag.price, tag.note, tag.weight = price, note, weight
        return f"{tag.name} costs {price}."

    class Mind(Skill[Tag, Done]):
        description = "Mind the tags."
        tools = [set_price]

    class Clerk(Agent):
        purpose = "You mind the tags."
        skills = [Mind()]
        may = Permits()

    pat = app.people.add("pat@tags.example", "Pat", roles=["clerk"])
    app.add_agent(Clerk, sponsor=pat)
    with app.session(as_=pat) as s:
        a = Tag(name="a")
        s.add(a)
    model = ScriptedModel(says.tool("Needed.", set_price, tag=str(a.id), price="5", note="ok"),
                          says.hand_back(Done(ok=True)))
    outcome = app.agent(Clerk).do(Mind(), a, for_=pat, model=model)
    assert outcome.status is TaskStatus.WAITING, outcome.problem
    (proposal,) = app.proposals(task=outcome.task)
    yield SimpleNamespace(app=app, Tag=Tag, pat=pat, proposal=proposal)
    app.database.dispose()


def _waits(world: SimpleNamespace) -> None:
    """Nothing was decided, and nothing ran."""
    proposal: Proposal = world.app.proposal(world.proposal)
    assert proposal.status is ProposalStatus.WAITING
    with world.app.session(as_=world.app.system) as s:
        assert [(str(t.price), t.note) for t in s.scalars(select(world.Tag))] == [("0.00", "")]


def test_a_no_whose_reason_holds_a_nul_is_refused(world: SimpleNamespace) -> None:
    """A no's reason with a NUL in it is refused as a reason, saying what to do; the proposal
    waits, and a no said again without it is taken."""
    with pytest.raises(ReasonRefused, match=r"holds a NUL character .* say it without one"):
        world.app.reject(world.proposal, by=world.pat, reason="Not\x00 now")
    _waits(world)
    decision = world.app.reject(world.proposal, by=world.pat, reason="Not now")
    assert decision.told_agent == "Pat said no to set_price: Not now"


def test_a_changed_value_holding_a_nul_is_refused(world: SimpleNamespace) -> None:
    """A yes whose changed value holds a NUL is refused before anything runs (on PostgreSQL the
    run would fail and use the yes up); the proposal waits for a yes without it."""
    with pytest.raises(EditRefused, match="holds a NUL character"):
        world.app.approve(world.proposal, by=world.pat, edited={"note": "x\x00y"})
    _waits(world)
    decision = world.app.approve(world.proposal, by=world.pat, edited={"note": "xy"})
    assert decision.status is ProposalStatus.DONE, decision.said


@pytest.mark.parametrize("number", [float("nan"), float("inf"), -float("inf")])
def test_a_changed_number_that_json_cannot_keep_is_refused(world: SimpleNamespace,
                                                           number: float) -> None:
    """A yes that changes a number to NaN or Infinity is refused before anything runs (SQLite
    keeps NaN as nothing, and the run failed, the yes used up; PostgreSQL refused the
    decision's JSON); the proposal waits for a yes with a finite number."""
    with pytest.raises(EditRefused, match=r"holds NaN or Infinity, .* give a finite number"):
        world.app.approve(world.proposal, by=world.pat, edited={"weight": number})
    _waits(world)
    decision = world.app.approve(world.proposal, by=world.pat, edited={"weight": 1.5})
    assert decision.status is ProposalStatus.DONE, decision.said
