"""What an action returned, written as JSON with its enums by name, is read back as the type it
was (`ActionResult.value_as`)."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from signoff import App
from signoff.security.acting import SYSTEM


class Rush(enum.Enum):
    """How soon."""

    NORMAL = "Normal"
    SAME_DAY = "Same day"


@dataclass
class Order:
    """An order."""

    rush: Rush
    count: int


def test_a_result_holding_an_enum_is_read_back_as_it_was() -> None:
    """An enum the JSON gives by name (``"SAME_DAY"``), alone or inside a dataclass, reads back
    as the member it names (reading it by value refused it)."""
    app = App("t", database="sqlite://")

    @app.action
    def order() -> Order:
        """An order."""
        return Order(rush=Rush.SAME_DAY, count=2)

    @app.action
    def rush() -> list[Rush]:
        """Enums."""
        return [Rush.SAME_DAY, Rush.NORMAL]

    made = app.actions.run("order", {}, as_=SYSTEM)
    assert made.value == {"rush": "SAME_DAY", "count": 2}
    assert made.value_as(Order) == Order(rush=Rush.SAME_DAY, count=2)
    assert app.actions.run("rush", {}, as_=SYSTEM).value_as(list[Rush]) == [
        Rush.SAME_DAY, Rush.NORMAL]
