"""The guarantees under concurrency and crashes (DESIGN "Invariants" 3 and 4), one test per
finding of the harness that broke them, each on SQLite and PostgreSQL.

Two processes are played by two apps on one database, each stepping in a thread of its own
(the agent's and the decider's): they share nothing but the database and the files. Where a race
needs a certain order, the library is paused at a named point (`signoff.store.points`) until
the other side has done its part; a crash is a forked child SIGKILLing itself at a point.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Annotated, Any

import pytest
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from signoff import (
    ActionOutcome,
    Agent,
    App,
    Permits,
    Price,
    ProposalStatus,
    Provided,
    Skill,
    TaskStatus,
    Usage,
)
from signoff.agents import holds, runs
from signoff.models.base import Reply, ToolSpec
from signoff.store import points
from signoff.store.tables import proposals, tasks
from signoff.testing import ScriptedModel, says
from tests.box_world import box_world
from tests.forking import killed_at
from tests.guarantees_app import NOOR, Pauses, Report, box_of, build, in_thread, joined, lines

WAIT = 60.0
"""How long a paused side waits for the other at most (a guard against a hung test)."""


@pytest.fixture
def two(database: str, tmp_path: Path) -> Iterator[tuple[SimpleNamespace, SimpleNamespace]]:
    """The app twice on that database: the agent's process and the decider's."""
    agent_side = build(database, tmp_path)
    decider_side = build(database, tmp_path)
    yield agent_side, decider_side
    agent_side.app.database.dispose()
    decider_side.app.database.dispose()



def _turn(shop: SimpleNamespace, *calls: Any) -> ScriptedModel:
    """A model that asks for `calls` in one turn, then hands back."""
    return ScriptedModel(says.tools(*calls), says.hand_back(Report(summary="Tended.")))


def _receipt(shop: SimpleNamespace, task: str) -> str:
    return shop.app.receipt(task).words


def _decide_while_the_agent_works(
    agent_side: SimpleNamespace, decider_side: SimpleNamespace, script: ScriptedModel, *,
    agent_at: tuple[str, str | None], decider_at: str | None = None,
) -> Any:
    """The agent's process does the work; when it reaches `agent_at` (a point, and the tool it
    gates or runs there, when one is named) it stops there while the decider's process says
    yes to the waiting proposal. Given `decider_at`, the decider's process in turn stops at
    that point until the agent's process is done. The agent's outcome."""
    point, tool = agent_at
    ready, decider_passed, agent_done = threading.Event(), threading.Event(), threading.Event()

    def agent_stops(where: dict[str, Any]) -> bool | None:
        if tool is not None and where.get("tool") != tool:
            return False
        ready.set()
        decider_passed.wait(WAIT)
        return None

    def decider_stops(_where: dict[str, Any]) -> None:
        decider_passed.set()
        agent_done.wait(WAIT)

    pauses = Pauses()
    pauses.at("agent", point, agent_stops)
    if decider_at is not None:
        pauses.at("decider", decider_at, decider_stops)

    def work() -> Any:
        try:
            return agent_side.app.agent(agent_side.Clerk).do(agent_side.Tend(), None, model=script)
        finally:
            agent_done.set()

    with pauses.armed():
        agent = in_thread("agent", work)
        assert ready.wait(WAIT)
        (proposal,) = decider_side.app.proposals(status=ProposalStatus.WAITING)
        decider = in_thread("decider",
                            lambda: decider_side.app.approve(proposal.id, by=decider_side.noor))
        decider[0].join(WAIT * 2)
        decider_passed.set()
        return joined(agent, decider)[0]


# -- 1. one owner per step -----------------------------------------------------------------


def test_an_alone_outside_call_runs_once_when_a_decision_steps_the_same_turn(
    two: tuple[SimpleNamespace, SimpleNamespace],
) -> None:
    """Finding 1: while the agent's process works through a turn, a yes in the decider's
    process runs its call and does not step the turn itself (the agent's process holds it): the
    alone outside call in that turn runs once, not once in each process."""
    agent_side, decider_side = two
    script = _turn(agent_side, says.tool(agent_side.set_level, box=agent_side.box.id, level=7),
                   says.tool(agent_side.post_letter, text="Dear customer"))
    # The agent stops before it gates post_letter; the decider reads the turn's calls then,
    # and goes on with what it read once the agent is done.
    outcome = _decide_while_the_agent_works(agent_side, decider_side, script,
                                            agent_at=("loop.gating", "post_letter"),
                                            decider_at="loop.calls_read")
    assert lines(agent_side.letters) == ["Dear customer"]
    assert agent_side.app.outcome(outcome.task).status is TaskStatus.DONE


def test_a_call_running_in_another_process_is_not_judged_crashed(
    two: tuple[SimpleNamespace, SimpleNamespace],
) -> None:
    """Finding 2: an outside call the agent's process is running is not taken for a crashed
    one by the decider's process stepping the same task: its outcome is the run's, not
    "unknown"."""
    agent_side, decider_side = two
    script = _turn(agent_side, says.tool(agent_side.set_level, box=agent_side.box.id, level=7),
                   says.tool(agent_side.post_letter, text="Dear customer"))
    # The call is running in the agent's process while the decision is taken.
    outcome = _decide_while_the_agent_works(agent_side, decider_side, script,
                                            agent_at=("loop.call_marked", "post_letter"))
    receipt = _receipt(agent_side, outcome.task)
    assert "unknown" not in receipt, receipt
    assert lines(agent_side.letters) == ["Dear customer"]
    assert agent_side.app.outcome(outcome.task).status is TaskStatus.DONE


def _held_until(shop: SimpleNamespace) -> datetime:
    """Until when the one running task of `shop` is held."""
    with shop.app.database.connect() as db:
        until = db.execute(select(tasks.c.held_until).where(
            tasks.c.status == TaskStatus.RUNNING.value)).one()[0]
    return _aware(until)


@pytest.mark.parametrize("renewed", [True, False], ids=["renewed", "renewal-held-up"])
def test_an_alone_outside_call_longer_than_a_hold_lasts_keeps_its_task(
    two: tuple[SimpleNamespace, SimpleNamespace], monkeypatch: pytest.MonkeyPatch, renewed: bool,
) -> None:
    """Finding 2, for a long call: an alone outside call may run longer than a hold lasts
    unrenewed. Its process keeps the task's hold alive while it runs; and while its renewal is
    held up (behind a long writer's lock), a holder whose process still runs on this machine is
    waited for `holds.OUTLIVED` past the hold's end. Either way a worker of another process
    does not take the task over meanwhile and tell the call as of unknown outcome (or run it
    again). (The hold ran out a minute into such a call, and the task was taken.)"""
    agent_side, decider_side = two
    monkeypatch.setattr(holds, "HOLD_FOR", timedelta(seconds=1))
    monkeypatch.setattr(runs, "RENEW_EVERY", 0.1 if renewed else 1000.0)
    script = _turn(agent_side, says.tool(agent_side.post_letter, text="Dear customer"))
    running, looked = threading.Event(), threading.Event()

    def runs_long(_where: dict[str, Any]) -> None:
        running.set()
        looked.wait(WAIT)

    pauses = Pauses()
    pauses.at("agent", "loop.call_marked", runs_long)
    with pauses.armed():
        agent = in_thread("agent", lambda: agent_side.app.agent(agent_side.Clerk).do(
            agent_side.Tend(), None, model=script))
        assert running.wait(WAIT)
        try:
            marked = _held_until(agent_side)
            time.sleep(1.5)  # longer than the hold lasts unrenewed
            later = _held_until(agent_side)
            decider_side.app.worker(model_for=lambda _agent, _task: script).run_once()
        finally:
            looked.set()
        (outcome,) = joined(agent)
    assert (later > marked) is renewed
    receipt = _receipt(agent_side, outcome.task)
    assert "unknown" not in receipt, receipt
    assert lines(agent_side.letters) == ["Dear customer"]
    assert agent_side.app.outcome(outcome.task).status is TaskStatus.DONE


def test_a_runner_is_judged_gone_by_its_process_and_its_lease() -> None:
    """An approved run leased to a process of this machine that still runs is left to it for
    `holds.OUTLIVED` past its lease's end (its renewal may wait on a lock), and is gone once
    that process has ended; one of another machine is gone once its lease has run out."""
    child = subprocess.Popen(["sleep", "60"])
    try:
        started = holds._started(child.pid)
        here = f"{holds.machine()}:{child.pid}:{started}:1"
        now = datetime.now(UTC)
        ran_out, long_ago = now - timedelta(seconds=1), now - holds.OUTLIVED - timedelta(seconds=1)
        assert not runs.gone("p", here, ran_out, now, now)
        assert runs.gone("p", here, long_ago, now, now)
        elsewhere = "elsewhere.example:4242:99:1"
        assert not runs.gone("p", elsewhere, now + timedelta(seconds=30), now, now)
        assert runs.gone("p", elsewhere, ran_out, now, now)
    finally:
        child.kill()
        child.wait()
    assert runs.gone("p", here, now + timedelta(seconds=30), now, now)  # its process has ended


def test_a_holder_in_another_process_namespace_of_this_host_keeps_its_task(
    database: str, tmp_path: Path,
) -> None:
    """A process of this host in a process namespace of its own (a container on the host's
    network: the same host name) holds a task, and still runs. Its pid means nothing here, so
    it is judged as a holder of another machine: by its hold's expiry, not taken for ended."""
    if shutil.which("unshare") is None or not Path("/proc/self/ns/pid").exists():
        pytest.skip("a process namespace of its own needs Linux and unshare (util-linux)")
    shop = build(database, tmp_path)
    loop = shop.app._agency.loop
    task = loop.start(shop.app.agent(shop.Clerk).registered, shop.Tend(), None, for_=None,
                      model=ScriptedModel(says.hand_back(Report(summary="Tended."))),
                      max_steps=10, budget_usd=1.0)
    with shop.app.database.connect() as db:  # nobody holds it
        db.execute(update(tasks).where(tasks.c.id == task).values(holder=None, held_until=None))
    told = tmp_path / "held.txt"
    with (tmp_path / "stderr.txt").open("wb") as stderr:
        child = subprocess.Popen(
            ["unshare", "--pid", "--fork", "--kill-child", "--mount-proc", sys.executable, "-c",
             "import sys, time\n"
             "from signoff.agents import holds\n"
             "from signoff.store.database import Database\n"
             "database = Database(sys.argv[1])\n"
             "with database.connect() as db:\n"
             "    hold = holds.take(db, sys.argv[2])\n"
             "open(sys.argv[3], 'w').write(holds.holder_id() if hold else 'refused')\n"
             "time.sleep(60)\n", database, task, str(told)],
            cwd=Path(__file__).resolve().parent.parent, stderr=stderr)
    try:
        for _ in range(int(WAIT * 10)):
            if (told.exists() and told.read_text()) or child.poll() is not None:
                break
            time.sleep(0.1)
        if child.poll() is not None:
            problem = (tmp_path / "stderr.txt").read_text()
            if problem.startswith("unshare:"):  # (not allowed here: no privilege to make one)
                pytest.skip(f"no process namespace may be made here: {problem.strip()}")
            pytest.fail(f"The process in a namespace of its own ended: {problem}")
        assert told.exists(), f"The process in a namespace of its own took nothing in {WAIT} s"
        holder = told.read_text()
        assert holder != "refused"
        with shop.app.database.connect() as db:
            assert holds.take(db, task) is None  # it still holds the task
        assert holds.process_runs(holder) is None  # not to be seen from here
        assert holder.rsplit(":", 3)[0] != holds.machine()  # a machine apart, on one host
        assert holder.split("/")[0] == socket.gethostname()
        with shop.app.database.connect() as db:  # once its hold has run out, it is taken
            db.execute(update(tasks).where(tasks.c.id == task).values(
                held_until=datetime.now(UTC) - timedelta(seconds=1)))
        with shop.app.database.connect() as db:
            assert holds.take(db, task) is not None
    finally:
        child.kill()
        child.wait()
        shop.app.database.dispose()


def test_a_single_step_lets_its_task_go_for_the_next_to_run_elsewhere(database: str,
                                                                       tmp_path: Path) -> None:
    """A step taken alone (``loop.step``, as a runner of single steps takes it) lets the task
    go when it is done: another process steps it on at once, while the first still runs."""
    shop = build(database, tmp_path)

    def model() -> ScriptedModel:
        return ScriptedModel(says.tool(shop.jot, box=shop.box.id, note="checked"),
                             says.hand_back(Report(summary="Tended.")))

    stepped = tmp_path / "stepped.txt"
    shop.app.database.dispose()  # no pooled connection crosses the fork
    pid = os.fork()
    if pid == 0:  # the first process: one step, then it stays alive, stepping nothing
        try:
            loop = shop.app._agency.loop
            task = loop.start(shop.app.agent(shop.Clerk).registered, shop.Tend(), None,
                              for_=None, model=model(), max_steps=10, budget_usd=1.0)
            loop.step(task)
            stepped.write_text(task)
            threading.Event().wait(WAIT)
        finally:
            os._exit(0)
    try:
        for _ in range(int(WAIT * 10)):
            if stepped.exists() and stepped.read_text():
                break
            threading.Event().wait(0.1)
        task = stepped.read_text()
        other = build(database, tmp_path)
        other.app.worker(model_for=lambda _agent, _task: model()).run_once()
        assert other.app.outcome(task).status is TaskStatus.DONE, _receipt(other, task)
        other.app.database.dispose()
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    shop.app.database.dispose()


def test_a_call_another_process_ran_between_two_steps_is_not_run_again(
    database: str, tmp_path: Path,
) -> None:
    """A process that stepped a task keeps the calls of the turn it stored. When another process
    held the task since, ran one of them and died, the first does not run it again from what it
    kept: it reads the turn afresh, and runs only the call left."""
    shop = build(database, tmp_path)

    def model() -> ScriptedModel:
        return ScriptedModel(says.tools(says.tool(shop.jot, box=shop.box.id, note="checked"),
                                        says.tool(shop.raise_level, box=shop.box.id, by=1,
                                                  tag="t")),
                             says.hand_back(Report(summary="Tended.")))

    loop = shop.app._agency.loop
    task = loop.start(shop.app.agent(shop.Clerk).registered, shop.Tend(), None, for_=None,
                      model=model(), max_steps=10, budget_usd=1.0)
    loop.step(task)  # the model's turn: this process keeps the two calls it stored, new
    assert "turn" in loop.memory_of(task)
    shop.app.database.dispose()  # no pooled connection crosses the fork
    pid = os.fork()
    if pid == 0:  # another process: it runs jot, and dies before raise_level
        try:
            other = build(database, tmp_path)

            def die(reached: str, where: dict[str, Any]) -> None:
                if reached == "loop.gating" and where.get("tool") == "raise_level":
                    os.kill(os.getpid(), signal.SIGKILL)

            with points.pausing(die):
                other.app.worker(model_for=lambda _agent, _task: model()).run_once()
        finally:
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == -signal.SIGKILL
    loop.step(task)  # what it kept is not the store's any more: jot does not run again
    with shop.app.session(as_=shop.app.system) as s:
        assert sorted(m.tool for m in s.scalars(select(shop.Mark))) == ["jot", "raise_level"]
    assert shop.app.agent(shop.Clerk).resume(task).status is TaskStatus.DONE
    shop.app.database.dispose()


# -- 2. waiting and deciding cannot miss each other ------------------------------------------


def test_a_decision_between_reading_the_turn_and_waiting_is_not_lost(
    two: tuple[SimpleNamespace, SimpleNamespace],
) -> None:
    """Finding 3: a decision committed after the agent's process read what its turn waits on,
    and before it stored that it waits, is not missed: the task goes on to the end instead of
    waiting on nothing."""
    agent_side, decider_side = two
    script = _turn(agent_side, says.tool(agent_side.set_level, box=agent_side.box.id, level=7),
                   says.tool(agent_side.jot, box=agent_side.box.id, note="checked"))
    # The decision is taken while the agent is between reading its turn and storing the wait;
    # the decider's process, had it stepped the task, would wait until the agent is done.
    outcome = _decide_while_the_agent_works(agent_side, decider_side, script,
                                            agent_at=("loop.turn_read", None),
                                            decider_at="loop.stepping")
    now = agent_side.app.outcome(outcome.task)
    assert now.status is TaskStatus.DONE, _receipt(agent_side, outcome.task)


# -- 3. record changes are not lost ----------------------------------------------------------


def test_two_processes_changing_one_record_lose_no_change(
    two: tuple[SimpleNamespace, SimpleNamespace],
) -> None:
    """Finding 4: two record-only runs in two processes that both read the box's level and add
    to it, each loaded before the other wrote, both count: the level rises by both."""
    one_side, two_side = two
    both = threading.Barrier(2, timeout=5)

    def loaded(_where: dict[str, Any]) -> None:
        # Each has read the level before either writes, where the store lets: SQLite lets one
        # writer in at a time, and the other never gets this far while the first waits.
        with contextlib.suppress(threading.BrokenBarrierError):
            both.wait()

    pauses = Pauses()
    pauses.at("one", "run.called", loaded)
    pauses.at("two", "run.called", loaded)

    def work(shop: SimpleNamespace, by: int) -> Any:
        return shop.app.agent(shop.Clerk).do(shop.Tend(), None, model=ScriptedModel(
            says.tool(shop.raise_level, box=shop.box.id, by=by),
            says.hand_back(Report(summary="Raised."))))

    with pauses.armed():
        first, second = joined(in_thread("one", lambda: work(one_side, 1)),
                                in_thread("two", lambda: work(two_side, 10)))
    assert (first.status, second.status) == (TaskStatus.DONE, TaskStatus.DONE)
    with one_side.app.session(as_=one_side.app.system) as s:
        assert s.get(one_side.Box, one_side.box.id).level == 11


# -- 4. a consent is used up before its outside action runs ----------------------------------


def test_a_consent_is_used_up_before_its_outside_action_runs(database: str,
                                                             tmp_path: Path) -> None:
    """Finding 5: a process killed after a consented outside action did its work, before its
    run committed, has still used the consent up: honoured again, it does not run twice."""
    shop = build(database, tmp_path)
    token = shop.app.actions.consent("post_letter", {"text": "Dear customer"}, as_=shop.noor)
    assert killed_at("run.consented", lambda: shop.app.actions.run_consented(token),
                     shop.app) == -signal.SIGKILL
    again = shop.app.actions.run_consented(token)
    assert lines(shop.letters) == ["Dear customer"]
    assert again.outcome is ActionOutcome.DENIED
    assert "used already" in again.problem
    shop.app.database.dispose()


# -- 5. spend is a ledger ----------------------------------------------------------------------


def test_two_spending_approvals_at_once_stay_within_the_budget(
    two: tuple[SimpleNamespace, SimpleNamespace],
) -> None:
    """Finding 6a: two approvals of spending calls, each checking the budget before the other
    spent, do not both spend: the one that does not fit is refused, and the task's spend stays
    within its budget."""
    agent_side, decider_side = two
    third = build(agent_side.app.database.url, agent_side.letters.parent)
    script = _turn(agent_side, says.tool(agent_side.pay, text="A"),
                   says.tool(agent_side.pay, text="B"))
    outcome = agent_side.app.agent(agent_side.Clerk).do(agent_side.Tend(), None, model=script,
                                                       budget_usd=1.0)
    assert outcome.waiting
    both = threading.Barrier(2, timeout=WAIT)
    pauses = Pauses()
    pauses.at("d1", "decider.checked", lambda _where: both.wait() and None)
    pauses.at("d2", "decider.checked", lambda _where: both.wait() and None)
    a, b = sorted(agent_side.app.proposals(task=outcome.task), key=lambda p: p.arguments["text"])
    with pauses.armed():
        decisions = joined(
            in_thread("d1", lambda: decider_side.app.approve(a.id, by=decider_side.noor)),
            in_thread("d2", lambda: third.app.approve(b.id, by=third.noor)),
        )
    third.app.database.dispose()
    told = [d.said for d in decisions], _receipt(agent_side, outcome.task)
    assert len(lines(agent_side.payments)) == 1, told
    assert sorted(d.status.value for d in decisions) == ["Done", "Failed"]
    assert agent_side.app.outcome(outcome.task).spend_usd <= 1.0


class _Billed(ScriptedModel):
    """A scripted model that writes what each call cost to a file as it answers (the bill)."""

    def __init__(self, bill: Path, *lines: Any, price: Price) -> None:
        super().__init__(*lines, price=price)
        self.bill = bill

    def complete(self, messages: Any, tools: list[ToolSpec] | Any, *,
                 max_output_tokens: int) -> Reply:
        reply = super().complete(messages, tools, max_output_tokens=max_output_tokens)
        assert self.price is not None
        cost = self.price.cost(reply.usage.input_tokens, reply.usage.output_tokens)
        with open(self.bill, "a", encoding="utf-8") as file:
            file.write(f"{cost}\n")
        return reply


def test_a_crash_after_a_model_reply_still_counts_what_the_call_cost(database: str,
                                                                     tmp_path: Path) -> None:
    """Finding 6b: a process killed right after the model replied, before the reply was
    stored, has counted what the call could cost: resumed again and again, the task is billed
    no more than it recorded, and never more than its budget."""
    shop = build(database, tmp_path)
    price = Price(input_per_mtok=10.0, output_per_mtok=10.0)
    bill = tmp_path / "bill.txt"

    def model() -> _Billed:
        return _Billed(bill, says.tool(shop.jot, box=shop.box.id, note="checked"),
                       says.hand_back(Report(summary="Tended.")), price=price)

    def work() -> None:  # the first process starts the task; each one after resumes it
        with shop.app.database.connect() as db:
            found = db.execute(select(tasks.c.id)).scalar()
        if found is None:
            shop.app.agent(shop.Clerk).do(shop.Tend(), None, model=model(), budget_usd=0.12)
        else:
            shop.app.agent(shop.Clerk).resume(found, model=model())

    exits = []
    for _ in range(8):
        exits.append(killed_at("loop.model_replied", work, shop.app))
        if exits[-1] != -signal.SIGKILL:
            break
    with shop.app.database.connect() as db:
        task = db.execute(select(tasks.c.id)).scalar_one()
    billed = [float(x) for x in lines(bill)]
    outcome = shop.app.outcome(task)
    assert exits[0] == -signal.SIGKILL
    assert sum(billed) <= outcome.spend_usd + 1e-12, (billed, outcome)
    assert outcome.spend_usd <= 0.12
    assert outcome.status is TaskStatus.HALTED, outcome
    assert "its reply was lost" in _receipt(shop, task)
    shop.app.database.dispose()


def test_a_reply_and_the_record_only_call_it_asks_for_are_one_step(database: str,
                                                                    tmp_path: Path) -> None:
    """The model's reply and the record-only call it asks for, run alone, are stored in one
    step: a process killed as the call has run, before its transaction commits, keeps neither.
    The level is as it was and nothing is marked; the receipt counts the reservation of the
    lost reply as spent; resumed, the model is asked again and the call runs once."""
    shop = build(database, tmp_path)
    price = Price(input_per_mtok=10.0, output_per_mtok=10.0)
    bill = tmp_path / "bill.txt"

    def model() -> _Billed:
        return _Billed(bill, says.tool(shop.raise_level, box=shop.box.id, by=3, tag="once"),
                       says.hand_back(Report(summary="Raised.")), price=price)

    def work() -> None:
        shop.app.agent(shop.Clerk).do(shop.Tend(), None, model=model(), budget_usd=1.0)

    level = box_of(shop).level
    assert killed_at("run.called", work, shop.app) == -signal.SIGKILL
    with shop.app.database.connect() as db:
        task = db.execute(select(tasks.c.id)).scalar_one()
    receipt = _receipt(shop, task)
    assert box_of(shop).level == level, receipt
    with shop.app.session(as_=shop.app.system) as s:
        assert list(s.scalars(select(shop.Mark))) == []
    assert "raise_level" not in receipt  # neither the reply nor the run was stored
    outcome = shop.app.agent(shop.Clerk).resume(task, model=model())
    receipt = _receipt(shop, task)
    assert outcome.status is TaskStatus.DONE, receipt
    assert "its reply was lost" in receipt
    assert box_of(shop).level == level + 3
    with shop.app.session(as_=shop.app.system) as s:
        assert [m.label for m in s.scalars(select(shop.Mark))] == ["once:3"]
    billed = [float(x) for x in lines(bill)]
    assert len(billed) == 3  # asked before the kill, and twice resumed
    assert sum(billed) <= outcome.spend_usd + 1e-12, (billed, outcome)
    shop.app.database.dispose()


def test_two_workers_on_one_task_ask_the_model_once_a_step(database: str,
                                                          tmp_path: Path) -> None:
    """Finding 6d: two workers stepping the same task at once do not both ask the model for the
    same step: while one holds the task (its model call reserved, not yet asked), the other
    leaves it, and each step is billed once."""
    shop = build(database, tmp_path)
    decider, first, second = (build(database, tmp_path) for _ in range(3))
    price = Price(input_per_mtok=10.0, output_per_mtok=10.0)
    bill = tmp_path / "bill.txt"

    def model() -> _Billed:
        return _Billed(bill, says.tool(shop.lift, box=shop.box.id, by=1),
                       says.hand_back(Report(summary="Tended.")), price=price)

    outcome = shop.app.agent(shop.Clerk).do(shop.Tend(), None, model=model())
    (proposal,) = decider.app.proposals(status=ProposalStatus.WAITING)
    decider.app.approve(proposal.id, by=decider.noor)  # no model there: the task is handed on
    assert shop.app.outcome(outcome.task).status is TaskStatus.RUNNING
    paused, second_done = threading.Event(), threading.Event()

    def hold_on(_where: dict[str, Any]) -> None:
        paused.set()
        second_done.wait(WAIT)

    def work(side: SimpleNamespace) -> int:
        return side.app.worker(model_for=lambda _agent, _task: model()).run_once()

    pauses = Pauses()
    pauses.at("w1", "loop.model_reserved", hold_on)
    with pauses.armed():
        one = in_thread("w1", lambda: work(first))
        assert paused.wait(WAIT)
        two = in_thread("w2", lambda: work(second))
        two[0].join(WAIT * 2)
        second_done.set()
        joined(one, two)
    for side in (decider, first, second):
        side.app.database.dispose()
    assert len(lines(bill)) == 2  # the turn that proposed, and the one that handed back
    assert shop.app.outcome(outcome.task).status is TaskStatus.DONE
    shop.app.database.dispose()


def test_a_reply_reporting_more_than_was_reserved_is_told_and_stops_the_task(
    database: str, tmp_path: Path,
) -> None:
    """Finding 6c: a model reply that reports more usage than its reservation allowed is
    recorded as it cost, told as such, and the task stops there."""
    shop = build(database, tmp_path)
    script = ScriptedModel(says.tool(shop.jot, box=shop.box.id, note="checked"),
                           says.hand_back(Report(summary="Tended.")),
                           price=Price(input_per_mtok=10.0, output_per_mtok=10.0),
                           usage=Usage(input_tokens=1_000_000, output_tokens=1_000_000))
    outcome = shop.app.agent(shop.Clerk).do(shop.Tend(), None, model=script, budget_usd=5.0)
    assert outcome.status is TaskStatus.HALTED
    assert "more than was reserved" in outcome.problem, outcome.problem
    # (what was reported passed the budget: said so, not "so that it is not passed unseen")
    assert "which passes the task's budget of $5.000000: the task stops" in outcome.problem
    assert "unseen" not in outcome.problem
    assert outcome.spend_usd == pytest.approx(20.0)
    assert len(script.seen.messages) == 1  # the model was not asked again
    shop.app.database.dispose()



# -- 7. an approved run is leased to whoever runs it -------------------------------------------


def _invoice_waits(shop: SimpleNamespace) -> tuple[Any, Any, ScriptedModel]:
    """A task whose one call, an outside one (send_invoice), waits on Noor: its outcome, the
    proposal, and the model (which hands back once the invoice is sent)."""
    script = _turn(shop, says.tool(shop.send_invoice, text="Invoice 7"))
    outcome = shop.app.agent(shop.Clerk).do(shop.Tend(), None, model=script)
    assert outcome.status is TaskStatus.WAITING
    (proposal,) = shop.app.proposals(task=outcome.task, status=ProposalStatus.WAITING)
    return outcome, proposal, script


def _approving_runs_until(decider_side: SimpleNamespace, proposal: Any, go_on: threading.Event,
                          ) -> tuple[threading.Thread, dict[str, Any]]:
    """Noor's yes, in the decider's process, whose run goes on only once `go_on` is set (it
    has been claimed, and leased, by then)."""
    running = threading.Event()
    pauses = Pauses()

    def runs_long(_where: dict[str, Any]) -> None:
        running.set()
        go_on.wait(WAIT)

    pauses.at("decider", "decider.claimed", runs_long)
    with pauses.armed():
        decider = in_thread("decider",
                            lambda: decider_side.app.approve(proposal.id, by=decider_side.noor))
        assert running.wait(WAIT)
    return decider


def _approved_and_running(agent_side: SimpleNamespace, decider_side: SimpleNamespace
                          ) -> tuple[Any, Any, threading.Event, Any, Any]:
    """An invoice proposed in the agent's process, approved in the decider's, whose run goes on
    once the event given back is set: the task's outcome, the proposal, that event, the
    decider's thread, and a worker of the agent's process."""
    outcome, proposal, script = _invoice_waits(agent_side)
    go_on = threading.Event()
    decider = _approving_runs_until(decider_side, proposal, go_on)
    worker = agent_side.app.worker(model_for=lambda _agent, _task: script)
    return outcome, proposal, go_on, decider, worker


def _run_of(shop: SimpleNamespace, proposal_id: str) -> dict[str, Any]:
    with shop.app.database.connect() as db:
        row = db.execute(select(proposals.c.status, proposals.c.run_by, proposals.c.run_until)
                         .where(proposals.c.id == proposal_id)).one()
    return dict(row._mapping)


def _lease_elsewhere(shop: SimpleNamespace, proposal_id: str, until: datetime) -> None:
    """The run's lease as if a process of another machine held it, until `until`."""
    with shop.app.database.connect() as db:
        db.execute(update(proposals).where(proposals.c.id == proposal_id).values(
            run_by="elsewhere.example:4242:99:1", run_until=until))


def test_an_approved_call_still_running_is_not_settled_by_a_worker(
    two: tuple[SimpleNamespace, SimpleNamespace],
) -> None:
    """An approved outside call may run long: a worker that takes nothing for stuck
    (``stuck_after`` 0) does not take it for stopped while the decider's process runs it. It is
    neither told as of unknown outcome nor run again, and is recorded once, as it ran. (It was
    settled once approved longer than ``stuck_after`` ago, however it was doing: told unknown,
    then recorded again as run.)"""
    agent_side, decider_side = two
    outcome, proposal, go_on, decider, worker = _approved_and_running(agent_side, decider_side)
    try:
        settled = worker.recover(older_than=timedelta(0))
        while_running = _run_of(agent_side, proposal.id)
    finally:
        go_on.set()
    joined(decider)
    worker.run_once()
    assert settled == 0
    assert while_running["status"] == ProposalStatus.APPROVED.value
    assert lines(agent_side.invoices) == ["Invoice 7"]
    receipt = _receipt(agent_side, outcome.task)
    assert "unknown" not in receipt, receipt
    assert receipt.count("Noor approved send_invoice") == 1, receipt
    assert agent_side.app.outcome(outcome.task).status is TaskStatus.DONE


def test_an_approved_run_leased_elsewhere_is_settled_once_its_lease_runs_out(
    two: tuple[SimpleNamespace, SimpleNamespace],
) -> None:
    """A run leased to a process of another machine (which cannot be seen from here) is left
    alone while its lease holds, and settled once it has run out unrenewed: told as of unknown
    outcome. When that run then ends after all, its record does not overwrite what the agent
    was told: how it really ended is told beside it in the receipt."""
    agent_side, decider_side = two
    outcome, proposal, go_on, decider, worker = _approved_and_running(agent_side, decider_side)
    try:
        _lease_elsewhere(agent_side, proposal.id, datetime.now(UTC) + timedelta(minutes=1))
        while_leased = worker.recover()
        _lease_elsewhere(agent_side, proposal.id, datetime.now(UTC) - timedelta(seconds=1))
        once_run_out = worker.recover()
    finally:
        go_on.set()
    (decision,) = joined(decider)
    worker.run_once()
    assert (while_leased, once_run_out) == (0, 1)
    assert lines(agent_side.invoices) == ["Invoice 7"]  # it did run, once
    assert agent_side.app.proposal(proposal.id).status is ProposalStatus.FAILED
    receipt = _receipt(agent_side, outcome.task)
    assert receipt.count("The outcome of send_invoice is unknown") == 1, receipt
    assert "this run ended after the call had been settled" in receipt, receipt
    assert "this run ended after the call had been settled" in decision.said
    assert decision.told_agent.startswith("The outcome of send_invoice is unknown")
    assert agent_side.app.outcome(outcome.task).status is TaskStatus.DONE


def test_a_stopped_approved_run_is_settled_by_one_worker_of_two(
    two: tuple[SimpleNamespace, SimpleNamespace],
) -> None:
    """A run whose process stopped after its claim is settled by one worker only, when two
    look at once: the first takes the run over, and the other leaves it to it. (Both settled
    it: told unknown twice.)"""
    agent_side, decider_side = two

    class Stopped(Exception):
        pass

    outcome, proposal, script = _invoice_waits(agent_side)
    pauses = Pauses()
    pauses.at("decider", "decider.claimed", lambda _where: _raise(Stopped()))
    with pauses.armed():
        decider = in_thread("decider",
                            lambda: decider_side.app.approve(proposal.id, by=decider_side.noor))
        decider[0].join(WAIT)
    assert isinstance(decider[1].get("error"), Stopped)
    taken, second_done = threading.Event(), threading.Event()

    def holds_on(_where: dict[str, Any]) -> None:
        taken.set()
        second_done.wait(WAIT)

    pauses.at("w1", "decider.recovering", holds_on)
    with pauses.armed():
        first = in_thread("w1", lambda: agent_side.app.worker(
            model_for=lambda _agent, _task: script).recover())
        assert taken.wait(WAIT), first[1]
        try:
            second = decider_side.app.worker(model_for=lambda _agent, _task: script).recover()
        finally:
            second_done.set()
        (settled_first,) = joined(first)
    assert (settled_first, second) == (1, 0)
    receipt = _receipt(agent_side, outcome.task)
    assert receipt.count("The outcome of send_invoice is unknown") == 1, receipt
    assert lines(agent_side.invoices) == []  # stopped before it ran: not run blindly


def test_a_second_yes_in_the_same_process_leaves_the_first_runs_lease(
    two: tuple[SimpleNamespace, SimpleNamespace],
) -> None:
    """Two yeses to one proposal in one process (a double click in the inbox): the one that
    loses the claim leaves the lease of the run that won it, which a worker then leaves alone
    while it runs. (The loser dropped it, and the running call was settled as stopped.)"""
    agent_side, decider_side = two
    outcome, proposal, script = _invoice_waits(agent_side)
    first_claimed, second_checked, go_on = threading.Event(), threading.Event(), threading.Event()

    def first_runs(_where: dict[str, Any]) -> None:
        first_claimed.set()
        go_on.wait(WAIT)

    def second_waits(_where: dict[str, Any]) -> None:
        second_checked.set()
        first_claimed.wait(WAIT)

    pauses = Pauses()
    pauses.at("d1", "decider.claimed", first_runs)
    pauses.at("d2", "decider.checked", second_waits)
    with pauses.armed():
        second = in_thread("d2", lambda: decider_side.app.approve(proposal.id,
                                                                 by=decider_side.noor))
        assert second_checked.wait(WAIT)
        first = in_thread("d1", lambda: decider_side.app.approve(proposal.id,
                                                                by=decider_side.noor))
        second[0].join(WAIT)
        try:
            settled = agent_side.app.worker(model_for=lambda _agent, _task: script).recover()
        finally:
            go_on.set()
        first[0].join(WAIT)
    assert "already decided" in str(second[1].get("error")), second[1]
    assert "error" not in first[1], first[1]
    assert settled == 0
    assert lines(agent_side.invoices) == ["Invoice 7"]
    assert "unknown" not in _receipt(agent_side, outcome.task)


def _outside_and_records(url: str, outbox: Path, inside: threading.Event,
                         go_on: threading.Event) -> SimpleNamespace:
    """An app whose clerk runs alone a call that reaches outside and writes a record (it waits
    on `go_on` once `inside`), and proposes an outside one (send_invoice)."""
    app = App("lasting", database=url, key=b"g" * 32)
    _, Mark, _ = box_world(app)

    @app.action("Post and mark")
    def post_and_mark(text: str, session: Annotated[Session, Provided("session")]) -> str:
        """Reaches outside and writes a record: runs in its writer's transaction."""
        inside.set()
        go_on.wait(WAIT)
        with open(outbox / "notes.txt", "a", encoding="utf-8") as file:
            file.write(text + "\n")
        session.add(Mark(tool="post_and_mark", label=text))
        return "Posted."

    @app.action("Send an invoice")
    def send_invoice(text: str) -> str:
        """Reaches outside: proposed."""
        with open(outbox / "invoices.txt", "a", encoding="utf-8") as file:
            file.write(text + "\n")
        return "Sent."

    class Tend(Skill[None, Report]):
        """Tend."""

        description = "Tend."
        tools = [post_and_mark, send_invoice]

    class Clerk(Agent):
        """Posts alone, invoices by proposal."""

        purpose = "You tend."
        skills = [Tend()]
        may = Permits(alone=[post_and_mark])
        budget_usd = float("inf")  # (post_and_mark waits on events: code the analysis cannot see)

    noor = app.people.add(NOOR, "Noor", roles=["manager"])
    app.add_agent(Clerk, sponsor=noor)
    return SimpleNamespace(app=app, Clerk=Clerk, Tend=Tend, noor=noor,
                           post_and_mark=post_and_mark, send_invoice=send_invoice)


def test_a_long_call_in_its_writers_transaction_holds_up_no_renewal(
    postgres_database: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A long alone call that writes a record runs in its writer's transaction, which locks its
    task's head (PostgreSQL): it keeps no lease of its own, and the leases of the process's
    other runs are renewed meanwhile. (Its hold's renewal waited on that lock for the whole
    call, and every other lease of the process ran out behind it.)"""
    monkeypatch.setattr(runs, "LEASE", timedelta(seconds=2))
    monkeypatch.setattr(runs, "RENEW_EVERY", 0.2)
    inside, go_on, invoice_runs = threading.Event(), threading.Event(), threading.Event()
    shop = _outside_and_records(postgres_database, tmp_path, inside, go_on)
    invoicing = ScriptedModel(says.tool(shop.send_invoice, text="Invoice 7"),
                              says.hand_back(Report(summary="Invoiced.")))
    waiting = shop.app.agent(shop.Clerk).do(shop.Tend(), None, model=invoicing)
    (proposal,) = shop.app.proposals(task=waiting.task)
    posting = ScriptedModel(says.tool(shop.post_and_mark, text="Note"),
                            says.hand_back(Report(summary="Posted.")))
    pauses = Pauses()
    pauses.at("decider", "decider.claimed", lambda _where: invoice_runs.wait(WAIT) and None)
    ahead: list[float] = []
    try:
        with pauses.armed():
            decider = in_thread("decider", lambda: shop.app.approve(proposal.id, by=shop.noor))
            agent = in_thread("agent", lambda: shop.app.agent(shop.Clerk).do(
                shop.Tend(), None, model=posting))
            assert inside.wait(WAIT)
            for _ in range(6):  # three leases long
                time.sleep(1.0)
                left = _run_of(shop, proposal.id)["run_until"]
                ahead.append((_aware(left) - datetime.now(UTC)).total_seconds())
    finally:
        go_on.set()
        invoice_runs.set()
    joined(agent, decider)
    shop.app.database.dispose()
    assert min(ahead) > 0, ahead


def test_a_claim_that_waited_on_its_task_leases_the_run_from_then(
    postgres_database: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A yes whose claim waits on its task's lock (PostgreSQL: the turn's alone call runs in its
    writer's transaction) leases the run from when it is claimed. (The lease was reckoned from
    before the wait: a call just starting was claimed with a lease already run out.)"""
    monkeypatch.setattr(runs, "LEASE", timedelta(seconds=2))
    monkeypatch.setattr(runs, "RENEW_EVERY", 10.0)
    inside, go_on, claimed = threading.Event(), threading.Event(), threading.Event()
    shop = _outside_and_records(postgres_database, tmp_path, inside, go_on)
    turn = ScriptedModel(says.tools(says.tool(shop.send_invoice, text="Invoice 7"),
                                    says.tool(shop.post_and_mark, text="Note")),
                         says.hand_back(Report(summary="Done.")))
    seen: dict[str, float] = {}

    def leased_from_now(_where: dict[str, Any]) -> None:
        left = _run_of(shop, proposal.id)["run_until"]
        seen["ahead"] = (_aware(left) - datetime.now(UTC)).total_seconds()
        claimed.set()

    pauses = Pauses()
    pauses.at("decider", "decider.claimed", leased_from_now)
    try:
        with pauses.armed():
            agent = in_thread("agent", lambda: shop.app.agent(shop.Clerk).do(
                shop.Tend(), None, model=turn))
            assert inside.wait(WAIT)
            (proposal,) = shop.app.proposals(status=ProposalStatus.WAITING)
            decider = in_thread("decider", lambda: shop.app.approve(proposal.id, by=shop.noor))
            time.sleep(3.0)  # the alone call runs longer than a lease, the claim waiting
            go_on.set()
            assert claimed.wait(WAIT)
            joined(agent, decider)
    finally:
        go_on.set()
    shop.app.database.dispose()
    assert seen["ahead"] > 1.0, seen


def _raise(error: Exception) -> None:
    raise error


def test_an_approved_run_is_renewed_while_it_runs(
    two: tuple[SimpleNamespace, SimpleNamespace], monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The lease of a run that takes longer than the lease is renewed by its process while it
    runs, so that no worker of another machine takes it for stopped."""
    agent_side, decider_side = two
    monkeypatch.setattr(runs, "LEASE", timedelta(seconds=1))
    monkeypatch.setattr(runs, "RENEW_EVERY", 0.05)
    _, proposal, _ = _invoice_waits(agent_side)
    go_on = threading.Event()
    decider = _approving_runs_until(decider_side, proposal, go_on)
    try:
        claimed = _run_of(agent_side, proposal.id)
        deadline = time.monotonic() + WAIT
        while _run_of(agent_side, proposal.id)["run_until"] == claimed["run_until"]:
            assert time.monotonic() < deadline, "the lease was never renewed"
            time.sleep(0.05)
        renewed = _run_of(agent_side, proposal.id)
    finally:
        go_on.set()
    joined(decider)
    assert claimed["run_by"] == renewed["run_by"]
    assert _aware(renewed["run_until"]) > _aware(claimed["run_until"])
    after = _run_of(agent_side, proposal.id)
    assert after["status"] == ProposalStatus.DONE.value


def _aware(when: datetime) -> datetime:
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)
