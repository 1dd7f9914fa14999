"""Records within structures given already made: each looked up as whoever the run is for.

pydantic keeps a model (or dataclass) given already made as it is, without validating it again:
one made by `Actions.values_from_json` (read with no session, so a record in it stands as its
id), or one a caller made holding a record they read as someone else. A run looks each record
within such a structure up again, through its own session, as a record given as a parameter is:
an id whoever the run is for may not read is `NotFound`, in the same words.
"""

from __future__ import annotations

import dataclasses
import types
import uuid
from collections.abc import (
    Collection,
    Iterable,
    Iterator,
    Mapping,
    MutableMapping,
    MutableSequence,
    MutableSet,
    Sequence,
)
from collections.abc import Set as AbstractSet
from typing import Annotated, Any, Union, get_args, get_origin, get_type_hints

from pydantic import BaseModel
from sqlalchemy.orm import Session
from typing_extensions import is_typeddict

from signoff.actions.catalog import Action
from signoff.actions.parameters import ParameterKind
from signoff.security.records import RecordBase, load_record

__all__ = ["looked_up", "records_in", "records_read"]


def records_read(action: Action, arguments: dict[str, Any], session: Session
                 ) -> dict[str, Any]:
    """`arguments` (validated by `action`'s model) with each record within a structure given
    already made read through the run's `session`, as whoever it is for (`looked_up`)."""
    for p in action.all_parameters:
        if p.provided is None and p.name in arguments and not p.takes_plain_data and p.kind in _HOLDING:
            arguments[p.name] = looked_up(arguments[p.name], p.annotation, session)
    return arguments


_HOLDING = (ParameterKind.STRUCTURE, ParameterKind.SEQUENCE)
"""The kinds of parameter that may hold records within a structure."""


def looked_up(value: Any, annotation: Any, session: Session) -> Any:
    """`value` (of type `annotation`, validated) with every record within a structure read
    through `session`: a copy where any is read anew, else `value` itself. `NotFound` for one
    that is not there for the session's principals to read."""
    return _within(value, annotation, session, frozenset())


def _within(value: Any, annotation: Any, session: Session, seen: frozenset[int]) -> Any:
    origin = get_origin(annotation)
    if origin is Annotated:
        return _within(value, get_args(annotation)[0], session, seen)
    if value is None:
        return None
    if isinstance(value, RecordBase):  # (whatever the annotation says it is: `Any`, a union)
        if value in session:
            return value  # read by this run's own session already
        return load_record(type(value), value, session)
    if isinstance(annotation, type) and issubclass(annotation, RecordBase):
        if isinstance(value, uuid.UUID | str):
            return load_record(annotation, value, session)
        return value
    if isinstance(value, str | bytes | bytearray):  # (sequences too, of no records)
        return value
    if origin in (Union, types.UnionType):
        for arg in get_args(annotation):
            if isinstance(arg, type) and issubclass(arg, RecordBase):
                if isinstance(value, uuid.UUID) and not any(
                        isinstance(a, type) and a is not arg and issubclass(a, RecordBase)
                        for a in get_args(annotation)):
                    return _within(value, arg, session, seen)
            elif is_typeddict(arg):  # (a TypedDict refuses isinstance: a dict is one)
                if isinstance(value, dict):
                    return _within(value, arg, session, seen)
            elif isinstance(arg, type) and arg is not type(None) and isinstance(value, arg):
                return _within(value, arg, session, seen)
            elif isinstance(get_origin(arg), type) and isinstance(value, get_origin(arg)):
                return _within(value, arg, session, seen)  # (``list[Box] | None``)
        return _within(value, Any, session, seen)  # (records within it, whatever it is)
    if id(value) in seen:  # (a structure that holds itself: each is looked at once)
        return value
    seen = seen | {id(value)}
    # A container is read by what it is, not only by what its annotation says: a model made
    # without validation (``model_construct``) holds whatever it was given, a tuple where a
    # list is declared, a mapping that is not a dict.
    if isinstance(value, Mapping) and (origin in _MAPPINGS or annotation is Any):
        args = get_args(annotation)
        kind = args[1] if len(args) == 2 else Any
        changed = {k: r for k, v in value.items()
                   if (r := _within(v, kind, session, seen)) is not v}
        return _remade(value, {**value, **changed}) if changed else value
    if origin is tuple and isinstance(value, _ITEMS):
        args = get_args(annotation)
        kinds = [args[0]] * len(value) if len(args) == 2 and args[1] is ... else list(args)
        items = list(value)
        read = [_within(v, k, session, seen) for v, k in zip(items, kinds, strict=False)]
        read += items[len(read):]
        return value if all(a is b for a, b in zip(read, items, strict=True)) else _remade(
            value, read)
    if isinstance(value, Iterator) and (origin in _COLLECTIONS or annotation is Any):
        # (one pass only: what it gives is read as a list, which iterates the same)
        (item,) = get_args(annotation)[:1] or (Any,)
        return [_within(v, item, session, seen) for v in value]
    if isinstance(value, _ITEMS) and (origin in _COLLECTIONS or origin is tuple
                                      or annotation is Any):
        (item,) = get_args(annotation)[:1] or (Any,)
        items = list(value)
        read = [_within(v, item, session, seen) for v in items]
        return value if all(a is b for a, b in zip(read, items, strict=True)) else _remade(
            value, read)
    if isinstance(value, BaseModel):
        changed = {name: r for name, info in type(value).model_fields.items()
                   if (r := _within(getattr(value, name, None), info.annotation, session, seen))
                   is not getattr(value, name, None)}
        return value.model_copy(update=changed) if changed else value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        hints = get_type_hints(type(value), include_extras=True)
        changed = {f.name: r for f in dataclasses.fields(value) if f.init
                   if (r := _within(getattr(value, f.name), hints.get(f.name, Any), session,
                                    seen)) is not getattr(value, f.name)}
        return dataclasses.replace(value, **changed) if changed else value
    if isinstance(value, dict) and isinstance(annotation, type) and is_typeddict(annotation):
        hints = get_type_hints(annotation, include_extras=True)
        changed = {k: r for k, v in value.items() if k in hints
                   if (r := _within(v, hints[k], session, seen)) is not v}
        return {**value, **changed} if changed else value
    return value


_MAPPINGS = (dict, Mapping, MutableMapping)
"""The annotations of a mapping, whose values may be records."""
_COLLECTIONS = (list, set, frozenset, Sequence, MutableSequence, AbstractSet, MutableSet,
                Collection, Iterable)
"""The annotations of a collection of items alike, which may be records."""
_ITEMS = (list, tuple, set, frozenset, Sequence, AbstractSet)
"""What a collection given may be (a text, a `Sequence` too, is taken as one value first)."""


def _remade(value: Any, read: Any) -> Any:
    """A container of `value`'s type holding `read` (the items, or the mapping, read anew),
    or — when that type cannot be made of them — a plain one (a list, a dict)."""
    try:
        return type(value)(read)
    except Exception:  # (a container of the app's own kind, made otherwise)
        return dict(read) if isinstance(read, Mapping) else list(read)


def records_in(values: Iterable[Any]) -> Iterator[RecordBase]:
    """The records within `values` (as a run's validated values hold them: a record itself, or
    within a model, a dataclass, a mapping or a sequence), each once."""
    seen: set[int] = set()
    stack = list(values)
    while stack:
        value = stack.pop()
        if id(value) in seen:
            continue
        seen.add(id(value))
        if isinstance(value, RecordBase):
            yield value
        elif isinstance(value, BaseModel):
            stack.extend(value.__dict__.values())
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            stack.extend(getattr(value, f.name) for f in dataclasses.fields(value))
        elif isinstance(value, Mapping):
            stack.extend(value.values())
        elif isinstance(value, list | tuple | set | frozenset):
            stack.extend(value)
