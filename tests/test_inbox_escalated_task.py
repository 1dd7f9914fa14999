"""A person who was to decide a proposal before its deadline put it to another still sees it,
and so its task and receipt, which its page links to (the task was not found for them: the
inbox looked for the proposals they decide now alone)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from signoff import DeadlineOutcome, NotFound, TaskStatus
from signoff.inbox import Inbox
from tests.deadlines_app import build, script


def test_the_decider_a_deadline_passed_by_still_sees_the_task(database: str) -> None:
    """Past Noor's deadline the fleet price goes to the Finance queue: Noor still sees the
    proposal, and its task (its receipt); Ola, never its decider, sees neither."""
    shop = build(database)
    try:
        outcome = shop.app.agent(shop.Clerk).do(shop.PriceFleetTicket(), None, for_=shop.mia,
                                                model=script(shop, 45))
        assert outcome.status is TaskStatus.WAITING
        (proposal,) = shop.app.proposals(task=outcome.task)
        (passed,) = shop.app.pass_deadlines(now=proposal.deadline_at + timedelta(minutes=5))
        assert passed.outcome is DeadlineOutcome.ESCALATED
        inbox = Inbox(shop.app)
        assert inbox.proposal(shop.noor, proposal.id).id == proposal.id
        assert inbox.task(shop.noor, outcome.task) == outcome.task
        ola = shop.app.people.add("ola@deadlines.example", "Ola")
        with pytest.raises(NotFound):
            inbox.task(ola, outcome.task)
    finally:
        shop.app.database.dispose()
