"""What JSON a model (or a client) writes may hold that no reader should take silently: a member
given twice in one object (`json.loads` keeps the last value, losing the first without a word),
and half of a character (a lone surrogate: JSON may escape one, ``"\\ud800"``, and the text read
from it can then be written nowhere — not in a database's text column, a page, a terminal or
UTF-8).

A tool call's arguments and a result handed back are read with `once_each`, and refused when
`half_character_in` finds such text, before anything runs or is kept. A body the REST API is
sent, and a message an MCP server is sent, are refused when `given_twice` finds a member given
twice (an approval's ``{"edited": {"price": 1, "price": 2}}`` ran at 2), naming it and where it
is, so that the client can send the one value meant.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["GivenTwice", "escaped_halves", "given_twice", "half_character_in", "once_each"]


class GivenTwice(Exception):
    """A member given twice in one JSON object (`once_each`)."""

    def __init__(self, member: str) -> None:
        super().__init__(member)
        self.member = member


def once_each(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """For `json.loads`'s `object_pairs_hook`: an object, unless it gives a member twice
    (`GivenTwice`)."""
    found: dict[str, Any] = {}
    for member, value in pairs:
        if member in found:
            raise GivenTwice(member)
        found[member] = value
    return found


def half_character_in(value: Any) -> str | None:
    """The first text in `value` (as JSON reads: dicts, lists, scalars) — a string, or a
    member's name — that holds half of a character, as a lone surrogate escaped; None when
    none does. Found without recursion, so that it cannot fail on a value however deep."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if not item.isascii() and not _whole(item):
                return item
        elif isinstance(item, dict):
            pending.extend(item.values())
            pending.extend(item.keys())
        elif isinstance(item, list):
            pending.extend(item)
    return None


def escaped_halves(text: str) -> str:
    """`text` with each half of a character in it written as its escape (``\\ud800``), so
    that it can be shown."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _whole(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class _Twice:
    """An object that gives `member` twice, read in place of the object (`given_twice`)."""

    def __init__(self, member: str) -> None:
        self.member = member


def given_twice(text: bytes | str) -> tuple[str, tuple[str, ...]] | None:
    """The first member given twice in one object of `text` (JSON), in the order the text
    gives them, and where: the names (and list positions) leading to it, the member's own name
    last (``("edited", "price")``); None when each is given once, or `text` is no JSON (told
    where it is read). Found without recursion, however deep."""

    twice: list[_Twice] = []

    def marked(pairs: list[tuple[str, Any]]) -> Any:
        try:
            return once_each(pairs)
        except GivenTwice as given:
            twice.append(_Twice(given.member))
            return twice[-1]

    try:
        parsed = json.loads(text, object_pairs_hook=marked)
    except (ValueError, RecursionError):
        return None
    if not twice:
        return None
    pending: list[tuple[Any, tuple[str, ...]]] = [(parsed, ())]
    while pending:
        value, path = pending.pop()
        if isinstance(value, _Twice):
            return value.member, (*path, value.member)
        if isinstance(value, dict):
            pending.extend((v, (*path, k)) for k, v in reversed(value.items()))
        elif isinstance(value, list):
            pending.extend((v, (*path, str(i))) for i, v in reversed(list(enumerate(value))))
    return None
