"""A crash at a named point of signoff's work, made certain: the work runs in a forked child
that SIGKILLs itself when it reaches the point (`signoff.store.points`)."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from typing import Any

from signoff import App
from signoff.store import points

__all__ = ["killed_at"]


def killed_at(point: str, body: Callable[[], Any], app: App) -> int:
    """Run `body` in a forked child that SIGKILLs itself at `point`; its exit code
    (``-signal.SIGKILL`` when it got there)."""
    app.database.dispose()  # no pooled connection crosses the fork
    pid = os.fork()
    if pid == 0:  # the child
        def die(reached: str, _where: dict[str, Any]) -> None:
            if reached == point:
                os.kill(os.getpid(), signal.SIGKILL)

        try:
            with points.pausing(die):
                body()
        finally:
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)
