"""What an action's parameters schema says a caller may write is what its validation takes: a
yes/no is no number, a number no date, a default of None makes null a value, one choice is
matched in any case whether an Enum or a Literal offers it (and only when one choice matches)."""

from __future__ import annotations

import datetime as dt
import enum
import json
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, Field

from signoff import App, Invalid, UserError
from signoff.actions.results import ActionOutcome
from signoff.security.acting import SYSTEM


class Rush(enum.Enum):
    """How soon."""

    NORMAL = "Normal"
    SAME_DAY = "Same day"


class Near(enum.Enum):
    """Two members whose names differ only in case."""

    Ab = 1
    AB = 2


class Order(BaseModel):
    """An order: an enum, and a whole number a rule bounds."""

    rush: Rush
    count: int | None = Field(None, ge=1)


@pytest.fixture
def app() -> App:
    """An app whose actions say what they were given."""
    app = App("t", database="sqlite://")

    @app.action
    def count(n: int) -> str:
        """A whole number."""
        return repr(n)

    @app.action
    def at_least_none(n: Annotated[int, Field(ge=0)]) -> str:
        """A whole number a rule bounds."""
        return repr(n)

    @app.action
    def at_least_two(n: Annotated[int | None, Field(ge=2)] = None) -> str:
        """A whole number or none, which a rule bounds."""
        return repr(n)

    @app.action
    def order(order: Order) -> str:
        """A model holding an enum and a bounded whole number."""
        return repr(order)

    @app.action
    def ratio(x: float) -> str:
        """A float."""
        return repr(x)

    @app.action
    def counts(ns: list[int]) -> str:
        """Whole numbers."""
        return repr(ns)

    @app.action
    def on(day: dt.date) -> str:
        """A day."""
        return repr(day)

    @app.action
    def at(moment: dt.datetime) -> str:
        """A moment."""
        return repr(moment)

    @app.action
    def by(time: dt.time) -> str:
        """A time of day."""
        return repr(time)

    @app.action
    def lasting(length: dt.timedelta) -> str:
        """A duration."""
        return repr(length)

    @app.action
    def colour(c: Literal["red", "blue"]) -> str:
        """A Literal."""
        return repr(c)

    @app.action
    def colours(cs: list[Literal["red", "blue"]]) -> str:
        """Literals."""
        return repr(cs)

    @app.action
    def rush(r: Rush) -> str:
        """An Enum."""
        return repr(r)

    @app.action
    def near(m: Near) -> str:
        """An Enum whose names differ only in case."""
        return repr(m)

    @app.action
    def near_literal(m: Literal["ab", "AB"] | None = None) -> str:
        """A Literal whose values differ only in case."""
        return repr(m)

    @app.action
    def maybe(n: int = None) -> str:  # type: ignore[assignment]  # noqa: RUF013  (the idiom tested)
        """A whole number whose default is None."""
        return repr(n)

    return app


def said(app: App, action: str, arguments: dict[str, Any]) -> str:
    """What `action` said when given `arguments` as a model's JSON, or its refusal."""
    try:
        values = app.actions.values_from_json(action, json.dumps(arguments))
    except Invalid as refused:
        return f"Invalid: {refused}"
    result = app.actions.run(action, values, as_=SYSTEM)
    assert result.outcome is ActionOutcome.DONE, result.problem
    return result.said


@pytest.mark.parametrize(("action", "member", "given", "told"), [
    ("count", "n", True, "N is a whole number, like 12 — true is not."),
    ("count", "n", False, "N is a whole number, like 12 — false is not."),
    ("at_least_none", "n", True, "N is a whole number, like 12 — true is not."),
    ("at_least_two", "n", True, "N is a whole number, like 12 — true is not."),
    ("order", "order", {"rush": "NORMAL", "count": True},
     "Order, at count: input should be a valid integer — true is not."),
    ("ratio", "x", True, "X is a number, like 4.50 — true is not."),
    ("counts", "ns", [3, True], "Ns, at 1: input should be a valid integer — true is not."),
])
def test_a_number_is_not_given_as_yes_or_no(
    app: App, action: str, member: str, given: object, told: str
) -> None:
    """A boolean where the schema says a number is refused in a sentence (it was taken as 1 or
    0), here and as a check says it; a rule's bounds are still described in JSON Schema's
    words ("minimum", not pydantic's "ge")."""
    assert said(app, action, {member: given}) == f"Invalid: {told}"
    assert app.actions.check(action, {member: given}) == told
    assert '"ge"' not in json.dumps(app.actions.info(action).parameters_schema)


def test_a_whole_number_is_given_as_a_number_or_its_digits_not_as_yes_or_no(app: App) -> None:
    """A whole number written as text ("12", as models sometimes quote numbers) is that number:
    the action gets an int, so nothing reads it otherwise; "12.5" is refused, and so is true."""
    assert said(app, "count", {"n": "12"}) == "12"
    assert said(app, "count", {"n": "12.5"}) == (
        "Invalid: N is a whole number, like 12 — “12.5” is not.")
    assert said(app, "count", {"n": True}) == (
        "Invalid: N is a whole number, like 12 — true is not.")


@pytest.mark.parametrize(("action", "member", "given", "told"), [
    ("on", "day", 0, "Day is a date, written 2026-09-04 — 0 is not."),
    ("at", "moment", 1700000000,
     "Moment is a date and time, written 2026-09-04T14:30:00 — 1700000000 is not."),
    ("by", "time", 3600, "Time is a time of day, written 14:30 — 3600 is not."),
    ("lasting", "length", True,
     "Length is a duration, written PT1H30M (ISO 8601) or as seconds — true is not."),
])
def test_a_date_or_time_is_not_given_as_a_number(
    app: App, action: str, member: str, given: object, told: str
) -> None:
    """A number where the schema says a date, a moment or a time of day written as text is
    refused (it was read as seconds since 1970), as is yes/no for a duration; a duration in
    seconds is taken, as its sentence says."""
    assert said(app, action, {member: given}) == f"Invalid: {told}"
    assert said(app, "lasting", {"length": 90}) == "datetime.timedelta(seconds=90)"
    assert said(app, "on", {"day": "2026-09-04"}) == "datetime.date(2026, 9, 4)"


def test_a_literal_is_matched_in_any_case_as_an_enum_is(app: App) -> None:
    """"Red" is the Literal's "red" as "same_day" is the Enum's SAME_DAY (in a list too); a
    value none matches is told with the values to write."""
    assert said(app, "colour", {"c": "Red"}) == "'red'"
    assert said(app, "colours", {"cs": ["BLUE", "red"]}) == "['blue', 'red']"
    assert said(app, "rush", {"r": "same_day"}) == "<Rush.SAME_DAY: 'Same day'>"
    assert said(app, "colour", {"c": "green"}) == (
        "Invalid: C is one of red, blue — “green” is not.")


def test_a_choice_matched_only_in_another_case_by_two_is_refused(app: App) -> None:
    """When two choices differ only in case, each is taken as written, and a value matching
    both in another case is refused with the choices (it was taken as one of them)."""
    assert said(app, "near", {"m": "AB"}) == "<Near.AB: 2>"
    assert said(app, "near", {"m": "ab"}) == "Invalid: M is one of Ab, AB — “ab” is not."
    assert said(app, "near_literal", {"m": "AB"}) == "'AB'"
    assert said(app, "near_literal", {"m": "Ab"}) == "Invalid: M is one of ab, AB — “Ab” is not."


def test_a_default_of_none_takes_null_as_its_schema_says(app: App) -> None:
    """``n: int = None`` is described as taking null, and takes it; so does a subject whose
    default is None."""
    schema = app.actions.info("maybe").parameters_schema["properties"]["n"]
    assert schema == {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None,
                      "title": "N"}
    assert said(app, "maybe", {"n": None}) == "None"
    assert said(app, "maybe", {"n": 3}) == "3"

    class Thing(app.Record):  # type: ignore[name-defined, misc]
        """A thing."""

        __tablename__ = "things_as_described"

    @app.action
    def look(thing: Thing = None) -> str:  # type: ignore[assignment]
        """A subject whose default is None."""
        return repr(thing)

    assert app.actions.info("look").parameters[0].is_subject
    assert app.actions.info("look").parameters_schema["properties"]["thing"]["anyOf"][1] == {
        "type": "null"}
    assert said(app, "look", {"thing": None}) == said(app, "look", {}) == "None"


@pytest.mark.parametrize("default", ["5", True])
def test_a_default_that_is_another_type_is_refused(default: object) -> None:
    """A default the schema would show as text or yes/no for a whole number (given as it is to
    the action) is refused as the action is registered."""
    app = App("t", database="sqlite://")

    def count(n: int = default) -> str:  # type: ignore[assignment]  # (the mistake tested)
        """A whole number."""
        return repr(n)

    with pytest.raises(UserError, match=r"parameter n: its default .* is not an integer"):
        app.add_action(count)
