"""Text as written, with nothing in it that acts on the screen it is shown on.

A receipt, a proposal's reason, a tool's answer, a record's value hold whatever a model, a tool,
a source or a person wrote: control characters (an escape sequence that moves a terminal's
cursor, a NUL), the marks that reorder text on screen (a right-to-left override makes a line
read backwards, and a browser draws ``bob ot 001 yap`` so as ``pay 100 to bob``), and characters
that draw nothing at all (a zero-width space, a soft hyphen, a byte-order mark, a tag
character). `visible` shows each as an escape (``\\x1b``, ``\\u202e``), so that what is shown
says what it holds. The command line (`signoff.cli.terminal`) and the inbox's pages
(`signoff.web`) show text through it.
"""

from __future__ import annotations

import re

__all__ = ["visible"]

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
"""Control characters (all but tab and line feed) and the marks that reorder text on screen
(bidirectional marks, overrides and isolates)."""

_INVISIBLE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"  # as _CONTROL
    "\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200d\u2028\u2029\u2060-\u2065"
    "\u206a-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff]")
"""`_CONTROL`'s, and the characters that draw nothing, or nothing of their own: Unicode's
default-ignorable code points (zero-width space, joiner and non-joiner, word joiner, soft
hyphen, byte-order mark, variation selectors, Hangul fillers, tag characters), the line and
paragraph separators, and the interlinear annotation marks."""


def visible(text: str, *, invisible: bool = False) -> str:
    """`text` with each control character or reordering mark shown as an escape (``\\x1b``,
    ``\\u202e``, ``\\U000e0041``), so that none acts on where it is shown; given `invisible`,
    each character that draws nothing too (``\\u200b``, ``\\u00ad``). Tab and line feed are
    kept."""
    return (_INVISIBLE if invisible else _CONTROL).sub(_escape, text)


def _escape(found: re.Match[str]) -> str:
    code = ord(found.group())
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
