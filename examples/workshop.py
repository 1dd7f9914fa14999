"""The bicycle workshop: an estimator agent writes its note alone, proposes the price, and never
scraps a repair; a fleet-pricing skill sends prices to the manager.

Mia is a mechanic, Noor the manager. The agent's own account is a helper.

Its data lives in the SQLite file ``workshop.db`` in the directory you run it from (its consent
key in ``workshop.key`` beside it); ``WORKSHOP_DATABASE`` names another database instead
(``sqlite://`` keeps everything in memory, for one process only).

Run it: ``python examples/workshop.py`` (a demo: Mia, Noor and ticket T-7, an estimate, a price
Mia cannot approve and Noor can), or use it with the ``signoff`` command:
``signoff users list --app examples/workshop.py``.
"""

from __future__ import annotations

import os
import uuid
from decimal import Decimal

from pydantic import BaseModel
from sqlalchemy import Numeric, String, select
from sqlalchemy.orm import Mapped, mapped_column

from signoff import Agent, App, Invalid, Permits, Route, Skill, allow, deny, policy
from signoff.testing import ScriptedModel, says

DATABASE = os.environ.get("WORKSHOP_DATABASE", "sqlite:///workshop.db")
"""Where the workshop keeps its data: workshop.db in the working directory, unless
WORKSHOP_DATABASE says otherwise."""

app = App("workshop", database=DATABASE)
is_mechanic = policy.role("mechanic")
is_manager = policy.role("manager")
is_helper = policy.role("helper")
app.oversight.supervises_agents = is_manager


class Repair(app.Record):  # type: ignore[name-defined, misc]
    """A bicycle in for repair."""

    ticket: Mapped[str] = mapped_column(String(40), unique=True)
    fault: Mapped[str] = mapped_column(String(200))
    note: Mapped[str] = mapped_column(String(400), default="")
    price: Mapped[Decimal] = mapped_column(Numeric(10, 2), default=Decimal(0))
    revision: Mapped[int] = mapped_column(default=1)
    __security__ = [
        allow("read", "update", when=is_mechanic | is_manager | is_helper),
        allow("create", when=is_mechanic | is_manager),
        deny("update", "price", when=~is_manager & ~is_helper),
    ]


@app.action("Look up the parts a fault needs", query=True)
def parts_for(fault: str) -> list[str]:
    """The parts a fault usually needs."""
    return ["brake pads", "cable"] if "brake" in fault else []


@app.action("Write a note on the repair")
def note_repair(repair: Repair, note: str) -> str:
    """Write the mechanic's note."""
    repair.note = note
    return f"Noted on {repair.ticket}."


@app.action("Set the price")
def set_price(repair: Repair, price: Decimal) -> str:
    """Set what the repair costs."""
    if price < 0:  # (refused in the workshop's words: the agent, or the person, is told why)
        raise Invalid(f"A price cannot be negative, and {price} is: give what the repair "
                      "costs, 0 or more.")
    repair.price = price
    return f"{repair.ticket} costs {price}."


@app.action("Scrap the repair")
def scrap_repair(repair: Repair) -> str:
    """Give up on the bicycle."""
    repair.fault = "scrapped"
    return f"{repair.ticket} is scrapped."


def revise(repair_id: uuid.UUID, fault: str) -> None:
    """Change a repair's fault (a new revision), as the workshop's own code does."""
    with app.session(as_=app.system) as s:
        repair = s.get(Repair, repair_id)
        assert repair is not None
        repair.fault = fault
        repair.revision += 1


class Estimate(BaseModel):
    """What the estimator hands back."""

    hours: Decimal
    summary: str


def _repair(repair_id: object) -> Repair | None:
    with app.session(as_=app.system) as s:
        return s.get(Repair, uuid.UUID(str(repair_id)))


def _named(argument: str, value: str) -> str:
    """A value as people read it in proposals: a repair by its ticket ("Ticket T-7")."""
    if argument == "repair":
        repair = _repair(value)
        return f"Ticket {repair.ticket}" if repair else value
    return value


class EstimateRepair(Skill[Repair, Estimate]):
    """Estimate one repair, and price it."""

    description = "Estimate one repair, and price it."
    tools = [parts_for, note_repair, set_price, scrap_repair]

    def brief(self, r: Repair) -> str:
        return f"Ticket {r.ticket}: {r.fault}. Its id is {r.id}."

    def version_of(self, action: str, arguments: dict[str, object]) -> str:
        repair = _repair(arguments["repair"]) if "repair" in arguments else None
        return f"r{repair.revision}" if repair else ""

    def names(self, action: str, argument: str, value: str) -> str:
        return _named(argument, value)


class PriceFleetRepair(Skill[Repair, Estimate]):
    """Price one repair for a fleet customer: prices go to the manager."""

    description = "Price one repair for a fleet customer."
    tools = [parts_for, set_price]

    def brief(self, r: Repair) -> str:
        return f"Fleet ticket {r.ticket}: {r.fault}. Its id is {r.id}."

    def decided_by(self, action: str) -> Route | None:
        if action != "set_price":
            return None
        managers = app.people.with_role("manager")  # none yet: whoever becomes one decides
        return Route.to_person(managers[0]) if managers else Route.to_queue("manager")

    def names(self, action: str, argument: str, value: str) -> str:
        return _named(argument, value)


class Estimator(Agent):
    """Estimates bicycle repairs."""

    purpose = "You estimate bicycle repairs for a small workshop."
    skills = [EstimateRepair(), PriceFleetRepair()]
    may = Permits(alone=[note_repair], never=[scrap_repair])
    roles = ["helper"]


app.add_agent(Estimator, sponsor="noor@workshop.example")


def setup() -> dict[str, object]:
    """Mia, Noor, the estimator, and ticket T-7 (each made when it is not there yet, so that
    the demo runs again on the same database)."""
    mia = app.people.find("mia@workshop.example") or app.people.add(
        "mia@workshop.example", "Mia", roles=["mechanic"])
    noor = app.people.find("noor@workshop.example") or app.people.add(
        "noor@workshop.example", "Noor", roles=["manager"])
    with app.session(as_=mia) as s:
        repair = s.scalars(select(Repair).where(Repair.ticket == "T-7")).first()
        if repair is None:
            repair = Repair(ticket="T-7", fault="rear brake does not bite")
            s.add(repair)
    return {"mia": mia, "noor": noor, "repair": repair}


def main() -> None:
    """The estimator at work: a note alone, a price proposed, Mia's yes that cannot, Noor's."""
    people = setup()
    mia, noor, repair = people["mia"], people["noor"], people["repair"]
    assert isinstance(repair, Repair)
    with app.session(as_=app.system) as s:  # run again, the demo starts from an unpriced T-7
        unpriced = s.get(Repair, repair.id)
        assert unpriced is not None
        unpriced.price = Decimal(0)
    script = ScriptedModel(
        says.tool(note_repair, repair=repair.id, note="Pads and a cable."),
        says.tool("Pads, a cable and an hour of work.", set_price, repair=repair.id, price=45),
        says.hand_back(Estimate(hours=Decimal(1), summary="Pads and a cable.")),
    )
    outcome = app.agent(Estimator).do(EstimateRepair(), repair, for_=mia, model=script)
    if not outcome.waiting:  # (on Temporal with no worker, say: the outcome says why)
        raise SystemExit(f"The task is {outcome.status.value.lower()}: {outcome.problem}")
    print(f"The task is {outcome.status.value.lower()}, on {', '.join(outcome.waiting_on)}.")
    proposal = app.proposals(task=outcome.task)[0]
    print(f"Proposed: {proposal.label} — {proposal.shown} — why: {proposal.why}")
    decision = app.approve(proposal, by=mia)
    print(f"Mia says yes: {decision.said}")
    print(f"The task is {app.outcome(outcome.task).status.value}.")
    script = ScriptedModel(
        says.tool("Pads, a cable and an hour of work.", set_price, repair=repair.id, price=45),
        says.hand_back(Estimate(hours=Decimal(1), summary="Pads and a cable.")),
    )
    again = app.agent(Estimator).do(EstimateRepair(), repair, for_=mia, model=script)
    print("A second estimate of T-7, for Mia, proposes the same price; Noor, a manager, may "
          "decide any proposal.")
    decision = app.approve(app.proposals(task=again.task)[0], by=noor)
    print(f"Noor says yes: {decision.said}")
    with app.session(as_=noor) as s:
        price = s.get(Repair, repair.id).price
    print(f"T-7 now costs {price}.")
    print()
    print("The receipt:")
    print(app.receipt(again.task).words)


if __name__ == "__main__":
    main()
