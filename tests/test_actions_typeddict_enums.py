"""An enum inside a TypedDict is given and shown by member name, as it is inside a dataclass or
a pydantic model and as a parameter of its own: one rule, whatever the structure."""

from __future__ import annotations

import dataclasses
import enum
from typing import Any, NotRequired

import pytest
from pydantic import BaseModel
from typing_extensions import TypedDict

from signoff import App
from signoff.actions.results import ActionOutcome
from signoff.security.acting import SYSTEM


class Rush(enum.Enum):
    """How soon."""

    NORMAL = "Normal"
    SAME_DAY = "Same day"


class Order(TypedDict):
    """An order, as a TypedDict."""

    rush: Rush
    note: NotRequired[str]


class Tree(TypedDict):
    """A TypedDict that holds itself."""

    rush: Rush
    below: list[Tree]


@dataclasses.dataclass
class OrderDataclass:
    """An order, as a dataclass."""

    rush: Rush


class OrderModel(BaseModel):
    """An order, as a pydantic model."""

    rush: Rush


@pytest.fixture
def app() -> App:
    """An app with one action per kind of structure, each saying what it was given."""
    app = App("t", database="sqlite://")

    @app.action
    def typed(order: Order) -> str:
        """A TypedDict."""
        return f"{order['rush']!r} {sorted(order)}"

    @app.action
    def data(order: OrderDataclass) -> str:
        """A dataclass."""
        return repr(order.rush)

    @app.action
    def model(order: OrderModel) -> str:
        """A pydantic model."""
        return repr(order.rush)

    @app.action
    def tree(top: Tree) -> str:
        """A TypedDict within itself."""
        return repr(top["below"][0]["rush"])

    @app.action
    def made() -> Order:
        """A TypedDict returned."""
        return {"rush": Rush.SAME_DAY}

    return app


def _rush_schema(schema: dict[str, Any], structure: str) -> Any:
    return schema["$defs"][structure]["properties"]["rush"]["enum"]


def test_every_structure_describes_its_enum_by_name(app: App) -> None:
    """The schema of each structure lists the enum's member names, not its values."""
    for action in ("typed", "data", "model"):
        schema = app.actions.info(action).parameters_schema
        (name,) = schema["$defs"]
        assert _rush_schema(schema, name) == ["NORMAL", "SAME_DAY"], action


def test_every_structure_takes_its_enum_by_name(app: App) -> None:
    """A member's name is taken by each structure; its value is refused by each, in the same
    words."""
    for action in ("typed", "data", "model"):
        taken = app.actions.run(action, {"order": {"rush": "SAME_DAY"}}, as_=SYSTEM)
        assert taken.outcome is ActionOutcome.DONE, (action, taken.problem)
        assert taken.said.startswith("<Rush.SAME_DAY"), action
        refused = app.actions.run(action, {"order": {"rush": "Same day"}}, as_=SYSTEM)
        assert refused.outcome is ActionOutcome.INVALID, action
        assert refused.problem.endswith(
            "at rush: not one of NORMAL, SAME_DAY — “Same day” is not."), action


def test_a_typeddict_from_json_keeps_its_keys_and_what_is_not_required(app: App) -> None:
    """From a model's JSON, the action is given a dict of the keys written, the enum a member;
    a key not required may be left out, and stays out."""
    values = app.actions.values_from_json("typed", '{"order": {"rush": "same_day"}}')
    result = app.actions.run("typed", values, as_=SYSTEM)
    assert result.said == "<Rush.SAME_DAY: 'Same day'> ['rush']"
    schema = app.actions.info("typed").parameters_schema["$defs"]["Order"]
    assert schema["required"] == ["rush"]


def test_a_typeddict_that_holds_itself_takes_its_enums_by_name(app: App) -> None:
    """The enum is by name at every depth of a TypedDict that holds itself."""
    top = {"rush": "NORMAL", "below": [{"rush": "SAME_DAY", "below": []}]}
    assert app.actions.run("tree", {"top": top}, as_=SYSTEM).said == (
        "<Rush.SAME_DAY: 'Same day'>")
    refused = app.actions.run("tree", {"top": {**top, "below": [{"rush": "Same day",
                                                                   "below": []}]}}, as_=SYSTEM)
    assert refused.outcome is ActionOutcome.INVALID


def test_a_typeddict_returned_tells_its_enum_by_name(app: App) -> None:
    """What an action returns as a TypedDict is told with its enum by name, as its schema says."""
    result = app.actions.run("made", {}, as_=SYSTEM)
    assert result.value == {"rush": "SAME_DAY"}
    schema = app.actions.info("made").result_schema
    assert schema is not None
    assert schema["properties"]["rush"]["enum"] == ["NORMAL", "SAME_DAY"]
