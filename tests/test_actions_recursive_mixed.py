"""A TypedDict and a dataclass that hold each other, an enum inside, register whichever is
declared first and keep every value at every depth.

Each test has a pair of its own: what signoff makes of a structure is kept for the process, so
a pair another test used first would hide the order tested.
"""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass, field

from typing_extensions import TypedDict

from signoff import App
from signoff.security.acting import SYSTEM


class Rush(enum.Enum):
    """How soon."""

    NORMAL = "Normal"
    SAME_DAY = "Same day"


class NodeFirst(TypedDict):
    """A TypedDict of leaves (its action registered first)."""

    rush: Rush
    leaves: list[LeafSecond]


@dataclass
class LeafSecond:
    """A dataclass of nodes."""

    rush: Rush
    nodes: list[NodeFirst] = field(default_factory=list)


class NodeSecond(TypedDict):
    """A TypedDict of leaves."""

    rush: Rush
    leaves: list[LeafFirst]


@dataclass
class LeafFirst:
    """A dataclass of nodes (its action registered first)."""

    rush: Rush
    nodes: list[NodeSecond] = field(default_factory=list)


def test_a_typeddict_holding_a_dataclass_that_holds_it_keeps_every_value() -> None:
    """The node inside a leaf inside a node reaches the action with its members (it came as
    an empty dict), and the leaf's action, registered after, takes the same shape."""
    got: list[object] = []
    app = App("t", database="sqlite://")

    @app.action
    def grow(tree: NodeFirst) -> str:
        """A TypedDict first."""
        got.append(tree)
        return "grown"

    @app.action
    def grow_leaf(leaf: LeafSecond) -> str:
        """Its dataclass after."""
        got.append(leaf)
        return "grown"

    inner = {"rush": "NORMAL", "leaves": [{"rush": "SAME_DAY", "nodes": []}]}
    given = {"tree": {"rush": "SAME_DAY", "leaves": [{"rush": "NORMAL", "nodes": [inner]}]}}
    result = app.actions.run_json("grow", json.dumps(given), as_=SYSTEM)
    assert result.done, result.problem
    leaf = LeafSecond(rush=Rush.SAME_DAY)
    assert got == [{"rush": Rush.SAME_DAY, "leaves": [LeafSecond(
        rush=Rush.NORMAL, nodes=[{"rush": Rush.NORMAL, "leaves": [leaf]}])]}]
    result = app.actions.run_json("grow_leaf", json.dumps({"leaf": given["tree"]["leaves"][0]}),
                                  as_=SYSTEM)
    assert result.done, result.problem
    assert got[1] == LeafSecond(rush=Rush.NORMAL, nodes=[{"rush": Rush.NORMAL, "leaves": [leaf]}])


def test_a_dataclass_holding_a_typeddict_that_holds_it_lets_the_typeddict_register() -> None:
    """The TypedDict's action, registered after the dataclass's, is not refused as "not fully
    defined", and takes its enums by name at every depth."""
    got: list[object] = []
    app = App("t", database="sqlite://")

    @app.action
    def grow_leaf(leaf: LeafFirst) -> str:
        """A dataclass first."""
        got.append(leaf)
        return "grown"

    @app.action
    def grow(tree: NodeSecond) -> str:
        """Its TypedDict after."""
        got.append(tree)
        return "grown"

    given = {"tree": {"rush": "SAME_DAY", "leaves": [
        {"rush": "NORMAL", "nodes": [{"rush": "NORMAL", "leaves": []}]}]}}
    result = app.actions.run_json("grow", json.dumps(given), as_=SYSTEM)
    assert result.done, result.problem
    assert got == [{"rush": Rush.SAME_DAY, "leaves": [
        LeafFirst(rush=Rush.NORMAL, nodes=[{"rush": Rush.NORMAL, "leaves": []}])]}]
    schema = app.actions.info("grow").parameters_schema
    assert schema["$defs"]["LeafFirst"]["properties"]["rush"]["enum"] == ["NORMAL", "SAME_DAY"]
    wrong = {"tree": {"rush": "NORMAL", "leaves": [{"rush": "Same day"}]}}
    assert app.actions.check("grow", wrong) == (
        "Tree, at leaves.0.rush: not one of NORMAL, SAME_DAY — “Same day” is not.")
