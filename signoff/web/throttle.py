"""How many wrong passwords the login form takes: a few, then a pause.

Wrong passwords are counted by where they come from and the handle they were tried for. After
`LoginThrottle.allowed` of them within `LoginThrottle.window_seconds`, that address may not try
that handle again until the first of them is older than the window; a right password clears
the count. Counting by address and handle together means nobody can lock a person out from
elsewhere, and a guesser must wait whichever handles they try. The counts live in the server's
memory: a restart forgets them, and each server process counts its own.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable

__all__ = ["LoginThrottle"]


class LoginThrottle:
    """Wrong passwords by (address, handle), and how long each pair must wait."""

    def __init__(self, *, allowed: int = 5, window_seconds: float = 900.0, keep: int = 10_000,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.allowed = allowed
        """Wrong passwords taken within the window before a pause."""
        self.window_seconds = window_seconds
        """How long a wrong password counts."""
        self._keep = keep
        self._clock = clock
        self._failed: OrderedDict[tuple[str, str], deque[float]] = OrderedDict()
        self._lock = threading.Lock()

    def wait_seconds(self, address: str, handle: str) -> int:
        """How many seconds this address must wait before trying this handle again (0: it may
        try now)."""
        key = (address, handle.strip().lower())
        with self._lock:
            times = self._recent(key)
            if len(times) < self.allowed:
                return 0
            return max(1, math.ceil(times[0] + self.window_seconds - self._clock()))

    def failed(self, address: str, handle: str) -> None:
        """Count one wrong password."""
        key = (address, handle.strip().lower())
        with self._lock:
            times = self._recent(key)
            times.append(self._clock())
            self._failed[key] = times
            self._failed.move_to_end(key)
            while len(self._failed) > self._keep:  # the oldest pairs go first
                self._failed.popitem(last=False)

    def succeeded(self, address: str, handle: str) -> None:
        """A right password: the pair's count starts again."""
        with self._lock:
            self._failed.pop((address, handle.strip().lower()), None)

    def _recent(self, key: tuple[str, str]) -> deque[float]:
        times = self._failed.get(key, deque())
        since = self._clock() - self.window_seconds
        while times and times[0] <= since:
            times.popleft()
        if not times:
            self._failed.pop(key, None)
        return times
