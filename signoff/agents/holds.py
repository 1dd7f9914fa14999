"""Who steps a task: one holder at a time, and a fencing token every write of a step checks.

Whoever steps a task (a thread of some process: `holder_id`) holds it first. The task head names
the holder, until when the hold lasts, and a fence number that grows with each new holder. Every
transaction of a step begins by checking that fence (`check`, which renews the hold): a holder
that lost the task writes nothing more, and on PostgreSQL the check locks the head row, so that
a decision (which locks it first too, `lock`) and a step on the same task take turns. While a
step's call reaches outside, with nothing to write until it is back, its process renews the
hold meanwhile (`signoff.agents.runs`).

A hold is taken (`take`) when it is free, has expired, or its holder is a process on this
machine (`machine`: whose processes can be seen from here) that no longer runs, or a thread of
this process that is not stepping the task now
(`stepping` marks the steps; a task started or stepped once on one thread of a server may go on
from another): a crash is seen at once on the same machine, elsewhere when the hold expires.
(A holder of this machine whose process still runs is waited for `OUTLIVED` past its hold's
expiry: its renewal may be queued behind a long writer's lock.)
A task that stops running (it waits or ends) is let go in the same transaction that says so.
"""

from __future__ import annotations

import functools
import os
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import bindparam, select, update

from signoff.actions.running import RunAborted
from signoff.agents.repository import now
from signoff.store.prepared import prepare
from signoff.store.tables import tasks

__all__ = ["HOLD_FOR", "OUTLIVED", "Hold", "LostHold", "check", "held_by_another", "holder_id",
           "lock", "machine", "process_runs", "renew", "stepped_by_another", "stepping", "take"]

HOLD_FOR = timedelta(seconds=60)
"""How long a hold lasts without a write renewing it (a holder whose process is gone, on
another machine, is taken over after this)."""
OUTLIVED = timedelta(minutes=10)
"""How long after its hold (or lease) ran out a holder whose process still runs on this machine
is waited for before what it held is taken from it: its renewal may be queued behind a long
writer's lock. (One on another machine cannot be seen: its hold's expiry decides.)"""


@dataclass(frozen=True, kw_only=True)
class Hold:
    """This thread's hold on a task."""

    task: str
    """The task's id."""
    fence: int
    """The fence the task head had when the hold was taken: every write checks it."""


class LostHold(RunAborted):
    """Another holder took the task over: this one stops stepping it, and keeps nothing of the
    transaction it was in. (Found as an action's run begins, it ends the run before the action
    is called, as any `RunAborted` does: nothing of it is kept, and it is no failure of the
    action's. A step on SQLite of an action whose writes are records alone may find it as the
    step ends instead: the run is rolled back with all it wrote, and nothing else was done.)"""


@functools.cache
def _started(pid: int) -> str | None:
    """When process `pid` started, in clock ticks since boot (None: no such process)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as file:
            return file.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None if not _exists(pid) else "?"


def _exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def holder_id() -> str:
    """Who this is: this machine (`machine`), process (with its start, so that a reused pid is
    not taken for it) and thread."""
    pid = os.getpid()
    return f"{machine()}:{pid}:{_started(pid)}:{threading.get_ident()}"


def machine() -> str:
    """This machine, as holders' ids name it: the processes whose liveness can be seen from
    here. Its host name, and on Linux its boot and its process namespace: two hosts that share
    a host name are machines apart (each boot has an id of its own), and so are containers that
    share one (as on the host's network) but not their processes, since neither sees whether
    the other's processes run (a pid of one means nothing, or another process, in the other)."""
    host = socket.gethostname()
    return f"{host}/{_boot_and_namespace()}" if _boot_and_namespace() else host


@functools.cache
def _boot_and_namespace() -> str:
    """This boot's id and the process namespace this process lives in ("" where there are none
    to tell)."""
    try:
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as file:
            boot = file.read().strip()
        return f"{boot}/{os.stat('/proc/self/ns/pid').st_ino}"
    except OSError:
        return ""


_stepping: dict[str, set[int]] = {}
"""The threads of this process stepping each task now."""
_stepping_lock = threading.Lock()


@contextmanager
def stepping(task_id: str) -> Iterator[None]:
    """While this thread steps task `task_id` (before it holds it, until it is done with it):
    another thread of this process does not take it over."""
    me = threading.get_ident()
    with _stepping_lock:
        _stepping.setdefault(task_id, set()).add(me)
    try:
        yield
    finally:
        with _stepping_lock:
            threads = _stepping.get(task_id, set())
            threads.discard(me)
            if not threads:
                _stepping.pop(task_id, None)


def stepped_here(task_id: str) -> bool:
    """Whether a thread of this process steps task `task_id` now."""
    with _stepping_lock:
        return task_id in _stepping


def stepped_by_another(task_id: str) -> bool:
    """Whether a thread of this process other than this one steps task `task_id` now (what
    the loop keeps of the task is that thread's: one that hands the task on leaves it)."""
    me = threading.get_ident()
    with _stepping_lock:
        return any(thread != me for thread in _stepping.get(task_id, ()))


def alive(holder: str, task_id: str) -> bool:
    """Whether `holder` may still be stepping task `task_id`: a thread of this process stepping
    it now, a process on this machine that still runs, or any holder on another machine."""
    runs = process_runs(holder)
    if runs is None:
        return True  # not to be seen from here: its hold's expiry decides
    if not runs:
        return False
    _, pid, _, thread = holder.rsplit(":", 3)  # (a holder's id: `process_runs` read it)
    if int(pid) == os.getpid():
        with _stepping_lock:
            return int(thread) in _stepping.get(task_id, ())
    return runs


def held_by_another(holder: str | None, until: datetime | None, task_id: str) -> bool:
    """Whether task `task_id`, held by `holder` until `until` (as its head says), may still be
    stepped by a holder other than this thread: one `take` leaves it to. A holder whose process
    on this machine is gone holds nothing, however long its hold was to last."""
    return holder is not None and holder != holder_id() and alive(holder, task_id) and (
        not outlived(holder, until))


def outlived(holder: str, until: datetime | None) -> bool:
    """Whether a hold (or a lease) of `holder`, held `until`, has run out for others to take
    what it held: at once on another machine, and `OUTLIVED` later for a process of this
    machine that still runs (whether it does is the caller's to ask)."""
    if until is None:
        return True
    left = until - now()
    return left <= timedelta(0) if process_runs(holder) is None else left <= -OUTLIVED


def process_runs(holder: str) -> bool | None:
    """Whether the process a holder's id (`holder_id`) names still runs: None when it is a
    process of another machine, not to be seen from here (an id that is no holder's names
    none that runs)."""
    try:
        host, pid_text, started, thread = holder.rsplit(":", 3)
        pid = int(pid_text)
        int(thread)
    except ValueError:
        return False
    if host != machine():
        return None
    if pid == os.getpid():
        return True
    _started.cache_clear()  # a process's start is read afresh each time it is asked about
    return _started(pid) == started


_HEAD = select(tasks.c.holder, tasks.c.held_until, tasks.c.fence).where(
    tasks.c.id == bindparam("key")).with_for_update()
_TAKE = update(tasks).where(tasks.c.id == bindparam("key"), tasks.c.fence == bindparam("seen")
                            ).values(holder=bindparam("holder"), held_until=bindparam("until"),
                                     fence=bindparam("fence"))
_CHECK = update(tasks).where(tasks.c.id == bindparam("key"), tasks.c.fence == bindparam("fence")
                             ).values(held_until=bindparam("until"))
_LOCK = select(tasks.c.id).where(tasks.c.id == bindparam("key")).with_for_update()


def take(db: Any, task_id: str) -> Hold | None:
    """In the transaction `db`: hold task `task_id` for this thread, unless another holder
    still may be stepping it (then None)."""
    head = prepare(db, "hold_head", lambda: _HEAD).run(db, {"key": task_id}).first()
    if head is None:
        return None
    if held_by_another(head["holder"], head["held_until"], task_id):
        return None
    me, at = holder_id(), now()
    fence = head["fence"] + 1
    taken = prepare(db, "hold_take", lambda: _TAKE).run(db, {
        "key": task_id, "seen": head["fence"], "holder": me, "until": at + HOLD_FOR,
        "fence": fence})
    return Hold(task=task_id, fence=fence) if taken.rowcount == 1 else None


def check(db: Any, hold: Hold) -> None:
    """In the transaction `db`, before it writes anything of a step: the hold is still this
    thread's (renewed), else `LostHold`. On PostgreSQL the head row is locked from here on."""
    if not renew(db, hold):
        raise LostHold(f"task {hold.task} was taken over")


def renew(db: Any, hold: Hold) -> bool:
    """In the transaction `db`: renew `hold` (a step's long call runs under it); whether it is
    still this thread's."""
    return prepare(db, "hold_check", lambda: _CHECK).run(db, {
        "key": hold.task, "fence": hold.fence, "until": now() + HOLD_FOR}).rowcount == 1


def renewed() -> datetime:
    """Until when a hold renewed now lasts (a write that checks the hold's fence itself sets
    ``held_until`` to it, as `check` does)."""
    return now() + HOLD_FOR


def lock(db: Any, task_id: str) -> None:
    """In the transaction `db`: lock the task's head until it ends, so that a decision and a
    step on the same task take turns. On SQLite nothing is run: a transaction that writes holds
    the whole database already, from the write that opens it (``BEGIN IMMEDIATE``, as signoff
    begins its own) or its first, and a read locks nothing there."""
    locking = prepare(db, "hold_lock", lambda: _LOCK)
    if not locking.on_sqlite:
        locking.run(db, {"key": task_id})
