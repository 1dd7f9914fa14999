"""The loop as a state machine: a step returns what happens next, and a task that stops running
leaves nothing of itself in the loop's memory."""

from __future__ import annotations

import json
from types import SimpleNamespace

from pydantic import BaseModel
from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

from signoff import Agent, App, Permits, ReceiptKind, Skill, TaskStatus, allow
from signoff.agents.steps import Done, HandOn, RunAgain, WaitOn
from signoff.models.base import Reply, ToolCall
from signoff.testing import ScriptedModel, says


class Tally(BaseModel):
    """What the counting agent hands back."""

    total: int


def _counter(database: str = "sqlite://") -> SimpleNamespace:
    app = App("t", database=database)

    class Counter(app.Record):  # type: ignore[name-defined, misc]
        name: Mapped[str] = mapped_column(String(20), unique=True)
        value: Mapped[int] = mapped_column(default=0)
        __security__ = [allow("read", "update", "create")]

    @app.action
    def bump(counter: Counter) -> int:
        """Add one."""
        counter.value += 1
        return counter.value

    @app.action
    def reset(counter: Counter) -> str:
        """Start again from nought."""
        counter.value = 0
        return "Reset."

    class Count(Skill[Counter, Tally]):
        description = "Count."
        tools = [bump, reset]

    class Clerk(Agent):
        purpose = "You count."
        skills = [Count()]
        may = Permits(alone=[bump])

    noor = app.people.add("noor@t.example", "Noor", roles=["manager"])
    app.add_agent(Clerk, sponsor=noor)
    with app.session(as_=app.system) as s:
        counter = Counter(name="c")
        s.add(counter)
    return SimpleNamespace(app=app, Counter=Counter, Count=Count, Clerk=Clerk, bump=bump,
                           reset=reset, counter=counter, noor=noor)


def test_a_step_returns_what_happens_next() -> None:
    """Each step returns a typed value: run again after a model turn and after a turn of tools,
    wait on the proposal's id when a call is proposed, done with the result at the end; without
    a model for it, the task is handed on."""
    shop = _counter()
    script = ScriptedModel(says.tool(shop.bump, counter=shop.counter.id),
                           says.tool(shop.reset, counter=shop.counter.id),
                           says.hand_back(Tally(total=0)))
    loop = shop.app._agency.loop
    task = loop.start(shop.app.agent(shop.Clerk).registered, shop.Count(), shop.counter,
                      for_=None, model=script, max_steps=10, budget_usd=1.0)
    assert loop.step(task) == RunAgain()  # the model asked for bump
    assert loop.step(task) == RunAgain()  # bump ran alone, its answer told
    assert loop.step(task) == RunAgain()  # the model asked for reset
    waiting = loop.step(task)  # reset is proposed
    (proposal,) = shop.app.proposals(task=task)
    assert isinstance(waiting, WaitOn)
    assert (waiting.proposals, waiting.waiting_on) == ((proposal.id,), ("a decision from Noor",))
    assert waiting.status is TaskStatus.WAITING
    shop.app.approve(proposal, by=shop.noor)  # the decision goes on with the task, to the end
    assert loop.step(task) == Done(result={"total": 0})
    other = loop.start(shop.app.agent(shop.Clerk).registered, shop.Count(), shop.counter,
                       for_=None, model=script, max_steps=10, budget_usd=1.0)
    loop.models.clear()
    assert isinstance(loop.step(other), HandOn)
    kinds = [e.kind for e in shop.app.receipt(task).entries]
    assert (kinds[0], kinds[-1]) == (ReceiptKind.START, ReceiptKind.RESULT)


def test_a_thousand_finished_tasks_leave_nothing_in_the_loops_memory() -> None:
    """1,000 tasks run to the end (a tool call alone, then the result) leave nothing of theirs
    in the loop: no model, conversation, row or turn is kept for any of them."""
    shop = _counter()
    handle = shop.app.agent(shop.Clerk)
    loop = shop.app._agency.loop
    tasks = []
    for _ in range(1000):
        script = ScriptedModel(says.tool(shop.bump, counter=shop.counter.id),
                               says.hand_back(Tally(total=1)))
        outcome = handle.do(shop.Count(), shop.counter, model=script)
        assert outcome.status is TaskStatus.DONE
        tasks.append(outcome.task)
    assert [t for t in tasks if loop.memory_of(t)] == []
    assert (loop.models, loop._conversations, loop._saved, loop._turn_calls) == ({}, {}, {}, {})


def test_a_task_a_client_gives_its_turns_runs_on_either_database(database: str) -> None:
    """A task opened for a client's own turns (MCP: no budget of its own kept) is stored and
    takes a turn on PostgreSQL as on SQLite (its unbounded budget is not written as JSON)."""
    shop = _counter(database)
    handle = shop.app.agent(shop.Clerk)
    task = handle.start(shop.Count(), shop.counter, model_name="client", max_steps=10)
    reply = Reply(tool_calls=(ToolCall(id="c1", name="bump", arguments=json.dumps(
        {"counter": str(shop.counter.id)})),))
    (answer,) = handle.take_turn(task, reply, model_name="client")
    assert (answer.state, answer.outcome, answer.value) == ("done", "Done", 1)
    shop.app.database.dispose()
