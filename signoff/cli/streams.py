"""The command's own standard streams, when their other end is gone.

A stderr whose reader is gone (a pipe closed early: ``signoff … 2> >(head -c0)``, a terminal
that went away) made the command's last words fail: writing its error raised a broken pipe,
which click turned into exit 1 whatever the failure was. While a command runs, stderr is
`StderrMayBeGone`: a write that finds its reader gone goes nowhere from then on
(`gone_nowhere`), and the exit code is the one the failure has.

A stderr closed before the command started (``signoff … 2>&-``: Python then has no
`sys.stderr`) sent click's report of a usage error or a failure to stdout, into what a script
reads there; while a command runs, such a stderr is the null device, and stdout holds only
the command's output.

Output that must reach someone (a new token, shown once) is written with `written_out`, which
tells whether it was.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import Any

import click

__all__ = ["StderrMayBeGone", "gone_nowhere", "stderr_may_be_gone", "written_out"]


def gone_nowhere(stream: Any) -> None:
    """From now on, what is written to `stream` (whose reader is gone) goes to the null device,
    so that nothing more fails for it, Python's flush at exit included; what it still holds is
    let go there. (A stream that is no file, as in the tests' runner, is left as it is.)"""
    try:
        number = stream.fileno()
    except (AttributeError, OSError, ValueError):  # (io.UnsupportedOperation is both)
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, number)
    finally:
        os.close(devnull)
    with contextlib.suppress(OSError, ValueError):
        stream.flush()


class StderrMayBeGone:
    """Stderr, whose writes go nowhere once its reader is gone instead of failing."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        """The stream written to."""

    def write(self, text: str) -> int:
        """Write `text`; all of it is taken as written when the reader is gone."""
        try:
            return int(self.stream.write(text))
        except BrokenPipeError:
            gone_nowhere(self.stream)
            return len(text)

    def flush(self) -> None:
        """Flush, to nowhere when the reader is gone."""
        try:
            self.stream.flush()
        except BrokenPipeError:
            gone_nowhere(self.stream)

    def __getattr__(self, name: str) -> Any:  # (encoding, fileno, isatty, …: the stream's own)
        return getattr(self.stream, name)


@contextlib.contextmanager
def stderr_may_be_gone() -> Iterator[None]:
    """While it runs, `sys.stderr` is `StderrMayBeGone`: over the stderr there is, or over the
    null device when there is none (closed: click writes its errors to stdout then)."""
    kept = sys.stderr
    if isinstance(kept, StderrMayBeGone):
        yield
        return
    nowhere = open(os.devnull, "w", encoding="utf-8") if kept is None else None  # noqa: SIM115
    sys.stderr = StderrMayBeGone(kept if nowhere is None else nowhere)
    try:
        yield
    finally:
        sys.stderr = kept
        if nowhere is not None:
            nowhere.close()


def written_out(text: str) -> bool:
    """Print `text` and a line ending to stdout, flushed; whether it was written: False when
    there is no stdout (closed: ``>&-``) or its reader is gone (a pipe closed early: ``| true``),
    and then nothing more written to stdout fails."""
    if sys.stdout is None:
        return False
    try:
        click.echo(text)  # (flushed)
    except BrokenPipeError:
        gone_nowhere(sys.stdout)
        return False
    return True
