"""What reaches a person's terminal: text a model, a tool or a source wrote is shown as written,
with nothing in it that the terminal would act on.

A receipt, a proposal's reason, a tool's answer can hold control characters (an escape sequence
that moves the cursor or recolours the screen, a NUL) or the marks that reorder text on screen
(a right-to-left override makes a line read backwards): each is shown as an escape instead
(``\\x1b``, ``\\u202e``: `signoff.escapes.visible`), so that a line says what it holds.
"""

from __future__ import annotations

import click

from signoff.escapes import visible

__all__ = ["say", "visible"]


def say(text: str, *, err: bool = False) -> None:
    """Print a line of text for a person (`visible`), to stdout, or stderr given `err`."""
    click.echo(visible(text), err=err)
