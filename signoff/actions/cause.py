"""The cause a run travels with, and everything it sets off: ``signoff.current_cause()``."""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["current_cause", "running_for"]

_cause: contextvars.ContextVar[str] = contextvars.ContextVar("signoff_cause", default="")


def current_cause() -> str:
    """Why the code now running runs ("" when nobody said)."""
    return _cause.get()


@contextmanager
def running_for(cause: str) -> Iterator[str]:
    """Run the block with `cause` as the current cause (an empty cause keeps the one in force)."""
    token = _cause.set(cause or _cause.get())
    try:
        yield _cause.get()
    finally:
        _cause.reset(token)
