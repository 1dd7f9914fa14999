"""Ports on 127.0.0.1 for the tests' servers: any the system gives, or, when
``SIGNOFF_TEST_PORTS`` names a range (``24000-24999``), one of it — so that several runs of the
tests side by side keep out of each other's ports."""

from __future__ import annotations

import os
import socket

__all__ = ["free_port", "kept_range"]


def kept_range() -> range | None:
    """The ports ``SIGNOFF_TEST_PORTS`` keeps the tests to, or None when it names none."""
    low, _, high = os.environ.get("SIGNOFF_TEST_PORTS", "").partition("-")
    return range(int(low), int(high) + 1) if low.isdigit() and high.isdigit() else None


def free_port() -> int:
    """A port nothing listens on now (of `kept_range` when there is one)."""
    for port in kept_range() or (0,):
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return int(probe.getsockname()[1])
    raise OSError(f"No port of SIGNOFF_TEST_PORTS={os.environ['SIGNOFF_TEST_PORTS']} is free.")
