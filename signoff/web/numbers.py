"""Numbers typed into the inbox's forms: read as written, or refused in a sentence.

A person changing a price before saying yes may type "1,000", "1 000" or "1_000". Read as
Python reads numbers, "1_000" was 1000 and the others were refused in words that did not say
how to write one; read as a person writing in another convention means it, "1,000" could be
one thousand or one. So a number typed into a form is written plainly: the digits 0 to 9, at
most one decimal point (a point, never a comma), and a sign first. Anything else is refused,
saying how to write it, and nothing is decided. (A text holding no digit at all is no
number however written: the call's values refuse it, as they refuse any value that does not fit.)
A model's tool call giving a number as text is held to the same digits
(`signoff.actions.numbers`).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from signoff.actions.numbers import DECIMAL, WHOLE
from signoff.actions.parameters import ParameterKind
from signoff.actions.problems import cut_short

__all__ = ["NUMBER_KINDS", "not_plain", "number_of"]

NUMBER_KINDS = (ParameterKind.INTEGER, ParameterKind.DECIMAL)
"""The kinds of argument whose changed value is typed as a number."""

_NONE = "null"
"""How the form shows an argument proposed as none (JSON's null): typed, it stays none."""


def not_plain(label: str, typed: str, kind: ParameterKind) -> str:
    """Why `typed`, the changed value of the number argument `label` (of `kind`), is not read
    ("" when it is written plainly, is ``null``, or holds no digit at all: "abc" is no number
    however written, and the call's values say so): a sentence saying how to write it."""
    text = typed.strip()  # (spaces around a number change nothing; between digits they might)
    if text == _NONE or not any(c.isdigit() for c in text):
        return ""  # (no digit: not a number however written, as the call's values tell)
    whole = kind is ParameterKind.INTEGER
    if (WHOLE if whole else DECIMAL).fullmatch(text):
        return ""
    shown = f"“{cut_short(typed)}”"
    if whole:
        how = ("a whole number, written in the digits 0 to 9 alone, like 1000 (a minus sign "
               f"first when it is below zero) — {shown} is not: write it without spaces, "
               "commas, points or other marks between the digits")
    else:
        how = ("a number, written in the digits 0 to 9 with at most one decimal point, like "
               f"1000 or 4.50 (a minus sign first when it is below zero) — {shown} is not: "
               "write it without spaces, commas or other marks between the thousands, and "
               "with a point, not a comma, before any decimals")
    return f"{label} is {how}. Nothing was decided; the proposal still waits."


def number_of(typed: str, *, as_text: bool) -> Any:
    """The value of a number `typed` plainly (`not_plain` says ""), exactly as written: as text
    when the proposal gave it as text; else a JSON number — an int, or a float when the float
    reads back as what was typed — or, when a float would round it (more digits than a float
    holds), the text, which is read exactly where the call's values are read."""
    text = typed.strip()
    if text == _NONE:
        return None
    if not any(c.isdigit() for c in text):  # (no number: the call's values say so)
        return typed
    if as_text:
        return text
    if WHOLE.fullmatch(text):
        return int(text)
    number = float(text)
    return number if Decimal(repr(number)) == Decimal(text) else text
