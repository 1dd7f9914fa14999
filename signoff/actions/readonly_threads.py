"""Threads held by the read-only guard: a guarded call may not start a thread, nor hand work to
a thread pool already running, whose code would go on outside the guard (a thread does not
inherit the context the guard is held in) and after the call has returned.

No audit event is raised as a thread starts, so `hold_threads` wraps, once for the process,
what every way to start one comes to (``threading``'s start of a new thread, under
``Thread.start``; ``_thread.start_new_thread`` and its kin) and the work item a
``ThreadPoolExecutor`` queues for its threads. It wraps what lies under the calls an app makes
(``Thread.start``, ``submit``), not those calls: the effect analysis knows them by what they
are, and would read a wrapper in their place as the app's code. Unguarded, each wrapper costs
one call that reads a context variable. What a thread the app started before the call is
handed another way (a queue it reads, a pool of processes already running) is not seen.
"""

from __future__ import annotations

import _thread
import threading
from collections.abc import Callable
from concurrent.futures import thread as thread_pools
from typing import Any

__all__ = ["hold_threads"]

Refusal = Callable[[str, str], BaseException | None]
"""What to raise for what a guarded call tried (its words, its event's name), or None to let
it be (no guard, or the app's own logging handler at work)."""

_STARTS = ("_start_new_thread", "_start_joinable_thread")
"""What ``threading.Thread.start`` calls to start the thread (by Python's version)."""
_LOW_STARTS = ("start_new_thread", "start_new", "start_joinable_thread")


def hold_threads(refusal: Refusal) -> None:
    """Refuse, with what `refusal` gives, starting a thread and handing work to a thread pool
    (for the process's life: call once)."""
    for name in _STARTS:
        start = getattr(threading, name, None)
        if start is not None:
            setattr(threading, name, _held(refusal, start, "start a thread", f"threading.{name}"))
    for name in _LOW_STARTS:
        start = getattr(_thread, name, None)
        if start is not None:
            setattr(_thread, name, _held(refusal, start, "start a thread", f"_thread.{name}"))
    queued = thread_pools._WorkItem

    class HeldWorkItem(queued):  # type: ignore[valid-type,misc]
        """Work a ``ThreadPoolExecutor`` is given, refused before it is queued."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            _refused(refusal, "hand work to a thread pool", "ThreadPoolExecutor.submit")
            super().__init__(*args, **kwargs)

    thread_pools._WorkItem = HeldWorkItem  # type: ignore[misc]


def _held(refusal: Refusal, start: Callable[..., Any], what: str, event: str
          ) -> Callable[..., Any]:
    def held(*args: Any, **kwargs: Any) -> Any:
        _refused(refusal, what, event)
        return start(*args, **kwargs)

    return held


def _refused(refusal: Refusal, what: str, event: str) -> None:
    refused = refusal(what, event)
    if refused is not None:
        raise refused
