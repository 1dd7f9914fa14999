"""What is wrong with the values given, in a person's words.

pydantic says what failed; this module says it the way a person at a counter would:
"On is a date, written 2026-09-04 — “next tuesday” is not."
"""

from __future__ import annotations

import collections.abc
import difflib
import json
import math
import sys
import types
import typing
from typing import Any

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from signoff.actions.numbers import NOT_PLAIN
from signoff.actions.parameters import Parameter, ParameterKind
from signoff.exceptions import Invalid

__all__ = ["cut_short", "finite_number", "no_constant", "not_json", "problem_of", "unknown_members"]

_WRITTEN: dict[ParameterKind, str] = {
    ParameterKind.TEXT: "is text",
    ParameterKind.INTEGER: "is a whole number, like 12",
    ParameterKind.DECIMAL: "is a number, like 4.50",
    ParameterKind.YES_NO: "is yes or no (true or false)",
    ParameterKind.DATE: "is a date, written 2026-09-04",
    ParameterKind.DATETIME: "is a date and time, written 2026-09-04T14:30:00",
    ParameterKind.TIME: "is a time of day, written 14:30",
    ParameterKind.DURATION: "is a duration, written PT1H30M (ISO 8601) or as seconds",
    ParameterKind.ID: "is an id, written like 3f2c8a8e-2b1d-4c55-9a1e-6f0d2b7c9e41",
}

_RULES = frozenset({
    "value_error", "assertion_error", "greater_than", "greater_than_equal", "less_than",
    "less_than_equal", "multiple_of", "too_short", "too_long",
    "string_too_short", "string_too_long", "string_pattern_mismatch", "string_not_ascii",
    "date_past", "date_future", "datetime_past", "datetime_future", "timezone_naive",
    "timezone_aware", "timezone_offset", "decimal_max_digits", "decimal_max_places",
    "decimal_whole_digits", "uuid_version",
})
"""The errors of a value of the right kind that a rule refuses (not of a value of another kind:
those are told by how the kind is written)."""


def problem_of(error: ValidationError | list[ErrorDetails], parameters: list[Parameter]) -> str:
    """The first problem in `error` (or in these details), told in a person's words."""
    by_name = {p.name: p for p in parameters}
    details = error.errors() if isinstance(error, ValidationError) else error
    # A member naming no parameter is told first: a misspelt name is why the parameter it
    # meant is missing ("Price is missing" said nothing of "prise").
    unknown = [str(d["loc"][0]) for d in details
               if d["type"] == "extra_forbidden" and len(d["loc"]) == 1]
    if unknown:
        return unknown_members(unknown, parameters)
    detail = details[0]
    location = [str(part) for part in detail["loc"]]
    parameter = by_name.get(location[0]) if location else None
    if parameter is None:
        return _sentence(detail["msg"])
    if detail["type"] == "missing" and len(location) == 1:
        return f"{parameter.label} is missing: it is needed."
    if len(location) == 1:
        return _top_level(parameter, detail)
    kept, tried = _untagged(parameter.annotation, location[1:])
    inside = cut_short(".".join(kept))  # (a dict key in it is the model's)
    if detail["type"] == "extra_forbidden":
        return f"{parameter.label}, at {inside}: there is no such member; leave it out."
    said = [_lower(detail["msg"])]
    if tried:  # (each member of a union tried, each told: "a valid integer, or a valid date")
        said = list(dict.fromkeys(
            _lower(d["msg"]) for d in details if d["loc"][:1] == detail["loc"][:1]
            and _untagged(parameter.annotation, [str(part) for part in d["loc"][1:]]) == (
                kept, True)))
    return f"{parameter.label}, at {inside}: {'; or '.join(said)} — {_shown(detail['input'])} is not."


def _untagged(annotation: Any, parts: list[str]) -> tuple[list[str], bool]:
    """`parts`, a place inside a value of `annotation`, without the tags pydantic adds where a
    union tried each of its members ("x.int", "x.date": each member's failure); and whether
    the place is a union's (its members tried, each failing). Past a member that cannot be
    told by its tag, the parts are kept as they are."""
    kept: list[str] = []
    current: Any = annotation
    for at, part in enumerate(parts):
        members = _members(current)
        if members is not None:  # (this part is the tag of the member tried)
            current = next((m for m in members if getattr(m, "__name__", None) == part), None)
            if at == len(parts) - 1:
                return kept, True
            if current is None:
                return kept + parts[at + 1:], False
            continue
        kept.append(part)
        current = _inside(current, part)
    return kept, False


def _members(annotation: Any) -> tuple[Any, ...] | None:
    """The members of a union of two or more (None aside), or None for any other type."""
    if typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    if typing.get_origin(annotation) not in (typing.Union, types.UnionType):
        return None
    members = tuple(m for m in typing.get_args(annotation) if m is not type(None))
    return members if len(members) > 1 else None


def _inside(annotation: Any, part: str) -> Any:
    """The type of the member `part` of a value of `annotation` (a field, an item, a value of
    a dict), or None when it is not known."""
    if typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    members = typing.get_args(annotation)
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):  # (X | None)
        return _inside(next((m for m in members if m is not type(None)), None), part)
    origin = typing.get_origin(annotation)
    if origin in (list, tuple, set, frozenset, collections.abc.Sequence) and members:
        return members[0]
    if origin in (dict, collections.abc.Mapping) and len(members) == 2:
        return members[1]
    try:
        return typing.get_type_hints(annotation).get(part)
    except Exception:  # (no fields that can be read: not known)
        return None


def unknown_members(names: list[str], parameters: list[Parameter]) -> str:
    """The sentence for members naming no parameter."""
    offered = [p.name for p in parameters if p.provided is None]
    known = ", ".join(offered) if offered else "none"
    which = ", ".join(f"“{cut_short(n)}”" for n in names)
    noun = "is no parameter" if len(names) == 1 else "are no parameters"
    meant = [close[0] for n in names if (close := difflib.get_close_matches(n, offered, n=1))]
    guess = f" (did you mean {', '.join(f'“{m}”' for m in meant)}?)" if meant else ""
    return f"There {noun} named {which}{guess}; the parameters are: {known}."


def _top_level(parameter: Parameter, detail: ErrorDetails) -> str:
    given = _shown(detail["input"])
    if detail["input"] is None and not parameter.nullable:
        return f"{parameter.label} is needed; it cannot be left empty."
    if detail["type"] == NOT_PLAIN:  # (a number as text, not written plainly: how to write it)
        return f"{parameter.label} is {detail['msg']} — {given} is not."
    if detail["type"] in _RULES and parameter.kind not in (ParameterKind.ENUM,
                                                          ParameterKind.RECORD):
        # (a value of the right kind that a rule the app declared refuses — `Field(le=10)`, a
        # validator — is told by that rule, in its words)
        return f"{parameter.label}: {_lower(detail['msg'])} — {given} is not."
    if parameter.kind in _WRITTEN:
        return f"{parameter.label} {_WRITTEN[parameter.kind]} — {given} is not."
    if parameter.kind is ParameterKind.ENUM:
        choices = ", ".join(parameter.members) or _lower(detail["msg"])
        return f"{parameter.label} is one of {choices} — {given} is not."
    if parameter.kind is ParameterKind.RECORD:
        return (
            f"{parameter.label} is the id of {_article(parameter.annotation.__name__)}, written like "
            f"3f2c8a8e-2b1d-4c55-9a1e-6f0d2b7c9e41 — {given} is not."
        )
    if parameter.kind is ParameterKind.SEQUENCE:
        return f"{parameter.label} is a list (a JSON array) — {given} is not."
    return f"{parameter.label}: {_lower(detail['msg'])} — {given} is not."


def _shown(value: Any) -> str:
    """A value as a refusal quotes it, cut short (the model is told the refusal in every call
    after it, and the receipt keeps it)."""
    if isinstance(value, str):
        return f"“{cut_short(value)}”"
    try:
        text = json.dumps(value, default=str)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 80 else text[:77] + "…"


def cut_short(text: str, most: int = 80) -> str:
    """`text` as a message quotes what a model wrote: whole up to `most` characters, else its
    start and how long it is."""
    return text if len(text) <= most else f"{text[:most - 3]}… ({len(text):,} characters)"


def _lower(message: str) -> str:
    message = message.removeprefix("Value error, ")
    return message[:1].lower() + message[1:]


def _sentence(message: str) -> str:
    message = message.removeprefix("Value error, ")
    return message[:1].upper() + message[1:] + ("" if message.endswith(".") else ".")


def _article(noun: str) -> str:
    return f"an {noun}" if noun[:1].lower() in "aeiou" else f"a {noun}"


_NOT_FINITE = ("which is no number JSON keeps (a database refuses it, or keeps text no reader "
               "takes): give finite numbers.")


def no_constant(constant: str) -> float:
    """For `json.loads`'s `parse_constant`: `NaN`, `Infinity` and `-Infinity` are refused."""
    raise Invalid(f"The arguments hold {constant}, {_NOT_FINITE}")


def finite_number(text: str) -> float:
    """For `json.loads`'s `parse_float`: a number too large to be finite (``1e999``) is
    refused."""
    number = float(text)
    if not math.isfinite(number):
        raise Invalid(f"The arguments hold {text}, read as Infinity, {_NOT_FINITE}")
    return number


def not_json(text: str | bytes, error: ValueError) -> str:
    """Why `text`, which `json.loads` refused with `error`, is not arguments: a number too long
    for Python to read (``sys.get_int_max_str_digits``) is told by its length, not as Python's
    advice to raise the limit."""
    try:
        json.loads(text, parse_int=_within_digits)
    except _TooManyDigits as long:
        return (f"A number in the arguments has {long.digits:,} digits, more than any parameter "
                "takes.")
    except (ValueError, TypeError, RecursionError):
        pass
    return f"The arguments are not JSON: {error}."


class _TooManyDigits(ValueError):
    def __init__(self, digits: int) -> None:
        super().__init__(digits)
        self.digits = digits


def _within_digits(written: str) -> int:
    """The int `written` is, or `_TooManyDigits` for one longer than Python reads."""
    limit = sys.get_int_max_str_digits()
    digits = len(written.lstrip("-"))
    if limit and digits > limit:
        raise _TooManyDigits(digits)
    return int(written)
