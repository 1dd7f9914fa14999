"""Calls that run outside any writer's transaction, and who runs them: their leases, kept alive.

Two kinds of call run for a while with nothing written of them until they are back: an alone
call that only reaches outside (marked running first, under its task's hold), and an approved
call that runs apart from its claim (it reaches outside, or it is a query: claimed in a
transaction of its own before it runs, recorded in another once it is back). Each is leased to
whoever runs it: the alone call by its task's hold (``signoff_tasks.holder``, ``held_until``,
`holds`), the approved one by its proposal (``run_by``: a holder's id, ``run_until``). While
such a call runs, a thread of its process renews the lease once `RENEW_EVERY` seconds have
passed since it was last set, however long the call takes; so no other process takes the task
over, or (`gone`) settles the approved call, while it still runs: only once its process is seen
to have stopped (at once on this machine) or its lease ran out unrenewed. A call still running
is never run again beside itself, nor told as of unknown outcome; and of two runs of one
approved call (its own, and one a worker made once it took it for stopped), only the first to
be recorded is.

(An alone call that writes records as well runs in its writer's transaction, which checked
the hold as it began: the transaction protects it, on SQLite by the write lock, on PostgreSQL by
the head row's lock, and it keeps no lease here; an approved one is leased all the same. A
renewal may wait on a long writer's lock: a runner of this machine whose process still runs is
waited for `holds.OUTLIVED` past its lease's end. An in-memory database is one process's alone:
its leases are known here, and not renewed.)
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from signoff.agents import holds
from signoff.agents import repository as repo
from signoff.store.database import Database
from signoff.store.utc import aware

__all__ = ["LEASE", "RENEW_EVERY", "gone", "held", "holding", "leased", "running"]

log = logging.getLogger("signoff.agents")

LEASE = timedelta(seconds=60)
"""How long an approved run is known to go on without its runner renewing it (a task's hold
lasts `holds.HOLD_FOR`)."""
RENEW_EVERY = 20.0
"""How often, in seconds, a process renews the leases of the calls it runs (it looks twice as
often: a lease goes at most one and a half times this unrenewed, or longer only while its
renewal fails)."""
_WAIT_FOR_LOCK = "2s"
"""How long a renewal waits on a row another transaction has locked (PostgreSQL), before it is
left for the next look: one blocked row does not hold up the renewal of the others."""


@dataclass(kw_only=True, eq=False)
class _Lease:
    """A lease this process keeps alive while a call runs (or while it serves a session)."""

    what: str
    """What it is the lease of, in words ("the approved call of proposal 1a2b…")."""
    database: Database
    renew: Callable[[repo.Executor], object]
    """Renews it, in a transaction of the database."""
    renewed_at: float
    """When it was last set (`time.monotonic`)."""
    kept: bool
    """Whether it is renewed (not for an in-memory database)."""


_LEASED_WORDS = {"proposal": "the approved call of proposal {}",
                 "task": "the call task {} runs", "work": "the MCP session of work {}"}
"""A lease's key, in words, for the log."""

_leases: dict[tuple[str, str], list[_Lease]] = {}
"""The leases of the calls this process runs now: ("proposal", id) or ("task", id), each with
every run of this process that holds it (two approvals of one proposal may race to claim it)."""
_lock = threading.Lock()
_pace: list[float] = []
"""The pace (seconds) of the thread renewing them, while there is one."""
_sooner = threading.Event()
"""Set when a lease wants a quicker pace than the thread keeps (`RENEW_EVERY` was lowered)."""


@contextmanager
def running(database: Database, proposal_id: str) -> Iterator[Callable[[], dict[str, Any]]]:
    """While the block runs, this thread runs the approved call of `proposal_id`, to be
    claimed with the columns the callable given makes (its lease from then: call it in the
    claiming transaction, once it has the task's lock): the lease is renewed, and a worker of
    this process does not take the call for stopped."""
    me = holds.holder_id()

    def renew(db: repo.Executor) -> None:
        repo.renew_run(db, proposal_id, me, repo.now() + LEASE)

    with leased(("proposal", proposal_id), database, renew) as lease:

        def columns() -> dict[str, Any]:
            lease.renewed_at = time.monotonic()
            return {"run_by": me, "run_until": repo.now() + LEASE}

        yield columns


@contextmanager
def holding(database: Database, hold: holds.Hold) -> Iterator[None]:
    """While the block runs (a call under `hold` that only reaches outside), the hold is
    renewed."""
    with leased(("task", hold.task), database, lambda db: holds.renew(db, hold)):
        yield


@contextmanager
def leased(key: tuple[str, str], database: Database,
           renew: Callable[[repo.Executor], object]) -> Iterator[_Lease]:
    """While the block runs, `renew` is called (in a transaction of `database`) each time
    `RENEW_EVERY` seconds have passed since the lease `key` names was last set, by this
    process's renewing thread; not for an in-memory database, which no other process sees."""
    lease = _Lease(what=_LEASED_WORDS.get(key[0], "{}").format(key[1]), database=database,
                   renew=renew, renewed_at=time.monotonic(),
                   kept=not (database.is_sqlite and database.file is None))
    with _lock:
        _leases.setdefault(key, []).append(lease)
    try:
        if lease.kept:
            _keep_renewing()
        yield lease
    finally:
        with _lock:
            held = [other for other in _leases.get(key, ()) if other is not lease]
            if held:
                _leases[key] = held
            else:
                _leases.pop(key, None)


def held() -> list[tuple[str, str]]:
    """The leases this process keeps now, by kind and id (``("work", id)`` for a session it
    serves, ``("proposal", id)``, ``("task", id)`` for a call it runs)."""
    with _lock:
        return list(_leases)


def _keep_renewing() -> None:
    """See that a thread renews the leases, at the pace set now."""
    with _lock:
        if _pace:
            if _pace[0] > RENEW_EVERY:
                _sooner.set()
            return
        threading.Thread(target=_renew, name="signoff-leases", daemon=True).start()
        _pace.append(RENEW_EVERY)  # (once it has started: one that could not start is none)


def gone(proposal_id: str, run_by: str | None, run_until: datetime | None,
         decided_at: datetime | None, cutoff: datetime) -> bool:
    """Whether the runner of an approved call is gone, so that it is for a worker to settle:
    this process does not run it now, the process of this machine that ran it no longer runs
    (or has let its lease go unrenewed `holds.OUTLIVED` past its end), or (of another machine)
    its lease has run out. A call approved before runs were leased is gone once it was decided
    before `cutoff`."""
    if run_by is None:
        return decided_at is not None and aware(decided_at) <= cutoff
    runs = holds.process_runs(run_by)
    if runs and int(run_by.rsplit(":", 3)[1]) == os.getpid():
        with _lock:
            return ("proposal", proposal_id) not in _leases
    return runs is False or holds.outlived(run_by, run_until)


def _renew() -> None:
    """Renew each lease this process keeps once `RENEW_EVERY` seconds have passed since it was
    last set, looking twice as often, until it keeps none."""
    while True:
        with _lock:
            pace = _pace[0] if _pace else RENEW_EVERY
        _sooner.wait(pace / 2)
        _sooner.clear()
        with _lock:
            kept = [lease for held in _leases.values() for lease in held if lease.kept]
            if not kept:
                _pace.clear()
                return
            _pace[0] = RENEW_EVERY
        at = time.monotonic()
        for lease in kept:
            if at - lease.renewed_at < RENEW_EVERY:
                continue
            try:
                with lease.database.connect() as db:
                    if db.dialect.name == "postgresql":
                        db.exec_driver_sql(f"SET LOCAL lock_timeout = '{_WAIT_FOR_LOCK}'")
                    lease.renew(db)
            except Exception as error:  # looked at again soon: a lease has time to spare
                log.warning("The lease of %s could not be renewed (tried again in %.0f s): %s",
                            lease.what, RENEW_EVERY / 2, error)
            else:
                lease.renewed_at = at


def _forget_in_child() -> None:
    """A process forked from this one runs none of its calls, and has no renewing thread."""
    global _lock, _sooner
    _lock, _sooner = threading.Lock(), threading.Event()
    _leases.clear()
    _pace.clear()


os.register_at_fork(after_in_child=_forget_in_child)
