"""Telling deciders of what is put to them, at least once.

The app's handlers of `AgentProposed` (a webhook, an e-mail: `signoff.notifications`) are called
once a proposal, or its escalation to another decider, has committed. A process that stops
between the two would leave its decider never told. So a proposal is stored untold (its
`told_at` empty) when the app has such handlers, and marked told once they were called; a worker
calls them for the waiting proposals left untold longer than a live process could take to get
there (`Telling.tell_untold`), each once however many workers look at the same moment. A crash
after the handlers ran but before the mark was written tells that decider twice: the proposal's
id, in what they are told, is the same both times.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta

from sqlalchemy import and_, func, select, update

from signoff.agents import repository as repo
from signoff.agents.events import AgentProposed, Events
from signoff.agents.proposals import Proposal, ProposalStatus
from signoff.store import points
from signoff.store.database import Database
from signoff.store.tables import proposals

__all__ = ["Telling"]


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
        """Call the app's handlers for `proposal` (committed, with `told_at()`), then mark it
        told, unless a worker has since told it."""
        if not self._events.has(AgentProposed):
            return
        points.reached("proposal.told_next", proposal=proposal.id)
        self._events.emit(AgentProposed(proposal=proposal))
        with self._database.connect() as db:
            _mark_told(db, proposal.id)

    def tell_untold(self, *, older_than: timedelta, now: datetime | None = None) -> int:
        """Tell the deciders of the waiting proposals left untold since more than `older_than`
        before `now` (the time, by default; put to them, or escalated to them, by a process
        that stopped before it told them), each once: how many were told."""
        if not self._events.has(AgentProposed):
            return 0
        cutoff = (now or repo.now()) - older_than
        with self._database.connect() as db:
            untold = repo.load_proposals(db, select(proposals).where(
                proposals.c.status == ProposalStatus.WAITING.value,
                proposals.c.told_at.is_(None),
                func.coalesce(proposals.c.escalated_at, proposals.c.created_at) <= cutoff,
            ).order_by(proposals.c.created_at, proposals.c.id))
        told = 0
        for proposal in untold:
            with self._database.connect() as db:  # (one worker of several takes each)
                taken = _mark_told(db, proposal.id, waiting=True)
            if taken:
                self._events.emit(AgentProposed(proposal=replace(
                    proposal, decide_by=self._route_words(proposal))))
                told += 1
        return told


def _mark_told(db: repo.Executor, proposal_id: str, *, waiting: bool = False) -> bool:
    """Mark the proposal told, now, unless it was already (and, given `waiting`, unless it
    is no longer waiting): whether this marked it."""
    where = and_(proposals.c.id == proposal_id, proposals.c.told_at.is_(None))
    if waiting:
        where = and_(where, proposals.c.status == ProposalStatus.WAITING.value)
    changed = db.execute(update(proposals).where(where).values(told_at=repo.now()))
    return bool(changed.rowcount == 1)
