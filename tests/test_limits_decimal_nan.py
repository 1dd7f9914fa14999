"""`next_action` takes Decimal amounts, and a NaN of either amount halts, a Decimal's too (it
raised decimal.InvalidOperation, compared)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from signoff.limits import NextAction, next_action


@pytest.mark.parametrize(("spend", "budget"), [(Decimal("NaN"), 1.0), (0.5, Decimal("NaN")),
                                          (Decimal("sNaN"), 1.0)])
def test_a_decimal_nan_halts(spend: object, budget: object) -> None:
    assert next_action(1, 8, spend, budget, False, False) is NextAction.HALT  # type: ignore[arg-type]


def test_decimal_amounts_still_work() -> None:
    assert next_action(1, 8, Decimal("0.5"), Decimal("1"), False, False) is NextAction.CONTINUE
