"""How many wrong passwords the login form takes: a few, then a pause.

Tries are counted by where they come from and whom they are for (the person, however the form
named them; else the words typed). After `LoginThrottle.allowed` tries for one person from one
address within `LoginThrottle.window_seconds` that were not a right password, that address
waits until the first of them is older than the window; a right password starts its count
again. So nobody can lock a person out from elsewhere with a few tries. From every address
together a person takes `LoginThrottle.allowed_in_all` such tries in the window, a bound on
guessing from addresses that change (or that a client names itself, as a proxy's header).

A try is counted as it begins, before its password is checked, so that tries made at once are
counted as surely as tries made one after another. The counts live in the server's memory: a
restart forgets them, and each server process counts its own.

Memory is kept to about `keep` counts by forgetting some once there are more: first those that no
longer count, then those with the fewest tries (the oldest first among equals), never one that
makes its address (or, from every address, its person) wait. So a flood of tries at names nobody
has, one each, does not forget the count of the person being guessed at (which would give the
guesser five new tries each time): a count is forgotten only after every count of fewer tries.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from typing import Any

__all__ = ["LoginThrottle"]

_LONGEST = 320
"""The most characters of what was typed kept as a key (an e-mail address has at most 254)."""


class LoginThrottle:
    """Tries by (address, person), and how long each must wait."""

    def __init__(self, *, allowed: int = 5, allowed_in_all: int = 50,
                 window_seconds: float = 900.0, keep: int = 10_000,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.allowed = allowed
        """Tries for one person from one address within the window before a pause."""
        self.allowed_in_all = allowed_in_all
        """Tries for one person from every address together within the window."""
        self.window_seconds = window_seconds
        """How long a try counts."""
        self._keep = keep
        self._clock = clock
        self._pairs: OrderedDict[tuple[str, str], deque[float]] = OrderedDict()
        self._people: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def begin(self, address: str, who: str) -> int:
        """A try for `who` from `address`: 0 when it may go on (it is then counted until
        `succeeded` says it was right), else how many seconds to wait (it is not counted)."""
        pair, person = (address, _key(who)), _key(who)
        with self._lock:
            now = self._clock()
            tries = self._recent(self._pairs.get(pair), now)
            everyone = self._recent(self._people.get(person), now)
            full = [times for times, most in ((tries, self.allowed),
                                              (everyone, self.allowed_in_all))
                    if len(times) >= most]
            if full:
                return max(1, math.ceil(max(times[0] for times in full)
                                        + self.window_seconds - now))
            tries.append(now)
            everyone.append(now)
            self._pairs[pair] = tries
            self._pairs.move_to_end(pair)
            self._people.pop(person, None)  # (kept in the order of their last try, as pairs)
            self._people[person] = everyone
            if len(self._pairs) > self._keep or len(self._people) > self._keep:
                self._forget(now, pair, person)
            return 0

    def succeeded(self, address: str, who: str) -> None:
        """The try was a right password: the pair's tries no longer count."""
        with self._lock:
            tries = self._pairs.pop((address, _key(who)), ())
            everyone = self._people.get(_key(who))
            for at in tries:
                if everyone is not None and at in everyone:
                    everyone.remove(at)

    def _recent(self, times: deque[float] | None, now: float) -> deque[float]:
        times = deque() if times is None else times
        while times and times[0] <= now - self.window_seconds:
            times.popleft()
        return times

    def _forget(self, now: float, pair: tuple[str, str], person: str) -> None:
        """Past the counts kept: those that no longer count go first, then those with the fewest
        tries, the oldest first among equals (a tenth of `keep` more at once, so that a flood
        of new names does not sort the counts at every try); never one that makes someone
        wait."""
        self._shed(self._pairs, self.allowed, now, pair)
        self._shed(self._people, self.allowed_in_all, now, person)

    def _shed(self, counts: dict[Any, deque[float]], most: int, now: float,
              current: Any) -> None:
        """`_forget`, for one kind of count (`most` tries of one make someone wait)."""
        for key in [k for k, times in counts.items() if not self._recent(times, now)]:
            del counts[key]
        over = len(counts) - self._keep
        if over > 0:
            # (sorted is stable: among equal counts, in the order of their last try, oldest first)
            # (never the count this try was just added to: forgotten, the try after it would
            # go through uncounted, and so on for ever once the others all make someone wait)
            forgettable = sorted((k for k, times in counts.items()
                                  if len(times) < most and k != current),
                                 key=lambda k: len(counts[k]))
            for key in forgettable[:over + self._keep // 10]:
                del counts[key]


def _key(who: str) -> str:
    return who.strip().lower()[:_LONGEST]
