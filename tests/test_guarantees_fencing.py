"""Fencing: a holder that is only slow, not dead, whose hold ran out and was taken over, writes
nothing more of the task (DESIGN "Invariants" 3 and 4; docs/how-to/postgresql.md: "a process
that lost the hold cannot write over the one that took it").

Two processes are played by two apps on one database, each stepping in a thread of its own; a
hold running out is its ``held_until`` set in the past (as the hold tests do), and a holder
that still runs on this machine is waited for no longer than that (``holds.OUTLIVED`` 0, as
one on another machine is not waited for at all).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from sqlalchemy import select, update

from signoff import ProposalStatus, TaskStatus
from signoff.agents import holds
from signoff.models.base import Reply
from signoff.store.tables import tasks
from signoff.testing import ScriptedModel, says
from tests.forking import killed_at
from tests.guarantees_app import Pauses, Report, build, in_thread

WAIT = 60.0


class _Counted(ScriptedModel):
    """A scripted model that counts the calls made to it (in `asked`)."""

    def __init__(self, *lines: Any, asked: list[str], who: str) -> None:
        super().__init__(*lines)
        self.asked, self.who = asked, who

    def complete(self, messages: Any, tools: Any, *, max_output_tokens: int) -> Reply:
        self.asked.append(self.who)
        return super().complete(messages, tools, max_output_tokens=max_output_tokens)


@pytest.fixture
def two(database: str, tmp_path: Path) -> Iterator[tuple[SimpleNamespace, SimpleNamespace]]:
    """The app twice on that database: a slow worker's process and another worker's."""
    slow, other = build(database, tmp_path), build(database, tmp_path)
    yield slow, other
    slow.app.database.dispose()
    other.app.database.dispose()


def _lines(shop: SimpleNamespace) -> list[Any]:
    """The script: one turn of a proposal and an alone call, then the result."""
    return [says.tools(says.tool(shop.lift, box=shop.box.id, by=2, tag="a"),
                       says.tool(shop.jot, box=shop.box.id, note="checked")),
            says.hand_back(Report(summary="Tended."))]


def _head(shop: SimpleNamespace, task: str) -> tuple[int, int]:
    """The task head's fence and revision."""
    with shop.app.database.connect() as db:
        fence, revision = db.execute(select(tasks.c.fence, tasks.c.revision).where(
            tasks.c.id == task)).one()
    return fence, revision


def _expire_hold(shop: SimpleNamespace, task: str) -> None:
    with shop.app.database.connect() as db:
        db.execute(update(tasks).where(tasks.c.id == task).values(
            held_until=datetime.now(UTC) - timedelta(seconds=1)))


def test_a_slow_holder_taken_over_writes_nothing_more_of_the_task(
    two: tuple[SimpleNamespace, SimpleNamespace], monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A worker takes up a task whose turn's calls have all ended (the process that ran them
    was killed before it closed the turn), and is slow: its hold runs out and another worker
    takes the task over. When the slow one goes on, its close of the turn is refused by the
    fence (the head does not move under the worker that holds it), and it does not ask the
    model: the model is asked once for the next step, by the worker that holds the task."""
    slow, other = two
    monkeypatch.setattr(holds, "OUTLIVED", timedelta(0))
    asked: list[str] = []

    def model(who: str) -> ScriptedModel:
        return _Counted(*_lines(slow), asked=asked, who=who)

    # The agent's process: one turn of a proposal and an alone call; killed once the alone
    # call is recorded, as it is about to store that the task waits.
    first = ScriptedModel(*_lines(slow))
    assert killed_at("loop.turn_read", lambda: slow.app.agent(slow.Clerk).do(
        slow.Tend(), None, model=first), slow.app) == -9
    (proposal,) = slow.app.proposals(status=ProposalStatus.WAITING)
    # A decider's process says yes, and is killed as it would step the task on.
    assert killed_at("loop.stepping", lambda: slow.app.approve(proposal.id, by=slow.noor),
                     slow.app) == -9
    task = proposal.task
    assert slow.app.outcome(task).status is TaskStatus.RUNNING

    slow_at, taken_over, slow_done = threading.Event(), threading.Event(), threading.Event()

    def slow_waits(_where: dict[str, Any]) -> None:
        slow_at.set()
        taken_over.wait(WAIT)

    heads: list[tuple[int, int]] = []

    def other_waits(_where: dict[str, Any]) -> None:
        heads.append(_head(other, task))  # as the other worker took it over
        taken_over.set()
        slow_done.wait(WAIT)
        heads.append(_head(other, task))  # once the slow one is done, before the other writes

    pauses = Pauses()
    pauses.at("slow", "loop.stepping", slow_waits)
    pauses.at("other", "loop.stepping", other_waits)

    def slow_work() -> Any:
        try:
            return slow.app.worker(model_for=lambda _a, _t: model("slow")).run_once()
        finally:
            slow_done.set()

    with pauses.armed():
        slow_thread = in_thread("slow", slow_work)
        assert slow_at.wait(WAIT)
        _expire_hold(other, task)  # the slow worker's hold runs out
        other_thread = in_thread(
            "other", lambda: other.app.worker(model_for=lambda _a, _t: model("other")).run_once())
        for thread, _ in (slow_thread, other_thread):
            thread.join(WAIT * 2)
            assert not thread.is_alive()
    errors = [out["error"] for _, out in (slow_thread, other_thread) if "error" in out]
    assert not errors, errors
    assert heads[0][1] == heads[1][1], "a holder that lost the task wrote a step of it"
    assert asked == ["other"], asked
    words = other.app.receipt(task).words
    assert other.app.outcome(task).status is TaskStatus.DONE, words
    assert words.count("was asked (step") == 2, words
