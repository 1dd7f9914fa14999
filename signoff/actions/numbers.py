"""Numbers given as text: read when written plainly, refused otherwise in a sentence saying how
to write them.

A model's tool call (or a JSON body giving an action's values) may give a number as text, and
"5" or "-2.5" is common: read as the number it writes. Read as pydantic's lax mode reads text,
"1_000" was 1000 (Python's grouping of digits), "١٠٠٠" (Arabic-Indic digits) a decimal 1000
and " 12 " 12: the person deciding was shown one text and the action given another number,
read in Python's conventions where the writer may have meant another ("1_000" is no number in
JSON, nor to most readers). So text holding a digit, given for a number, writes it plainly
(`plainly_written`): the digits 0 to 9, a sign first if any, at most one decimal point, maybe
an exponent as JSON and a Decimal write one ("1e3", "1E-7": signoff writes such a Decimal so,
and reads it back). Anything else is refused (`held_to_plain`): `Invalid`, in a sentence saying
how to write the number, told to the model, and nothing runs. What is written plainly is then
read as before: "12.5" or "1e3" is still no whole number, and text with no digit at all ("lots",
"NaN") no number, each told as ever. The inbox's form holds what a person types to the same
digits (`signoff.web.numbers`).
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BeforeValidator, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, PydanticCustomError

__all__ = ["DECIMAL", "NOT_PLAIN", "PATTERN", "WHOLE", "TextDescribed", "held_to_plain",
           "plainly_written"]

WHOLE = re.compile(r"[+-]?[0-9]+")
"""A whole number written plainly: the digits 0 to 9, a sign first if any."""

DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")
"""A decimal number written plainly: the digits 0 to 9 with at most one decimal point (a point,
never a comma), a sign first if any."""

_EXPONENT = re.compile(r"[eE][+-]?[0-9]+")

PATTERN = r"^-?[0-9]+(\.[0-9]+)?$"
"""How a caller is told to write a number as text, as a JSON Schema's pattern: the plainest
form (`plainly_written` takes a little more: "+5", "5.", ".5", an exponent), kept short, as it
is sent with every model call that offers the action."""

NOT_PLAIN = "number_not_plain"
"""The type of pydantic's error for a number given as text not written plainly (its message
is what the number is, and how it is written: `signoff.actions.problems` says it whole)."""

_HOW = {
    int: ("a whole number, given as a JSON number, like 1000, or as text of its digits 0 to 9 "
          "alone (a minus sign first when it is below zero)"),
    float: ("a number, given as a JSON number, like 4.50, or as text of the digits 0 to 9 with "
            "at most one decimal point (a point, never a comma; a minus sign first when it is "
            "below zero)"),
}


def plainly_written(text: str) -> bool:
    """Whether `text` writes a number plainly: `DECIMAL`, maybe followed by an exponent."""
    number, marked, exponent = text.replace("E", "e").partition("e")
    return DECIMAL.fullmatch(number) is not None and (
        not marked or _EXPONENT.fullmatch(marked + exponent) is not None)


def held_to_plain(kind: type) -> BeforeValidator:
    """A check refusing text holding a digit, given for a number of `kind` (int, float or
    Decimal), that does not write one plainly (`plainly_written`), before pydantic's lax
    reading reads it otherwise; a number given as a number, and any other value, passes on as
    it is."""
    how = _HOW[int if kind is int else float]

    def checked(value: Any) -> Any:
        if isinstance(value, str) and _holds_a_digit(value) and not plainly_written(value):
            raise PydanticCustomError(NOT_PLAIN, how)
        return value
    return BeforeValidator(checked)


def _holds_a_digit(text: str) -> bool:
    """Whether `text` holds a digit of any script (what Python's ``int`` reads as one: a
    character of Unicode's decimal digits). By a pattern, not by character: the effect analysis,
    following a structure's check where a value of no known type is written, knows it only
    reads."""
    return _DIGIT.search(text) is not None


_DIGIT = re.compile(r"\d")
"""A decimal digit of any script ("1", "١", "１")."""


class TextDescribed:
    """In the JSON Schema a caller is given, a number that may be given as text (a Decimal:
    JSON's number, or text) says how to write that text (`PATTERN`): it said any text."""

    def __get_pydantic_json_schema__(self, core_schema: CoreSchema,
                                     handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        schema = handler(core_schema)
        if handler.mode == "validation":  # (written out, a Decimal is text as it writes it)
            for branch in handler.resolve_ref_schema(schema).get("anyOf", ()):
                if branch.get("type") == "string":
                    branch.setdefault("pattern", PATTERN)
        return schema
