"""Two workers passing the same deadline at the same instant, each telling a webhook: the
proposal goes on to the next decider once, and whoever decides it now is told of it once — on
one SQLite file and on PostgreSQL. Real processes, a real receiver on 127.0.0.1."""

from __future__ import annotations

import multiprocessing
import time
from datetime import timedelta
from types import SimpleNamespace
from typing import Any

from signoff import DeadlineOutcome, ProposalStatus, TaskStatus
from signoff.notifications import notify_by_webhook
from tests.deadlines_app import build, script
from tests.webhook_receiver import receiver

__all__ = ["receiver"]  # (a fixture of another module, used here)


def _worker(url: str, hook: str, go: float, at: Any, answer: Any) -> None:
    shop = build(url)
    notify_by_webhook(shop.app, hook, timeout=30)
    while time.time() < go:
        pass
    try:
        answer.put([p.outcome.value for p in shop.app.pass_deadlines(now=at)])
    finally:
        shop.app.database.dispose()


def test_two_workers_passing_one_deadline_put_it_on_and_tell_finance_once(
        database: str, receiver: SimpleNamespace) -> None:
    """Round after round, two worker processes pass the fleet price's deadline at the same
    instant: it goes to the Finance queue once (one escalation, one deadline a day on), and the
    webhook is told of it once, as Finance's to decide."""
    shop = build(database)
    context = multiprocessing.get_context("spawn")
    try:
        for n in range(2):
            outcome = shop.app.agent(shop.Clerk).do(shop.PriceFleetTicket(), None, for_=shop.mia,
                                                    model=script(shop, 100 + n))
            assert outcome.status is TaskStatus.WAITING
            (proposal,) = shop.app.proposals(task=outcome.task)
            receiver.bodies.clear()
            at = proposal.deadline_at + timedelta(seconds=1)
            answer = context.Queue()
            go = time.time() + 4
            workers = [context.Process(target=_worker, args=(
                database, receiver.url, go + n * 0.01 * i, at, answer)) for i in range(2)]
            for worker in workers:
                worker.start()
            outcomes = [o for _ in workers for o in answer.get(timeout=120)]
            for worker in workers:
                worker.join(timeout=60)
                assert worker.exitcode == 0
            assert outcomes.count(DeadlineOutcome.ESCALATED.value) == 1, outcomes
            now_on = shop.app.proposal(proposal)
            assert (now_on.status, now_on.escalations, now_on.decide_queue) == (
                ProposalStatus.WAITING, 1, "Finance")
            assert now_on.deadline_at == at + timedelta(days=1)
            assert [(b["proposal"]["id"], b["proposal"]["decide_by"]) for b in receiver.bodies] \
                == [(proposal.id, "the Finance queue")]
    finally:
        shop.app.database.dispose()
