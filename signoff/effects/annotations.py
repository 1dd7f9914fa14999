"""What an annotation says of a value: its types, its items' types, a mapping's values' types,
a tuple's parts — so that attributes, items and method calls on it resolve.

``Annotated[X, ...]`` is X; ``X | None`` is X; ``Mapped[X]`` is X; ``list[Event]`` is a list of
Event; ``dict[str, Email]`` a dict of str keys and Email values; ``tuple[str, int]`` has a str
then an int; ``Any``, type variables, callables and protocols are not known.
"""

from __future__ import annotations

import collections.abc as cabc
import types
import typing
from typing import Any

import typing_extensions

from signoff.effects.values import UNTYPED, Typed

__all__ = ["annotation_types", "fits"]

_SEQUENCES = {
    cabc.Sequence, cabc.MutableSequence, cabc.Iterable, cabc.Iterator, cabc.Collection,
    cabc.Generator, cabc.Reversible, cabc.KeysView, cabc.ValuesView, cabc.ItemsView,
}  # fmt: skip
_CONTAINERS: dict[Any, type] = {
    **dict.fromkeys(_SEQUENCES, list),
    cabc.Set: set,
    cabc.MutableSet: set,
    cabc.Mapping: dict,
    cabc.MutableMapping: dict,
}


def _container(origin: Any) -> type | None:
    if isinstance(origin, type) and origin in (list, set, frozenset, dict, tuple):
        return origin
    return _CONTAINERS.get(origin)


def annotation_types(hint: Any) -> Typed:
    """What annotation `hint` says of a value (see the module's docstring)."""
    if hint is None or hint is type(None):
        return Typed(types=frozenset({type(None)}))
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin is typing.Annotated:
        return annotation_types(args[0])
    if origin is typing.Union or origin is types.UnionType:
        return _union([annotation_types(a) for a in args if a is not type(None)])
    if origin is not None and getattr(origin, "__name__", "") == "Mapped" and args:
        return annotation_types(args[0])
    if origin is not None:
        container = _container(origin)
        if container is None:
            known = isinstance(origin, type) and _concrete(origin)
            return Typed(types=frozenset({origin})) if known else UNTYPED
        kinds = frozenset({container})
        if not args:
            return Typed(types=kinds)
        if container is tuple:
            if len(args) == 2 and args[1] is Ellipsis:
                return Typed(types=kinds, item=annotation_types(args[0]))
            parts = tuple(annotation_types(a) for a in args)
            return Typed(types=kinds, parts=parts, item=_union(list(parts)))
        item = annotation_types(args[0])
        if origin is cabc.ItemsView and len(args) == 2:
            pair = Typed(types=frozenset({tuple}), parts=(item, annotation_types(args[1])))
            return Typed(types=kinds, item=pair)
        if container is dict:
            value = annotation_types(args[1]) if len(args) > 1 else UNTYPED
            return Typed(types=kinds, item=item, value=value)
        return Typed(types=kinds, item=item)
    if isinstance(hint, type) and typing_extensions.is_typeddict(hint):  # a dict of these keys' values
        try:
            fields = typing.get_type_hints(hint)
        except Exception:  # (annotations that do not resolve: what it holds is not known)
            return Typed(types=frozenset({dict}))
        return Typed(types=frozenset({dict}), item=Typed(types=frozenset({str})),
                     value=_union([annotation_types(f) for f in fields.values()]))
    if isinstance(hint, type):
        if hint is object or not _concrete(hint):
            return UNTYPED
        return Typed(types=frozenset({hint}))
    return UNTYPED


def _union(found: list[Typed]) -> Typed:
    """What a value of any of these is: only their types, when all are known."""
    if any(t.types is None for t in found):
        return UNTYPED
    if len(found) == 1:
        return found[0]
    kinds: set[type] = set()
    for t in found:
        kinds |= t.types or set()
    return Typed(types=frozenset(kinds))


def _concrete(cls: type) -> bool:
    """Whether a class says what its objects do (a Protocol or a callable type does not)."""
    if getattr(cls, "_is_protocol", False):
        return False
    return cls not in (cabc.Callable, typing.Any)


def fits(kinds: frozenset[type] | None, annotation: Any) -> bool:
    """Whether values of `kinds` (None: not known) are of the types `annotation` names."""
    declared = annotation_types(annotation).types
    if kinds is None or declared is None:
        return True
    try:
        return all(any(issubclass(kind, each) for each in declared) for kind in kinds)
    except TypeError:  # (a type that cannot be checked so: what is known of it is taken)
        return False
