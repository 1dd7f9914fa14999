"""The loop as a state machine: a step returns what happens next, and a task that stops running
leaves nothing of itself in the loop's memory."""

from __future__ import annotations

import json
import logging
import re
import sqlite3
import tempfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Annotated, Any

import pytest
from sqlalchemy import event, select, update
from sqlalchemy.orm import Mapped, Session, mapped_column

from signoff import (
    Agent,
    AgentRefused,
    AgentTaskWaiting,
    App,
    EditRefused,
    OutcomeUnknown,
    Permits,
    Principal,
    ProposalStatus,
    Provided,
    ReceiptKind,
    Route,
    Skill,
    TaskStatus,
    Unavailable,
    allow,
    policy,
    spends,
)
from signoff.agents import repository as repo
from signoff.agents.proposing import Kept, KeptProposals
from signoff.agents.skills import TaskView
from signoff.agents.steps import Done, HandOn, RunAgain, WaitOn
from signoff.agents.tasks import waiting_words
from signoff.exceptions import UserError
from signoff.inbox import Inbox
from signoff.models.base import Reply, ToolCall
from signoff.security.enforcement import RuledSession
from signoff.store import journal, points
from signoff.store.tables import tasks
from signoff.testing import ScriptedModel, says
from tests.counters import Tally, counter_and_bump
from tests.driver_trace import tracing


def _counter(database: str = "sqlite://", *, again: bool = False) -> SimpleNamespace:
    """The counting app on `database` (`again`: another app object on a database one made
    already, as another process has it)."""
    app = App("t", database=database)
    Counter, bump = counter_and_bump(app)

    @app.action
    def reset(counter: Counter) -> str:
        """Start again from nought."""
        counter.value = 0
        return "Reset."

    @app.action
    def add(a: int, b: int) -> int:
        """The sum of a and b (an ordinary action, not a query, that changes nothing)."""
        return a + b

    board = Path(tempfile.mkdtemp(prefix="signoff-board-")) / "board.txt"

    @app.action
    def announce(text: str) -> str:
        """Pin a notice on the board (a file: it reaches outside)."""
        with open(board, "a", encoding="utf-8") as file:
            file.write(text + "\n")
        return "Pinned."

    def announced() -> list[str]:
        return board.read_text(encoding="utf-8").splitlines() if board.exists() else []

    class Count(Skill[Counter, Tally]):
        description = "Count."
        tools = [bump, reset, announce]

    class Sum(Skill[None, Tally]):
        description = "Add, and count."
        tools = [add, bump, reset]

    class Clerk(Agent):
        purpose = "You count."
        skills = [Count(), Sum()]
        may = Permits(alone=[bump])

    class Trusted(Agent):
        purpose = "You count."
        skills = [Sum()]
        may = Permits.everything()
        max_steps = 100

    if again:
        noor = app.people.get("noor@t.example")
        app.add_agent(Clerk, sponsor=noor)
        app.add_agent(Trusted, sponsor=noor)
        with app.session(as_=app.system) as s:
            counter = s.scalars(select(Counter)).one()
    else:
        noor = app.people.add("noor@t.example", "Noor", roles=["manager"])
        app.add_agent(Clerk, sponsor=noor)
        app.add_agent(Trusted, sponsor=noor)
        with app.session(as_=app.system) as s:
            counter = Counter(name="c")
            s.add(counter)
    return SimpleNamespace(app=app, Counter=Counter, Count=Count, Sum=Sum, Clerk=Clerk,
                           Trusted=Trusted, add=add, bump=bump, reset=reset,
                           announce=announce, announced=announced, counter=counter, noor=noor)


def test_a_sponsor_not_known_yet_leaves_work_for_nobody_to_the_supervisors() -> None:
    """An agent whose sponsor is given by a handle nobody has yet: its work for nobody is put to
    the supervisors, as an agent's with no sponsor is, until the sponsor is made (the sponsor
    was looked for again inside the proposal's transaction, and the task failed, "brief raised
    UserError: signoff opened a second SQLite transaction…")."""
    shop = _counter()

    class Stranger(shop.Clerk):  # type: ignore[name-defined, misc]
        may = Permits()

    shop.app.add_agent(Stranger, sponsor="ola@t.example")
    script = ScriptedModel(says.tool(shop.reset, counter=shop.counter.id),
                           says.hand_back(Tally(total=0)))
    outcome = shop.app.agent(Stranger).do(shop.Count(), shop.counter, model=script)
    assert outcome.status is TaskStatus.WAITING, outcome.problem
    assert outcome.waiting_on == ("a decision from a supervisor",)
    ola = shop.app.people.add("ola@t.example", "Ola")
    again = shop.app.agent(Stranger).do(shop.Count(), shop.counter, model=ScriptedModel(
        says.tool(shop.reset, counter=shop.counter.id), says.hand_back(Tally(total=0))))
    assert again.waiting_on == ("a decision from Ola",)
    assert [p.id for p in shop.app.proposals_for(ola)] == [
        p.id for p in shop.app.proposals(task=again.task)]


def test_proposals_are_filtered_by_a_status_named_in_any_case() -> None:
    """`app.proposals(status="waiting")` raised AttributeError: 'str' object has no attribute
    'value'; a name that is no status is told, naming them."""
    shop = _counter()
    outcome = shop.app.agent(shop.Clerk).do(shop.Count(), shop.counter, model=ScriptedModel(
        says.tool(shop.reset, counter=shop.counter.id), says.hand_back(Tally(total=0))))
    (waiting,) = shop.app.proposals(task=outcome.task, status=ProposalStatus.WAITING)
    for named in ("waiting", "Waiting", "WAITING"):
        assert [p.id for p in shop.app.proposals(task=outcome.task, status=named)] == [waiting.id]
    assert shop.app.proposals(task=outcome.task, status="done") == []
    with pytest.raises(UserError, match="A proposal's status is one of Waiting, Approved, Done, "
                                        "Failed, Rejected, Stale, Withdrawn, not 'pending'"):
        shop.app.proposals(status="pending")


def test_no_rule_for_a_tool_declared_every_time_says_so_in_order() -> None:
    """It read "Careful may use only with a yes every time reset: …"."""
    shop = _counter()

    class Careful(shop.Clerk):  # type: ignore[name-defined, misc]
        may = Permits(propose_every_time=[shop.reset])

    shop.app.add_agent(Careful, sponsor=shop.noor)
    with pytest.raises(AgentRefused, match=re.escape(
            "Careful may use reset only with a yes every time: its declaration says so, and no "
            "standing rule can widen it.")):
        shop.app.allow_alone(Careful, shop.reset, by=shop.noor)


def test_a_script_that_runs_out_says_so() -> None:
    """A `ScriptedModel` asked for a turn it has no line for ends the task Failed, saying so
    (it said "The model failed: RuntimeError", the sentence only in the log)."""
    shop = _counter()
    script = ScriptedModel(says.tool(shop.bump, counter=shop.counter.id))
    outcome = shop.app.agent(shop.Clerk).do(shop.Count(), shop.counter, model=script)
    assert outcome.status is TaskStatus.FAILED
    assert "The script has 1 turn(s), and turn 2 was asked: give the ScriptedModel a line for " \
           "every model turn the task takes." in outcome.problem


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
    # reset was asked for with no why: the receipt says so, not empty quotes
    assert "Clerk proposed reset to Noor, giving no reason." in shop.app.receipt(task).words


def test_a_task_waiting_on_two_decisions_of_one_person_says_so_once() -> None:
    """Two calls of a turn proposed to Noor: the task waits on "2 decisions from Noor", in its
    receipt, its outcome and the command line's words (it read "a decision from Noor, a
    decision from Noor")."""
    shop = _counter()
    script = ScriptedModel(says.tools(says.tool(shop.reset, counter=shop.counter.id),
                                      says.tool(shop.reset, counter=shop.counter.id)),
                           says.hand_back(Tally(total=0)))
    outcome = shop.app.agent(shop.Clerk).do(shop.Count(), shop.counter, for_=shop.noor,
                                            model=script)
    assert outcome.waiting_on == ("a decision from Noor", "a decision from Noor")
    assert outcome.waits_on == "2 decisions from Noor"
    assert "The task waits on 2 decisions from Noor." in shop.app.receipt(outcome.task).words
    assert waiting_words(("a decision from Noor", "a decision from the managers",
                          "a decision from Noor")) == (
        "2 decisions from Noor, a decision from the managers")
    shop.app.database.dispose()


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


def test_on_sqlite_a_step_writes_the_tasks_head_once(tmp_path: Any) -> None:
    """On SQLite, where a step's transaction holds the write lock from its start, the model's
    reply and the record-only call it asks for (or the result it hands back) write the task's
    head in one statement, which checks the hold as the step ends: three steps, three writes.
    The calls ran once each, and the receipt tells each step in order."""
    shop = _counter(f"sqlite:///{tmp_path}/head.db")
    script = ScriptedModel(says.tool(shop.bump, counter=shop.counter.id),
                           says.tool(shop.bump, counter=shop.counter.id),
                           says.hand_back(Tally(total=2)))
    with tracing(shop.app.database.engine) as trace:
        outcome = shop.app.agent(shop.Clerk).do(shop.Count(), shop.counter, for_=shop.noor,
                                                model=script)
        heads = [s for s in trace.take().statements if s.startswith("UPDATE signoff_tasks")]
    assert outcome.status is TaskStatus.DONE, outcome.problem
    assert len(heads) == 3, heads
    with shop.app.session(as_=shop.app.system) as s:
        assert s.get(shop.Counter, shop.counter.id).value == 2
    kinds = [e.kind for e in shop.app.receipt(outcome.task).entries]
    assert kinds == [ReceiptKind.START, ReceiptKind.MODEL_CALL, ReceiptKind.TOOL_CALL,
                     ReceiptKind.MODEL_CALL, ReceiptKind.TOOL_CALL, ReceiptKind.MODEL_CALL,
                     ReceiptKind.RESULT]
    assert outcome.steps == 3
    shop.app.database.dispose()


def test_a_result_check_set_on_a_skill_instance_is_asked() -> None:
    """A skill's result check may be given on the instance the agent has, not only by its
    class: the hand back it refuses is refused (told to the model), and the next is taken."""
    shop = _counter()
    skill = shop.Clerk.skills[0]
    skill.check_result = lambda result, _task: (  # type: ignore[method-assign]
        "" if result.total >= 0 else "A total is never below nought.")
    script = ScriptedModel(says.hand_back(Tally(total=-1)), says.hand_back(Tally(total=2)))
    outcome = shop.app.agent(shop.Clerk).do(shop.Count, shop.counter, model=script)
    assert outcome.status is TaskStatus.DONE, outcome.problem
    assert outcome.result == Tally(total=2)
    words = [e.words for e in shop.app.receipt(outcome.task).entries]
    assert any("A total is never below nought." in w for w in words)


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


@pytest.fixture
def shops(database: str) -> Iterator[Callable[..., SimpleNamespace]]:
    """Counting apps on this test's database (the first makes it), closed at the end."""
    opened: list[SimpleNamespace] = []

    def shop() -> SimpleNamespace:
        opened.append(_counter(database, again=bool(opened)))
        return opened[-1]

    yield shop
    for each in opened:
        each.app.database.dispose()


def _resets(shop: SimpleNamespace, times: int) -> str:
    """A task of `shop` that proposes reset `times` times, then hands back; it waits on the
    first."""
    script = ScriptedModel(*[says.tool(shop.reset, counter=shop.counter.id)] * times,
                           says.hand_back(Tally(total=0)))
    outcome = shop.app.agent(shop.Clerk).do(shop.Count(), shop.counter, for_=shop.noor,
                                            model=script)
    assert outcome.status is TaskStatus.WAITING
    return outcome.task


def _transactions(shop: SimpleNamespace) -> list[int]:
    """A count of the transactions begun on `shop`'s database from now on, as it grows."""
    begun = [0]

    def count(_connection: object) -> None:
        begun[0] += 1

    event.listen(shop.app.database.engine, "begin", count)
    return begun


def test_a_yes_in_the_process_that_proposed_reads_nothing_before_its_claim(
        shops: Callable[..., SimpleNamespace]) -> None:
    """A yes taken in the process whose task made the proposal runs it from what that process
    kept: the run (claimed, the decider checked, recorded, the task woken and its turn closed),
    and the model's next turn with the proposal it makes (one step) are two transactions. The
    counter the task is about is read in them (the brief, as it reads now, for the decision's
    stale check and for the next proposal's fingerprint): before, each read was a transaction
    of its own, and before that a decision read the proposal, its task and the decider in one
    of its own first."""
    shop = shops()
    task = _resets(shop, 2)
    loop = shop.app._agency.loop
    assert "proposals" in loop.memory_of(task)
    (first,) = shop.app.proposals(task=task, status=ProposalStatus.WAITING)
    begun = _transactions(shop)
    assert shop.app.approve(first.id, by=shop.noor).task_status == TaskStatus.WAITING.value
    assert begun[0] == 2
    (second,) = shop.app.proposals(task=task, status=ProposalStatus.WAITING)
    shop.app.approve(second.id, by=shop.noor)
    assert shop.app.outcome(task).status is TaskStatus.DONE
    assert [p.status for p in shop.app.proposals(task=task)] == [ProposalStatus.DONE] * 2
    assert loop.memory_of(task) == []  # nothing kept once its proposals were decided and it ended


ALONE_CALL = 1
"""Transactions one call an agent makes alone takes, as the driver sends them: its step (the
model's turn and the call it asks for, run) is one. Issue 11 allows two: the tests hold the loop
to one, so that a commit more per call fails them."""
START_AND_END = 2
"""A task's transactions besides its calls': its start (its row and opening), and its end (the
result handed back, in the step of the model's last turn)."""
APPROVAL_ROUND_TRIP = 3
"""Transactions of a person's round trip, as the driver sends them: the task's waiting proposal
listed; the yes (the proposal claimed, its call run, recorded, the task woken and its turn
closed); the model's next turn with what it asks next (a proposal, stored with the task's wait).
Issue 11 allows four: the tests hold the loop to three."""


@pytest.mark.parametrize(("tool", "besides"), [("add", START_AND_END), ("bump", START_AND_END + 1)])
def test_an_alone_call_is_one_transaction_on_the_database(
        shops: Callable[..., SimpleNamespace], tool: str, besides: int) -> None:
    """N calls an agent makes alone take N transactions, counted as the driver sends them
    (BEGIN, COMMIT, ROLLBACK; tests/driver_trace.py), besides the task's start and end: calls of
    an ordinary action that changes nothing (add), and of one that changes a record (bump), run
    alone because the agent may do everything. Before its first call that changes something, a
    task reads its calls once (what it has seen, to label the call's arguments): one more."""
    shop = shops()
    handle = shop.app.agent(shop.Trusted)

    def task(n: int) -> None:
        if tool == "add":
            calls = [says.tool(shop.add, a=i, b=1) for i in range(n)]
        else:
            calls = [says.tool(shop.bump, counter=shop.counter.id)] * n
        outcome = handle.do(shop.Sum(), None, for_=shop.noor,
                            model=ScriptedModel(*calls, says.hand_back(Tally(total=n))))
        assert outcome.status is TaskStatus.DONE, outcome.problem

    task(1)  # a process's first task also makes the agent's account, and reads the people
    n = 20
    with tracing(shop.app.database.engine) as trace:
        task(n)
        sent = trace.take()
    # at least one a call: each call's step is committed before the next begins
    assert n <= sent.transactions <= n * ALONE_CALL + besides, "\n".join(sent.statements)


@pytest.mark.parametrize("about", ["nothing", "a record"])
def test_an_approval_round_trip_is_three_transactions_on_the_database(
        shops: Callable[..., SimpleNamespace], about: str) -> None:
    """A person's round trip — the task's waiting proposal listed, said yes to, and the task
    gone on to its next stop (its next proposal; after the last, its result handed back) — takes
    three transactions, counted as the driver sends them (tests/driver_trace.py): for a task
    with no subject, as bench/bench_loop.py measures it, and for one about a record, whose brief
    is read as it reads now for the yes's check that nothing it was proposed on changed, and
    for the next proposal's fingerprint, each in the transaction it is for (before, each was
    a transaction of its own: five a trip, above the issue's four)."""
    shop = shops()
    trips = 5
    script = ScriptedModel(*[says.tool(shop.reset, counter=shop.counter.id)] * trips,
                           says.hand_back(Tally(total=0)))
    skill, subject = (shop.Sum(), None) if about == "nothing" else (shop.Count(), shop.counter)
    outcome = shop.app.agent(shop.Clerk).do(skill, subject, for_=shop.noor, model=script)
    assert outcome.status is TaskStatus.WAITING, outcome.problem
    with tracing(shop.app.database.engine) as trace:
        for _ in range(trips):
            (waiting,) = shop.app.proposals(task=outcome.task, status=ProposalStatus.WAITING)
            shop.app.approve(waiting, by=shop.noor)
            sent = trace.take()
            # at least two: the yes and the next turn are each committed
            assert 2 <= sent.transactions <= APPROVAL_ROUND_TRIP, "\n".join(sent.statements)
    assert shop.app.outcome(outcome.task).status is TaskStatus.DONE
    assert [p.status for p in shop.app.proposals(task=outcome.task)] == [ProposalStatus.DONE] * trips


def test_a_kept_proposal_decided_by_another_process_is_not_run_again(
        shops: Callable[..., SimpleNamespace]) -> None:
    """The process that made a proposal keeps it; another process decides it first. A yes
    taken afterwards in the first process is refused as already decided, and nothing runs
    again: whether a kept proposal still waits is checked where it is claimed."""
    shop = shops()
    task = _resets(shop, 1)
    (proposal,) = shop.app.proposals(task=task)
    other = shops()  # another process: it did not make the proposal
    with other.app.session(as_=other.app.system) as s:
        s.get(other.Counter, other.counter.id).value = 7
    other.app.reject(proposal.id, by=other.noor, reason="Not now.")
    with pytest.raises(AgentRefused, match="already decided"):
        shop.app.approve(proposal.id, by=shop.noor)
    with shop.app.session(as_=shop.app.system) as s:
        assert s.get(shop.Counter, shop.counter.id).value == 7  # reset never ran
    (decided,) = shop.app.proposals(task=task)
    assert decided.status is ProposalStatus.REJECTED


def test_a_decider_disabled_since_is_refused_where_the_proposal_is_claimed(
        shops: Callable[..., SimpleNamespace]) -> None:
    """The person object a caller passes may be older than the directory: Noor, disabled since
    it was read, cannot approve or reject the proposal her process kept. Refused in a sentence,
    the proposal still waits, and nothing ran; enabled again, she decides it."""
    shop = shops()
    task = _resets(shop, 1)
    (proposal,) = shop.app.proposals(task=task)
    with shop.app.session(as_=shop.app.system) as s:
        s.get(shop.Counter, shop.counter.id).value = 5
    noor_then = shop.noor
    shop.app.people.disable(shop.noor)
    with pytest.raises(AgentRefused, match="Noor is disabled and may not decide anything"):
        shop.app.approve(proposal.id, by=noor_then)
    with pytest.raises(AgentRefused, match="Noor is disabled and may not decide anything"):
        shop.app.reject(proposal.id, by=noor_then, reason="No.")
    (waiting,) = shop.app.proposals(task=task)
    assert waiting.status is ProposalStatus.WAITING
    with shop.app.session(as_=shop.app.system) as s:
        assert s.get(shop.Counter, shop.counter.id).value == 5
    shop.app.people.enable(shop.noor)
    assert shop.app.approve(proposal.id, by=noor_then).status is ProposalStatus.DONE
    assert shop.app.outcome(task).status is TaskStatus.DONE


def test_a_standing_rule_asked_for_checks_the_decider_as_the_directory_holds_them(
        shops: Callable[..., SimpleNamespace]) -> None:
    """Noor may make standing rules while a manager; her role is taken away after the caller
    read her. Her yes "from now on, alone" on the proposal her process kept is refused before
    anything runs: the proposal still waits, the counter is as it was, and no rule is made."""
    shop = shops()
    shop.app.oversight.widens_agent_autonomy = policy.role("manager")
    task = _resets(shop, 1)
    (proposal,) = shop.app.proposals(task=task)
    with shop.app.session(as_=shop.app.system) as s:
        s.get(shop.Counter, shop.counter.id).value = 4
    noor_then = shop.noor
    shop.app.people.set_roles(shop.noor, [])
    with pytest.raises(AgentRefused, match="Noor may not let agents do more on their own"):
        shop.app.approve(proposal.id, by=noor_then, always_like_this=True)
    (waiting,) = shop.app.proposals(task=task)
    assert waiting.status is ProposalStatus.WAITING
    assert shop.app.rules() == []
    with shop.app.session(as_=shop.app.system) as s:
        assert s.get(shop.Counter, shop.counter.id).value == 4


def _triage(database: str, *, routed_to: str = "") -> SimpleNamespace:
    """Tickets whose priority only a manager may change, an agent (a manager itself) that
    triages them, Noor (a manager) and Mia (not one); `routed_to`: the queue the skill routes
    the agent's changes to."""
    app = App("yes", database=database)
    is_manager = policy.role("manager")

    class Ticket(app.Record):  # type: ignore[name-defined, misc]
        priority: Mapped[int] = mapped_column(default=0)
        __security__ = [allow("read", "create"), allow("update", when=is_manager)]

    @app.action
    def set_priority(ticket: Ticket, priority: int) -> int:
        """Set the ticket's priority."""
        ticket.priority = priority
        return priority

    @app.action("Close the ticket", authorize=is_manager)
    def close(ticket: Ticket) -> str:
        """Close it."""
        return "Closed."

    @app.action(authorize=is_manager)
    def reopen(ticket: Ticket) -> str:
        """Reopen it."""
        return "Reopened."

    class Triage(Skill[Ticket, int]):
        description = "Triage the ticket."
        tools = [set_priority, close, reopen]

        def decided_by(self, action: str) -> Route | None:
            return Route.to_queue(routed_to) if routed_to else None

    class Triager(Agent):
        purpose = "You triage tickets."
        skills = [Triage()]
        roles = ["manager"]

    noor = app.people.add("noor@y.example", "Noor", roles=["manager"])
    mia = app.people.add("mia@y.example", "Mia")
    app.add_agent(Triager, sponsor=noor)
    with app.session(as_=noor) as s:
        ticket = Ticket()
        s.add(ticket)

    def priority() -> int:
        with app.session(as_=noor) as s:
            return int(s.get(Ticket, ticket.id).priority)

    return SimpleNamespace(app=app, Ticket=Ticket, set_priority=set_priority, close=close,
                           reopen=reopen, Triage=Triage, Triager=Triager, noor=noor, mia=mia, ticket=ticket,
                           priority=priority)


def test_a_yes_from_now_on_that_did_not_run_makes_no_standing_rule(database: str) -> None:
    """Mia may not change a ticket's priority (only a manager may), but may make standing
    rules. Her yes "from now on, alone" to the agent's change fails, as any yes of hers to it
    would: it makes no rule, and says so, and the agent's next change is proposed again (a rule
    was made, and the agent then changed priorities alone, as itself: the very power she lacks).
    Noor, a manager, says the same yes: it runs, and her rule lets the next change run alone.
    Nor may Mia make such a rule directly for an action whose policy refuses her."""
    shop = _triage(database)
    app, ticket, set_priority, noor, mia = (shop.app, shop.ticket, shop.set_priority,
                                            shop.noor, shop.mia)
    Triage, Triager, close = shop.Triage, shop.Triager, shop.close
    try:
        said = []
        for person, status, rule_made in [(mia, ProposalStatus.FAILED, False),
                                          (noor, ProposalStatus.DONE, True)]:
            script = ScriptedModel(says.tool(set_priority, ticket=ticket.id, priority=2),
                                   says.tool(set_priority, ticket=ticket.id, priority=3),
                                   says.hand_back(3))
            outcome = app.agent(Triager).do(Triage(), ticket, for_=person, model=script)
            assert outcome.status is TaskStatus.WAITING, outcome.problem
            (first,) = app.proposals(task=outcome.task)
            decision = app.approve(first, by=person, always_like_this=True)
            said.append(decision.said)
            assert decision.status is status, decision.said
            assert (decision.rule is not None) is rule_made
            assert [r.made_by for r in app.rules()] == [noor.id] * rule_made
            waiting = app.proposals(task=outcome.task, status=ProposalStatus.WAITING)
            assert len(waiting) == (not rule_made), [p.action for p in waiting]
        assert said == [
            f"Mia approved set_priority, but it did not run: Mia may not change Ticket "
            f"{ticket.id}. No standing rule was made: one follows only a yes that ran.",
            "Noor approved set_priority; it ran as Noor and the agent together."]
        assert shop.priority() == 3  # Noor's yes, then alone by her rule
        with pytest.raises(AgentRefused, match="Mia may not close the ticket, so Mia cannot "
                                               "let Triager do it alone"):
            app.allow_alone(Triager, close, by=mia)
        with pytest.raises(AgentRefused, match="Mia may not run reopen, so Mia cannot let "):
            app.allow_alone(Triager, shop.reopen, by=mia)  # (no label: not "may not reopen")
        assert len(app.rules()) == 1
    finally:
        app.database.dispose()


def test_a_standing_rule_runs_its_calls_as_its_maker_and_the_agent(database: str) -> None:
    """A call a standing rule lets run alone runs as the rule's maker and the agent together,
    as the maker's yes would, with both as the directory holds them now: Mia's rule (she may
    not change priorities) lets nothing through, and Noor's, once her manager's role is taken
    away, no longer does (both let the agent, itself a manager, change priorities alone). A
    rule for calls the skill routes to a queue is made only by one of its deciders."""
    shop = _triage(database)
    app = shop.app

    def triage(person: Principal, priority: int) -> Any:
        return app.agent(shop.Triager).do(shop.Triage(), shop.ticket, for_=person,
                                          model=ScriptedModel(says.tool(
                                              shop.set_priority, ticket=shop.ticket.id,
                                              priority=priority), says.hand_back(priority)))

    try:
        with pytest.raises(UserError, match=r"Triager has no skill 'nope'; its skills are: "):
            app.allow_alone(shop.Triager, shop.set_priority, skill="nope", by=shop.mia)  # (it
            # was a bare LookupError: nope)
        app.allow_alone(shop.Triager, shop.set_priority, by=shop.mia)
        refused = triage(shop.mia, 9)
        assert refused.status is TaskStatus.DONE, refused.problem
        (call,) = app.agent(shop.Triager).answers(refused.task, 1)
        assert (call.outcome, call.answer) == (
            "Denied", f"Denied: Mia may not change Ticket {shop.ticket.id}.")
        assert shop.priority() == 0
        app.allow_alone(shop.Triager, shop.set_priority, by=shop.noor)
        assert triage(shop.noor, 4).status is TaskStatus.DONE
        assert shop.priority() == 4
        assert ("Triager ran set_priority alone (a standing rule of Noor's let it run alone), as "
                "Noor and itself: Done.") in app.receipt(triage(shop.noor, 5).task).words
        app.people.take_away(shop.noor, "manager")
        assert triage(shop.noor, 6).status is TaskStatus.DONE
        assert shop.priority() == 5
    finally:
        app.database.dispose()
    routed = _triage("sqlite://", routed_to="finance")  # (the route is read before the store)
    try:
        with pytest.raises(AgentRefused, match="set_priority's proposals in triage are decided "
                                               "by the finance queue, as the skill routes them: "
                                               "Mia may not let Triager run it alone"):
            routed.app.allow_alone(routed.Triager, routed.set_priority, by=routed.mia)
        assert routed.app.rules() == []
    finally:
        routed.app.database.dispose()


def test_an_edit_cannot_change_a_record_named_within_a_structure() -> None:
    """An edit changes values, never what the call acts on: a ticket named within a structure
    argument cannot be swapped for another (the edit ran the call on the other ticket); the same
    ticket, with another value beside it, is an edit like any."""
    from pydantic import BaseModel

    app = App("edits", database="sqlite://")

    class Ticket(app.Record):  # type: ignore[name-defined, misc]
        priority: Mapped[int] = mapped_column(default=0)
        __security__ = [allow("read", "create", "update")]

    class Which(BaseModel):
        model_config = {"arbitrary_types_allowed": True}
        ticket: Ticket
        note: str = ""

    @app.action
    def bump(priority: int, which: Which,
             session: Annotated[Session, Provided("session")]) -> str:
        """Set the priority of a ticket."""
        which.ticket.priority = priority
        return "ok"

    class Triage(Skill[None, str]):
        description = "Triage."
        tools = [bump]

    class Triager(Agent):
        purpose = "You triage tickets."
        skills = [Triage()]

    noor = app.people.add("noor@y.example", "Noor")
    app.add_agent(Triager, sponsor=noor)
    with app.session(as_=noor) as s:
        a, b = Ticket(), Ticket()
        s.add_all([a, b])
    try:
        def proposed() -> Any:
            out = app.agent(Triager).do(Triage(), None, for_=noor, model=ScriptedModel(
                says.tool(bump, priority=3, which={"ticket": str(a.id)}), says.hand_back("ok")))
            return app.proposals(task=out.task)[0]

        first = proposed()
        with pytest.raises(EditRefused, match="which names what bump acts on"):
            app.approve(first, by=noor, edited={"which": {"ticket": str(b.id)}})
        assert app.proposal(first.id).status is ProposalStatus.WAITING
        decision = app.approve(first, by=noor, edited={"which": {"ticket": str(a.id),
                                                                 "note": "urgent"}})
        assert decision.status is ProposalStatus.DONE, decision.said
        with app.session(as_=noor) as s:
            assert (s.get(Ticket, a.id).priority, s.get(Ticket, b.id).priority) == (3, 0)
    finally:
        app.database.dispose()


def test_a_step_of_a_reply_and_its_call_that_fails_to_commit_keeps_them_together(
        shops: Callable[..., SimpleNamespace]) -> None:
    """The model's turn and the record-only call it asks for are one step. When that step's
    transaction fails as it commits, the call is told Failed, and the reply is stored with that
    record (one step, at the turn it belongs to): the task goes on and ends, and its receipt
    tells each call after the model's turn that asked for it."""
    shop = shops()
    failed: list[str] = []

    def fail_once(session: Session) -> None:
        if not failed:
            failed.append("once")
            raise RuntimeError("the disk is full")

    event.listen(RuledSession, "before_commit", fail_once)
    try:
        script = ScriptedModel(says.tool(shop.bump, counter=shop.counter.id),
                               says.tool(shop.bump, counter=shop.counter.id),
                               says.hand_back(Tally(total=1)))
        outcome = shop.app.agent(shop.Clerk).do(shop.Count(), shop.counter, for_=shop.noor,
                                                model=script)
    finally:
        event.remove(RuledSession, "before_commit", fail_once)
    assert failed == ["once"]
    assert outcome.status is TaskStatus.DONE, outcome.problem
    with shop.app.database.connect() as db:
        steps = journal.steps_of(db, outcome.task)
        calls = repo.calls_of(db, outcome.task)
    assert [(s.turn, s.kind) for s in steps] == [
        (0, "start"), (1, "model_call"), (2, "model_call"), (3, "model_call")]
    assert [(c.turn, c.tool, c.outcome) for c in calls] == [
        (1, "bump", "Failed"), (2, "bump", "Done"), (3, "hand_back", "Done")]
    words = [e.words for e in shop.app.receipt(outcome.task).entries]
    assert words[1:5] == [
        words[1], "Clerk ran bump alone, as itself: Failed.",
        words[3], "Clerk ran bump alone, as itself: Done."]
    assert all(w.startswith("scripted was asked") for w in (words[1], words[3]))
    with shop.app.session(as_=shop.app.system) as s:
        assert s.get(shop.Counter, shop.counter.id).value == 1


def test_an_alone_call_whose_action_commits_its_run_is_told_failed_and_keeps_nothing(
) -> None:
    """An action that commits the session of its run fails, and its step keeps nothing of it:
    the call is told Failed, the record is as it was, and the model's turn is stored once, with
    that record. (The action's commit kept its change and the step's reply, and the reply was
    stored again with the failure.)"""
    app = App("t", database="sqlite://")

    class Counter(app.Record):  # type: ignore[name-defined, misc]
        value: Mapped[int] = mapped_column(default=0)
        __security__ = [allow("read", "update", "create")]

    @app.action
    def bump_and_commit(counter: Counter,
                        session: Annotated[Session, Provided("session")]) -> int:
        """Add one, and commit it (not the action's to do)."""
        counter.value += 1
        session.commit()
        return counter.value

    class Count(Skill[Counter, Tally]):
        description = "Count."
        tools = [bump_and_commit]

    class Clerk(Agent):
        purpose = "You count."
        skills = [Count()]
        may = Permits(alone=[bump_and_commit])

    noor = app.people.add("noor@t.example", "Noor", roles=["manager"])
    app.add_agent(Clerk, sponsor=noor)
    with app.session(as_=app.system) as s:
        counter = Counter()
        s.add(counter)
    script = ScriptedModel(says.tool(bump_and_commit, counter=counter.id),
                           says.hand_back(Tally(total=0)))
    outcome = app.agent(Clerk).do(Count(), counter, for_=noor, model=script)
    assert outcome.status is TaskStatus.DONE, outcome.problem
    with app.database.connect() as db:
        steps = journal.steps_of(db, outcome.task)
        calls = repo.calls_of(db, outcome.task)
    assert [(s.turn, s.kind) for s in steps] == [(0, "start"), (1, "model_call"),
                                                 (2, "model_call")]
    assert [(c.tool, c.outcome) for c in calls] == [("bump_and_commit", "Failed"),
                                                    ("hand_back", "Done")]
    with app.session(as_=app.system) as s:
        assert s.get(Counter, counter.id).value == 0


def test_kept_proposals_are_bounded_and_taken_by_any_decision() -> None:
    """What a process keeps of the proposals it made is bounded (the oldest go first), and a
    no taken in the process takes its proposal out as a yes does."""
    shop = _counter()
    task = _resets(shop, 1)
    loop = shop.app._agency.loop
    assert "proposals" in loop.memory_of(task)
    (proposal,) = shop.app.proposals(task=task)
    shop.app.reject(proposal.id, by=shop.noor, reason="Not now.")
    assert "proposals" not in loop.memory_of(task)
    with shop.app.database.connect() as db:
        row = repo.load_task(db, task)
    assert row is not None
    kept = KeptProposals(limit=2)
    made = [Kept(proposal=replace(proposal, id=f"p{i}"), call_id="c", instructions="",
                 task=row.changed(id=f"t{i}")) for i in range(3)]
    for each in made:
        kept.keep(each)
    assert "t0" not in kept  # the oldest, dropped when the third was kept
    assert kept.take("p0") is None
    assert [kept.take(p) for p in ("p1", "p2")] == made[1:]
    assert [t for t in ("t1", "t2") if t in kept] == []


_NOTED: list[str] = []
"""What `noted` wrote down, kept in this process's memory: no transaction rolls it back."""


def test_an_action_that_changes_more_than_records_is_not_called_on_a_task_that_moved_on(
        database: str) -> None:
    """An action that writes down what it did in the process's memory as well as in a record
    (an effect no rollback undoes) is not called on a task another process moved on between the
    model's reply and the call, on SQLite as on PostgreSQL: its step checks the hold before the
    action runs. Resumed, the task goes on and the action runs once."""
    app = App("noting", database=database)

    class Pad(app.Record):  # type: ignore[name-defined, misc]
        lines: Mapped[int] = mapped_column(default=0)
        __security__ = [allow("read", "update", "create")]

    @app.action
    def noted(pad: Pad) -> int:
        """Note a line."""
        _NOTED.append(str(pad.id))
        pad.lines += 1
        return pad.lines

    class Note(Skill[Pad, Tally]):
        description = "Note."
        tools = [noted]

    class Scribe(Agent):
        purpose = "You note."
        skills = [Note()]
        may = Permits(alone=[noted])

    assert not app.actions.info("noted").effects.writes_records_only
    noor = app.people.add("noor@n.example", "Noor", roles=["manager"])
    app.add_agent(Scribe, sponsor=noor)
    with app.session(as_=app.system) as s:
        pad = Pad()
        s.add(pad)
    moved: list[str] = []

    def elsewhere(reached: str, where: dict[str, Any]) -> None:
        if reached == "loop.model_replied" and not moved:
            moved.append(where["task"])
            with app.database.connect() as db:
                db.execute(update(tasks).where(tasks.c.id == where["task"]).values(
                    revision=tasks.c.revision + 1))

    def model() -> ScriptedModel:
        return ScriptedModel(says.tool(noted, pad=pad.id), says.hand_back(Tally(total=1)))

    _NOTED.clear()
    try:
        with points.pausing(elsewhere):
            outcome = app.agent(Scribe).do(Note(), pad, for_=noor, model=model())
        assert outcome.status is TaskStatus.RUNNING
        assert _NOTED == []
        done = app.agent(Scribe).resume(outcome.task, model=model())
        assert done.status is TaskStatus.DONE, done.problem
        assert [str(pad.id)] == _NOTED
        with app.session(as_=app.system) as s:
            assert s.get(Pad, pad.id).lines == 1
    finally:
        _NOTED.clear()
        app.database.dispose()


def test_a_decision_goes_on_with_its_task_while_the_thread_that_stopped_it_lets_it_go(
        shops: Callable[..., SimpleNamespace]) -> None:
    """The thread that stepped a task to its proposal tells the handlers that it waits (one
    starts a decider's thread, as an inbox served beside the loop would), then drops what it
    kept of the task. The decision goes on with the task in its own thread, and has the model's
    reply asking for a record-only call in hand, not yet stored, when the first thread lets the
    task go: what the decider's thread holds of its step is its own, and nothing of it is lost.
    The call runs once, and the task ends Done."""
    shop = shops()
    loop = shop.app._agency.loop
    gating, stopped = threading.Event(), threading.Event()
    decided: list[Any] = []

    def decide(task: str) -> None:
        (proposal,) = shop.app.proposals(task=task)
        decided.append(shop.app.approve(proposal, by=shop.noor))

    def at(reached: str, where: dict[str, Any]) -> None:
        if (reached == "loop.gating" and where.get("tool") == "bump"
                and threading.current_thread().name == "decider"):
            gating.set()
            assert stopped.wait(10)

    deciders: list[threading.Thread] = []

    def on_waiting(event: AgentTaskWaiting) -> None:
        deciders.append(threading.Thread(target=decide, args=(event.task,), name="decider"))
        deciders[-1].start()
        assert gating.wait(10)

    stop = loop._stopped

    def stopping(task: repo.TaskRow) -> None:
        stop(task)
        if threading.current_thread().name != "decider":
            stopped.set()

    shop.app.on(AgentTaskWaiting, on_waiting)
    script = ScriptedModel(says.tool(shop.reset, counter=shop.counter.id),
                           says.tool(shop.bump, counter=shop.counter.id),
                           says.hand_back(Tally(total=1)))
    loop._stopped = stopping  # type: ignore[method-assign]
    with points.pausing(at):
        first = shop.app.agent(shop.Clerk).do(shop.Count(), shop.counter, for_=shop.noor,
                                              model=script)
        for each in deciders:
            each.join(20)
    assert stopped.is_set()
    assert not any(each.is_alive() for each in deciders)
    assert [d.task_status for d in decided] == [TaskStatus.DONE.value]
    assert shop.app.outcome(first.task).status is TaskStatus.DONE
    with shop.app.database.connect() as db:
        calls = repo.calls_of(db, first.task)
    assert [(c.turn, c.tool, c.outcome) for c in calls] == [
        (1, "reset", "Done"), (2, "bump", "Done"), (3, "hand_back", "Done")]
    with shop.app.session(as_=shop.app.system) as s:
        assert s.get(shop.Counter, shop.counter.id).value == 1


def test_a_task_that_moved_on_under_the_hold_is_let_go(
        shops: Callable[..., SimpleNamespace], caplog: pytest.LogCaptureFixture) -> None:
    """Another process writes the task while this one holds it, between the model's reply and
    the call it asks for (its revision moves on). Nothing of that unit is stored — the reply
    nor the call's writes (on SQLite the step finds the task moved on as it ends, and rolls
    back) — and the task is let go at once, not held until the hold expires; the log tells no
    failure of the action. Resumed, the task goes on to the end and the call runs once."""
    shop = shops()
    task_of: list[str] = []

    def elsewhere(reached: str, where: dict[str, Any]) -> None:
        if reached == "loop.model_replied" and not task_of:
            task_of.append(where["task"])
            with shop.app.database.connect() as db:
                db.execute(update(tasks).where(tasks.c.id == where["task"]).values(
                    revision=tasks.c.revision + 1))

    def model() -> ScriptedModel:
        return ScriptedModel(says.tool(shop.bump, counter=shop.counter.id),
                             says.hand_back(Tally(total=1)))

    with points.pausing(elsewhere):
        outcome = shop.app.agent(shop.Clerk).do(shop.Count(), shop.counter, for_=shop.noor,
                                                model=model())
    assert outcome.status is TaskStatus.RUNNING
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
    with shop.app.database.connect() as db:
        head = db.execute(select(tasks.c.holder, tasks.c.turn).where(
            tasks.c.id == outcome.task)).one()
    assert (head.holder, head.turn) == (None, 0)
    with shop.app.session(as_=shop.app.system) as s:
        assert s.get(shop.Counter, shop.counter.id).value == 0
    done = shop.app.agent(shop.Clerk).resume(outcome.task, model=model())
    assert done.status is TaskStatus.DONE, done.problem
    with shop.app.session(as_=shop.app.system) as s:
        assert s.get(shop.Counter, shop.counter.id).value == 1


class _SameIds(ScriptedModel):
    """A model that gives every call of a turn one id, as a careless provider might."""

    def complete(self, messages: Any, tools: Any, *, max_output_tokens: int) -> Reply:
        reply = super().complete(messages, tools, max_output_tokens=max_output_tokens)
        return replace(reply, tool_calls=tuple(replace(c, id="c1") for c in reply.tool_calls))


def test_calls_of_one_turn_that_share_an_id_are_each_given_their_own() -> None:
    """Two calls of a turn with one id are kept apart: the second gets an id of its own, each
    runs once, and the model is told each answer under the id of the call it answers."""
    shop = _counter()
    script = _SameIds(says.tools(says.tool(shop.bump, counter=shop.counter.id),
                                 says.tool(shop.bump, counter=shop.counter.id)),
                      says.hand_back(Tally(total=2)))
    outcome = shop.app.agent(shop.Clerk).do(shop.Count(), shop.counter, model=script)
    assert outcome.status is TaskStatus.DONE
    asked = script.seen.messages[1]
    (assistant,) = [m for m in asked if m.role == "assistant"]
    assert [c.id for c in assistant.tool_calls] == ["c1", "call_1_1"]
    assert [(m.tool_call_id, m.text) for m in asked if m.role == "tool"] == [
        ("c1", "1"), ("call_1_1", "2")]
    with shop.app.session(as_=shop.app.system) as s:
        assert s.get(shop.Counter, shop.counter.id).value == 2


def test_calls_of_later_turns_given_an_earlier_calls_id_are_each_given_their_own() -> None:
    """A model that gives every call the id c1, turn after turn: the conversation it is sent
    asks each call by an id of its own, and each answer names its call (two calls asked as c1
    were sent back, which a provider refuses)."""
    shop = _counter()
    script = _SameIds(says.tool(shop.bump, counter=shop.counter.id),
                      says.tool(shop.bump, counter=shop.counter.id),
                      says.hand_back(Tally(total=2)))
    outcome = shop.app.agent(shop.Clerk).do(shop.Count(), shop.counter, model=script)
    assert outcome.status is TaskStatus.DONE
    asked = script.seen.messages[2]
    assert [c.id for m in asked for c in m.tool_calls] == ["c1", "call_2_0"]
    assert [(m.tool_call_id, m.text) for m in asked if m.role == "tool"] == [
        ("c1", "1"), ("call_2_0", "2")]


def test_an_approved_call_that_lost_touch_is_told_as_not_known() -> None:
    """An approved call whose action lost touch with the outside before it was answered
    (`OutcomeUnknown`) is decided as one whose outcome is not known, in the decision's words,
    the call's state and the agent's answer; nothing it wrote is kept."""
    app = App("t", database="sqlite://")

    class Line(app.Record):  # type: ignore[name-defined, misc]
        rung: Mapped[int] = mapped_column(default=0)
        __security__ = [allow("read", "update", "create")]

    @app.action
    def ring(line: Line) -> str:
        """Ring the line."""
        line.rung += 1
        raise OutcomeUnknown("The line dropped before it was answered.")

    class Calls(Skill[Line, str]):
        description = "Make calls."
        tools = [ring]

    class Caller(Agent):
        purpose = "You make calls."
        skills = [Calls()]

    noor = app.people.add("noor@t.example", "Noor", roles=["manager"])
    app.add_agent(Caller, sponsor=noor)
    with app.session(as_=app.system) as s:
        line = Line()
        s.add(line)
    model = ScriptedModel(says.tool(ring, line=line.id), says.hand_back("Rang."))
    outcome = app.agent(Caller).do(Calls(), line, for_=noor, model=model)
    (proposal,) = app.proposals(task=outcome.task)
    decision = app.approve(proposal, by=noor)
    assert decision.said == ("Noor approved ring, but whether it ran is not known: The line "
                             "dropped before it was answered.")
    assert app.proposal(proposal.id).result["outcome"] == "Unknown"
    (call,) = [c for c in app.agent(Caller).answers(outcome.task, 1)]
    assert (call.outcome, call.answer) == ("Unknown", decision.said)
    with app.session(as_=app.system) as s:
        assert s.get(Line, line.id).rung == 0
    app.database.dispose()


def test_a_call_that_could_not_reach_what_it_needs_did_not_run_and_spent_nothing() -> None:
    """A spending call whose action could not reach what it needs (`Unavailable`: nothing was
    sent) is told and recorded Unavailable, in the action's words, and what was reserved for it
    is given back — run alone. Approved, the yes is not used up: `approve` raises Unavailable
    in the action's words, the proposal and its task still wait, nothing is spent or kept of
    the decision, and a yes once the bank can be reached runs it, once. (The yes was used up:
    the proposal ended Failed, though nothing had been sent.)"""
    app = App("t", database="sqlite://")
    bank = {"up": False}

    class Line(app.Record):  # type: ignore[name-defined, misc]
        __security__ = [allow("read", "create")]

    @app.action
    @spends(cost=0.25)
    def pay(line: Line) -> str:
        """Pay what the line is owed."""
        if not bank["up"]:
            raise Unavailable("The bank cannot be reached now: nothing was sent to it. Try the "
                              "call again later.")
        return "Paid."

    class Paying(Skill[Line, str]):
        description = "Pay."
        tools = [pay]

    class Payer(Agent):
        purpose = "You pay."
        skills = [Paying()]
        may = Permits(alone=["pay"])

    class Asker(Agent):
        purpose = "You ask to pay."
        skills = [Paying()]

    noor = app.people.add("noor@t.example", "Noor", roles=["manager"])
    app.add_agent(Payer, sponsor=noor)
    app.add_agent(Asker, sponsor=noor)
    with app.session(as_=app.system) as s:
        line = Line()
        s.add(line)
    said = "The bank cannot be reached now: nothing was sent to it. Try the call again later."
    alone = app.agent(Payer).do(Paying(), line, for_=noor, budget_usd=1.0, model=ScriptedModel(
        says.tool(pay, line=line.id), says.hand_back("Could not pay.")))
    assert alone.status is TaskStatus.DONE
    (call,) = app.agent(Payer).answers(alone.task, 1)
    assert (call.outcome, call.answer) == ("Unavailable", f"Unavailable: {said}")
    assert alone.spend_usd == 0.0
    assert "ran pay alone, as itself: Unavailable." in app.receipt(alone.task).words
    asked = app.agent(Asker).do(Paying(), line, for_=noor, budget_usd=1.0, model=ScriptedModel(
        says.tool(pay, line=line.id), says.hand_back("Paid.")))
    (proposal,) = app.proposals(task=asked.task)
    with pytest.raises(Unavailable) as down:
        app.approve(proposal, by=noor)
    assert down.value.message == said
    waiting = app.proposal(proposal.id)
    assert waiting.status is ProposalStatus.WAITING
    assert (waiting.decided_by, waiting.decided_at, waiting.result) == (None, None, None)
    assert [p.id for p in app.proposals_for(noor)] == [proposal.id]
    outcome = app.outcome(asked.task)
    assert outcome.status is TaskStatus.WAITING
    assert outcome.spend_usd == 0.0
    assert "Noor approved" not in app.receipt(asked.task).words
    bank["up"] = True
    decision = app.approve(proposal, by=noor)
    assert decision.status is ProposalStatus.DONE
    assert decision.said == "Noor approved pay; it ran as Noor and the agent together."
    assert app.outcome(asked.task).status is TaskStatus.DONE
    assert app.outcome(asked.task).spend_usd == 0.25
    app.database.dispose()


def _for_each(function, items):  # type: ignore[no-untyped-def]  # (unannotated, as found)
    for item in items:
        function(item)


def _post_office(*, alone: bool) -> SimpleNamespace:
    """A post office whose tools post a $0.40 letter to each address they are given: in a loop
    of their own (`post_letters`), through a helper that calls it back (`hand_on`), and with
    the whole run's cost declared ($2.00: `post_a_batch`); its agent may run them alone, given
    `alone`. `post(tool, budget)` has the agent call one on three addresses."""
    app = App("t", database="sqlite://")
    posted: list[str] = []

    class Mailing(app.Record):  # type: ignore[name-defined, misc]
        __security__ = [allow("read", "create")]

    @spends(cost=0.40)
    def post_a_letter(address: str) -> None:
        posted.append(address)

    @app.action
    def post_letters(mailing: Mailing, addresses: list[str]) -> str:
        """Post a letter to each address."""
        for address in addresses:
            post_a_letter(address)
        return "Posted."

    @app.action
    def hand_on(mailing: Mailing, addresses: list[str]) -> str:
        """Post a letter to each address, by a helper."""
        _for_each(post_a_letter, addresses)
        return "Posted."

    @app.action
    @spends(cost=2.0)
    def post_a_batch(mailing: Mailing, addresses: list[str]) -> str:
        """Post a letter to each of at most five addresses."""
        for address in addresses[:5]:
            post_a_letter(address)
        return "Posted."

    class Posting(Skill[Mailing, str]):
        description = "Post letters."
        tools = [post_letters, hand_on, post_a_batch]

    class Poster(Agent):
        purpose = "You post letters."
        skills = [Posting()]
        may = Permits(alone=["post_letters", "hand_on", "post_a_batch"]) if alone else Permits()

    noor = app.people.add("noor@t.example", "Noor", roles=["manager"])
    app.add_agent(Poster, sponsor=noor)
    with app.session(as_=app.system) as s:
        mailing = Mailing()
        s.add(mailing)

    def post(tool: Any, budget: float) -> Any:
        return app.agent(Poster).do(Posting(), mailing, for_=noor, budget_usd=budget,
                                    model=ScriptedModel(says.tool(tool, mailing=mailing.id,
                                                                  addresses=["a", "b", "c"]),
                                                        says.hand_back("Done.")))

    return SimpleNamespace(app=app, posted=posted, post=post, Poster=Poster,
                           post_letters=post_letters, hand_on=hand_on, post_a_batch=post_a_batch)


def test_a_tool_that_spends_in_a_loop_is_refused_under_a_budget() -> None:
    """A tool posting a $0.40 letter to each address it is given reserved $0.40 whatever the
    addresses: three letters ($1.20) went out alone on a $1.00 budget, and the task counted
    $0.40. How often a cost met in a loop is spent is not known: the call is refused, in words
    that say what to declare, and nothing is posted. Declared whole on the tool ($2.00), it is
    bounded by that: refused for not fitting; on a $3.00 budget it runs, and counts $2.00."""
    office = _post_office(alone=True)
    looped = office.post(office.post_letters, 1.0)
    (call,) = office.app.agent(office.Poster).answers(looped.task, 1)
    assert call.answer == (
        "post_letters calls something that spends inside a loop (or in a function that calls "
        "itself), so how much one run spends is not known and cannot be kept within the task's "
        "budget: declare the most a whole run spends on post_letters itself, with "
        "@spends(cost=...). Nothing was run or proposed.")
    assert (office.posted, looped.spend_usd) == ([], 0.0)
    over = office.post(office.post_a_batch, 1.0)
    (call,) = office.app.agent(office.Poster).answers(over.task, 1)
    assert "could spend $2.0000, more than" in call.answer
    assert office.posted == []
    fits = office.post(office.post_a_batch, 3.0)
    assert office.posted == ["a", "b", "c"]
    assert fits.spend_usd == pytest.approx(2.0)
    office.app.database.dispose()


def test_a_tool_that_spends_through_a_function_it_hands_on_is_not_run_alone() -> None:
    """A tool that hands the spending helper to a helper of its own, which calls it once an
    address, was read as only reading (calling a parameter known only as a function was taken
    for pure): it ran alone with no permit at all and posted three letters on a $1.00 budget.
    The helper's call is now followed: the tool spends, in a loop — proposed to a person with
    no budget, and under a budget refused before anyone is asked."""
    office = _post_office(alone=False)
    effects = office.app.actions.get("hand_on").info.effects
    assert (effects.spends, effects.cost_repeats, effects.only_reads) == (True, True, False)
    asked = office.post(office.hand_on, float("inf"))
    assert asked.status is TaskStatus.WAITING
    assert [p.action for p in office.app.proposals(task=asked.task)] == ["hand_on"]
    budgeted = office.post(office.hand_on, 1.0)
    (answer,) = office.app.agent(office.Poster).answers(budgeted.task, 1)
    assert "spends inside a loop" in answer.answer
    assert office.posted == []
    office.app.database.dispose()


def test_a_stale_proposal_over_the_budget_is_told_stale(database: str) -> None:
    """Two payments proposed in one turn, each $0.60 of a $1.00 budget: yes to the first; then
    the agent's instructions change, and the second is both over what is left and stale. It is
    told stale (the agent is told to look again), not refused for the budget on what the
    person had not been shown as it now reads."""
    app = App("t", database=database)

    class Line(app.Record):  # type: ignore[name-defined, misc]
        __security__ = [allow("read", "create")]

    @app.action
    @spends(cost=0.60)
    def pay(line: Line) -> str:
        """Pay what the line is owed."""
        return "Paid."

    class Paying(Skill[Line, str]):
        description = "Pay."
        tools = [pay]

    class Asker(Agent):
        purpose = "You ask to pay."
        skills = [Paying()]

    noor = app.people.add("noor@t.example", "Noor", roles=["manager"])
    app.add_agent(Asker, sponsor=noor)
    with app.session(as_=app.system) as s:
        line = Line()
        s.add(line)
    try:
        asked = app.agent(Asker).do(Paying(), line, for_=noor, budget_usd=1.0,
                                    model=ScriptedModel(says.tools(
                                        says.tool(pay, line=line.id),
                                        says.tool(pay, line=line.id)),
                                        says.hand_back("Paid.")))
        first, second = app.proposals(task=asked.task)
        assert app.approve(first, by=noor).status is ProposalStatus.DONE
        Asker.instructions = "Pay only what is due this week."
        try:
            decision = app.approve(second, by=noor)
        finally:
            Asker.instructions = ""
        assert decision.status is ProposalStatus.STALE, decision.said
        assert "Pay only what is due this week." in decision.told_agent
        assert app.outcome(asked.task).spend_usd == pytest.approx(0.60)
    finally:
        app.database.dispose()


@pytest.mark.parametrize("tool", ["reset", "announce"])
def test_a_record_changed_just_before_a_yes_claims_its_call_makes_it_stale(
        shops: Callable[..., SimpleNamespace], tool: str) -> None:
    """The task's brief is the counter as it reads; the counter is renamed after the yes has
    checked what it can before its claim (`decider.checked`), and before the claim: the
    proposal is stale, its call does not run, and the agent is told its instructions changed.
    The brief is read again in the claim's own transaction: for a call that runs with its claim
    (reset) and for one claimed apart, before it runs (announce, which reaches outside). Before,
    it was read before either, and the call ran on what the person had not been shown."""
    shop = shops()
    calls = {"reset": says.tool(shop.reset, counter=shop.counter.id),
             "announce": says.tool(shop.announce, text="Counting again.")}
    outcome = shop.app.agent(shop.Clerk).do(
        shop.Count(), shop.counter, for_=shop.noor,
        model=ScriptedModel(calls[tool], says.hand_back(Tally(total=0))))
    assert outcome.status is TaskStatus.WAITING, outcome.problem
    (proposal,) = shop.app.proposals(task=outcome.task)
    with shop.app.session(as_=shop.app.system) as s:  # the value the yes would reset
        s.get(shop.Counter, shop.counter.id).value = 7

    def rename(point: str, _where: dict[str, Any]) -> None:
        if point == "decider.checked":
            with shop.app.session(as_=shop.app.system) as s:
                s.get(shop.Counter, shop.counter.id).name = "renamed"

    with points.pausing(rename):
        decision = shop.app.approve(proposal, by=shop.noor)
    assert decision.status is ProposalStatus.STALE
    assert "Your instructions have changed" in decision.told_agent
    assert "renamed" in decision.told_agent
    with shop.app.session(as_=shop.app.system) as s:
        assert s.get(shop.Counter, shop.counter.id).value == 7  # reset did not run
    assert shop.announced() == []  # nor did the announcement


def test_what_people_read_waits_on_no_writer(tmp_path: Path) -> None:
    """While another connection holds SQLite's write lock (a long run of an action, in another
    process, holds it as long), the proposals, one proposal, those a person may decide, a task's
    outcome and receipt, the standing rules, the people, the task's brief, the inbox's pages, a
    token's owner and a password are read at once,
    as the database was last committed: each read begins as readers do. Before, each began by
    taking the write lock, so it waited for the writer and, past 30 seconds, failed "database is
    locked"."""
    path = tmp_path / "shop.db"
    shop = _counter(f"sqlite:///{path}")
    task = _resets(shop, 1)
    app = shop.app
    token = app.credentials.issue_token(shop.noor)
    app.credentials.set_password(shop.noor, "a long enough secret")
    writer = sqlite3.connect(path, isolation_level=None)
    try:
        writer.execute("BEGIN IMMEDIATE")
        writer.execute("UPDATE counter SET name = 'uncommitted'")
        (proposal,) = app.proposals(task=task)
        assert app.proposal(proposal.id).id == proposal.id
        assert [p.id for p in app.proposals_for(shop.noor)] == [proposal.id]
        assert app.outcome(task).waiting_on == ("a decision from Noor",)
        assert "proposed reset" in app.receipt(task).words
        assert app.rules() == []
        assert app.people.get(shop.noor.id).name == "Noor"
        # the inbox's check that it reads as proposed: the brief, its counter as committed
        assert app._agency.reads_as_proposed(proposal)
        inbox = Inbox(app)
        assert [p.id for p in inbox.proposals(shop.noor).items] == [proposal.id]
        assert [t.id for t in inbox.tasks(shop.noor).items] == [task]
        assert inbox.may_see_task(shop.noor, task)
        assert app.credentials.principal_for_token(token) == app.people.get(shop.noor.id)
        assert app.credentials.check_password("noor@t.example", "a long enough secret")
    finally:
        writer.rollback()
        writer.close()


@pytest.mark.parametrize("failing", ["decided_by", "names", "check_result"])
def test_a_skill_whose_routing_raises_fails_the_task_in_a_sentence(
        database: str, failing: str, caplog: pytest.LogCaptureFixture) -> None:
    """A skill's own code that raises as a call is proposed (its routing: nobody holds the
    role it routes to yet; or how it names an argument), or as a result handed back is checked,
    ended `agent.do` with the app's exception, and the task stayed Running with nobody to step
    it. Now the task fails, told in a sentence naming the method and the error; nothing is
    proposed or accepted, and the log has the traceback."""
    app = App("r", database=database)
    is_lead = policy.role("lead")

    class Ticket(app.Record):  # type: ignore[name-defined, misc]
        cents: Mapped[int] = mapped_column(default=0)
        __security__ = [allow("read", "create", "update")]

    @app.action("Refund the ticket")
    def refund(ticket: Ticket, cents: int) -> int:
        """Refund it."""
        ticket.cents = cents
        return cents

    class Triage(Skill[Ticket, int]):
        description = "Triage."
        tools = [refund]

        def decided_by(self, action: str) -> Route | None:
            if failing == "decided_by":
                return Route.to_person(app.people.with_role("lead")[0])
            return None

        def names(self, action: str, argument: str, value: str) -> str:
            if failing == "names":
                raise LookupError(f"no name for {value}")
            return value

        def check_result(self, result: int, task: TaskView) -> str:
            if failing == "check_result":
                raise ValueError("the ledger is closed")
            return ""

    class Triager(Agent):
        purpose = "You triage."
        skills = [Triage()]

    sam = app.people.add("sam@r.example", "Sam")
    app.add_agent(Triager, sponsor=sam)
    assert not is_lead.admits(sam)
    with app.session(as_=sam) as s:
        ticket = Ticket()
        s.add(ticket)
    try:
        with caplog.at_level(logging.INFO, logger="signoff"):
            outcome = app.agent(Triager).do(Triage(), ticket, for_=sam, model=ScriptedModel(
                *([] if failing == "check_result" else [
                    says.tool(refund, ticket=ticket.id, cents=1200)]), says.hand_back(1200)))
        assert outcome.status is TaskStatus.FAILED
        so = ("refund could not be put to anyone (who decides it, or how it reads, is not "
              "known). Nothing was proposed")
        method, error = {
            "decided_by": ("decided_by", "IndexError: list index out of range"),
            "names": ("names or version_of", f"LookupError: no name for {ticket.id}"),
            "check_result": ("check_result", "ValueError: the ledger is closed")}[failing]
        if failing == "check_result":
            so = "the result handed back could not be checked. Nothing was accepted"
        assert outcome.problem == (f"Triage.{method} raised {error}, so {so}, and the task "
                                   "stops; the app's log has the traceback.")
        assert app.proposals(task=outcome.task) == []
        logged = [r for r in caplog.records if r.levelno >= logging.ERROR]
        assert [r.exc_info is not None for r in logged] == [True]
        assert app.receipt(outcome.task).entries[-1].words == outcome.problem
    finally:
        app.database.dispose()
