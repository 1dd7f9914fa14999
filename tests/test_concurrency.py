"""Concurrency (DESIGN "2. The gate and proposals", invariant 3): eight processes decide the same
proposal at once; it is decided once, its call runs at most once, and every other decider is told
it was already decided.

The app and each decider's body are in ``tests/crash_child.py``; the deciders are separate
processes (``multiprocessing``, spawned), each with its own app on the same database, released
together by a barrier.
"""

from __future__ import annotations

import multiprocessing
import queue
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from sqlalchemy import select

from signoff import Outcome, ProposalStatus, TaskStatus
from signoff.testing import ScriptedModel, says
from tests import crash_child
from tests.crash_child import LEVEL_APPROVED, Report

DECIDERS = 8


@pytest.fixture
def shop(database: str, tmp_path: Path) -> Iterator[SimpleNamespace]:
    """The test app on that database, its connections closed at the end."""
    shop = crash_child.build(database, tmp_path)
    yield shop
    shop.app.database.dispose()


def _decide_at_once(url: str, outbox: Path, proposal_id: str, verbs: list[str]
                    ) -> list[tuple[str, str, str]]:
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(len(verbs), timeout=120)
    results = context.Queue()
    deciders = [
        context.Process(target=crash_child.decide,
                        args=(url, str(outbox), proposal_id, verb, barrier, results))
        for verb in verbs
    ]
    for decider in deciders:
        decider.start()
    told: list[tuple[str, str, str]] = []
    try:
        for _ in verbs:
            told.append(results.get(timeout=180))
    except queue.Empty:
        pass
    for decider in deciders:
        decider.join(timeout=60)
    results.close()
    results.join_thread()
    assert [d.exitcode for d in deciders] == [0] * len(verbs), told
    return told


@pytest.mark.parametrize("verbs", [
    pytest.param(["approve"] * DECIDERS, id="all-approve"),
    pytest.param(["approve", "reject"] * (DECIDERS // 2), id="approve-and-reject"),
])
def test_eight_processes_deciding_one_proposal_decide_it_once(
    shop: SimpleNamespace, database: str, tmp_path: Path, verbs: list[str],
) -> None:
    """Of eight simultaneous decisions on one proposal exactly one is taken, the call runs once
    when it is a yes (never when it is a no), and the seven others are refused as already
    decided, with no other error."""
    box = crash_child.box_of(shop)
    model = ScriptedModel(
        says.tool("The level should be 7.", shop.set_level, box=box.id, level=LEVEL_APPROVED),
        says.hand_back(Report(summary="Levelled.")),
    )
    outcome = shop.app.agent(shop.Clerk).do(shop.Tend(), None, model=model)
    assert outcome.status is TaskStatus.WAITING
    (proposal,) = shop.app.proposals(task=outcome.task)
    shop.app.database.dispose()  # the deciders are the only ones at work

    told = _decide_at_once(database, tmp_path, proposal.id, verbs)

    assert len(told) == DECIDERS
    errors = [f"{verb}: {message}" for verb, how, message in told if how not in ("ok", "refused")]
    assert not errors, "\n".join(errors)
    (winner,) = [verb for verb, how, _ in told if how == "ok"]
    refusals = [message for _, how, message in told if how == "refused"]
    assert len(refusals) == DECIDERS - 1
    assert all("already decided" in message for message in refusals), refusals
    with shop.app.session(as_=shop.app.system) as s:
        runs = s.scalars(select(shop.Mark).where(shop.Mark.tool == "set_level")).all()
        level = s.get(shop.Box, box.id).level
    assert len(runs) == (1 if winner == "approve" else 0)
    assert level == (LEVEL_APPROVED if winner == "approve" else 0)
    decided = shop.app.proposal(proposal.id)
    assert decided.status is (ProposalStatus.DONE if winner == "approve"
                              else ProposalStatus.REJECTED)
    finished = _finish(shop, model, outcome.task)
    assert finished.status is TaskStatus.DONE
    answers = [m.text for m in model.seen.messages[-1] if m.role == "tool"]
    assert len(answers) == 1  # the agent was told one decision


def _finish(shop: SimpleNamespace, model: ScriptedModel, task: str) -> Outcome:
    """The task goes on in this process's worker (the deciders had no model for it)."""
    shop.app.worker(model_for=lambda _agent, _task: model).run_once()
    return shop.app.outcome(task)


def test_eight_processes_saying_yes_while_the_server_is_down_use_up_no_yes(
    shop: SimpleNamespace, database: str, tmp_path: Path,
) -> None:
    """Eight processes approve at once a call whose action cannot reach the bank (`Unavailable`:
    nothing sent). Each is told so, or that another is deciding it; none is told it ran, the
    proposal still waits, undecided, nothing is paid or spent. Once the bank is up, one yes runs
    the call, once."""
    shop.bank_down.touch()
    model = ScriptedModel(
        says.tool("The bank is owed.", shop.pay_bank, text="owed"),
        says.hand_back(Report(summary="Paid.")),
    )
    outcome = shop.app.agent(shop.Clerk).do(shop.Tend(), None, model=model)
    assert outcome.status is TaskStatus.WAITING
    (proposal,) = shop.app.proposals(task=outcome.task)
    shop.app.database.dispose()  # the deciders are the only ones at work

    told = _decide_at_once(database, tmp_path, proposal.id, ["approve"] * DECIDERS)

    assert len(told) == DECIDERS
    hows = [how for _, how, _ in told]
    assert set(hows) <= {"unavailable", "refused"}, told
    assert "unavailable" in hows
    assert all("The bank cannot be reached now" in message
               for _, how, message in told if how == "unavailable")
    waiting = shop.app.proposal(proposal.id)
    assert waiting.status is ProposalStatus.WAITING
    assert not shop.payments.exists()
    assert shop.app.outcome(outcome.task).spend_usd == 0

    shop.bank_down.unlink()
    decision = shop.app.approve(proposal.id, by=shop.noor)
    assert "ran" in decision.said, decision.said
    assert shop.payments.read_text() == "owed\n"
    assert shop.app.proposal(proposal.id).status is ProposalStatus.DONE
