"""Spend as a ledger, in pure arithmetic: what a task has spent counts every reservation not yet
settled, so that a call made and never recorded (its process stopped) is still counted.

A model call (or a spending tool) reserves its worst case before it is made, if it fits what is
left; when it answers, the reservation is replaced by what it really cost. A reply that reports
more than its reservation is not trusted to fit: the task stops there.
"""

from __future__ import annotations

__all__ = ["FLOAT_ERROR", "added", "fits", "over_reserved", "settled", "unreserved"]

_EPSILON = 1e-12
"""Float slack: a cost equal to its reservation, computed twice, is not over it."""


FLOAT_ERROR = 1e-12
"""How far, as a share of the budget, a sum may read over a budget it fits exactly: dollars are
added as binary floats, in which $0.10 three times reads $0.30000000000000004, over the $0.30
budget it fits. (What is stored is then the budget itself: `added`.)"""


def fits(spent_usd: float, reserve_usd: float, budget_usd: float) -> bool:
    """Whether reserving `reserve_usd` on top of `spent_usd` stays within `budget_usd` (a sum
    that reads over it by the float error of adding alone fits: `FLOAT_ERROR`)."""
    total = spent_usd + reserve_usd
    return total <= budget_usd or total <= budget_usd + budget_usd * FLOAT_ERROR


def added(spent_usd: float, amount_usd: float, budget_usd: float) -> float:
    """What is spent once `amount_usd` that `fits` is added to `spent_usd`: never more than
    `budget_usd` (a sum that reads over it by float error alone is the budget)."""
    return min(spent_usd + amount_usd, budget_usd)


def settled(spent_usd: float, reserved_usd: float, cost_usd: float) -> float:
    """What is spent once a call reserved `reserved_usd` (counted in `spent_usd`) and cost
    `cost_usd`."""
    return spent_usd - reserved_usd + cost_usd


def unreserved(spent_usd: float, reserved_usd: float) -> float:
    """What is spent without a reservation that was never used."""
    return spent_usd - reserved_usd


def over_reserved(cost_usd: float, reserved_usd: float) -> bool:
    """Whether a call cost more than was reserved for it (its price or token count is wrong),
    or a cost that is no amount at all (NaN: it is not trusted to fit either)."""
    return not cost_usd <= reserved_usd + _EPSILON
