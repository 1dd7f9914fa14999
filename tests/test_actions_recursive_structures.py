"""A structure that holds itself (a tree of parts, two models holding each other) takes its
enums by member name at every depth, as its schema says, and the action gets its own types."""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass, field

from pydantic import BaseModel

from signoff import App
from signoff.actions import ActionOutcome
from signoff.security.acting import SYSTEM


class Rush(enum.Enum):
    """How soon."""

    NORMAL = "Normal"
    SAME_DAY = "Same day"


@dataclass
class Part:
    """A part, made of parts."""

    rush: Rush
    parts: list[Part] = field(default_factory=list)


class Order(BaseModel):
    """An order, which may hold a box."""

    rush: Rush
    box: Box | None = None


class Box(BaseModel):
    """A box, which may hold an order."""

    order: Order | None = None


Order.model_rebuild()


def build_app(got: list[object]) -> App:
    """An app whose actions take structures that hold themselves."""
    app = App("t", database="sqlite://")

    @app.action
    def build(part: Part) -> Part:
        """A dataclass that holds itself."""
        got.append(part)
        return part

    @app.action
    def pack(order: Order) -> Order:
        """Two models holding each other."""
        got.append(order)
        return order

    return app


def test_a_dataclass_that_holds_itself_takes_enums_by_name_at_every_depth() -> None:
    """The part inside a part is given by name, and reaches the action as a Part with a Rush."""
    got: list[object] = []
    app = build_app(got)
    given = {"part": {"rush": "SAME_DAY", "parts": [{"rush": "NORMAL"}]}}
    result = app.actions.run_json("build", json.dumps(given), as_=SYSTEM)
    assert result.done, result.problem
    (part,) = got
    assert isinstance(part, Part)
    assert part.parts == [Part(rush=Rush.NORMAL)]
    assert result.value == {"rush": "SAME_DAY", "parts": [{"rush": "NORMAL", "parts": []}]}
    schema = app.actions.info("build").parameters_schema
    assert all(d["properties"]["rush"]["enum"] == ["NORMAL", "SAME_DAY"]
               for d in schema["$defs"].values())


def test_a_value_inside_a_structure_that_holds_itself_is_refused_by_name() -> None:
    """A nested enum written by its value is told with the names to write."""
    app = build_app([])
    given = {"part": {"rush": "SAME_DAY", "parts": [{"rush": "Same day"}]}}
    result = app.actions.run_json("build", json.dumps(given), as_=SYSTEM)
    assert (result.outcome, result.problem) == (
        ActionOutcome.INVALID, "Part, at parts.0.rush: not one of NORMAL, SAME_DAY — “Same day” is not.")


def test_two_models_holding_each_other_take_enums_by_name_at_every_depth() -> None:
    """An order in a box in an order is given by name, and made into the app's own models."""
    got: list[object] = []
    app = build_app(got)
    given = {"order": {"rush": "SAME_DAY", "box": {"order": {"rush": "NORMAL"}}}}
    result = app.actions.run_json("pack", json.dumps(given), as_=SYSTEM)
    assert result.done, result.problem
    (order,) = got
    assert isinstance(order, Order)
    assert isinstance(order.box, Box)
    assert order.box.order == Order(rush=Rush.NORMAL)
    assert result.value == {"rush": "SAME_DAY", "box": {"order": {"rush": "NORMAL", "box": None}}}
