"""A number given as text in a tool call's JSON arguments (or in the REST API's values): read
when written plainly ("5", "-2.5"), refused when written otherwise, saying how to write it.

pydantic's lax mode read "1_000" as 1000 (Python's grouping), "١٠٠٠" (Arabic-Indic digits) as
a Decimal 1000, " 12 " as 12: the action ran on a number the call did not plainly write.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
import typing_extensions
from hypothesis import example, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from signoff import Agent, App, Invalid, Permits, ProposalStatus, Skill, TaskStatus
from signoff.actions.numbers import PATTERN
from signoff.testing import ScriptedModel, ScriptLine, says
from tests.workshop_web import bearer, open_workshop, price, repair_price, served_shop

WHOLE = ("a whole number, given as a JSON number, like 1000, or as text of its digits 0 to 9 "
         "alone (a minus sign first when it is below zero)")
NUMBER = ("a number, given as a JSON number, like 4.50, or as text of the digits 0 to 9 with "
          "at most one decimal point (a point, never a comma; a minus sign first when it is "
          "below zero)")


@pytest.fixture
def app() -> Iterator[App]:
    """An app with one action taking each kind of number, as a model calls it."""
    app = App("shop", database="sqlite://")

    @app.action("Count things")
    def count_things(count: int, price: Decimal | None = None, ratio: float | None = None,
                     counts: list[int] | None = None) -> str:
        """Count them."""
        return f"{count} {price} {ratio} {counts}"

    yield app
    app.database.dispose()


@pytest.mark.parametrize(("given", "read"), [
    ('{"count": "5"}', {"count": 5}),
    ('{"count": "-12"}', {"count": -12}),
    ('{"count": "+5"}', {"count": 5}),
    ('{"count": 1, "price": "-2.5"}', {"count": 1, "price": Decimal("-2.5")}),
    ('{"count": 1, "price": "4.50"}', {"count": 1, "price": Decimal("4.50")}),
    ('{"count": 1, "price": "1E-7"}', {"count": 1, "price": Decimal("1E-7")}),  # (as written back)
    ('{"count": 1, "ratio": "0.25"}', {"count": 1, "ratio": 0.25}),
    ('{"count": 1, "counts": ["1", "2"]}', {"count": 1, "counts": [1, 2]}),
])
def test_a_number_written_plainly_as_text_is_read_as_it(app: App, given: str,
                                                       read: dict[str, Any]) -> None:
    """Text of the digits 0 to 9 (a sign first, a point in a decimal) is the number it writes."""
    values = app.actions.values_from_json("count_things", given)
    assert values == read
    assert all(type(values[k]) is type(v) for k, v in read.items())


@pytest.mark.parametrize(("name", "text", "how"), [
    ("count", "1_000", WHOLE),
    ("count", "١٠٠٠", WHOLE),
    ("count", " 12 ", WHOLE),
    ("count", "１２", WHOLE),
    ("count", "1,000", WHOLE),
    ("price", "1_000", NUMBER),
    ("price", "١٠٠٠", NUMBER),
    ("price", " 12 ", NUMBER),
    ("price", "1,000.50", NUMBER),
    ("price", "4,50", NUMBER),
    ("ratio", "1_0.5", NUMBER),
    ("ratio", "12\n", NUMBER),
])
def test_a_number_as_text_written_otherwise_is_refused_saying_how(app: App, name: str, text: str,
                                                                 how: str) -> None:
    """"1_000", other scripts' digits, spaces around or marks between the digits: `Invalid`,
    saying how a number is written; `check` says the same."""
    values = {"count": 1, name: text}
    label = name.capitalize()
    said = f"{label} is {how} — “{text}” is not."
    with pytest.raises(Invalid) as refused:
        app.actions.values_from_json("count_things", _json(values))
    assert refused.value.message == said
    assert app.actions.check("count_things", values) == said


def test_inside_a_list_and_in_words_of_old(app: App) -> None:
    """In a list, the item is told where it is; "1e3" is no whole number and "lots" no number,
    as they were told before."""
    with pytest.raises(Invalid) as inside:
        app.actions.values_from_json("count_things", '{"count": 1, "counts": [2, "1_000"]}')
    assert inside.value.message == f"Counts, at 1: {WHOLE} — “1_000” is not."
    assert app.actions.check("count_things", {"count": "1e3"}) == (
        "Count is a whole number, like 12 — “1e3” is not.")
    assert app.actions.check("count_things", {"count": 1, "price": "lots"}) == (
        "Price is a number, like 4.50 — “lots” is not.")


@dataclass
class Line:
    """A line of an order."""

    qty: int
    price: Decimal


class Parcel(BaseModel):
    """A parcel."""

    weight: float


class Address(typing_extensions.TypedDict):
    """Where it goes."""

    number: int


@dataclass
class Note:
    """A structure with no number in it."""

    text: str


class Colour(enum.Enum):
    RED = "r"


@dataclass
class Tag:
    """A structure with an enum in it (given through a mirror before numbers were)."""

    colour: Colour


@pytest.fixture
def orders() -> Iterator[App]:
    """An app with one action taking numbers inside structures of each kind."""
    app = App("shop", database="sqlite://")

    @app.action("Order")
    def order(line: Line, parcel: Parcel, to: Address, note: Note | None = None,
              tag: Tag | None = None) -> str:
        """Order a line."""
        return f"{line} {parcel} {to} {note} {tag}"

    yield app
    app.database.dispose()


_ORDER = {"line": {"qty": 2, "price": "4.50"}, "parcel": {"weight": 1.5}, "to": {"number": 7}}


@pytest.mark.parametrize(("where", "field", "text", "said"), [
    ("line", "qty", "1_000", f"Line, at qty: {WHOLE} — “1_000” is not."),
    ("line", "qty", " 12 ", f"Line, at qty: {WHOLE} — “ 12 ” is not."),
    ("line", "price", "1,000.50", f"Line, at price: {NUMBER} — “1,000.50” is not."),
    ("parcel", "weight", "1_0.5", f"Parcel, at weight: {NUMBER} — “1_0.5” is not."),
    ("to", "number", "1_000", f"To, at number: {WHOLE} — “1_000” is not."),
])
def test_inside_a_structure_a_number_written_otherwise_is_refused_too(
        orders: App, where: str, field: str, text: str, said: str) -> None:
    """A dataclass's, a pydantic model's and a TypedDict's number fields are held as a
    parameter is: "1_000" in a line of an order was read as 1000 (" 12 " as 12)."""
    values = {**_ORDER, where: {**_ORDER[where], field: text}}
    with pytest.raises(Invalid) as refused:
        orders.actions.values_from_json("order", _json(values))
    assert refused.value.message == said


def test_inside_a_structure_a_number_written_plainly_is_read_and_its_type_made(
        orders: App) -> None:
    """Written plainly, each is the number it writes, in the app's own types."""
    values = orders.actions.values_from_json("order", _json(_ORDER))
    assert values["line"] == Line(qty=2, price=Decimal("4.50"))
    assert values["parcel"] == Parcel(weight=1.5)
    assert type(values["parcel"]) is Parcel
    assert values["to"] == {"number": 7}


def test_a_dataclass_given_a_member_it_does_not_have_is_refused_as_before(orders: App) -> None:
    """Held so, a dataclass still refuses a member it does not have (as pydantic refuses an
    unexpected argument), with or without numbers in it; one with an enum in it, given through
    a mirror before, left such a member out unsaid."""
    with pytest.raises(Invalid) as with_numbers:
        orders.actions.values_from_json(
            "order", _json({**_ORDER, "line": {**_ORDER["line"], "colour": "red"}}))
    assert "Line, at colour" in with_numbers.value.message
    with pytest.raises(Invalid) as without:
        orders.actions.values_from_json("order", _json({**_ORDER, "note": {"text": "a", "b": 1}}))
    assert "Note, at b" in without.value.message
    with pytest.raises(Invalid) as tagged:
        orders.actions.values_from_json(
            "order", _json({**_ORDER, "tag": {"colour": "RED", "shade": "dark"}}))
    assert "Tag, at shade" in tagged.value.message


def _json(values: dict[str, Any]) -> str:
    import json

    return json.dumps(values, ensure_ascii=False)


def test_the_schema_says_how_a_decimal_is_written_as_text(app: App) -> None:
    """A Decimal is described as JSON's number, or text written as `PATTERN` (it said any
    text); a whole number and a float, as JSON's integer and number."""
    (info,) = [i for i in app.actions.catalog() if i.name == "count_things"]
    properties = info.parameters_schema["properties"]
    assert properties["count"]["type"] == "integer"
    assert {"type": "string", "pattern": PATTERN} in properties["price"]["anyOf"]
    assert {"type": "number"} in properties["ratio"]["anyOf"]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789+-.eE _,١", max_size=8))
@example("1_000")
@example("-2.50")
@example(".")
def test_text_the_pattern_takes_is_read(text: str) -> None:
    """A Decimal given as `text` the schema's pattern takes is read; one holding a digit that
    is not written plainly, as the pattern writes it or a little more ("+5", "5.", "1e3"), is
    refused."""
    app = App("shop", database="sqlite://")

    @app.action("Price it")
    def price_it(price: Decimal) -> str:
        """Price it."""
        return str(price)

    looser = r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$"
    try:
        read = app.actions.check("price_it", {"price": text}) == ""
        if re.search(PATTERN, text):
            assert read, text
        if any(c.isdigit() for c in text):
            assert read == (re.search(looser, text) is not None), text
        else:
            assert not read, text
    finally:
        app.database.dispose()


def test_a_tool_call_with_a_number_not_written_plainly_is_told_and_nothing_runs() -> None:
    """A model's call giving "1_000" for a whole number runs nothing: the model is told the call
    was Invalid and how to write it; its next call, 1000, runs."""
    app = App("shop", database="sqlite://")
    ran: list[int] = []

    @app.action("Order loaves")
    def order_loaves(count: int) -> str:
        """Order them."""
        ran.append(count)
        return f"Ordered {count}."

    class Ordering(Skill[None, str]):
        description = "Order what is needed."
        tools: list[Any] = [order_loaves]

    class Baker(Agent):
        purpose = "You order loaves."
        skills = [Ordering()]
        may = Permits.everything()

    sue = app.people.add("sue@shop.example", "Sue")
    app.add_agent(Baker, sponsor=sue)
    model = ScriptedModel(
        ScriptLine(calls=(("order_loaves", '{"count": "1_000"}'),)),
        ScriptLine(calls=(("order_loaves", '{"count": 1000}'),)),
        says.hand_back("Ordered a thousand."),
    )
    outcome = app.agent(Baker).do(Ordering(), None, for_=sue, model=model)
    assert ran == [1000]
    assert outcome.status is TaskStatus.DONE, outcome.problem
    told = [m.text for m in model.seen.messages[-1] if m.role == "tool"]
    assert any(f"Count is {WHOLE} — “1_000” is not." in text for text in told), told
    app.database.dispose()


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SimpleNamespace]:
    """The workshop served on loopback, a price waiting for Mia (`shop.waiting`)."""
    shop = open_workshop(tmp_path, monkeypatch)
    (shop.waiting,) = shop.app.proposals(task=price(shop).task)
    with served_shop(shop), httpx.Client(base_url=shop.url, timeout=30) as shop.http:
        yield shop
    shop.app.database.dispose()


def test_a_changed_value_over_rest_not_written_plainly_is_refused(shop: SimpleNamespace) -> None:
    """A yes over the REST API changing the price to "1_000" is a 422 saying how to write it,
    and the proposal still waits (it ran, at 1000); "40" is read as 40."""
    url = f"/api/proposals/{shop.waiting.id}/approve"
    noor = bearer(shop, "Noor")
    before = repair_price(shop)
    refused = shop.http.post(url, json={"edited": {"price": "1_000"}}, headers=noor)
    assert refused.status_code == 422, refused.text
    assert "“1_000” is not" in refused.json()["detail"]
    assert "the digits 0 to 9" in refused.json()["detail"]
    assert shop.app.proposal(shop.waiting.id).status is ProposalStatus.WAITING
    assert repair_price(shop) == before
    taken = shop.http.post(url, json={"edited": {"price": "40"}}, headers=noor)
    assert taken.status_code == 200, taken.text
    assert repair_price(shop) == 40
