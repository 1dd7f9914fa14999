"""Approved calls that run apart from their claim, and who runs them.

A call approved to reach outside (or a query) is claimed in a transaction of its own before it
runs, and recorded in another once it is back. In between, its proposal says who runs it
(``run_by``: a holder's id, `holds.holder_id`) and until when they are known to (``run_until``,
renewed every `RENEW_EVERY` while it runs, by a thread of the process that runs it). A worker
settles such a call (`gone`) only once its runner is gone: this process not running it now, a
process of this machine that no longer runs, or a lease not renewed in time. A call still
running, however long it takes, is never run again beside itself nor told as of unknown outcome;
and of two runs of one call (its own, and one a worker made once it took it for stopped), only
the first to be recorded is.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from signoff.agents import holds
from signoff.agents import repository as repo
from signoff.store.database import Database

__all__ = ["LEASE", "RENEW_EVERY", "gone", "running"]

log = logging.getLogger("signoff.agents")

LEASE = timedelta(seconds=60)
"""How long an approved run is known to go on without its runner renewing it."""
RENEW_EVERY = 20.0
"""How often, in seconds, a process renews the leases of the approved calls it runs."""

@dataclass(kw_only=True)
class _Run:
    """An approved call this process runs."""

    database: Database
    run_by: str
    """The holder's id it is leased to."""
    leased_at: float
    """When its lease was last set (`time.monotonic`)."""


_running: dict[str, _Run] = {}
"""The approved calls this process runs now, by proposal."""
_lock = threading.Lock()
_renewing: list[threading.Thread] = []
"""The thread renewing their leases, while there are any."""
_began = threading.Event()
"""Set when a run begins: the renewing thread wakes (and goes on at the pace set now)."""


@contextmanager
def running(database: Database, proposal_id: str) -> Iterator[dict[str, Any]]:
    """While the block runs, this thread runs the approved call of `proposal_id`, claimed (or
    to be claimed) with the columns given (its lease, from now): the lease is renewed, and a
    worker of this process does not take the call for stopped."""
    me = holds.holder_id()
    with _lock:
        _running[proposal_id] = _Run(database=database, run_by=me, leased_at=time.monotonic())
        if not _renewing:
            thread = threading.Thread(target=_renew, name="signoff-approved-runs", daemon=True)
            _renewing.append(thread)
            thread.start()
    _began.set()
    try:
        yield {"run_by": me, "run_until": repo.now() + LEASE}
    finally:
        with _lock:
            _running.pop(proposal_id, None)


def gone(proposal_id: str, run_by: str | None, run_until: datetime | None,
         decided_at: datetime | None, cutoff: datetime) -> bool:
    """Whether the runner of an approved call is gone, so that it is for a worker to settle:
    this process does not run it now, the process of this machine that ran it no longer runs,
    or (of another machine) its lease has run out. A call approved before runs were leased is
    gone once it was decided before `cutoff`."""
    if run_by is None:
        return decided_at is not None and repo.aware(decided_at) <= cutoff
    runs = holds.process_runs(run_by)
    if runs and int(run_by.rsplit(":", 3)[1]) == os.getpid():
        with _lock:
            return proposal_id not in _running
    expired = run_until is None or repo.aware(run_until) <= repo.now()
    return expired or runs is False


def _renew() -> None:
    """Renew the leases of the approved calls this process runs, each once `RENEW_EVERY`
    seconds have passed since it was last set, until it runs none. (It wakes as each run
    begins, so that a pace set since holds from then on.)"""
    while True:
        _began.wait(RENEW_EVERY)
        _began.clear()
        at = time.monotonic()
        with _lock:
            if not _running:
                _renewing.clear()
                return
            due: dict[int, tuple[Database, list[tuple[str, str]]]] = {}
            for proposal_id, run in _running.items():
                if at - run.leased_at >= RENEW_EVERY:
                    run.leased_at = at
                    due.setdefault(id(run.database), (run.database, []))[1].append(
                        (proposal_id, run.run_by))
        until = repo.now() + LEASE
        for database, leased in due.values():
            try:
                with database.connect() as db:
                    for proposal_id, run_by in leased:
                        repo.renew_run(db, proposal_id, run_by, until)
            except Exception:  # tried again next round: a lease has time to spare
                log.exception("The leases of approved calls being run could not be renewed")
