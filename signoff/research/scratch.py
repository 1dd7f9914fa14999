"""The scratch files of index builds: a build writes the index to a scratch file beside it and
moves it into place whole; a build whose process was killed leaves its scratch file behind, as
large as the index and never used, which the next build removes (`sweep`)."""

from __future__ import annotations

import glob
import os
import time
from pathlib import Path

__all__ = ["sweep"]

_ABANDONED_AFTER = 3600.0
"""How long, in seconds, a build's scratch file that names no process may go unwritten
before it is taken for one whose process was killed."""


def sweep(path: Path) -> None:
    """Remove the scratch files of builds of the index at `path` whose process was killed (a
    build named for a process no longer running; one named for none, unwritten for an hour):
    each was left behind, as large as the index, and never used. Builds under way are left
    alone."""
    for scratch in path.parent.glob(f"{glob.escape(path.name)}.*.building*"):
        owner = scratch.name[len(path.name) + 1:].split(".", 1)[0]
        try:
            if owner.isdigit():
                if _running(int(owner)):
                    continue
            elif time.time() - scratch.stat().st_mtime < _ABANDONED_AFTER:
                continue
            scratch.unlink()
        except OSError:  # gone meanwhile, or not ours to remove: left as it is
            continue


def _running(pid: int) -> bool:
    """Whether a process `pid` runs on this machine (one of another user's counts)."""
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):  # (no process has such a number)
        return False
    except PermissionError:
        return True
    return True
