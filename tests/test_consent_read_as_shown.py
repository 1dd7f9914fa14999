"""A consent's run reads its values as the call it consents to was read: an enum given by its
member's name is sealed by that name, and runs (it was sealed by the member's value, which a
run, reading enums by name, refused: the consent could never be used)."""

from __future__ import annotations

import enum
from pathlib import Path

from signoff import ActionOutcome, App


class Colour(enum.Enum):
    """Members whose values are not their names in any case."""

    RED = "r"
    BLUE = "b"


def test_an_enum_consented_by_name_runs_as_a_run_of_it_would(tmp_path: Path) -> None:
    """Consent to `paint` with "RED" runs, as `run` with "RED" does; the token holds "RED"."""
    app = App("paint", database=f"sqlite:///{tmp_path / 'paint.db'}", key=b"p" * 32)

    @app.action("Paint the wall")
    def paint(colour: Colour, coats: list[Colour]) -> str:
        """Paint it."""
        return f"{colour.name}, then {', '.join(c.name for c in coats)}"

    sam = app.people.add("sam@paint.example", "Sam")
    values = {"colour": "RED", "coats": ["blue", "RED"]}
    ran = app.actions.run("paint", values, as_=sam)
    assert (ran.outcome, ran.said) == (ActionOutcome.DONE, "RED, then BLUE, RED")
    token = app.actions.consent("paint", values, as_=sam)
    assert app.actions._seal().open(token).values == {"colour": "RED", "coats": ["BLUE", "RED"]}
    consented = app.actions.run_consented(token)
    assert (consented.outcome, consented.said, consented.problem) == (
        ActionOutcome.DONE, "RED, then BLUE, RED", "")
    app.database.dispose()
