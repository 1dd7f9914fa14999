"""The crane: a refusal the app tells in its own words, and a failure it did not foresee.

Asked for 50 t, the lift refuses and says why. Asked for 13 t, the winch driver breaks: the
caller hears only that it failed, and the driver's own words go to the log.

Run it: ``python examples/crane.py``
"""

from __future__ import annotations

import logging
import os
from decimal import Decimal
from typing import Annotated, Any

from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

from signoff import App, Invalid, Label, allow, policy

app = App("crane", database=os.environ.get("CRANE_DATABASE", "sqlite://"))
is_operator = policy.role("operator")


class Crane(app.Record):  # type: ignore[name-defined, misc]
    """A crane on the site."""

    name: Mapped[str] = mapped_column(String(40), unique=True)
    capacity_t: Mapped[int] = mapped_column(default=40)
    lifts: Mapped[int] = mapped_column(default=0)
    __security__ = [allow("read", "create", "update", when=is_operator)]


class WinchDriver:
    """Stands for the crane's winch controller: it has a fault at exactly 13 t."""

    def hoist(self, tonnes: Decimal) -> None:
        """Raise the hook with `tonnes` on it."""
        if tonnes == 13:
            raise OSError("winch driver: encoder E-13 lost count on drum 2, brake engaged")


@app.action("Lift a load")
def lift(crane: Crane, tonnes: Annotated[Decimal, Label("Load in tonnes")]) -> str:
    """Lift a load with the crane, within what it can carry."""
    if tonnes > crane.capacity_t:
        raise Invalid(
            f"{crane.name} lifts at most {crane.capacity_t} t; {tonnes} t is too heavy. "
            "Split the load."
        )
    WinchDriver().hoist(tonnes)
    crane.lifts += 1
    return f"{crane.name} lifted {tonnes} t."


def setup() -> dict[str, object]:
    """One operator and one crane."""
    olu = app.people.add("olu@site.example", "Olu", roles=["operator"])
    with app.session(as_=olu) as s:
        crane = Crane(name="Tower 1")
        s.add(crane)
    return {"olu": olu, "crane": crane}


class _Told(logging.Formatter):
    """The log as this demo shows it: each record with what it caught, in a line (a real log
    keeps the whole traceback)."""

    def formatException(self, ei: Any) -> str:
        return f"  log: {ei[0].__name__}: {ei[1]}"


def main() -> None:
    """Lift three loads: one too heavy, one that breaks the winch, one that goes up."""
    told = logging.StreamHandler()
    told.setFormatter(_Told("  log: %(message)s"))
    logging.basicConfig(level=logging.ERROR, handlers=[told])
    people = setup()
    olu, crane = people["olu"], people["crane"]
    for tonnes in (50, 13, 8):
        result = app.actions.run("lift", {"crane": crane, "tonnes": tonnes}, as_=olu)
        print(f"{tonnes} t → {result.outcome.value}: {result}")


if __name__ == "__main__":
    main()
