"""The JSON Schemas derived from actions: pinned by snapshot, and what a model needs to call them.

Snapshots live in ``tests/snapshots/<action>.json``. After a deliberate change to how schemas are
derived, rewrite them with ``SIGNOFF_UPDATE_SNAPSHOTS=1 pytest tests/test_schemas.py`` and review
the diff.
"""

from __future__ import annotations

import datetime as dt
import enum
import json
import os
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any, Literal

import pytest
import typing_extensions
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import String, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from signoff import App, Choices, Label, Provided, UserError, allow

SNAPSHOTS = Path(__file__).parent / "snapshots"
UPDATE = os.environ.get("SIGNOFF_UPDATE_SNAPSHOTS") == "1"


class Rush(enum.Enum):
    """How soon an order is wanted."""

    NORMAL = "Normal"
    SAME_DAY = "Same day"
    WITHIN_THE_HOUR = "Within the hour"


class Item(BaseModel):
    """One line of a box."""

    name: str = Field(min_length=1)
    count: int = Field(gt=0)


@dataclass(frozen=True, kw_only=True)
class Parcel:
    """A parcel: how heavy, and how soon."""

    weight: Decimal
    rush: Rush


@dataclass(frozen=True, kw_only=True)
class Weighed:
    """A parcel with no enum in it."""

    weight: Decimal
    note: str


class Address(typing_extensions.TypedDict):
    """Where a parcel goes."""

    street: str
    town: str


def build_app() -> App:
    """An app with one action per group of parameter kinds."""
    app = App("t", database="sqlite://")

    class Order(app.Record):  # type: ignore[name-defined, misc]
        """A customer's order."""

        code: Mapped[str] = mapped_column(String(20), unique=True)
        price: Mapped[Decimal] = mapped_column(default=Decimal(0))
        rush: Mapped[Rush] = mapped_column(default=Rush.NORMAL)
        __security__ = [allow("read", "update")]

    class Shelf(app.Record):  # type: ignore[name-defined, misc]
        """A shelf."""

        name: Mapped[str] = mapped_column(String(20), unique=True)
        __security__ = [allow("read")]

    def shelves(session: Session) -> list[Shelf]:
        return list(session.scalars(select(Shelf)))

    @app.action
    def write_text(note: str) -> str:
        """Text."""
        return note

    @app.action
    def count_loaves(loaves: int) -> int:
        """An integer."""
        return loaves

    @app.action
    def set_price(order: Order, price: Decimal) -> Decimal:
        """A record subject and a decimal."""
        return price

    @app.action
    def answer(yes: bool) -> bool:
        """Yes or no."""
        return yes

    @app.action
    def deliver_on(on: dt.date) -> dt.date:
        """A date."""
        return on

    @app.action
    def ring_at(at: dt.datetime, opens: dt.time) -> dt.datetime:
        """A date and time, and a time of day."""
        return at

    @app.action
    def bake_for(how_long: dt.timedelta) -> dt.timedelta:
        """A duration."""
        return how_long

    @app.action
    def find_receipt(receipt: uuid.UUID) -> uuid.UUID:
        """An id."""
        return receipt

    @app.action("Set the rush")
    def set_rush(order: Order, rush: Annotated[Rush, Label("How soon")]) -> Rush:
        """An enum by member name, with a label."""
        return rush

    @app.action
    def shelve(order: Order, shelf: Annotated[Shelf, Choices(shelves)]) -> Order:
        """A record besides the subject, with its choices; a record as the result."""
        return order

    @app.action
    def pack(items: list[Item], parcel: Weighed, counts: dict[str, int]) -> Weighed:
        """Structures: a list of pydantic models, a dataclass, a dict of str to int."""
        return parcel

    @app.action
    def tag(tags: set[str], size: tuple[int, int], rushes: list[Rush]) -> list[str]:
        """Sequences: a set, a tuple, a list of enums."""
        return sorted(tags)

    @app.action
    def maybe(
        note: str | None = None, count: int = 3, when: dt.date | None = None
    ) -> str | None:
        """Optional values."""
        return note

    @app.action
    def pick(
        size: Literal["small", "large"], today: Annotated[dt.date, Provided("today")]
    ) -> None:
        """A Literal, and a context parameter."""

    return app


@pytest.fixture(scope="module")
def app() -> App:
    """The app of schemas (read only: its catalogue is all these tests use)."""
    return build_app()


ACTIONS = [
    "answer",
    "bake_for",
    "count_loaves",
    "deliver_on",
    "find_receipt",
    "maybe",
    "pack",
    "pick",
    "ring_at",
    "set_price",
    "set_rush",
    "shelve",
    "tag",
    "write_text",
]


def test_the_snapshot_table_covers_the_catalogue(app: App) -> None:
    """Every action of the schema app has a snapshot test, and every test an action."""
    assert [info.name for info in app.actions.catalog()] == ACTIONS


@pytest.mark.parametrize("name", ACTIONS)
def test_schemas_match_their_snapshot(app: App, name: str) -> None:
    """The parameters and result schemas of each action are exactly as pinned."""
    info = app.actions.info(name)
    found = {"parameters_schema": info.parameters_schema, "result_schema": info.result_schema}
    path = SNAPSHOTS / f"{name}.json"
    text = json.dumps(found, indent=2, ensure_ascii=False) + "\n"
    if UPDATE:
        SNAPSHOTS.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"SIGNOFF_UPDATE_SNAPSHOTS=1: rewrote {path}")
        return
    assert path.exists(), f"No snapshot {path}: run with SIGNOFF_UPDATE_SNAPSHOTS=1 and review it."
    assert json.loads(path.read_text(encoding="utf-8")) == found


# -- what a model needs, said outright ------------------------------------------------------


@pytest.mark.parametrize("name", ACTIONS)
def test_each_property_is_titled_by_its_label(app: App, name: str) -> None:
    """Every property of a parameters schema is titled with its parameter's label, and is
    required exactly when the parameter has no default."""
    info = app.actions.info(name)
    schema = info.parameters_schema
    assert list(schema["properties"]) == [p.name for p in info.parameters]
    for p in info.parameters:
        assert schema["properties"][p.name]["title"] == p.label
    assert schema.get("required", []) == [p.name for p in info.parameters if not p.optional]
    assert schema["additionalProperties"] is False


def test_a_label_is_the_title(app: App) -> None:
    """`Label("How soon")` shows as the property's title."""
    schema = app.actions.info("set_rush").parameters_schema
    assert schema["properties"]["rush"]["title"] == "How soon"


@pytest.mark.parametrize(("name", "parameter"), [("set_rush", "order"), ("shelve", "shelf")])
def test_a_record_is_given_as_its_id(app: App, name: str, parameter: str) -> None:
    """A record parameter (subject or not) is described as a uuid string."""
    described = app.actions.info(name).parameters_schema["properties"][parameter]
    assert described["type"] == "string"
    assert described["format"] == "uuid"


def test_an_enum_is_given_by_member_name_in_order(app: App) -> None:
    """An enum is a string naming a member, the members in their order, not their values."""
    schema = app.actions.info("set_rush").parameters_schema
    assert schema["properties"]["rush"]["enum"] == ["NORMAL", "SAME_DAY", "WITHIN_THE_HOUR"]
    assert app.actions.info("set_rush").result_schema == {
        "type": "string", "enum": ["NORMAL", "SAME_DAY", "WITHIN_THE_HOUR"], "title": "Rush"
    }
    tag = app.actions.info("tag").parameters_schema["properties"]["rushes"]
    assert tag["items"]["enum"] == ["NORMAL", "SAME_DAY", "WITHIN_THE_HOUR"]


def test_a_record_result_is_its_id_and_values_with_enums_by_name(app: App) -> None:
    """A record returned is described as an object with its id and columns, enums by name."""
    schema = app.actions.info("shelve").result_schema
    assert schema is not None
    assert schema["required"] == ["id"]
    assert schema["properties"]["id"] == {"type": "string", "format": "uuid"}
    assert schema["properties"]["rush"]["enum"] == ["NORMAL", "SAME_DAY", "WITHIN_THE_HOUR"]


def test_context_parameters_never_appear(app: App) -> None:
    """A `Provided` parameter is neither a property, nor required, nor a parameter shown."""
    info = app.actions.info("pick")
    assert "today" not in info.parameters_schema["properties"]
    assert "today" not in info.parameters_schema.get("required", [])
    assert "today" not in json.dumps(info.parameters_schema)
    assert [p.name for p in info.parameters] == ["size"]


def test_an_action_without_a_return_type_has_no_result_schema() -> None:
    """No return annotation: result_schema is None."""
    app = App("t", database="sqlite://")

    @app.action
    def shrug(note: str):  # type: ignore[no-untyped-def]
        """Returns nothing declared."""

    assert app.actions.info("shrug").result_schema is None


class Crate(BaseModel):
    """A pydantic model holding parcels, with a default enum of its own."""

    parcels: list[Parcel]
    rush: Rush = Rush.SAME_DAY


def test_an_enum_inside_a_structure_is_given_by_name_too() -> None:
    """An enum field of a dataclass or pydantic model parameter, at any depth, is described,
    accepted and written back by member name, like a top-level enum; its default is shown by
    name; the action still gets its own types, and a value written by value is refused in
    words."""
    app = App("t", database="sqlite://")
    clerk = app.people.add("clerk@t.example", "Clerk")
    names = ["NORMAL", "SAME_DAY", "WITHIN_THE_HOUR"]
    got: list[object] = []

    @app.action
    def send(parcel: Parcel, crate: Crate, rush: Rush = Rush.NORMAL) -> Crate:
        """Structures with enums in them."""
        got.extend([parcel, crate])
        return Crate(parcels=[*crate.parcels, parcel], rush=parcel.rush)

    info = app.actions.info("send")
    defs = info.parameters_schema["$defs"]
    assert defs["Parcel"]["properties"]["rush"]["enum"] == names
    assert defs["Crate"]["properties"]["rush"] == {
        "default": "SAME_DAY", "enum": names, "title": "Rush", "type": "string"}
    assert info.parameters_schema["properties"]["rush"]["default"] == "NORMAL"
    assert info.result_schema is not None
    assert info.result_schema["properties"]["rush"]["enum"] == names

    given = {"parcel": {"weight": "2.5", "rush": "WITHIN_THE_HOUR"},
             "crate": {"parcels": [{"weight": "1", "rush": "normal"}]}}
    result = app.actions.run("send", app.actions.values_from_json("send", json.dumps(given)),
                             as_=clerk)
    assert result.done, result.problem
    parcel, crate = got
    assert parcel == Parcel(weight=Decimal("2.5"), rush=Rush.WITHIN_THE_HOUR)
    assert isinstance(crate, Crate)
    assert crate.rush is Rush.SAME_DAY
    assert crate.parcels == [Parcel(weight=Decimal("1"), rush=Rush.NORMAL)]
    assert result.value == {"parcels": [{"weight": "1", "rush": "NORMAL"},
                                        {"weight": "2.5", "rush": "WITHIN_THE_HOUR"}],
                            "rush": "WITHIN_THE_HOUR"}

    by_value = {"parcel": {"weight": "1", "rush": "Same day"}, "crate": {"parcels": []}}
    assert app.actions.check("send", by_value) == (
        "Parcel, at rush: not one of NORMAL, SAME_DAY, WITHIN_THE_HOUR — “Same day” is not.")


class Order(BaseModel):
    """A pydantic model with an enum under an alias, keeping the members it does not name."""

    model_config = ConfigDict(extra="allow")
    rush: Rush = Field(alias="speed")


def test_a_structure_keeps_its_aliases_and_extra_members_with_an_enum_in_it() -> None:
    """A pydantic model with an enum in it is still given by its aliases, and keeps the extra
    members it allows: the action gets the model as the caller wrote it, the enum by name."""
    app = App("t", database="sqlite://")
    clerk = app.people.add("clerk@t.example", "Clerk")
    got: list[Order] = []

    @app.action
    def place(order: Order) -> str:
        """An aliased enum field, and extra members."""
        got.append(order)
        return "Placed."

    schema = app.actions.info("place").parameters_schema["$defs"]["Order"]
    assert schema["properties"]["speed"]["enum"] == ["NORMAL", "SAME_DAY", "WITHIN_THE_HOUR"]
    given = {"order": {"speed": "SAME_DAY", "note": "Ring twice."}}
    result = app.actions.run("place", app.actions.values_from_json("place", json.dumps(given)),
                             as_=clerk)
    assert result.done, result.problem
    (order,) = got
    assert isinstance(order, Order)
    assert order.rush is Rush.SAME_DAY
    assert order.model_extra == {"note": "Ring twice."}


def test_a_typeddict_is_a_structure() -> None:
    """A TypedDict parameter is described as an object with its keys."""
    app = App("t", database="sqlite://")

    @app.action
    def post(to: Address) -> str:
        """A TypedDict."""
        return to["town"]

    to = app.actions.info("post").parameters_schema["properties"]["to"]
    described = app.actions.info("post").parameters_schema.get("$defs", {}).get("Address", to)
    assert described["properties"] == {
        "street": {"title": "Street", "type": "string"},
        "town": {"title": "Town", "type": "string"},
    }


# -- declarations refused ---------------------------------------------------------------------


def _register(fn: Callable[..., Any]) -> None:
    App("t", database="sqlite://").add_action(fn)


def test_a_record_besides_the_subject_needs_choices() -> None:
    """A record parameter other than the first, without `Choices`, is refused at registration
    with a UserError naming the parameter and the fix."""
    app = App("t", database="sqlite://")

    class Shelf(app.Record):  # type: ignore[name-defined, misc]
        name: Mapped[str] = mapped_column(String(20), unique=True)

    def shelve(first: Shelf, second: Shelf) -> None:
        """Two shelves."""

    with pytest.raises(UserError, match=r"^Action shelve, parameter second: .*Choices"):
        app.add_action(shelve)
    assert "shelve" not in app.actions


def test_a_record_after_a_plain_value_needs_choices() -> None:
    """A record is the subject only when it is the first parameter."""
    app = App("t", database="sqlite://")

    class Shelf(app.Record):  # type: ignore[name-defined, misc]
        name: Mapped[str] = mapped_column(String(20), unique=True)

    def shelve(note: str, shelf: Shelf) -> None:
        """A record second."""

    with pytest.raises(UserError, match=r"parameter shelf.*Choices"):
        app.add_action(shelve)


def _takes_object(thing: object) -> None:
    """An object."""


def _takes_bytes(blob: bytes) -> None:
    """Bytes."""


def _takes_complex(number: complex) -> None:
    """A complex number."""


def _takes_int_keys(by_number: dict[int, str]) -> None:
    """A dict keyed by int."""


def _takes_function(callback: Callable[[], None]) -> None:
    """A function."""


def _untyped(thing) -> None:  # type: ignore[no-untyped-def]
    """No annotation."""


@pytest.mark.parametrize(
    ("fn", "parameter"),
    [
        (_takes_object, "thing"),
        (_takes_bytes, "blob"),
        (_takes_complex, "number"),
        (_takes_int_keys, "by_number"),
        (_takes_function, "callback"),
        (_untyped, "thing"),
    ],
)
def test_an_unsupported_type_is_refused_naming_the_parameter(
    fn: Callable[..., Any], parameter: str
) -> None:
    """A parameter whose type cannot be given as JSON is a UserError naming it."""
    with pytest.raises(UserError, match=rf"parameter {parameter}\b"):
        _register(fn)
