"""A receipt tells what its task began and has not recorded the end of (DESIGN "Every piece of
work leaves a receipt"; docs/concepts/receipts.md): an outside call marked running, alone or
approved, and a model call reserved for, whether they run now or were cut off by a crash
before the task is stepped again. It never leaves out a call that may have happened, nor says
the task cost less than its budget counts. A crash is a forked child SIGKILLing itself at a
named point (`signoff.store.points`), as in test_guarantees.
"""

from __future__ import annotations

import signal
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from signoff import TaskStatus
from signoff.agents.states import ReceiptKind
from signoff.models.base import Price
from signoff.testing import ScriptedModel, says
from tests.forking import killed_at
from tests.test_rules_review import Out, _world

PRICE = Price(input_per_mtok=10.0, output_per_mtok=10.0)


def _killed_at(world: SimpleNamespace, point: str, work: Callable[[], Any]) -> None:
    """Do `work` in a forked child that SIGKILLs itself when it reaches `point`."""
    assert killed_at(point, work, world.app) == -signal.SIGKILL


def _newest_task(world: SimpleNamespace) -> str:
    with world.app.database.connect() as db:
        return str(db.exec_driver_sql(
            "SELECT id FROM signoff_tasks ORDER BY created_at DESC LIMIT 1").scalar_one())


def _unrecorded(world: SimpleNamespace, task: str) -> list[Any]:
    return [e for e in world.app.receipt(task).entries if e.data.get("recorded") is False]


def test_an_alone_outside_call_cut_off_after_it_ran_is_on_the_receipt(tmp_path: Path) -> None:
    """A call a standing rule let run alone, killed after its body ran and before its outcome
    was recorded, is on the receipt as begun, of an outcome not recorded."""
    world = _world(tmp_path)
    world.app.allow_alone("publisher", world.publish, by=world.noor, for_everybody=True)
    _killed_at(world, "run.called", lambda: world.run("Hello", world.noor))
    assert world.lines() == ["Hello"]  # it happened
    task = _newest_task(world)
    (entry,) = _unrecorded(world, task)
    assert entry.kind is ReceiptKind.TOOL_CALL
    assert entry.data["tool"] == "publish"
    assert entry.words == ("Publisher began publish alone; its outcome is not recorded yet (it "
                           "is running, or the work stopped while it ran, and it may have "
                           "happened).")


def test_an_approved_outside_call_cut_off_after_it_ran_says_who_approved_it(
        tmp_path: Path) -> None:
    """An approved call killed after its body ran is on the receipt with who said yes."""
    world = _world(tmp_path)
    outcome = world.run("Hello", world.noor)
    (proposal,) = world.app.proposals(task=outcome.task)
    _killed_at(world, "run.called", lambda: world.app.approve(proposal, by=world.noor))
    assert world.lines() == ["Hello"]
    (entry,) = _unrecorded(world, outcome.task)
    assert entry.words.startswith("Noor approved publish, and it began as Noor and the agent "
                                  "together; its outcome is not recorded yet")
    assert entry.data["approved_by"] == "Noor"


def test_a_model_call_cut_off_is_counted_on_the_receipt_as_the_budget_counts_it(
        tmp_path: Path) -> None:
    """A model call killed after its reply came, before it was stored: the receipt costs what
    the task's budget counts, before and after the task is stepped again, told once."""
    world = _world(tmp_path)
    _killed_at(world, "loop.model_replied", lambda: world.app.agent(world.Publisher).do(
        world.Publish(), world.board, for_=world.noor,
        model=ScriptedModel(says.hand_back(Out(ok=True)), price=PRICE)))
    task = _newest_task(world)
    spent = world.app.outcome(task).spend_usd
    assert spent > 0
    assert world.app.receipt(task).cost_usd == spent
    (entry,) = _unrecorded(world, task)
    assert entry.kind is ReceiptKind.RESERVED
    assert entry.cost_usd == spent
    resumed = world.app.agent(world.Publisher).resume(
        task, model=ScriptedModel(says.hand_back(Out(ok=True)), price=PRICE))
    assert resumed.status is TaskStatus.DONE
    assert _unrecorded(world, task) == []
    assert abs(world.app.receipt(task).cost_usd - world.app.outcome(task).spend_usd) < 1e-12
