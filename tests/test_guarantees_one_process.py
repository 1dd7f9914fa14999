"""Two threads of one process on one task (a web app's inbox beside the agent it runs): the
thread that does not hold the task leaves alone what the holding thread keeps of it.

A thread that finds another thread of its process stepping the task hands it on: it does not
drop what the loop keeps of the task meanwhile (the reservation made ahead of its next model
call, its conversation, the fence it holds), or the holder takes its own reservation for one of
a reply that was lost, and counts it as spent on top of the next.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from sqlalchemy import select

from signoff import AgentProposalDecided, Price, ProposalStatus, ReceiptKind, TaskStatus
from signoff.store.tables import tasks
from signoff.testing import ScriptedModel, says
from tests.guarantees_app import Pauses, Report, build, in_thread, joined

WAIT = 60.0


@pytest.fixture
def shop(database: str, tmp_path: Path) -> Iterator[SimpleNamespace]:
    """The app once: one process, its agent stepping in one thread and a person in another."""
    built = build(database, tmp_path)
    yield built
    built.app.database.dispose()



def _at_the_next_model_turn(reached_turn: threading.Event, go_on: threading.Event, *,
                            step: int = 2) -> Pauses:
    """The agent's thread stops as its `step`th step, its second model turn, begins (its first
    turn closed, the next call's cost reserved ahead with that close), until `go_on`."""
    seen = {"steps": 0}

    def then(_where: dict[str, Any]) -> bool | None:
        seen["steps"] += 1
        if seen["steps"] < step:
            return False
        reached_turn.set()
        go_on.wait(WAIT)
        return None

    pauses = Pauses()
    pauses.at("agent", "loop.stepping", then)
    return pauses


def _model(*first: Any) -> ScriptedModel:
    """A priced model that asks for the calls `first` in one turn, then hands back."""
    return ScriptedModel(says.tools(*first), says.hand_back(Report(summary="Tended.")),
                         price=Price(input_per_mtok=10.0, output_per_mtok=10.0))


def _spent_as_replied(shop: SimpleNamespace, task: str, script: ScriptedModel) -> None:
    """The task's spend is what its model's replies cost, its steps are the two it asked, and
    no reply is told as lost."""
    outcome = shop.app.outcome(task)
    receipt = shop.app.receipt(task).words
    assert outcome.status is TaskStatus.DONE, receipt
    assert "reply was lost" not in receipt, receipt
    assert len(script.seen.messages) == 2  # asked twice: the turn, and the hand-back
    costs = [e.cost_usd for e in shop.app.receipt(task).entries
             if e.kind is ReceiptKind.MODEL_CALL]
    assert len(costs) == 2
    assert outcome.steps == 2
    assert outcome.spend_usd == pytest.approx(sum(costs))


def test_a_resume_in_another_thread_leaves_the_holders_reservation(
    shop: SimpleNamespace,
) -> None:
    """`resume` of a task another thread of this process steps hands it on, and leaves what
    that thread keeps of it: its next model call, reserved with its last turn's close, is not
    taken for the call of a lost reply (told so, and counted as spent beside its own)."""
    script = _model(says.tool(shop.jot, box=shop.box.id, note="checked"))
    reached_turn, go_on = threading.Event(), threading.Event()
    with _at_the_next_model_turn(reached_turn, go_on).armed():
        agent = in_thread("agent", lambda: shop.app.agent(shop.Clerk).do(
            shop.Tend(), None, model=script, budget_usd=1.0))
        try:
            assert reached_turn.wait(WAIT), agent[1]
            resumed = shop.app.agent(shop.Clerk).resume(_running_task(shop))
        finally:
            go_on.set()
        (outcome,) = joined(agent)
    assert resumed.status is TaskStatus.RUNNING
    _spent_as_replied(shop, outcome.task, script)


def _running_task(shop: SimpleNamespace) -> str:
    with shop.app.database.connect() as db:
        return str(db.execute(select(tasks.c.id).where(
            tasks.c.status == TaskStatus.RUNNING.value)).scalar_one())


def test_a_decision_in_another_thread_leaves_the_holders_reservation(
    shop: SimpleNamespace,
) -> None:
    """A yes in the inbox's thread, to a call of the turn the agent's thread is working
    through, hands the task on to that thread, and leaves what it keeps of the task: its next
    model call, reserved with the close of the turn the yes completed, is not taken for the
    call of a lost reply."""
    script = _model(says.tool(shop.set_level, box=shop.box.id, level=7),
                    says.tool(shop.jot, box=shop.box.id, note="checked"))
    decided, reached_turn, go_on = threading.Event(), threading.Event(), threading.Event()

    def told(_event: AgentProposalDecided) -> None:  # (the inbox's thread, once it decided)
        if threading.current_thread().name == "decider":
            decided.set()
            reached_turn.wait(WAIT)

    shop.app.on(AgentProposalDecided, told)
    pauses = _at_the_next_model_turn(reached_turn, go_on, step=3)
    pauses.at("agent", "loop.turn_read", lambda _where: decided.wait(WAIT) and None)
    with pauses.armed():
        agent = in_thread("agent", lambda: shop.app.agent(shop.Clerk).do(
            shop.Tend(), None, model=script, budget_usd=1.0))
        try:
            proposal = _waiting_proposal(shop)
            decider = in_thread("decider", lambda: shop.app.approve(proposal, by=shop.noor))
            (decision,) = joined(decider)
        finally:
            decided.set()
            go_on.set()
        (outcome,) = joined(agent)
    assert decision.status is ProposalStatus.DONE
    _spent_as_replied(shop, outcome.task, script)


def _waiting_proposal(shop: SimpleNamespace) -> str:
    """The proposal the agent's thread has just made (waited for)."""
    for _ in range(int(WAIT * 20)):
        found = shop.app.proposals(status=ProposalStatus.WAITING)
        if found:
            return str(found[0].id)
        threading.Event().wait(0.05)
    raise AssertionError("no proposal was made")
