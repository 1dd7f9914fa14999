"""The app of the tests of two databases that hold an app of one name ("shop") on one Temporal
server: a clerk orders a part (always proposed) and hands back, with a scripted model of its
own, so that a worker in another process has it too. Noor sponsors the clerk and decides.

``--app tests/shop_twins_app.py`` gives the command its `app`, on the database
``TWINS_DATABASE`` names (its runner from ``SIGNOFF_TEMPORAL``, as the worker sets it).
"""

from __future__ import annotations

import os
from types import SimpleNamespace

from signoff import Agent, App, Permits, Skill, Temporal
from signoff.testing import ScriptedModel, says

NOOR = "noor@shop.example"


def build(url: str, runner: Temporal | None = None) -> SimpleNamespace:
    """The shop on database `url`, on `runner` (else the one SIGNOFF_TEMPORAL names): its
    `app`, `Clerk`, `Ordering` and `noor`."""
    app = App("shop", database=url, runner=runner)

    @app.action("Order a part")
    def order(name: str) -> str:
        """Order a part."""
        return f"Ordered {name}."

    class Ordering(Skill[None, str]):
        """Order what is asked."""

        description = "Order what is asked."
        tools = [order]

    class Clerk(Agent):
        """Orders parts."""

        purpose = "You order parts."
        skills = [Ordering()]
        may = Permits(propose=[order])
        model = ScriptedModel(says.tool(order, name="pads"), says.hand_back("Ordered."))

    noor = app.people.find(NOOR) or app.people.add(NOOR, "Noor")
    app.add_agent(Clerk, sponsor=noor)
    return SimpleNamespace(app=app, Clerk=Clerk, Ordering=Ordering, noor=noor)


app = build(os.environ["TWINS_DATABASE"]).app if "TWINS_DATABASE" in os.environ else None
