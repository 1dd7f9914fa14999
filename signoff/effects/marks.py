"""``@sends`` and ``@spends``: declarations that add effects to every action reaching a function.

A declaration only ever adds: the analysis reads these marks on every function it passes through
(and on every wrapper layer around one), and nothing here can make an action look safer.
"""

from __future__ import annotations

import inspect
import types
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["declared_cost", "declares_sends", "declares_spends", "sends", "spends"]

F = TypeVar("F", bound=Callable[..., Any])

_SENDS = "__signoff_sends__"
_SPENDS = "__signoff_spends__"


def sends(fn: F) -> F:
    """Declare that `fn` sends something; every action that reaches it sends too."""
    setattr(fn, _SENDS, True)
    return fn


def spends(fn: F | None = None, *, cost: float | None = None) -> Any:
    """Declare that `fn` spends money (at most `cost` US dollars a call, when given); every action
    that reaches it spends too. Use bare (``@spends``) or with a cost (``@spends(cost=0.02)``)."""

    def mark(f: F) -> F:
        setattr(f, _SPENDS, cost if cost is not None else True)
        return f

    return mark(fn) if fn is not None else mark


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
    if isinstance(spent, int | float) and not isinstance(spent, bool):
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
