"""What Python's own code runs of the app's as it takes a value whole, past iterating it.

A list or a tuple made of an iterable (``list(x)``, ``tuple(x)``, ``sorted(x)``, ``[*x]``,
``f(*x)``, ``xs.extend(x)``, ``xs += x``) asks its length first, to size itself: the class's
``__len__``, else its ``__length_hint__``. A mapping merged into a dict (``dict(m)``,
``d.update(m)``, ``{**m}``, ``d |= m``) is asked its ``keys()``, then each value by
``__getitem__``. A list grown in place by ``+=`` iterates what it is given. Code of the app's
that runs so counts as any other.
"""

from __future__ import annotations

import ast
import collections
from dataclasses import replace

from signoff.effects import special
from signoff.effects.scope import Scope
from signoff.effects.values import Args, Val

__all__ = ["grown_in_place", "merged", "runs_on_whole", "sized", "unpacked"]

_SIZED_FIRST = frozenset(
    {"builtins.list", "builtins.tuple", "builtins.sorted", "builtins.bytes", "builtins.list.extend"}
)
"""Python's calls that ask the length of the iterable they are given (their first argument)
before they iterate it (``PyObject_LengthHint``)."""

_MERGED = frozenset(
    {
        "builtins.dict",
        "builtins.dict.update",
        "collections.OrderedDict",
        "collections.defaultdict.update",
        "collections.OrderedDict.update",
    }
)
"""Python's calls that merge a mapping they are given (their first argument) into a dict: its
``keys()``, then each value by ``__getitem__``."""

_EXTENDED = frozenset({list, collections.deque})
"""Python's containers that ``+=`` extends by iterating what it is given."""

_UPDATED = frozenset({dict, collections.OrderedDict, collections.defaultdict})
"""Python's mappings that ``|=`` updates by merging what it is given."""


def runs_on_whole(frame: Scope, q: str, args: Args, node: ast.AST | None) -> None:
    """What the allow-listed call `q` runs of its first argument taken whole: its length
    asked (``list(x)``), or its keys and values (``dict(m)``)."""
    if not args.pos:
        return
    if q in _SIZED_FIRST:
        sized(frame, args.pos[0], node)
    if q in _MERGED:
        merged(frame, args.pos[0], node)


def sized(frame: Scope, value: Val, node: ast.AST | None) -> None:
    """`value`'s length asked to size what is made of it: ``__len__``, else
    ``__length_hint__``, of its class."""
    special.special(frame, value, ("__len__", "__length_hint__"), [], node)


def merged(frame: Scope, value: Val, node: ast.AST | None) -> None:
    """`value` merged into a dict as a mapping (its class has ``keys``): its ``keys()``, then
    each value by its ``__getitem__``. (Without ``keys``, it is iterated for pairs.)"""
    mappings = frozenset(k for k in value.types or () if isinstance(k, type) and hasattr(k, "keys"))
    if mappings:
        special.each(frame, replace(value, types=mappings), ("keys",), [], node)
        special.each(frame, replace(value, types=mappings), ("__getitem__",), [Val()], node)


def unpacked(frame: Scope, value: Val, node: ast.AST | None, *, sizes: bool = True) -> Val:
    """``*value`` in a call or a display: iterated (an item), its length asked first where
    what is made of it is a list or a tuple (`sizes`; a set's is not)."""
    item = special.iterated(frame, value, node)
    if sizes:
        sized(frame, value, node)
    return item


def grown_in_place(frame: Scope, target: Val, op: ast.operator, value: Val, node: ast.AST | None) -> None:
    """``target += value`` of a list (a deque) iterates `value`, its length asked first;
    ``target |= value`` of a dict merges it."""
    kinds = target.types or frozenset()
    if isinstance(op, ast.Add) and kinds & _EXTENDED:
        special.iterated(frame, value, node)
        if list in kinds:
            sized(frame, value, node)
    if isinstance(op, ast.BitOr) and kinds & _UPDATED:  # (a mapping, else pairs iterated)
        merged(frame, value, node)
        pairs = frozenset(k for k in value.types or () if not hasattr(k, "keys"))
        if pairs:
            special.iterated(frame, replace(value, types=pairs), node)
