"""A child process that is to die by SIGKILL at a named point (`signoff.store.points`), as a
crash does: the crash tests start one and check that it died so, not by an error of its own."""

from __future__ import annotations

import multiprocessing
import signal
from typing import Any


def run_until_killed(target: Any, *args: Any) -> None:
    """Run `target(*args)` in a spawned child, and wait for it: it must end by SIGKILL."""
    child = multiprocessing.get_context("spawn").Process(target=target, args=args)
    child.start()
    child.join(timeout=120)
    assert child.exitcode == -signal.SIGKILL, f"the child ended with {child.exitcode}"
