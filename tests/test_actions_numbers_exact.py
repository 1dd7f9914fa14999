"""A number in a model's JSON is given to the action as written: a Decimal parameter gets every
digit, and a whole number written with more digits than a float holds stays that number."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from signoff import App
from signoff.security.acting import SYSTEM


@pytest.fixture
def app() -> App:
    """An app whose actions say exactly what they were given."""
    app = App("t", database="sqlite://")

    @app.action
    def price(amount: Decimal) -> str:
        """A Decimal."""
        return repr(amount)

    @app.action
    def count(n: int) -> str:
        """A whole number."""
        return repr(n)

    @app.action
    def ratio(x: float) -> str:
        """A float."""
        return repr(x)

    @app.action
    def anything(data: dict[str, Any]) -> str:
        """Plain data of no declared type."""
        return repr(data)

    return app


@pytest.mark.parametrize(("written", "decimal", "whole", "nearest"), [
    ("12345678901234567890.123456789", "Decimal('12345678901234567890.123456789')", None,
     "1.2345678901234567e+19"),
    ("12345678901234567890.0", "Decimal('12345678901234567890.0')", "12345678901234567890",
     "1.2345678901234567e+19"),
])
def test_a_number_a_float_cannot_hold_reaches_the_action_as_written(
    app: App, written: str, decimal: str, whole: str | None, nearest: str
) -> None:
    """A Decimal parameter is given every digit the JSON says, a whole number its every digit;
    a float one the nearest float, as ever (and a number a float holds is read as ever)."""
    def said(action: str, member: str, number: str) -> str:
        values = app.actions.values_from_json(action, f'{{"{member}": {number}}}')
        return app.actions.run(action, values, as_=SYSTEM).said

    assert said("price", "amount", written) == decimal
    if whole is not None:
        assert said("count", "n", written) == whole
    assert said("ratio", "x", written) == nearest
    assert (said("price", "amount", "0.1"), said("count", "n", "1e3"),
            said("ratio", "x", "0.1")) == ("Decimal('0.1')", "1000", "0.1")


def test_plain_data_keeps_a_number_a_float_cannot_hold(app: App) -> None:
    """In data of no declared type a number a float holds is a float, as ever; one it cannot
    hold is kept as a Decimal, not rounded."""
    values = app.actions.values_from_json(
        "anything", '{"data": {"x": 0.1, "y": 1.00000000000000000001}}')
    assert values["data"] == {"x": 0.1, "y": Decimal("1.00000000000000000001")}
    assert type(values["data"]["x"]) is float
