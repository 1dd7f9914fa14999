"""Approve with changes, within a structure: a member the structure does not keep (it would be
dropped, though the decision said it was changed), or text no database can keep (a lone
surrogate), is refused in a sentence; nothing is decided, and the proposal still waits."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from pydantic import BaseModel
from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

from signoff import Agent, App, EditRefused, Permits, ProposalStatus, Skill, allow, policy
from signoff.testing import ScriptedModel, says


class Line(BaseModel):
    """One line of an order (pydantic's default: members it has no field for are dropped)."""

    sku: str
    qty: int


class Done(BaseModel):
    """What the clerk hands back."""

    ok: bool


@pytest.fixture
def shop(database: str, tmp_path: Path) -> Iterator[SimpleNamespace]:
    """A clerk whose one tool writes an order's lines on a slip, proposed."""
    app = App("orders", database=database, key=b"o" * 32)

    class Slip(app.Record):  # type: ignore[name-defined, misc]
        """An order slip."""

        name: Mapped[str] = mapped_column(String(20))
        lines: Mapped[str] = mapped_column(String(400), default="")
        __security__ = [allow("read", "create", "update", when=policy.anyone)]

    @app.action("Write the order")
    def write_order(slip: Slip, lines: list[Line], note: str = "") -> str:
        """Write the lines on the slip."""
        slip.lines = json.dumps([line.model_dump() for line in lines]) + note
        return "Written."

    class Take(Skill[Slip, Done]):
        description = "Take an order."
        tools = [write_order]

    class Clerk(Agent):
        purpose = "You take orders."
        skills = [Take()]
        may = Permits()

    pat = app.people.add("pat@orders.example", "Pat", roles=["clerk"])
    app.add_agent(Clerk, sponsor=pat)
    with app.session(as_=pat) as s:
        slip = Slip(name="s1")
        s.add(slip)

    def proposed(lines: Any = ({"sku": "bolt", "qty": 1},)) -> Any:
        script = ScriptedModel(
            says.tool(write_order, slip=slip.id, lines=list(lines)),
            says.hand_back(Done(ok=True)))
        outcome = app.agent(Clerk).do(Take(), slip, for_=pat, model=script)
        return app.proposals(task=outcome.task)[0]

    def written() -> str:
        with app.session(as_=pat) as s:
            found = s.get(Slip, slip.id)
            assert found is not None
            return found.lines

    yield SimpleNamespace(app=app, pat=pat, proposed=proposed, written=written)
    app.database.dispose()


@pytest.mark.parametrize(("edited", "named"), [
    ({"lines": [{"sku": "bolt", "qty": 1, "price": 0}]}, "lines[0].price"),
    ({"lines": [{"sku": "bolt", "qty": 2}, {"sku": "nut", "qty": 1, "discount": 5}]},
     "lines[1].discount"),
])
def test_a_member_the_structure_would_drop_is_refused(shop: SimpleNamespace,
                                                      edited: dict[str, Any], named: str) -> None:
    """An edit adding a member the argument's structure does not keep is refused, naming it:
    the approver is not told it changed what never runs."""
    proposal = shop.proposed()
    with pytest.raises(EditRefused, match=re.escape(named)):
        shop.app.approve(proposal, by=shop.pat, edited=edited)
    assert shop.app.proposals(task=proposal.task)[0].status is ProposalStatus.WAITING
    assert shop.written() == ""
    decision = shop.app.approve(proposal, by=shop.pat, edited={"lines": [{"sku": "bolt",
                                                                          "qty": 3}]})
    assert decision.status is ProposalStatus.DONE
    assert json.loads(shop.written()) == [{"sku": "bolt", "qty": 3}]


def test_a_member_the_model_gave_may_stay_as_it_was(shop: SimpleNamespace) -> None:
    """A member the model's own call gave (dropped as its call is read) does not stop an edit
    of the rest: the approver added nothing that is dropped."""
    proposal = shop.proposed([{"sku": "bolt", "qty": 1, "colour": "red"}])
    decision = shop.app.approve(proposal, by=shop.pat, edited={
        "lines": [{"sku": "bolt", "qty": 4, "colour": "red"}]})
    assert decision.status is ProposalStatus.DONE
    assert json.loads(shop.written()) == [{"sku": "bolt", "qty": 4}]


@pytest.mark.parametrize("edited", [
    {"note": "half \ud800 a character"},
    {"lines": [{"sku": "\udc00", "qty": 1}]},
])
def test_a_lone_surrogate_in_a_changed_value_is_refused(shop: SimpleNamespace,
                                                        edited: dict[str, Any]) -> None:
    """A changed value holding half a character (a lone surrogate) is refused in a sentence,
    and the proposal waits."""
    proposal = shop.proposed()
    with pytest.raises(EditRefused, match="half of a character"):
        shop.app.approve(proposal, by=shop.pat, edited=edited)
    assert shop.app.proposals(task=proposal.task)[0].status is ProposalStatus.WAITING
    assert shop.written() == ""
