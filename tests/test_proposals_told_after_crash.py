"""A process that stops between a proposal's commit and telling its decider: the proposal waits,
nobody was told, and a worker tells them — once, however often it looks; a proposal its process
told is never told again by a worker. The same for a proposal put to the next decider as its
deadline passed. A real child process SIGKILLed at that point, a real webhook receiver on
127.0.0.1, on one SQLite file and on PostgreSQL."""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from signoff import ProposalStatus, TaskStatus
from signoff.engine.worker import looked
from signoff.notifications import notify_by_webhook
from signoff.store import points
from tests.deadlines_app import build, script
from tests.webhook_receiver import receiving


@pytest.fixture
def receiver() -> Iterator[SimpleNamespace]:
    """A webhook receiver on 127.0.0.1 that keeps each body POSTed to it."""
    with receiving() as received:
        yield received


@pytest.fixture(params=["sqlite", "postgres"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "postgres":
        return str(request.getfixturevalue("postgres_database"))
    return f"sqlite:///{tmp_path / 'told.db'}"


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


def _in_child(target: Any, *args: Any) -> None:
    child = multiprocessing.get_context("spawn").Process(target=target, args=args)
    child.start()
    child.join(timeout=120)
    assert child.exitcode == -signal.SIGKILL


def _told(receiver: SimpleNamespace) -> list[tuple[str, str]]:
    return [(b["proposal"]["id"], b["proposal"]["decide_by"]) for b in receiver.bodies]


def test_a_proposal_left_untold_by_a_crash_is_told_by_a_worker_once(
        url: str, receiver: SimpleNamespace) -> None:
    shop = build(url)
    try:
        _in_child(_propose_then_die, url, receiver.url)
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
        url: str, receiver: SimpleNamespace) -> None:
    shop = build(url)
    try:
        outcome = shop.app.agent(shop.Clerk).do(shop.PriceFleetTicket(), None, for_=shop.mia,
                                                model=script(shop, 90))
        (proposal,) = shop.app.proposals(task=outcome.task)
        at = proposal.deadline_at + timedelta(seconds=1)
        _in_child(_pass_deadline_then_die, url, receiver.url, at)
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
