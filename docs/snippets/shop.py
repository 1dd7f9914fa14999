"""A bike shop: repairs, four actions, and an estimator agent (used by the concept pages)."""
from decimal import Decimal

from pydantic import BaseModel
from sqlalchemy import Numeric, String
from sqlalchemy.orm import Mapped, mapped_column

from signoff import Agent, App, Permits, Skill, allow, deny, policy

app = App("shop", database="sqlite:///shop.db")
is_mechanic, is_manager, is_helper = policy.role("mechanic"), policy.role("manager"), policy.role("helper")
app.oversight.supervises_agents = is_manager       # managers may decide any proposal


class Repair(app.Record):
    ticket: Mapped[str] = mapped_column(String(40), unique=True)
    fault: Mapped[str] = mapped_column(String(200))
    note: Mapped[str] = mapped_column(String(400), default="")
    price: Mapped[Decimal] = mapped_column(Numeric(10, 2), default=Decimal(0))
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
    repair.price = price
    return f"{repair.ticket} costs {price}."


@app.action("Scrap the repair")
def scrap_repair(repair: Repair) -> str:
    """Give up on the bicycle."""
    repair.fault = "scrapped"
    return f"{repair.ticket} is scrapped."


class Estimate(BaseModel):
    hours: Decimal
    summary: str


class EstimateRepair(Skill[Repair, Estimate]):
    description = "Estimate one repair, and price it."
    tools = [parts_for, note_repair, set_price, scrap_repair]

    def brief(self, r: Repair) -> str:
        return f"Ticket {r.ticket}: {r.fault}. Its id is {r.id}."


class Estimator(Agent):
    purpose = "You estimate bicycle repairs for a small workshop."
    skills = [EstimateRepair()]
    may = Permits(alone=[note_repair], never=[scrap_repair])
    roles = ["helper"]


app.add_agent(Estimator, sponsor="noor@shop.example")
