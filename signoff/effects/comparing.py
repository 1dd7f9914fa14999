"""What comparing runs of the app's code: a sort's items compared (and, of a tuple, its parts,
which make its order: ``sorted([(priority, job)])`` runs ``job.__lt__`` when two priorities
are the same), a search's, a key looked up in a dict or a set, two containers compared.
"""

from __future__ import annotations

import ast
import collections

from signoff.effects import special
from signoff.effects.scope import Scope
from signoff.effects.values import Args, Val

__all__ = ["compared_by", "decided", "has_truth", "items_compared", "ordered"]

_ORDERINGS = frozenset({"__lt__", "__gt__", "__le__", "__ge__", "__eq__"})


def ordered(frame: Scope, item: Val, names: tuple[str, ...], node: ast.AST | None) -> None:
    """Items compared with each other by the first of `names` their classes define (a sort's
    ``__lt__``): of a tuple (a list) of Python's, its parts, by ``__eq__`` and that too."""
    decided(frame, special.special(frame, item, names, [item], node), node)
    if names and names[0] in _ORDERINGS:
        items_compared(frame, item, names[0], node)


def compared_by(frame: Scope, method: str, base: Val, args: Args, node: ast.AST | None) -> None:
    """What a method of Python's containers runs of the classes of what it compares: a sort
    compares the items (``__lt__``), a search does, and what it searches for (``__eq__``:
    ``xs.index(x)``, ``x in xs``), and a dict or set looks up what it is given by its hash
    (``d.get(k)``)."""
    kinds = base.types or frozenset()
    searched = (
        method in ("index", "count", "remove", "__contains__")
        and kinds
        and kinds <= {list, tuple, collections.deque}
    )
    if method == "sort" or searched:
        item = frame.iterate(base)  # the items are compared, by their classes' own code
        with frame.repeated():
            ordered(frame, item, ("__lt__", "__gt__") if method == "sort" else ("__eq__",), node)
            if searched and args.pos:  # (and what is searched for, reflected: ``1 == x`` runs
                decided(frame, special.special(frame, args.pos[0], ("__eq__",), [item], node),
                        node)  # ``x.__eq__(1)``)
    looked_up = (
        "get",
        "pop",
        "setdefault",
        "__getitem__",
        "__contains__",
        "add",
        "discard",
        "remove",
        "__delitem__",
        "fromkeys",
    )
    if (
        method in looked_up
        and kinds
        and args.pos
        and all(issubclass(k, dict | set | frozenset) for k in kinds)
    ):
        special.special(frame, args.pos[0], ("__hash__",), [], node)
        decided(frame, special.special(frame, args.pos[0], ("__eq__",), [args.pos[0]], node), node)


_COMPARED_BY_ITEMS = (list, tuple, dict, set, frozenset, collections.deque)


def items_compared(frame: Scope, value: Val, method: str, node: ast.AST | None) -> None:
    """What comparing `value`, one of Python's containers, with another runs (``(a,) == (b,)``,
    ``xs < ys``): its items' own ``__eq__`` (and the comparison asked), a dict's values' too."""
    kinds = value.types or frozenset()
    if not kinds or not all(issubclass(k, _COMPARED_BY_ITEMS) for k in kinds):
        return
    items = [frame.iterate(value), *([frame.item(value)] if any(issubclass(k, dict) for k in kinds) else [])]
    items += [value.taken(part) for part in value.contents().parts or ()]  # (a tuple's, each)
    with frame.repeated():
        for item in items:
            decided(frame, special.each(frame, item, tuple(dict.fromkeys(("__eq__", method))),
                                        [item], node), node)


def has_truth(value: Val | None) -> bool:
    """Whether `value`, what a comparison gave, may be of a class whose truth is its own code
    (``__bool__``, ``__len__``): an ``__lt__`` of the app's may give anything, not a bool."""
    return value is not None and any(
        isinstance(k, type) and (special.defines(k, "__bool__") or special.defines(k, "__len__"))
        for k in value.types or value.maybe)


def decided(frame: Scope, value: Val | None, node: ast.AST | None) -> None:
    """What comparing runs of what the comparison gave (`value`), where Python takes it for a
    truth — a sort, a search, a dict's lookup, ``if a < b:``, ``a < b < c``: its class's
    ``__bool__``, else ``__len__``."""
    if value is not None and has_truth(value):
        special.special(frame, value, ("__bool__", "__len__"), [], node)
