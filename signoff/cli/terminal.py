"""What reaches a person's terminal: text a model, a tool or a source wrote is shown as written,
with nothing in it that the terminal would act on.

A receipt, a proposal's reason, a tool's answer can hold control characters (an escape sequence
that moves the cursor or recolours the screen, a NUL) or the marks that reorder text on screen
(a right-to-left override makes a line read backwards): each is shown as an escape instead
(``\\x1b``, ``\\u202e``), so that a line says what it holds.
"""

from __future__ import annotations

import re

import click

__all__ = ["say", "visible"]

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
"""Control characters (all but tab and line feed) and the marks that reorder text on screen
(bidirectional marks, overrides and isolates)."""


def visible(text: str) -> str:
    """`text` with each control character or reordering mark shown as an escape (``\\x1b``,
    ``\\u202e``), so that none reaches the terminal."""
    return _CONTROL.sub(lambda m: (f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100
                                   else f"\\u{ord(m.group()):04x}"), text)


def say(text: str, *, err: bool = False) -> None:
    """Print a line of text for a person (`visible`), to stdout, or stderr given `err`."""
    click.echo(visible(text), err=err)
