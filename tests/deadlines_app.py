"""The app of the deadline tests: a clerk proposes a ticket's price, for Mia.

Noor decides it within eight hours: after that it is withdrawn (`PriceTicket`), or goes to the
Finance queue, which has a day more before it is withdrawn (`PriceFleetTicket`). `PriceAtOnce`
gives Noor a microsecond: its deadline has passed by the time anyone looks. Every run of
`set_price` writes a `Mark`, so a count of marks is a count of runs.

Built twice on one database it stands for two processes. ``--app tests/deadlines_app.py``
gives the command its `app`, on the database ``DEADLINES_DATABASE`` names.
"""

from __future__ import annotations

import os
from datetime import timedelta
from types import SimpleNamespace
from typing import Annotated

from pydantic import BaseModel
from sqlalchemy import String
from sqlalchemy.orm import Mapped, Session, mapped_column

from signoff import Agent, App, Provided, Route, Skill, allow, policy
from signoff.testing import ScriptedModel, says

NOOR = "noor@deadlines.example"
FAY = "fay@deadlines.example"
MIA = "mia@deadlines.example"
EIGHT_HOURS = timedelta(hours=8)
A_DAY = timedelta(days=1)


class Priced(BaseModel):
    """What the clerk hands back."""

    summary: str


def build(url: str, *, noors_time: timedelta = EIGHT_HOURS) -> SimpleNamespace:
    """The app on database `url`, with Noor, Fay (of Finance), Mia and one ticket; Noor decides
    within `noors_time` (a runner that keeps deadlines with real timers is tested with a few
    seconds)."""
    app = App("deadlines", database=url, key=b"d" * 32)
    anyone = policy.anyone

    class Ticket(app.Record):  # type: ignore[name-defined, misc]
        """What the clerk prices."""

        name: Mapped[str] = mapped_column(String(40), unique=True)
        price: Mapped[int] = mapped_column(default=0)
        __security__ = [allow("read", "create", "update", when=anyone)]

    class Mark(app.Record):  # type: ignore[name-defined, misc]
        """One row per run of set_price."""

        price: Mapped[int] = mapped_column(default=0)
        __security__ = [allow("read", "create", when=anyone)]

    @app.action("Set the price")
    def set_price(ticket: Ticket, price: int,
                  session: Annotated[Session, Provided("session")]) -> str:
        """Sets the price, and marks the run."""
        ticket.price = price
        session.add(Mark(price=price))
        return f"{ticket.name} costs {price}."

    def noor() -> Route:
        found = app.people.find(NOOR)
        assert found is not None
        return Route.to_person(found)

    class PriceTicket(Skill[None, Priced]):
        """Noor decides within eight hours, or the price is withdrawn."""

        description = "Price the ticket."
        tools = [set_price]

        def decided_by(self, action: str) -> Route | None:
            return noor().within(noors_time)

    class PriceFleetTicket(Skill[None, Priced]):
        """Noor decides within eight hours, else the Finance queue within a day."""

        description = "Price the fleet's ticket."
        tools = [set_price]

        def decided_by(self, action: str) -> Route | None:
            return noor().within(noors_time, then=Route.to_queue("Finance").within(A_DAY))

    class PriceAtOnce(Skill[None, Priced]):
        """Noor has a microsecond: the deadline has passed when anyone looks."""

        description = "Price the ticket at once."
        tools = [set_price]

        def decided_by(self, action: str) -> Route | None:
            return noor().within(timedelta(microseconds=1))

    class Clerk(Agent):
        """Prices tickets."""

        purpose = "You price tickets."
        skills = [PriceTicket(), PriceFleetTicket(), PriceAtOnce()]
        roles = ["clerk"]

    people = {handle: app.people.find(handle) for handle in (NOOR, FAY, MIA)}
    if people[NOOR] is None:
        people[NOOR] = app.people.add(NOOR, "Noor", roles=["pricing"])
        people[FAY] = app.people.add(FAY, "Fay", roles=["Finance"])
        people[MIA] = app.people.add(MIA, "Mia", roles=["desk"])
        with app.session(as_=app.system) as s:
            s.add(Ticket(name="T-1"))
    app.add_agent(Clerk, sponsor=people[NOOR])
    with app.session(as_=app.system) as s:
        ticket = s.query(Ticket).one()
    return SimpleNamespace(app=app, Ticket=Ticket, Mark=Mark, set_price=set_price, Clerk=Clerk,
                           PriceTicket=PriceTicket, PriceFleetTicket=PriceFleetTicket,
                           PriceAtOnce=PriceAtOnce, ticket=ticket, noor=people[NOOR],
                           fay=people[FAY], mia=people[MIA])


def script(shop: SimpleNamespace, price: int = 45) -> ScriptedModel:
    """Propose the price, then hand back whatever came of it."""
    return ScriptedModel(
        says.tool("An hour of work.", shop.set_price, ticket=shop.ticket.id, price=price),
        says.hand_back(Priced(summary="Priced, or told why not.")),
    )


def runs(shop: SimpleNamespace) -> int:
    """How many times set_price ran."""
    with shop.app.session(as_=shop.app.system) as s:
        return s.query(shop.Mark).count()


app = build(os.environ["DEADLINES_DATABASE"]).app if "DEADLINES_DATABASE" in os.environ else None
"""The app the command loads (``--app tests/deadlines_app.py``)."""
