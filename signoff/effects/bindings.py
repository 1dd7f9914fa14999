"""What the names an analysis resolved were bound to: its findings hold while they still are.

The analysis reads an action's code with the objects its names are bound to as it runs — a
module's global (``archive = LocalArchive()``), a module's or a class's attribute — and follows
the code those objects have. A name bound to something else later (``shop.archive =
CloudArchive()``) makes the code an action runs other code than was analysed. Each name the walk
of the app's own code resolved is kept here with what it was bound to (`Binding`), and
`Bindings.changed` says which is bound to something else now: a few dictionary look-ups, made
before an action's effects are read.
"""

from __future__ import annotations

import datetime
import decimal
import fractions
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["MISSING", "Binding", "Bindings", "held_kinds"]

MISSING: Any = object()
"""What a name that was not bound is taken to be bound to (a builtin it resolved to instead)."""

_BY_TYPE = (int, float, complex, decimal.Decimal, fractions.Fraction, datetime.date,
            datetime.time, datetime.timedelta, uuid.UUID, dict, list, set, frozenset, tuple)
"""Values whose kind alone the analysis uses (a counter, a timestamp, a cache: what a container
bound to a name holds is not read from it): one rebound to another of the same type leaves the
findings as they were. Text is compared by its value (SQL, an attribute's name); anything else
by being the same object (code, and objects whose code and attributes were read)."""


@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class Binding:
    """One name the analysis resolved, and what it was bound to."""

    namespace: Mapping[str, Any]
    """Where the name is bound: a module's globals, a class's ``__dict__``."""
    name: str
    """The name."""
    value: Any
    """What it was bound to (`MISSING`: nothing, so a builtin, or a base class's, was used)."""
    where: str
    """The name as the app writes it: ``shop.archive``."""
    kinds: tuple[frozenset[type], frozenset[type]] | None = None
    """What a container of Python's bound to it held (`held_kinds`), when the analysis typed its
    items by that: then it still holds if it holds things of those types alone."""

    def holds(self) -> bool:
        """Whether the name is bound as it was when the analysis resolved it."""
        now = self.namespace.get(self.name, MISSING)
        if self.kinds is not None:  # (a registry filled in place after: its items changed)
            return type(now) is type(self.value) and held_kinds(now) == self.kinds
        if now is self.value:
            return True
        if type(now) is not type(self.value):
            return False
        if isinstance(now, _BY_TYPE) or now is None:
            return True
        return isinstance(now, str | bytes) and now == self.value


_HOLDS_MOST = 64
"""The most items a container may hold for what it holds to be typed by them."""


def held_kinds(obj: Any) -> tuple[frozenset[type], frozenset[type]] | None:
    """The types of what a container of Python's holds — its items (a dict's keys), and a
    dict's values — when it holds at least one and at most `_HOLDS_MOST`; else None."""
    if type(obj) not in (dict, list, tuple, set, frozenset) or not obj or len(obj) > _HOLDS_MOST:
        return None
    if type(obj) is dict:
        return frozenset(map(type, obj)), frozenset(map(type, obj.values()))
    return frozenset(map(type, obj)), frozenset()


class Bindings:
    """The names an analysis resolved in the app's own code, each with what it was bound to."""

    __slots__ = ("_each",)

    def __init__(self, each: Iterable[Binding] = ()) -> None:
        self._each = tuple(each)

    def changed(self) -> str | None:
        """The first name bound to something else since (``shop.archive``); None while every
        one is bound as it was."""
        for binding in self._each:
            if not binding.holds():
                return binding.where
        return None

    def __len__(self) -> int:
        return len(self._each)

    def __iter__(self) -> Any:
        return iter(self._each)
