"""The app's listeners of SQLAlchemy's events: code the ORM runs as an action uses records.

An app may listen to what its records go through (``@event.listens_for(Note, "load")``, a
mapper's ``after_insert``, an attribute's ``set``) and to what every session does
(``@event.listens_for(Session, "do_orm_execute")``, ``before_flush``): that code runs as the
action reads or writes records, without the action's calling it by name. It is followed as part
of the action, by what the action does to records: reading a record type runs its listeners of
loading; creating, changing or deleting one runs those of its flush and of its attributes; any
use of records runs those of the session's events. A record type is the class the action uses
(`orm.RecordName`), not every class of its name: another app's ``Ticket``, and its listeners
and mapping, are not this one's. Listeners of signoff's and SQLAlchemy's own are not the app's
and are left out. A listener added after the action is registered is not followed (the run's
hold still refuses what it tries, when the action was found to only read).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import Any

from sqlalchemy import inspect as inspect_mapped
from sqlalchemy.orm import InstanceEvents, MapperEvents, SessionEvents

from signoff.effects.calls import call_function
from signoff.effects.effect import EffectKind
from signoff.effects.frame import Frame
from signoff.effects.orm import mapping_does, records_of
from signoff.effects.summary import Summary
from signoff.effects.values import Val
from signoff.security.enforcement import RuledSession
from signoff.security.records import RecordBase

__all__ = ["follow_listeners"]

_READING = ("load", "refresh", "expire")
"""A record type's instance events that reading records of it runs."""
_WRITING = {
    EffectKind.CREATES: ("init", "first_init", "init_failure", "before_insert", "after_insert"),
    EffectKind.CHANGES: ("refresh_flush", "before_update", "after_update"),
    EffectKind.DELETES: ("before_delete", "after_delete"),
}
"""A record type's instance and mapper events that writing records of it runs (and its
attributes' events, for each of them)."""
_ATTRIBUTE_EVENTS = ("set", "append", "remove", "bulk_replace", "modified", "init_scalar",
                     "init_collection", "dispose_collection")
_SESSION_EVENTS = tuple(n for n in dir(SessionEvents) if not n.startswith("_"))
_INSTANCE_EVENTS = frozenset(n for n in dir(InstanceEvents) if not n.startswith("_"))
_MAPPER_EVENTS = frozenset(n for n in dir(MapperEvents) if not n.startswith("_"))
_ROUNDS = 8
"""How many times what listeners do to records is followed in turn (an audit record a listener
makes has listeners of its own)."""


def follow_listeners(analyser: Any, summary: Summary, name: str) -> None:
    """Add to `summary` (an action called `name`) what the app's listeners of the ORM's events
    do as the action uses records, and what those they set off do in turn."""
    done: set[tuple[str, str, tuple[type, ...]]] = set()
    for _ in range(_ROUNDS):
        due = [use for use in dict.fromkeys(_uses(summary)) if use not in done]
        if not due:
            return
        done.update(due)
        for kind, target, records in due:
            mapped = Frame(analyser, summary, globals_={}, closure={}, qualname=name, root_name=name)
            for part, (did, about) in _mapped_sql(records):  # (its columns' SQL, as it is loaded)
                mapped.add(did, about, (name, f"loading {part}"), "runs the SQL its mapping gives it")
            for why, listener in _listeners(kind, target, records):
                frame = Frame(analyser, summary, globals_={}, closure={}, qualname=name,
                              root_name=f"{name} -> {why}: {analyser.label(listener)}")
                arity = getattr(getattr(listener, "__code__", None), "co_argcount", 0)
                call_function(frame, listener, [Val() for _ in range(arity)], {}, None)


def _mapped_sql(records: tuple[type, ...]) -> list[tuple[str, tuple[EffectKind, str]]]:
    """What the SQL the mappings of `records` put into the statements that load them does more
    than read (`orm.mapping_does`)."""
    return [done for cls in records for done in mapping_does(cls)]


def _uses(summary: Summary) -> Iterator[tuple[str, str, tuple[type, ...]]]:
    """What `summary` does to records: ("reads", "Note", (the classes it is of)), …, and
    ("session", "", ()) once it uses any."""
    uses = False
    for effect in list(summary.effects.values()):
        if effect.kind in (EffectKind.READS, *_WRITING) and effect.target:
            uses = True
            yield effect.kind.value, effect.target, _records(effect.target)
    if uses:
        yield "session", "", ()


def _records(target: str) -> tuple[type, ...]:
    """The record classes an effect on `target` is of: those it knows it is of
    (`orm.RecordName`), else every one called so (by a name alone, any may be meant)."""
    known = records_of(target)
    return tuple(known if known is not None else _records_named(target))


def _listeners(kind: str, target: str, records: tuple[type, ...]
               ) -> list[tuple[str, Callable[..., Any]]]:
    """The app's listeners that doing `kind` to `records` (called `target`) runs, each with
    the event's words ("on load of Note")."""
    if kind == "session":
        return [(f"on the session's {event}", fn) for event in _SESSION_EVENTS
                for fn in _app_listeners(_session_dispatch(), event)]
    found: list[tuple[str, Callable[..., Any]]] = []
    events = _READING if kind == EffectKind.READS.value else _WRITING[EffectKind(kind)]
    for cls in records:
        manager = getattr(cls, "_sa_class_manager", None)
        mapper: Any = inspect_mapped(cls, raiseerr=False)
        for event in events:
            dispatching = manager if event in _INSTANCE_EVENTS else (
                mapper if event in _MAPPER_EVENTS else None)
            found += [(f"on {event} of {target}", fn) for fn in _app_listeners(dispatching, event)]
        if kind != EffectKind.READS.value and mapper is not None:
            for attribute in mapper.all_orm_descriptors:
                found += [(f"on {event} of {target}.{getattr(attribute, 'key', '?')}", fn)
                          for event in _ATTRIBUTE_EVENTS
                          for fn in _app_listeners(attribute, event)]
    return found


@functools.cache
def _session_dispatch() -> Any:
    """A session of the class the runs use, for the listeners of every session's events (those
    on ``Session`` too): a class's dispatch does not list them, an object's does."""
    return RuledSession()


def _app_listeners(target: Any, event: str) -> list[Callable[..., Any]]:
    """The functions listening to `event` of `target` (its dispatch) that are the app's: each
    as the app wrote it (SQLAlchemy wraps some), none of signoff's or SQLAlchemy's own."""
    dispatch = getattr(target, "dispatch", None)
    listening = getattr(dispatch, event, None) if dispatch is not None else None
    if listening is None:
        return []
    try:
        listed = list(listening)
    except TypeError:  # (a class's dispatch: not a list)
        return []
    return [fn for fn in map(_unwrapped, listed) if not _own(fn)]


def _unwrapped(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The app's function that SQLAlchemy's wrapper `fn` calls (it wraps a listener to hand it
    the object, not its state), or `fn`."""
    if (getattr(fn, "__module__", "") or "").startswith("sqlalchemy.") and fn.__closure__:
        for cell in fn.__closure__:
            inner = cell.cell_contents
            if callable(inner) and not (getattr(inner, "__module__", "") or "").startswith(
                    "sqlalchemy."):
                return _unwrapped(inner)
    return fn


def _own(fn: Callable[..., Any]) -> bool:
    """Whether `fn` is signoff's or SQLAlchemy's (its record rules, its checks)."""
    module = getattr(fn, "__module__", "") or ""
    return module.partition(".")[0] in ("signoff", "sqlalchemy")


def _records_named(name: str) -> list[type]:
    """The record types called `name` (by their class's name, as effects show them)."""
    found, stack = [], list(RecordBase.__subclasses__())
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        if cls.__name__ == name and hasattr(cls, "__table__"):
            found.append(cls)
    return found

