"""A value inside a structure that fits no member of a union is told by every member, at its own
place: the model was told pydantic's tag for the first member tried ("at x.int") and that
member's rule alone, though a date would have done."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from pydantic import BaseModel

from signoff import App
from signoff.exceptions import Invalid


class Part(BaseModel):
    """A part of a repair."""

    code: str


class Visit(BaseModel):
    """When, and what."""

    when: int | dt.date
    note: str | None = None
    slots: list[int | dt.date] = []
    held: Part | int = 0


@pytest.fixture
def app(tmp_path: Path) -> App:
    made = App("unions", database=f"sqlite:///{tmp_path / 'u.db'}", key=b"k" * 32)

    @made.action
    def book(visit: Visit) -> str:
        """Book a visit."""
        return "booked"

    return made


def _told(app: App, arguments: str) -> str:
    with pytest.raises(Invalid) as refused:
        app.actions.values_from_json("book", arguments)
    return str(refused.value)


def test_each_member_of_a_union_is_told_at_the_values_place(app: App) -> None:
    assert _told(app, '{"visit": {"when": "soon"}}') == (
        "Visit, at when: input should be a valid integer, unable to parse string as an integer; "
        "or input should be a valid date or datetime, input is too short — “soon” is not.")


def test_an_item_of_a_list_of_a_union_is_told_at_its_index(app: App) -> None:
    told = _told(app, '{"visit": {"when": 1, "slots": [3, "later"]}}')
    assert told.startswith("Visit, at slots.1: input should be a valid integer"), told
    assert "; or input should be a valid date" in told
    assert ".int" not in told
    assert ".date" not in told


def test_a_member_that_is_a_structure_is_followed_inside(app: App) -> None:
    """A union of a model and a number: the model's own member is named, without its tag."""
    told = _told(app, '{"visit": {"when": 1, "held": {"code": 5}}}')
    assert told.startswith("Visit, at held.code: input should be a valid string"), told


def test_a_value_that_fits_is_taken(app: App) -> None:
    values = app.actions.values_from_json("book", '{"visit": {"when": "2026-12-24"}}')
    assert values["visit"].when == dt.date(2026, 12, 24)
