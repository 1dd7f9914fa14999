"""A bike shop's pricer, for the tests that deploy a shop again under a waiting proposal: its
agent proposes `set_price` of repair T-7 to Noor; what each deployment's record and
`set_price` are is the test's own (the analysis reads the action's own code)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from pydantic import BaseModel
from sqlalchemy import select

from signoff import Agent, App, Permits, Proposal, Skill
from signoff.testing import ScriptedModel, says


class Estimate(BaseModel):
    """What the pricer hands back."""

    hours: int
    summary: str


def pricing_shop(app: App, repair_record: Any, set_price: Any, **fields: Any) -> SimpleNamespace:
    """Around `app`'s Repair record and its `set_price` action: a skill pricing one repair with
    it, an agent (Pricer) with that skill, proposing everything, Noor (a manager) sponsoring
    it, and repair T-7 (made with `fields` when the database has no repair yet)."""

    class PriceRepair(Skill[repair_record, Estimate]):  # type: ignore[valid-type]
        description = "Price one repair."
        tools = [set_price]

        def brief(self, r: Any) -> str:
            return f"Ticket {r.ticket}. Its id is {r.id}."

    class Pricer(Agent):
        purpose = "You price bicycle repairs."
        skills = [PriceRepair()]
        may = Permits()

    noor = app.people.find("noor@shop.example") or app.people.add(
        "noor@shop.example", "Noor", roles=["manager"]
    )
    app.add_agent(Pricer, sponsor=noor)
    with app.session(as_=noor) as s:
        repair = s.scalars(select(repair_record)).first()
        if repair is None:
            repair = repair_record(ticket="T-7", **fields)
            s.add(repair)
    return SimpleNamespace(
        app=app,
        noor=noor,
        repair=repair,
        set_price=set_price,
        skill=PriceRepair,
        agent=Pricer,
        estimate=Estimate,
    )


def price_proposed(shop: SimpleNamespace, **do: Any) -> Proposal:
    """The proposal to set `shop`'s repair's price to 31, as its agent makes it for Noor (`do`:
    more of what the agent's `do` is given)."""
    outcome = shop.app.agent(shop.agent).do(
        shop.skill(),
        shop.repair,
        for_=shop.noor,
        **do,
        model=ScriptedModel(
            says.tool("Pads.", shop.set_price, repair=shop.repair.id, price=31),
            says.hand_back(shop.estimate(hours=1, summary="x")),
        ),
    )
    return shop.app.proposals(task=outcome.task)[0]  # type: ignore[no-any-return]
