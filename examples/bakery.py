"""The bakery: orders with a rush, shelves offered as choices, a change only the boss may make,
and a `wipe` that is not an action, so nothing can run it by name.

Run it: ``python examples/bakery.py``
"""

from __future__ import annotations

import datetime as dt
import enum
import json
import os
import uuid
from dataclasses import dataclass
from decimal import Decimal
from typing import Annotated

from pydantic import BaseModel, Field
from sqlalchemy import ForeignKey, String, select
from sqlalchemy.orm import Mapped, Session, mapped_column, relationship

from signoff import App, Choices, Invalid, Label, Provided, allow, deny, policy

app = App("bakery", database=os.environ.get("BAKERY_DATABASE", "sqlite://"))

is_clerk = policy.role("clerk")
is_baker = policy.role("baker")
is_boss = policy.role("boss")
staff = is_clerk | is_baker | is_boss


class Rush(enum.Enum):
    """How soon an order is wanted."""

    NORMAL = "Normal"
    SAME_DAY = "Same day"
    WITHIN_THE_HOUR = "Within the hour"


class Shelf(app.Record):  # type: ignore[name-defined, misc]
    """A shelf in the shop that finished orders wait on."""

    name: Mapped[str] = mapped_column(String(40), unique=True)
    open: Mapped[bool] = mapped_column(default=True)
    __security__ = [allow("read", when=staff), allow("create", "update", when=is_boss)]


class Order(app.Record):  # type: ignore[name-defined, misc]
    """A customer's order."""

    code: Mapped[str] = mapped_column(String(20), unique=True)
    customer: Mapped[str] = mapped_column(String(100))
    rush: Mapped[Rush] = mapped_column(default=Rush.NORMAL)
    due_on: Mapped[dt.date | None] = mapped_column(default=None)
    price: Mapped[Decimal] = mapped_column(default=Decimal(0))
    shelf_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("shelf.id"), default=None)
    shelf: Mapped[Shelf | None] = relationship()
    __security__ = [
        allow("read", "create", "update", when=staff),
        allow("delete", when=is_boss),
        deny("update", "rush", "price", when=~is_boss),
    ]


class Item(BaseModel):
    """One line of what goes in a box."""

    name: str = Field(min_length=1)
    count: int = Field(gt=0)


@dataclass(frozen=True, kw_only=True)
class Box:
    """A packed box, as the action hands it back."""

    order: str
    lines: list[str]
    pieces: int


def open_shelves(session: Session) -> list[Shelf]:
    """The shelves an order can go on."""
    return list(session.scalars(select(Shelf).where(Shelf.open).order_by(Shelf.name)))


@app.action("Take an order")
def take_order(
    customer: str,
    code: str,
    session: Annotated[Session, Provided("session")],
    due_on: dt.date | None = None,
) -> Order:
    """Write down a new order."""
    order = Order(customer=customer, code=code, due_on=due_on)
    session.add(order)
    return order


@app.action("Set the rush")
def set_rush(order: Order, rush: Annotated[Rush, Label("How soon")]) -> str:
    """Say how soon the order is wanted. Only the boss may change it."""
    order.rush = rush
    return f"{order.code} is now {rush.value.lower()}."


@app.action("Put it on a shelf")
def shelve(order: Order, shelf: Annotated[Shelf, Choices(open_shelves)]) -> str:
    """Put a finished order on one of the open shelves."""
    if not shelf.open:
        raise Invalid(f"{shelf.name} is closed; choose an open shelf.")
    order.shelf = shelf
    return f"{order.code} waits on {shelf.name}."


@app.action("Deliver on a day")
def deliver_on(order: Order, on: dt.date) -> str:
    """Promise the order for a day."""
    order.due_on = on
    return f"{order.code} goes out on {on:%A %d %B}."


@app.action("Price the order", authorize=is_boss)
def price_order(order: Order, price: Decimal) -> str:
    """Set what the order costs (the boss's job)."""
    order.price = price
    return f"{order.code} costs {price}."


@app.action("Pack a box")
def pack(order: Order, items: list[Item], today: Annotated[dt.date, Provided("today")]) -> Box:
    """Pack the order's items into one box."""
    lines = [f"{item.count} × {item.name}" for item in items]
    order.due_on = order.due_on or today
    return Box(order=order.code, lines=lines, pieces=sum(item.count for item in items))


def wipe(order: Order) -> None:
    """Not an action: it is not marked, so no caller can run it by name."""
    raise SystemExit("wipe must never run by name")


app.provide("today", lambda: dt.date(2026, 9, 1))


def setup() -> dict[str, object]:
    """The bakery's people, shelves and one order."""
    boss = app.people.add("bo@bakery.example", "Bo", roles=["boss"])
    cleo = app.people.add("cleo@bakery.example", "Cleo", roles=["clerk"])
    with app.session(as_=boss) as s:
        s.add_all([Shelf(name="Front"), Shelf(name="Back"), Shelf(name="Cellar", open=False)])
        s.add(Order(code="B-12", customer="Ada"))
    with app.session(as_=boss) as s:
        order = s.scalars(select(Order).where(Order.code == "B-12")).one()
    return {"boss": boss, "cleo": cleo, "order": order}


def main() -> None:
    """Show the bakery's actions at work."""
    people = setup()
    boss, cleo, order = people["boss"], people["cleo"], people["order"]
    print("What the bakery offers:")
    for info in app.actions.catalog():
        print(f"  {info.name:12} {info.reads_as}")
    print()
    print("Shelves Cleo may choose:", [label for _, label in app.actions.choices(
        "shelve", "shelf", as_=cleo)])
    for who, values in ((cleo, {"rush": "SAME_DAY"}), (boss, {"rush": "SAME_DAY"})):
        result = app.actions.run("set_rush", {"order": order, **values}, as_=who)
        print(f"{who}: set_rush → {result.outcome.value}: {result}")
    print("check:", app.actions.check("deliver_on", {"order": str(order.id), "on": "next tuesday"}))
    result = app.actions.run("wipe", {"order": order}, as_=boss)
    print(f"wipe → {result.outcome.value}: {result}")
    call = json.dumps({"order": str(order.id), "items": [{"name": "rye loaf", "count": 2}]})
    result = app.actions.run_json("pack", call, as_=cleo)
    print(f"pack → {result.outcome.value}: {result.value}")


if __name__ == "__main__":
    main()
