"""What is wrong with the values given, in a person's words.

pydantic says what failed; this module says it the way a person at a counter would:
"On is a date, written 2026-09-04 — “next tuesday” is not."
"""

from __future__ import annotations

import difflib
import json
import math
import sys
from typing import Any

from pydantic import ValidationError
from pydantic_core import ErrorDetails

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
    inside = cut_short(".".join(location[1:]))  # (a dict key in it is the model's)
    if detail["type"] == "extra_forbidden":
        return f"{parameter.label}, at {inside}: there is no such member; leave it out."
    return f"{parameter.label}, at {inside}: {_lower(detail['msg'])} — {_shown(detail['input'])} is not."


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
