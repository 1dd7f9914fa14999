"""Reading an action's parameters from its signature: subject, labels, kinds, context parameters."""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import enum
import functools
import inspect
import types
import typing
import uuid
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel
from typing_extensions import is_typeddict

from signoff.actions.declare import Choices, FreeText, Label, Provided
from signoff.exceptions import UserError
from signoff.security.records import RecordBase

__all__ = ["Parameter", "ParameterKind", "call_with", "derived_label", "read_parameters",
           "unwrap_optional"]


class ParameterKind(enum.Enum):
    """What sort of value a parameter takes."""

    TEXT = "text"
    """Words (``str``)."""
    INTEGER = "integer"
    """A whole number (``int``)."""
    DECIMAL = "decimal"
    """A number with a fraction (``Decimal``, ``float``)."""
    YES_NO = "yes/no"
    """Yes or no (``bool``)."""
    DATE = "date"
    """A day (``date``), written 2026-09-04."""
    DATETIME = "datetime"
    """A moment (``datetime``)."""
    TIME = "time"
    """A time of day (``time``)."""
    DURATION = "duration"
    """A length of time (``timedelta``)."""
    ID = "id"
    """An identifier (``UUID``)."""
    ENUM = "enum"
    """One of a fixed set (an ``Enum``, a ``Literal`` of strings)."""
    RECORD = "record"
    """A record of the app, given by its id and loaded as the caller may read it."""
    STRUCTURE = "structure"
    """An object of named fields (a pydantic model, a dataclass, a ``TypedDict``, a
    ``dict[str, T]``)."""
    SEQUENCE = "sequence"
    """A list, tuple or set of values."""


@dataclass(frozen=True, kw_only=True)
class Parameter:
    """One parameter of an action, as a caller or a model sees it."""

    name: str
    """The Python name, and the member of the JSON object that gives it."""
    label: str
    """How it reads to a person ("How soon")."""
    kind: ParameterKind
    """What sort of value it takes."""
    annotation: Any
    """The Python type, without ``Annotated`` and without ``| None``."""
    optional: bool
    """Whether it has a default (a caller may leave it out)."""
    default: Any = None
    """The default, when optional."""
    nullable: bool = False
    """Whether ``None`` (JSON null) is an accepted value."""
    choices: Choices | None = None
    """Where its choices come from, when it says."""
    is_subject: bool = False
    """Whether this is the record the action acts on."""
    provided: str | None = None
    """For a context parameter: the name the app fills it by; never shown to a caller."""
    free_text: bool = False
    """Whether it is declared free text (``Annotated[str, FreeText]``): prose whose words carry
    no provenance label."""
    listed: bool = True
    """Whether how the action reads in a catalogue names it (`ActionInfo.reads_as`); declared
    with ``Label(text, listed=False)``."""
    declared: Any = None
    """The type as written, with what ``Annotated`` adds for pydantic (``Field(ge=0)``, a
    validator) where it was written and its ``| None``; signoff's own marks left out. What a
    value is checked against and described by (None: `annotation`, with `nullable`)."""

    @property
    def members(self) -> list[str]:
        """For an enum: the names of its members, in order."""
        if self.kind is not ParameterKind.ENUM:
            return []
        if get_origin(self.annotation) is typing.Literal:
            return [str(a) for a in get_args(self.annotation)]
        return [m.name for m in self.annotation]

    @property
    def takes_plain_data(self) -> bool:
        """Whether its value is the JSON it was given, checked for type: a plain kind, or a list,
        tuple, set or dict of them (or of anything: ``Any``) — never a record, and never a
        structure of the app's own (a model, a dataclass, a TypedDict), whose validation is
        given the run's session and may read records through it."""
        if self.kind in _PLAIN_KINDS:
            return True
        if self.kind not in (ParameterKind.SEQUENCE, ParameterKind.STRUCTURE):
            return False
        try:
            return _is_plain_data(self.annotation)
        except TypeError:  # metadata that cannot be hashed (Annotated[int, {...}]): not cached
            return _is_plain_data.__wrapped__(self.annotation)

    @property
    def names_records(self) -> bool:
        """Whether its value names records (a record, or a sequence of them): what the call
        acts on, not a value of it."""
        return self.kind is ParameterKind.RECORD or any(
            is_record_type(a) for a in get_args(self.annotation))


_PLAIN_KINDS = frozenset(ParameterKind) - {ParameterKind.RECORD, ParameterKind.STRUCTURE,
                                           ParameterKind.SEQUENCE}


@functools.lru_cache(maxsize=1024)
def _is_plain_data(annotation: Any) -> bool:
    """Whether a value of type `annotation` is JSON data checked for type (see
    `Parameter.takes_plain_data`)."""
    inner, _ = unwrap_optional(annotation)
    if get_origin(inner) is Annotated:
        inner = get_args(inner)[0]
    if inner is Any or inner in (list, tuple, set, frozenset, dict):
        return True
    if get_origin(inner) in (list, tuple, set, frozenset, dict, Mapping):
        return all(a is Ellipsis or _is_plain_data.__wrapped__(a) for a in get_args(inner))
    try:
        return kind_of(inner, where="") in _PLAIN_KINDS
    except UserError:
        return False


def derived_label(name: str) -> str:
    """A label from a Python name: ``set_rush`` → "Set rush", ``due_on`` → "Due on"."""
    words = name.strip("_").replace("_", " ")
    return words[:1].upper() + words[1:]


def unwrap_optional(annotation: Any) -> tuple[Any, bool]:
    """``T | None`` → (T, True); anything else → (annotation, False)."""
    if get_origin(annotation) in (Union, types.UnionType):
        args = [a for a in get_args(annotation) if a is not type(None)]
        if len(args) < len(get_args(annotation)):
            inner = args[0] if len(args) == 1 else Union[tuple(args)]  # noqa: UP007
            return inner, True
    return annotation, False


_PROVIDED_TYPES = {"session": "Session", "acting_as": "ActingAs", "cause": "str"}
"""The type of each value signoff itself provides to a context parameter, for a hint."""


def is_record_type(annotation: Any) -> bool:
    """Whether `annotation` is an app record class."""
    return isinstance(annotation, type) and issubclass(annotation, RecordBase)


def kind_of(annotation: Any, *, where: str) -> ParameterKind:
    """The kind of a (non-optional, un-annotated) Python type, or a `UserError` naming `where`."""
    origin = get_origin(annotation)
    if origin in (list, tuple, set, frozenset) or annotation in (list, tuple, set, frozenset):
        return ParameterKind.SEQUENCE
    if origin in (dict, Mapping) or annotation is dict:
        args = get_args(annotation)
        if args and args[0] is not str:
            raise UserError(f"{where}: a mapping is given as JSON, so its keys must be str.")
        return ParameterKind.STRUCTURE
    if origin is typing.Literal:
        if all(isinstance(a, str) for a in get_args(annotation)):
            return ParameterKind.ENUM
        raise UserError(f"{where}: a Literal offered by name must list strings only.")
    simple: list[tuple[Any, ParameterKind]] = [
        (bool, ParameterKind.YES_NO),
        (int, ParameterKind.INTEGER),
        (Decimal, ParameterKind.DECIMAL),
        (float, ParameterKind.DECIMAL),
        (str, ParameterKind.TEXT),
        (dt.datetime, ParameterKind.DATETIME),
        (dt.date, ParameterKind.DATE),
        (dt.time, ParameterKind.TIME),
        (dt.timedelta, ParameterKind.DURATION),
        (uuid.UUID, ParameterKind.ID),
    ]
    for python_type, kind in simple:
        if annotation is python_type:
            return kind
    if isinstance(annotation, type):
        if issubclass(annotation, enum.Enum):
            return ParameterKind.ENUM
        if issubclass(annotation, RecordBase):
            return ParameterKind.RECORD
        if (
            issubclass(annotation, BaseModel)
            or dataclasses.is_dataclass(annotation)
            or is_typeddict(annotation)
        ):
            return ParameterKind.STRUCTURE
    if origin in (Union, types.UnionType):
        raise UserError(
            f"{where}: it takes a value of one of several types ({annotation!r}), which no "
            "caller can be asked for as one kind of value: take one type (an Enum or a Literal "
            "for one of several choices), or give the union as a field of a pydantic model.")
    raise UserError(
        f"{where}: signoff cannot offer a value of type {annotation!r}. Use text, int, Decimal, "
        "bool, date, datetime, time, timedelta, UUID, an Enum, a record, a pydantic model, a "
        "dataclass, a TypedDict, dict[str, T], or a list, tuple or set of these."
    )


def type_hints(
    fn: Callable[..., Any], localns: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The resolved annotations of `fn`; names local to where it was declared resolve too."""
    return typing.get_type_hints(fn, localns=dict(localns or {}), include_extras=True)


def read_parameters(
    fn: Callable[..., Any],
    *,
    action_name: str,
    provided: Mapping[str, str] = {},
    localns: Mapping[str, Any] | None = None,
) -> list[Parameter]:
    """The parameters of `fn`, in order; a misdeclared one is a `UserError` naming the fix."""
    if inspect.isgeneratorfunction(fn) or inspect.isasyncgenfunction(fn):
        # (called by name, it gave back a generator whose body never ran, and was Done)
        raise UserError(f"Action {action_name} yields: its body would not run when it is called "
                        "by name (a generator runs only as it is iterated). Return the values "
                        "instead (`return list(...)`, a list[...] result).")
    signature = inspect.signature(fn)
    try:
        hints = type_hints(fn, localns)
    except Exception as error:  # a NameError from a forward reference, most often
        raise UserError(
            f"Action {action_name}: its annotations cannot be resolved ({error}). Define every "
            "type it names before the action, at module level."
        ) from error
    unknown = set(provided) - set(signature.parameters)
    if unknown:
        raise UserError(f"Action {action_name}: provided= names no parameter {sorted(unknown)}.")
    parameters: list[Parameter] = []
    for name, sig in signature.parameters.items():
        where = f"Action {action_name}, parameter {name}"
        if sig.kind in (sig.VAR_POSITIONAL, sig.VAR_KEYWORD):
            raise UserError(f"{where}: *args and **kwargs cannot be offered by name (a caller "
                            "gives each value by the name of a parameter): give each value it "
                            "takes a parameter of its own, or take them together as one "
                            f"structure (`{name}: dict[str, str]`, a pydantic model).")
        if name not in hints and name in ("self", "cls") and not parameters:
            raise UserError(f"{where}: a method is offered by name only when bound to what it "
                            f"is called on: register it as a function of the module, or bound "
                            f"(app.add_action(instance.{getattr(fn, '__name__', action_name)})).")
        if name not in hints:
            given = provided.get(name)
            example = _PROVIDED_TYPES.get(given or "", "str") if given else "str"
            what = f" (the type of what is provided as {given!r})" if given else ""
            raise UserError(f"{where}: give it a type annotation{what}, e.g. "
                            f"`{name}: {example}`.")
        annotation, extras = hints[name], tuple[Any, ...]()
        if get_origin(annotation) is Annotated:
            annotation, *rest = get_args(annotation)
            extras = tuple[Any, ...](rest)
        declared = _without_marks(hints[name])
        labelled = next((e for e in extras if isinstance(e, Label)), None)
        label = labelled.text if labelled is not None else derived_label(name)
        choices = next((e for e in extras if isinstance(e, Choices)), None)
        provided_as = next((e.name for e in extras if isinstance(e, Provided)), provided.get(name))
        optional = sig.default is not sig.empty
        inner, nullable = unwrap_optional(annotation)
        if get_origin(inner) is Annotated:  # (`Annotated[int, Field(ge=0)] | None`)
            inner, *rest = get_args(inner)
            extras += tuple(rest)
            labelled = next((e for e in rest if isinstance(e, Label)), labelled)
            label = labelled.text if labelled is not None else label
            choices = choices or next((e for e in rest if isinstance(e, Choices)), None)
        if provided_as is not None:
            parameters.append(
                Parameter(name=name, label=label, kind=ParameterKind.STRUCTURE, annotation=annotation,
                          optional=True, provided=provided_as)
            )
            continue
        kind = kind_of(inner, where=where)
        free_text = any(e is FreeText or isinstance(e, FreeText) for e in extras)
        if free_text and kind is not ParameterKind.TEXT:
            raise UserError(f"{where}: FreeText is for a text parameter (`{name}: "
                            f"Annotated[str, FreeText]`), not {kind.value}.")
        # (the first a caller gives: one the app provides, such as the session, is none)
        is_subject = (not any(q.provided is None for q in parameters)
                      and kind is ParameterKind.RECORD and not nullable)
        if optional and sig.default is None and not nullable:
            # (``n: int = None``, as Python long read it: ``int | None``; its schema shows the
            # default null, so a caller may write null too)
            nullable = True
            declared = declared | None
        if kind is ParameterKind.RECORD and not is_subject and choices is None:
            raise UserError(
                f"{where}: a record parameter other than the subject must say where its choices "
                f"come from: `{name}: Annotated[{inner.__name__}, Choices(fn)]`."
            )
        parameters.append(
            Parameter(
                name=name,
                label=label,
                kind=kind,
                annotation=inner,
                optional=optional,
                default=sig.default if optional else None,
                nullable=nullable,
                choices=choices,
                is_subject=is_subject,
                free_text=free_text,
                listed=labelled is None or labelled.listed,
                declared=declared,
            )
        )
    return parameters


def call_with(fn: Callable[..., Any], arguments: dict[str, Any]) -> Any:
    """Call `fn` with `arguments`, each given by its parameter's name (as a caller gives it),
    those it takes positional-only (before a ``/``, which come first) passed by position."""
    first = _positional_only(fn)
    if not first:
        return fn(**arguments)
    given = [arguments.pop(name) for name in first if name in arguments]
    return fn(*given, **arguments)


_positional: weakref.WeakKeyDictionary[Callable[..., Any], tuple[str, ...]] = (
    weakref.WeakKeyDictionary())


def _positional_only(fn: Callable[..., Any]) -> tuple[str, ...]:
    """The names of `fn`'s positional-only parameters, in order (worked out once per function:
    a loop calls it at every step)."""
    try:
        return _positional[fn]
    except (KeyError, TypeError):
        found = tuple(name for name, p in inspect.signature(fn).parameters.items()
                      if p.kind is p.POSITIONAL_ONLY)
        with contextlib.suppress(TypeError):  # (what cannot be weakly referred to: not kept)
            _positional[fn] = found
        return found


def _is_mark(extra: Any) -> bool:
    """Whether `extra` (an ``Annotated`` metadata item) is one of signoff's own marks."""
    return extra is FreeText or isinstance(extra, Label | Choices | Provided | FreeText)


def _without_marks(hint: Any) -> Any:
    """`hint` with signoff's own marks taken out of its ``Annotated`` (and of the one of its
    ``| None`` member): what is left is pydantic's to check (``Field(ge=0)``, validators)."""
    if get_origin(hint) is Annotated:
        inner, *extras = get_args(hint)
        kept = [e for e in extras if not _is_mark(e)]
        inner = _without_marks(inner)
        return Annotated[(inner, *kept)] if kept else inner
    if get_origin(hint) in (Union, types.UnionType):
        members = tuple(_without_marks(a) for a in get_args(hint))
        return Union[members] if members != get_args(hint) else hint  # noqa: UP007
    return hint
