"""Passing deadlines against a route that fails, and a decision racing the deadline in two
processes, on a real SQLite file."""

from __future__ import annotations

import multiprocessing
import re
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from signoff import AgentRefused, DeadlineOutcome, ProposalStatus, Route, TaskStatus, UserError
from tests.deadlines_app import build, runs, script


@pytest.fixture
def shop(tmp_path: Path) -> Iterator[SimpleNamespace]:
    """The deadline app on a SQLite file of the test's own."""
    shop = build(f"sqlite:///{tmp_path / 'deadlines.db'}")
    shop.url = f"sqlite:///{tmp_path / 'deadlines.db'}"
    yield shop
    shop.app.database.dispose()


def _propose(shop: SimpleNamespace, skill: Any, price: int = 45) -> Any:
    outcome = shop.app.agent(shop.Clerk).do(skill, None, for_=shop.mia, model=script(shop, price))
    assert outcome.status is TaskStatus.WAITING
    (proposal,) = shop.app.proposals(task=outcome.task)
    return proposal


def _broken(self: Any, action: str) -> Route:
    """A route read from the directory, where nobody holds the role any more."""
    raise IndexError("list index out of range")


def test_a_route_that_fails_leaves_its_proposal_waiting_and_passes_the_others(
        shop: SimpleNamespace, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    """A skill whose decided_by fails (``with_role("manager")[0]`` once nobody is a manager):
    its proposal waits as it was, said in a sentence, and the worker's look passes the other
    proposals due (the IndexError stopped the look, and `signoff worker` with it, at every
    start, with every deadline after it left unpassed)."""
    failing = _propose(shop, shop.PriceTicket())
    other = _propose(shop, shop.PriceFleetTicket())
    monkeypatch.setattr(type(shop.PriceTicket()), "decided_by", _broken)
    due = max(failing.deadline_at, other.deadline_at) + timedelta(minutes=1)
    shop.app.worker(model_for=lambda _agent, _task: None).run_once(now=due)
    assert shop.app.proposal(failing).status is ProposalStatus.WAITING
    escalated = shop.app.proposal(other)
    assert (escalated.status, escalated.escalations) == (ProposalStatus.WAITING, 1)
    assert (f"The deadline of proposal {failing.id} (set_price) is not passed: "
            "PriceTicket.decided_by, whose route says what happens then, failed; the log has "
            "the details. It waits as it was: mend the route, and the next look passes "
            "it.") in caplog.text
    with pytest.raises(UserError, match=re.escape("PriceTicket.decided_by, whose route says "
                                                  "what happens then, failed")):
        shop.app.pass_deadline(failing, now=due)
    monkeypatch.undo()  # mended: the next look passes it
    (passed,) = shop.app.pass_deadlines(now=due)
    assert (passed.proposal, passed.outcome) == (failing.id, DeadlineOutcome.WITHDRAWN)


def test_a_route_that_answers_no_route_is_not_taken_for_one_that_withdraws(
        shop: SimpleNamespace, monkeypatch: pytest.MonkeyPatch) -> None:
    """A decided_by answering something other than a Route leaves the proposal waiting (it
    was an AttributeError), and the inbox says the deadline alone, not what then."""
    proposal = _propose(shop, shop.PriceTicket())
    monkeypatch.setattr(type(shop.PriceTicket()), "decided_by", lambda self, action: "Noor")
    with pytest.raises(UserError, match="answered str, not a Route"):
        shop.app.pass_deadline(proposal, now=proposal.deadline_at + timedelta(minutes=1))
    assert shop.app.proposal(proposal).status is ProposalStatus.WAITING
    terms = shop.app._agency.deadlines.terms(shop.app.proposal(proposal))
    assert terms == f"Decide it by {proposal.deadline_at:%Y-%m-%d %H:%M} UTC."


def _decide(url: str, proposal_id: str, go: float, answer: Any) -> None:
    shop = build(url)
    while time.time() < go:
        pass
    try:
        answer.put(("decision", shop.app.approve(proposal_id, by=shop.noor).status.value))
    except AgentRefused as refused:
        answer.put(("decision", f"refused: {refused}"))
    finally:
        shop.app.database.dispose()


def _pass(url: str, proposal_id: str, go: float, at: Any, answer: Any) -> None:
    shop = build(url)
    while time.time() < go:
        pass
    try:
        answer.put(("deadline", shop.app.pass_deadline(proposal_id, now=at).outcome.value))
    finally:
        shop.app.database.dispose()


def test_a_decision_and_the_deadline_in_two_processes_exactly_one_wins(
        shop: SimpleNamespace) -> None:
    """Noor's yes and the deadline, in two processes started at the same instant on one
    SQLite file, round after round (the second a little later each round): exactly one wins,
    the price runs only when the yes won, and the loser is told why."""
    context = multiprocessing.get_context("spawn")
    winners = []
    for n in range(4):
        proposal = _propose(shop, shop.PriceTicket() if n % 2 else shop.PriceFleetTicket(),
                            price=100 + n)
        answer = context.Queue()
        go = time.time() + 4
        processes = [
            context.Process(target=_decide, args=(shop.url, proposal.id, go, answer)),
            context.Process(target=_pass, args=(shop.url, proposal.id, go + n * 0.02,
                                                proposal.deadline_at + timedelta(seconds=1),
                                                answer)),
        ]
        for process in processes:
            process.start()
        said = dict(answer.get(timeout=120) for _ in processes)
        for process in processes:
            process.join(timeout=60)
            assert process.exitcode == 0
        now = shop.app.proposal(proposal)
        if said["decision"] == ProposalStatus.DONE.value:
            assert said["deadline"] == DeadlineOutcome.ALREADY_DECIDED.value
            assert now.status is ProposalStatus.DONE
            winners.append("decision")
        else:
            assert said["decision"].startswith("refused: No one decided set_price by its "
                                               "deadline"), said
            assert said["deadline"] in (DeadlineOutcome.WITHDRAWN.value,
                                        DeadlineOutcome.ESCALATED.value)
            assert now.status is (ProposalStatus.WITHDRAWN if n % 2 else ProposalStatus.WAITING)
            winners.append("deadline")
    assert runs(shop) == winners.count("decision")
