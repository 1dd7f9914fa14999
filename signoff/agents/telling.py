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

Each handler that takes a notice is kept with the proposal as it does (`told_to`, by the
handler's name: `Events.names`), before the next is called: a try after the first calls only
the handlers that have not taken it (a mail that went out beside a webhook that was down is not
sent again at each try), whether the last was cut short by a handler that failed or by a process
that stopped. The handlers are those of the process making the try: one added since is called,
one removed is not waited for. An escalation is a notice of its own, which every handler takes
anew (`told_to` holds the names for one notice: the proposal's escalations as it was kept).

A handler is called again when the process that called it stopped before it kept that it took
the notice (or it did not answer in time): a webhook or a mail may go out twice, under the same
notice (`notice_key`), which a receiver keeps to show nothing twice.
"""

from __future__ import annotations

import json
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
        took = self._emit(proposal, told=frozenset(), last_try=MOST_TRIES <= 1)
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
            untold = _with_tries(db, select(proposals).where(
                c.status == ProposalStatus.WAITING.value, c.told_at.is_(None),
                c.tell_tries < MOST_TRIES,
                or_(c.tell_next_at <= at, and_(
                    c.tell_next_at.is_(None),
                    func.coalesce(c.escalated_at, c.created_at) <= at - older_than)),
            ).order_by(c.created_at, c.id))
        told = 0
        for proposal, tries, took_before in untold:
            with self._database.connect() as db:  # (one worker of several takes each)
                taken = _put_off(db, proposal.id, tried=tries, at=at)
            if not taken:
                continue
            last = tries + 1 >= MOST_TRIES
            took_now: list[str] = []
            if self._emit(replace(proposal, decide_by=self._route_words(proposal)),
                          told=took_before, last_try=last, took_now=took_now):
                with self._database.connect() as db:
                    _mark_told(db, proposal.id)
                told += 1
            elif last:
                self._give_up(proposal, took_before | set(took_now))
        return told

    def _emit(self, proposal: Proposal, *, told: frozenset[str], last_try: bool,
              took_now: list[str] | None = None) -> bool:
        """Call the handlers of `proposal` that have not taken its notice (those named in
        `told` have), keeping each that takes it as it does, before the next is called (all
        but the last, when all before it took it too: the proposal is marked told next), and
        adding its name to `took_now`: whether all took it."""
        calling = [name for name in self._events.names(AgentProposed) if name not in told]
        took_now = [] if took_now is None else took_now

        def took(name: str) -> None:
            if name != calling[-1] or len(took_now) < len(calling) - 1:
                with self._database.connect() as db:
                    _keep_took(db, proposal, name)
            took_now.append(name)
            points.reached("proposal.handler_took", proposal=proposal.id, handler=name)

        return self._events.emit(AgentProposed(proposal=proposal, last_try=last_try),
                                 told=told, took=took)

    def _give_up(self, proposal: Proposal, took: frozenset[str]) -> None:
        """Say that `proposal` is not told again, `MOST_TRIES` made, and who did not take it."""
        left = [name for name in self._events.names(AgentProposed) if name not in took]
        if len(left) == len(self._events.names(AgentProposed)):
            log.warning("Nobody was told of proposal %s (%s) after %d tries: it is not tried "
                        "again. It waits in the inbox all the same.", proposal.id,
                        proposal.label, MOST_TRIES)
        else:
            log.warning("Not every handler was told of proposal %s (%s) after %d tries (not "
                        "%s): it is not tried again. It waits in the inbox all the same.",
                        proposal.id, proposal.label, MOST_TRIES, ", ".join(left))


def _with_tries(db: repo.Executor, query: Select[Any]
                ) -> list[tuple[Proposal, int, frozenset[str]]]:
    """The proposals `query` selects, each with how often it was tried, and the names of the
    handlers that took its notice."""
    return [(repo.proposal_from(row), int(row["tell_tries"]), _took(row))
            for row in db.execute(query).mappings()]


def _took(row: Any) -> frozenset[str]:
    """The names of the handlers that took the notice a row of the proposals' table stands for
    (none when the names it keeps are of an earlier notice: it was escalated since)."""
    kept = _read_told_to(row["told_to"])
    if kept is None or kept[0] != int(row["escalations"]):
        return frozenset()
    return kept[1]


def _read_told_to(text: str | None) -> tuple[int, frozenset[str]] | None:
    """What `told_to` holds: the notice's escalations and the names of the handlers that took
    it (None when it holds nothing, or nothing this reads)."""
    if not text:
        return None
    try:
        kept = json.loads(text)
        return int(kept["escalations"]), frozenset(str(name) for name in kept["took"])
    except (ValueError, TypeError, KeyError):
        return None


def _keep_took(db: repo.Executor, proposal: Proposal, name: str) -> None:
    """Keep that handler `name` took the notice of `proposal` (its escalation
    `proposal.escalations`), beside those that took it before, unless it was told, or escalated,
    meanwhile. The row is locked as it is read (SQLite's transaction holds the file's): two
    tellers at once each keep theirs."""
    c = proposals.c
    row = db.execute(select(c.told_to, c.escalations).where(
        c.id == proposal.id, c.told_at.is_(None), c.escalations == proposal.escalations,
    ).with_for_update()).mappings().first()
    if row is None:
        return
    took = sorted(_took(row) | {name})
    db.execute(update(proposals).where(c.id == proposal.id).values(told_to=json.dumps(
        {"escalations": proposal.escalations, "took": took}, ensure_ascii=False)))


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
