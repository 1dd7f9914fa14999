"""Stopping the tests cleanly: SIGTERM is raised as KeyboardInterrupt while a server of the tests
runs, as Ctrl-C is, so that what is being left runs its ``finally`` and stops that server.

Python's default for SIGTERM (``kill PID``, a CI runner cancelling a job, a timeout) ends the
process at once: pytest's fixtures are not torn down, and a PostgreSQL server or Temporal dev
server they started is left running, with its directory. Raised as KeyboardInterrupt, pytest
stops as it does for Ctrl-C: it ends the test, tears the fixtures down, and exits 2.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

__all__ = ["terminated_as_interrupted"]


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"Stopped by {signal.Signals(signum).name}.")


@contextmanager
def terminated_as_interrupted() -> Iterator[None]:
    """While the block runs, SIGTERM raises KeyboardInterrupt in the main thread; afterwards it
    is handled as before. Outside the main thread (where Python cannot handle signals) it
    changes nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.signal(signal.SIGTERM, _interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)
