"""Two deciders in two processes, each saying yes at the same moment to one of the two
proposals of one turn: each call runs once, no change to the record both calls change is lost,
and the task does not wait on nothing (the last of the two decisions to be stored wakes it),
whatever kind of call each is (record-only, run with its claim; or reaching outside, claimed
first and recorded after it ran).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from signoff import ProposalStatus, TaskStatus
from signoff.testing import ScriptedModel, says
from tests.guarantees_app import Pauses, Report, box_of, build, in_thread, lines

WAIT = 60.0


@pytest.fixture
def three(database: str, tmp_path: Path) -> Iterator[list[SimpleNamespace]]:
    """The app thrice on one database: the agent's process and two deciders'."""
    sides = [build(database, tmp_path) for _ in range(3)]
    yield sides
    for side in sides:
        side.app.database.dispose()


def _call(shop: SimpleNamespace, kind: str, n: int) -> Any:
    if kind == "record":
        return says.tool(shop.lift, box=shop.box.id, by=10 ** n, tag=f"d{n}")
    return says.tool(shop.send_invoice, text=f"Invoice {n}")


@pytest.mark.parametrize("kinds", [("record", "record"), ("outside", "outside"),
                                   ("record", "outside")], ids="-".join)
def test_two_yeses_at_once_to_one_turn_run_each_call_once_and_wake_the_task(
    three: list[SimpleNamespace], kinds: tuple[str, str],
) -> None:
    agent_side, one, two = three
    level = box_of(agent_side).level
    script = ScriptedModel(says.tools(*(_call(agent_side, k, n) for n, k in enumerate(kinds))),
                           says.hand_back(Report(summary="Tended.")))
    waiting = agent_side.app.agent(agent_side.Clerk).do(agent_side.Tend(), None, model=script)
    assert waiting.status is TaskStatus.WAITING
    first, second = sorted(agent_side.app.proposals(task=waiting.task),
                           key=lambda p: str(p.arguments))
    # Both have checked the budget before either claims; each outside run goes on only once
    # the other has run too, so that the two are recorded at the same moment.
    checked = threading.Barrier(2, timeout=WAIT)
    pauses = Pauses()
    for name in ("d1", "d2"):
        pauses.at(name, "decider.checked", lambda _where: checked.wait() and None)
    ran = threading.Barrier(2, timeout=WAIT)
    outside = [k == "outside" for k in kinds]
    if all(outside):
        for name in ("d1", "d2"):
            pauses.at(name, "decider.claimed", lambda _where: ran.wait() and None)
    with pauses.armed():
        threads = [in_thread("d1", lambda: one.app.approve(first.id, by=one.noor)),
                   in_thread("d2", lambda: two.app.approve(second.id, by=two.noor))]
        for thread, _ in threads:
            thread.join(WAIT * 2)
            assert not thread.is_alive()
    errors = [out["error"] for _, out in threads if "error" in out]
    assert not errors, errors
    decisions = [out["value"] for _, out in threads]
    assert [d.status for d in decisions] == [ProposalStatus.DONE, ProposalStatus.DONE], decisions
    now = agent_side.app.outcome(waiting.task)
    receipt = agent_side.app.receipt(waiting.task).words
    assert now.status is not TaskStatus.WAITING, receipt  # it waits on nothing
    assert agent_side.app.worker(model_for=lambda _agent, _task: script).run_once() == 1
    assert agent_side.app.outcome(waiting.task).status is TaskStatus.DONE, receipt
    invoices = sorted(f"Invoice {n}" for n, k in enumerate(kinds) if k == "outside")
    assert sorted(lines(agent_side.invoices)) == invoices
    raised = sum(10 ** n for n, k in enumerate(kinds) if k == "record")
    assert box_of(agent_side).level == level + raised
