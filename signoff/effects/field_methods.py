"""Special methods written from a class's fields, or from its other methods: what they run.

A dataclass (or an attrs class) gets ``__eq__``, ``__repr__``, an order (``order=True``) and a
hash (``frozen=True``) written for it, and a named tuple compares, hashes and shows itself as a
tuple: each compares, hashes or shows the object's fields in turn (``D(a) == D(b)`` runs
``a.__eq__(b)``; ``repr(D(x))`` runs ``x.__repr__``). ``functools.total_ordering`` writes the
comparisons a class lacks from the one it has (``>=`` runs its ``__lt__``). The methods written
only compute, but those they call are the app's, whose effects count.
"""

from __future__ import annotations

import ast
import dataclasses
from contextvars import ContextVar
from dataclasses import replace

from signoff.effects import comparing, special
from signoff.effects.naming import generated, ordered_from
from signoff.effects.scope import Scope
from signoff.effects.values import Val

__all__ = ["by_fields"]

_ORDER = frozenset({"__lt__", "__le__", "__gt__", "__ge__"})
_WRITTEN = frozenset({"__eq__", "__ne__", "__hash__", "__repr__", *_ORDER})
"""The special methods written from the fields, of those Python's code asks a class for."""

_FOLLOWING: ContextVar[frozenset[type]] = ContextVar("_FOLLOWING", default=frozenset())
"""The classes whose fields are being followed now (a tree's node holds nodes: once is enough)."""


def by_fields(frame: Scope, value: Val, kind: type, names: tuple[str, ...], node: ast.AST | None) -> None:
    """Follow the first of `names` that `kind`, a class of `value`, has written from its fields
    (where it defines none of them in Python): each field compared, hashed or shown by its own
    class's code."""
    if _ordered(frame, value, kind, names, node):
        return
    fields = _fields(kind)
    if not fields or kind in _FOLLOWING.get():
        return
    name = next((n for n in names if n in _WRITTEN and _written(kind, n)), None)
    if name is None:
        return
    token = _FOLLOWING.set(_FOLLOWING.get() | {kind})
    try:
        one = replace(value, types=frozenset({kind}))
        for field in fields:
            part = frame.attribute(one, field, None)
            if name == "__hash__":
                special.hashed(frame, part, node)
            elif name == "__repr__":
                special.special(frame, part, ("__repr__",), [], node)
            else:  # (an order asks each field ``==`` first, then the order of the first unequal)
                comparing.decided(frame, special.special(frame, part, ("__eq__",), [part], node),
                                  node)
                if name in _ORDER:  # (what the order gave, taken as a truth where it is)
                    comparing.decided(frame, special.special(frame, part, (name,), [part], node),
                                      node)
    finally:
        _FOLLOWING.reset(token)


def _ordered(frame: Scope, value: Val, kind: type, names: tuple[str, ...], node: ast.AST | None) -> bool:
    """Whether the first of `names` `kind` has is one ``functools.total_ordering`` wrote from
    the class's own comparison (``__ge__`` from ``__lt__``): that one runs, and ``__eq__``."""
    for name in names:
        found = next((k.__dict__[name] for k in kind.__mro__ if name in k.__dict__), None)
        root = ordered_from(found)
        if root is not None:
            one = replace(value, types=frozenset({kind}))
            comparing.decided(frame, special.special(frame, one, (root,), [one], node), node)
            comparing.decided(frame, special.special(frame, one, ("__eq__",), [one], node), node)
            return True
    return False


def _fields(kind: type) -> tuple[str, ...]:
    """The names of `kind`'s fields: a dataclass's, or a named tuple's; none of another."""
    if dataclasses.is_dataclass(kind):
        return tuple(f.name for f in dataclasses.fields(kind))
    named = getattr(kind, "_fields", None) if issubclass(kind, tuple) else None
    return tuple(n for n in named if isinstance(n, str)) if isinstance(named, tuple) else ()


def _written(kind: type, name: str) -> bool:
    """Whether `kind`'s method `name` is written from its fields: the first class of its order
    that has it is a dataclass that wrote it, or is ``tuple`` (a named tuple's)."""
    for klass in kind.__mro__:
        if name in klass.__dict__:
            found = klass.__dict__[name]
            return klass is tuple or (hasattr(found, "__code__") and generated(klass, found))
    return False
