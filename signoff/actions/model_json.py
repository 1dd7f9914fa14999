"""What JSON a model writes may hold that no reader should take silently: a member given twice in
one object (`json.loads` keeps the last value, losing the first without a word), and half of a
character (a lone surrogate: JSON may escape one, ``"\\ud800"``, and the text read from it can
then be written nowhere — not in a database's text column, a page, a terminal or UTF-8).

A tool call's arguments and a result handed back are read with `once_each`, and refused when
`half_character_in` finds such text, before anything runs or is kept.
"""

from __future__ import annotations

from typing import Any

__all__ = ["GivenTwice", "escaped_halves", "half_character_in", "once_each"]


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
