"""A process that stops between a proposal's commit and telling its decider: the proposal waits,
nobody was told, and a worker tells them — once, however often it looks; a proposal its process
told is never told again by a worker. The same for a proposal put to the next decider as its
deadline passed, and for a receiver that was down. A real child process SIGKILLed at that point,
a real webhook receiver on 127.0.0.1, on one SQLite file and on PostgreSQL."""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from signoff import AgentProposed, NotTold, ProposalStatus, TaskStatus
from signoff.agents.telling import AGAIN_AFTER, MOST_TRIES
from signoff.engine.worker import looked
from signoff.notifications import notify_by_webhook
from signoff.store import points
from tests.deadlines_app import build, script
from tests.killed_child import run_until_killed
from tests.webhook_receiver import receiver

__all__ = ["receiver"]  # (a fixture of another module, used here)


def _killed_before_telling(point: str, where: dict[str, Any]) -> None:
    if point == "proposal.told_next":
        os.kill(os.getpid(), signal.SIGKILL)


def _propose_then_die(url: str, hook: str) -> None:
    shop = build(url)
    notify_by_webhook(shop.app, hook, timeout=30)
    with points.pausing(_killed_before_telling):
        shop.app.agent(shop.Clerk).do(shop.PriceFleetTicket(), None, for_=shop.mia,
                                      model=script(shop, 70))


def _pass_deadline_then_die(url: str, hook: str, at: Any) -> None:
    shop = build(url)
    notify_by_webhook(shop.app, hook, timeout=30)
    with points.pausing(_killed_before_telling):
        shop.app.pass_deadlines(now=at)


def _told(receiver: SimpleNamespace) -> list[tuple[str, str]]:
    return [(b["proposal"]["id"], b["proposal"]["decide_by"]) for b in receiver.bodies]


def test_a_proposal_left_untold_by_a_crash_is_told_by_a_worker_once(
        database: str, receiver: SimpleNamespace) -> None:
    shop = build(database)
    try:
        run_until_killed(_propose_then_die, database, receiver.url)
        (proposal,) = shop.app.proposals(status=ProposalStatus.WAITING)
        assert receiver.bodies == []  # committed, and nobody told

        notify_by_webhook(shop.app, receiver.url, timeout=30)
        worker = shop.app.worker()
        assert worker.tell_untold(older_than=timedelta(minutes=5)) == 0  # (it may be going on)
        assert worker.tell_untold() == 1
        assert _told(receiver) == [(proposal.id, "Noor")]
        assert worker.tell_untold() == 0  # once, however often it looks
        assert len(receiver.bodies) == 1

        # Told by the process that made it, a proposal is not told again by a worker.
        receiver.bodies.clear()
        outcome = shop.app.agent(shop.Clerk).do(shop.PriceFleetTicket(), None, for_=shop.mia,
                                                model=script(shop, 80))
        assert outcome.status is TaskStatus.WAITING
        (made,) = shop.app.proposals(task=outcome.task)
        assert _told(receiver) == [(made.id, "Noor")]
        assert worker.tell_untold() == 0
        assert len(receiver.bodies) == 1
    finally:
        shop.app.database.dispose()


def test_an_escalation_left_untold_by_a_crash_is_told_by_a_worker_once(
        database: str, receiver: SimpleNamespace) -> None:
    shop = build(database)
    try:
        outcome = shop.app.agent(shop.Clerk).do(shop.PriceFleetTicket(), None, for_=shop.mia,
                                                model=script(shop, 90))
        (proposal,) = shop.app.proposals(task=outcome.task)
        at = proposal.deadline_at + timedelta(seconds=1)
        run_until_killed(_pass_deadline_then_die, database, receiver.url, at)
        now_on = shop.app.proposal(proposal)
        assert (now_on.status, now_on.decide_queue) == (ProposalStatus.WAITING, "Finance")
        assert receiver.bodies == []

        notify_by_webhook(shop.app, receiver.url, timeout=30)
        worker = shop.app.worker()
        assert worker.tell_untold(now=at) == 1
        assert _told(receiver) == [(proposal.id, "the Finance queue")]
        assert worker.tell_untold(now=at) == 0
    finally:
        shop.app.database.dispose()


def test_a_look_that_told_says_so() -> None:
    assert looked(0, 0, 0) == ("Settled 0 interrupted approval(s); passed 0 deadline(s); "
                               "stepped 0 task(s).")
    assert looked(1, 0, 2, 3).endswith(
        "stepped 2 task(s); told the deciders of 3 proposal(s) nobody had told them of.")


def test_a_receiver_down_is_told_again_later_and_at_last_given_up_on(
        tmp_path: Path, receiver: SimpleNamespace, caplog: pytest.LogCaptureFixture) -> None:
    """A webhook down as the proposal is made is tried again by a worker once its next try has
    come (a minute on), not before, with the same notice; once up, it is told, and no more. One
    that stays down is tried `MOST_TRIES` times in all, further apart each time, then given up
    on in a sentence; the proposal waits in the inbox all the same."""
    shop = build(f"sqlite:///{tmp_path / 'down.db'}")
    try:
        notify_by_webhook(shop.app, receiver.url, timeout=30)
        worker = shop.app.worker()
        receiver.down[0] = True
        outcome = shop.app.agent(shop.Clerk).do(shop.PriceFleetTicket(), None, for_=shop.mia,
                                                model=script(shop, 60))
        assert outcome.status is TaskStatus.WAITING
        (proposal,) = shop.app.proposals(task=outcome.task)
        assert _told(receiver) == [(proposal.id, "Noor")]  # tried, and not taken
        made = proposal.created_at
        assert worker.tell_untold(now=made + timedelta(seconds=30)) == 0  # not yet again
        assert len(receiver.bodies) == 1

        receiver.down[0] = False
        assert worker.tell_untold(now=made + timedelta(minutes=2)) == 1
        assert _told(receiver) == [(proposal.id, "Noor")] * 2
        first, again = receiver.bodies
        assert first["notice"] == again["notice"]
        assert first["delivery"] != again["delivery"]
        assert worker.tell_untold(now=made + timedelta(days=3)) == 0  # told: no more
        assert len(receiver.bodies) == 2

        # Down for good: tried MOST_TRIES times in all, then given up on.
        receiver.bodies.clear()
        receiver.down[0] = True
        outcome = shop.app.agent(shop.Clerk).do(shop.PriceFleetTicket(), None, for_=shop.mia,
                                                model=script(shop, 61))
        (down,) = shop.app.proposals(task=outcome.task)
        at, looks = down.created_at, 0
        while looks < 50 and worker.tell_untold(now=at) == 0 and len(
                receiver.bodies) < MOST_TRIES:
            at += AGAIN_AFTER[-1]
            looks += 1
        assert len(receiver.bodies) == MOST_TRIES
        assert worker.tell_untold(now=at + timedelta(days=30)) == 0
        assert len(receiver.bodies) == MOST_TRIES
        assert (f"Nobody was told of proposal {down.id} (Set the price) after {MOST_TRIES} "
                "tries: it is not tried again. It waits in the inbox all the same.") in caplog.text
        assert shop.app.proposal(down).status is ProposalStatus.WAITING
    finally:
        shop.app.database.dispose()


def _worker_telling(url: str, hook: str, go: float, at: Any, answer: Any) -> None:
    shop = build(url)
    notify_by_webhook(shop.app, hook, timeout=30)
    while time.time() < go:
        pass
    try:
        answer.put(shop.app.worker().tell_untold(now=at))
    finally:
        shop.app.database.dispose()


def _not_told(event: AgentProposed) -> None:
    raise NotTold(event.proposal.id)


def test_two_workers_looking_at_once_tell_each_proposal_once(
        database: str, receiver: SimpleNamespace) -> None:
    """Round after round, a proposal its process could not tell, and two worker processes
    telling again at the same instant: the webhook is told of it once."""
    shop = build(database)
    shop.app.on(AgentProposed, _not_told)
    context = multiprocessing.get_context("spawn")
    try:
        for n in range(2):
            outcome = shop.app.agent(shop.Clerk).do(shop.PriceFleetTicket(), None, for_=shop.mia,
                                                    model=script(shop, 120 + n))
            (proposal,) = shop.app.proposals(task=outcome.task)
            receiver.bodies.clear()
            at = proposal.created_at + timedelta(minutes=2)
            answer = context.Queue()
            go = time.time() + 4
            workers = [context.Process(target=_worker_telling, args=(
                database, receiver.url, go + n * 0.01 * i, at, answer)) for i in range(2)]
            for worker in workers:
                worker.start()
            told = [answer.get(timeout=120) for _ in workers]
            for worker in workers:
                worker.join(timeout=60)
                assert worker.exitcode == 0
            assert sorted(told) == [0, 1]
            assert _told(receiver) == [(proposal.id, "Noor")]
    finally:
        shop.app.database.dispose()
