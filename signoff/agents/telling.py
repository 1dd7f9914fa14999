"""Telling deciders of what is put to them, at least once.

The app's handlers of `AgentProposed` (a webhook, an e-mail: `signoff.notifications`) are called
once a proposal, or its escalation to another decider, has committed. A process that stops
between the two would leave its decider never told, and so would a receiver down at that moment.
So a proposal is stored untold (its `told_at` empty) when the app has such handlers, and marked
told once they took it; one they did not take (a handler raised: `NotTold`) is tried again later
(`tell_next_at`, further apart each time: `AGAIN_AFTER`), up to `MOST_TRIES` times in all. A
worker tells the waiting proposals left untold (`Telling.tell_untold`): those whose next try has
come, and those no try was made of for longer than a live process could take to make one; each
taken by one worker however many look at the same moment, and tried again if that worker stops.

Told again, a handler is called again: a webhook or a mail that did go out before a crash, or
beside a handler that failed, goes out twice, under the same notice (`notice_key`), which a
receiver keeps to show nothing twice.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Select, and_, func, or_, select, update

from signoff.agents import repository as repo
from signoff.agents.events import AgentProposed, Events
from signoff.agents.proposals import Proposal, ProposalStatus
from signoff.store import points
from signoff.store.database import Database
from signoff.store.tables import proposals

__all__ = ["AGAIN_AFTER", "MOST_TRIES", "Telling"]

log = logging.getLogger("signoff.agents")

AGAIN_AFTER = (timedelta(minutes=1), timedelta(minutes=5), timedelta(minutes=30),
               timedelta(hours=2), timedelta(hours=6), timedelta(hours=12))
"""How long after each try that was not taken the next is made (after the first, a minute; then
five; ... the last of these after each further try)."""

MOST_TRIES = 8
"""The most tries made to tell of one proposal (or of one escalation): about a day and a half."""


class Telling:
    """Tells the app's handlers of `AgentProposed` of each proposal, and keeps when it did."""

    def __init__(self, *, database: Database, events: Events,
                 route_words: Callable[[Proposal], str]) -> None:
        self._database = database
        self._events = events
        self._route_words = route_words

    def told_at(self) -> datetime | None:
        """What a proposal is stored with as its `told_at`: None (not yet told) when the app
        has handlers to call once it has committed; the time when there are none (there is
        nobody to tell, and nothing for a worker to do)."""
        return None if self._events.has(AgentProposed) else repo.now()

    def tell(self, proposal: Proposal) -> None:
        """Call the app's handlers for `proposal` (committed, with `told_at()`, and tried
        never), then mark it told, or, when one of them did not take it, when it is tried
        next."""
        if not self._events.has(AgentProposed):
            return
        points.reached("proposal.told_next", proposal=proposal.id)
        took = self._events.emit(AgentProposed(proposal=proposal))
        with self._database.connect() as db:
            if took:
                _mark_told(db, proposal.id)
            else:
                _put_off(db, proposal.id, tried=0)

    def tell_untold(self, *, older_than: timedelta, now: datetime | None = None) -> int:
        """Tell the deciders of the waiting proposals left untold whose next try has come by
        `now` (the time, by default), and of those never tried since more than `older_than`
        before it (put, or escalated, to them by a process that stopped before it told them),
        each once: how many were told."""
        if not self._events.has(AgentProposed):
            return 0
        at = now or repo.now()
        c = proposals.c
        with self._database.connect() as db:
            untold = [(p, tries) for p, tries in _with_tries(db, select(proposals).where(
                c.status == ProposalStatus.WAITING.value, c.told_at.is_(None),
                c.tell_tries < MOST_TRIES,
                or_(c.tell_next_at <= at, and_(
                    c.tell_next_at.is_(None),
                    func.coalesce(c.escalated_at, c.created_at) <= at - older_than)),
            ).order_by(c.created_at, c.id))]
        told = 0
        for proposal, tries in untold:
            with self._database.connect() as db:  # (one worker of several takes each)
                taken = _put_off(db, proposal.id, tried=tries, at=at)
            if not taken:
                continue
            if self._events.emit(AgentProposed(proposal=replace(
                    proposal, decide_by=self._route_words(proposal)))):
                with self._database.connect() as db:
                    _mark_told(db, proposal.id)
                told += 1
            elif tries + 1 >= MOST_TRIES:
                log.warning("Nobody was told of proposal %s (%s) after %d tries: it is not "
                            "tried again. It waits in the inbox all the same.", proposal.id,
                            proposal.label, MOST_TRIES)
        return told


def _with_tries(db: repo.Executor, query: Select[Any]) -> list[tuple[Proposal, int]]:
    """The proposals `query` selects, each with how often it was tried."""
    return [(repo.proposal_from(row), int(row["tell_tries"]))
            for row in db.execute(query).mappings()]


def _mark_told(db: repo.Executor, proposal_id: str) -> None:
    """Mark the proposal told, now (unless it was already)."""
    db.execute(update(proposals).where(
        proposals.c.id == proposal_id, proposals.c.told_at.is_(None),
    ).values(told_at=repo.now(), tell_next_at=None))


def _put_off(db: repo.Executor, proposal_id: str, *, tried: int,
             at: datetime | None = None) -> bool:
    """Count a try of telling of the proposal, tried `tried` times before, and put its next
    try off (`AGAIN_AFTER`), unless it was told or tried meanwhile: whether this counted it.
    A worker counts its try before it makes it: should it stop, the next try is made then."""
    again = AGAIN_AFTER[min(tried, len(AGAIN_AFTER) - 1)]
    changed = db.execute(update(proposals).where(
        proposals.c.id == proposal_id, proposals.c.told_at.is_(None),
        proposals.c.tell_tries == tried,
    ).values(tell_tries=tried + 1, tell_next_at=(at or repo.now()) + again))
    return bool(changed.rowcount == 1)
