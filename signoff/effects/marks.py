"""``@sends`` and ``@spends``: declarations that add effects to every action reaching a function.

A declaration only ever adds: the analysis reads these marks on every function it passes through
(and on every wrapper layer around one), and nothing here can make an action look safer.
"""

from __future__ import annotations

import inspect
import math
import types
from collections.abc import Callable
from decimal import Decimal
from typing import Any, TypeVar

from signoff.exceptions import UserError

__all__ = ["declared_cost", "declares_sends", "declares_spends", "sends", "spends"]

F = TypeVar("F", bound=Callable[..., Any])

_SENDS = "__signoff_sends__"
_SPENDS = "__signoff_spends__"


def sends(fn: F) -> F:
    """Declare that `fn` sends something; every action that reaches it sends too."""
    setattr(fn, _SENDS, True)
    return fn


def spends(fn: F | None = None, *, cost: float | Decimal | None = None) -> Any:
    """Declare that `fn` spends money (at most `cost` US dollars a call, when given); every action
    that reaches it spends too. Use bare (``@spends``) or with a cost (``@spends(cost=0.02)``).

    A cost is US dollars, a number of 0 or more (a `Decimal` is taken as its float): anything
    else is refused here, with `UserError` (a negative one was reserved as money given back,
    raising the budget; NaN passed every check of it)."""
    declared = True if cost is None else _checked_cost(cost)

    def mark(f: F) -> F:
        setattr(f, _SPENDS, declared)
        return f

    return mark(fn) if fn is not None else mark


def _checked_cost(cost: Any) -> float:
    """`cost` as the float a run reserves, if it is a number of US dollars, 0 or more, and
    finite; else `UserError`, saying how to write one."""
    kept = math.nan
    if isinstance(cost, int | float | Decimal) and not isinstance(cost, bool):
        try:
            kept = float(cost)
        except OverflowError:  # (an int past a float's range)
            kept = math.inf
        except ValueError:  # (a signalling NaN)
            pass
    if not 0 <= kept < math.inf:  # (NaN is no number of dollars either)
        raise UserError(f"A declared cost is the most one call spends, in US dollars: a number "
                        f"of 0 or more, such as @spends(cost=0.02) (0 for one that spends "
                        f"nothing), not {_shown(cost)}.")
    return kept


def _shown(value: Any) -> str:
    """`value` as a message names it: its repr, cut short when it is long (10**400)."""
    shown = repr(value)
    return shown if len(shown) <= 40 else f"{shown[:20]}…{shown[-8:]} ({len(shown)} characters)"


def declares_sends(obj: Any) -> bool:
    """Whether `obj` itself (not what it calls) carries ``@sends``."""
    return bool(_own(obj, _SENDS))


def declares_spends(obj: Any) -> bool:
    """Whether `obj` itself (not what it calls) carries ``@spends``."""
    spent = _own(obj, _SPENDS)
    return spent is not None and spent is not False


def declared_cost(obj: Any) -> float | None:
    """The most one call of `obj` spends, when its ``@spends(cost=...)`` says."""
    spent = _own(obj, _SPENDS)
    if isinstance(spent, int | float) and not isinstance(spent, bool) and (
            0 <= spent < math.inf):  # (a mark set by hand to less is no cost: not known)
        return float(spent)
    return None


def _own(obj: Any, name: str) -> Any:
    """An attribute of `obj` itself, looked up without running any of its code."""
    try:
        if isinstance(obj, types.FunctionType):
            return obj.__dict__.get(name)
        return inspect.getattr_static(obj, name, None)
    except Exception:  # an object whose attribute look-up fails carries no mark
        return None
