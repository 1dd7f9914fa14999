"""Hard limits: the step decision, and a loop that stops at its step and spend limits."""

from __future__ import annotations

import re
from decimal import Decimal
from types import SimpleNamespace
from typing import Any

import pytest
from sqlalchemy import func, select

from signoff import (
    Agent,
    App,
    NextAction,
    Permits,
    Price,
    ReceiptKind,
    Skill,
    TaskStatus,
    Usage,
    UserError,
    next_action,
)
from signoff.inbox import Inbox
from signoff.store.tables import tasks
from signoff.testing import ScriptedModel, says
from signoff.web.schemas import TaskOut
from tests.counters import Tally, counter_and_bump


@pytest.mark.parametrize(
    ("steps", "max_steps", "spend", "budget", "irreversible", "approved", "expected"),
    [
        (3, 20, 0.4, 5, False, False, NextAction.CONTINUE),
        (3, 20, 5, 5, False, False, NextAction.HALT),
        (20, 20, 1, 5, False, False, NextAction.HALT),
        (3, 20, 1, 5, True, False, NextAction.ESCALATE),
        (3, 20, 1, 5, True, True, NextAction.CONTINUE),
    ],
)
def test_next_action(steps: int, max_steps: int, spend: float, budget: float, irreversible: bool,
                     approved: bool, expected: NextAction) -> None:
    """The five decision cases of DESIGN, in its order of rules."""
    assert next_action(steps, max_steps, spend, budget, irreversible, approved) is expected


@pytest.mark.parametrize(("steps", "max_steps", "named"), [
    (-1, 20, "steps_taken is a number of model calls, 0 or more, not -1."),
    (3, -5, "max_steps is a number of model calls, 0 or more, not -5."),
])
def test_next_action_refuses_a_negative_count(steps: int, max_steps: int, named: str) -> None:
    """A count of model calls below 0 is refused, naming it (-1 steps taken went on)."""
    with pytest.raises(UserError, match=re.escape(f"next_action's {named}")):
        next_action(steps, max_steps, 0.1, 5, False, False)
    assert next_action(0, 0, 0.1, 5, False, False) is NextAction.HALT  # (0 is a count)


def _counter() -> SimpleNamespace:
    app = App("t", database="sqlite://")
    Counter, bump = counter_and_bump(app)

    class Count(Skill[Counter, Tally]):
        description = "Count."
        tools = [bump]

    class Clerk(Agent):
        purpose = "You count."
        skills = [Count()]
        may = Permits.everything()

    app.add_agent(Clerk)
    boss = app.people.add("b@x.example", "Bo")
    with app.session(as_=app.system) as s:
        counter = Counter(name="c")
        s.add(counter)
    return SimpleNamespace(app=app, Counter=Counter, bump=bump, Count=Count, Clerk=Clerk,
                           boss=boss, counter=counter)


def test_the_loop_halts_at_its_step_limit() -> None:
    """A task never makes more model calls than max_steps, and says which limit stopped it."""
    shop = _counter()
    script = ScriptedModel(*[says.tool(shop.bump, counter=shop.counter.id) for _ in range(10)])
    outcome = shop.app.agent(shop.Clerk).do(shop.Count(), shop.counter, model=script,
                                            max_steps=3)
    assert outcome.status is TaskStatus.HALTED
    assert outcome.problem == "Halted: it reached its limit of 3 steps."
    assert outcome.steps == 3
    assert len(script.seen.messages) == 3
    one = shop.app.agent(shop.Clerk).do(shop.Count(), shop.counter, model=ScriptedModel(
        *[says.tool(shop.bump, counter=shop.counter.id) for _ in range(2)]), max_steps=1)
    assert one.problem == "Halted: it reached its limit of 1 step."


def test_the_loop_halts_before_a_call_that_could_exceed_the_budget() -> None:
    """The worst case of the next call is reserved before it is made: when it does not fit,
    the task halts instead of calling, and spend stays within the budget."""
    shop = _counter()
    price = Price(input_per_mtok=1000.0, output_per_mtok=1000.0)
    script = ScriptedModel(*[says.tool(shop.bump, counter=shop.counter.id) for _ in range(10)],
                           price=price, usage=Usage(input_tokens=500, output_tokens=50))
    outcome = shop.app.agent(shop.Clerk).do(shop.Count(), shop.counter, model=script,
                                            budget_usd=3.5)
    assert outcome.status is TaskStatus.HALTED
    assert outcome.problem.startswith("Halted: the next model call could cost up to $")
    assert outcome.problem.endswith("Give the work a larger budget (budget_usd), or its agent a "
                                    "smaller max_output_tokens.")  # (what to do)
    assert outcome.spend_usd <= 3.5
    assert outcome.steps == len(script.seen.messages) >= 1


def test_an_unknown_price_with_a_budget_is_refused() -> None:
    """With a budget and no price, signoff refuses to guess: the task fails before any call."""
    shop = _counter()
    script = ScriptedModel(says.hand_back(Tally(total=0)), price=None)
    outcome = shop.app.agent(shop.Clerk).do(shop.Count(), shop.counter, model=script)
    assert outcome.status is TaskStatus.FAILED
    assert "price of scripted is not known" in outcome.problem
    assert ("set its price (a ModelSpec's or model_from's price=, Price(input_per_mtok=0, "
            "output_per_mtok=0) for a free one; --price on the command line), or give the task "
            "no budget (budget_usd=float('inf')).") in outcome.problem  # (how, not only that)
    assert script.seen.messages == []


def test_with_no_price_and_no_budget_the_cost_is_told_as_not_known() -> None:
    """A model with no price runs when the task has no budget; its calls are told as of a cost
    not known, not as free ($0.000000), and so is the task's cost in all."""
    shop = _counter()
    script = ScriptedModel(says.tool(shop.bump, counter=shop.counter.id),
                           says.hand_back(Tally(total=1)), price=None)
    outcome = shop.app.agent(shop.Clerk).do(shop.Count(), shop.counter, model=script,
                                            budget_usd=float("inf"))
    assert outcome.status is TaskStatus.DONE
    receipt = shop.app.receipt(outcome.task)
    asked = [e for e in receipt.entries if e.kind is ReceiptKind.MODEL_CALL]
    assert len(asked) == 2
    assert all(e.words.endswith("out, its cost not known (no price was given for scripted).")
               for e in asked)
    assert receipt.unpriced == ("scripted",)
    assert receipt.cost_words == ("$0.000000, and what the calls of scripted cost, not known (no "
                                  "price was given for it)")


def test_a_listing_of_tasks_tells_a_cost_not_known_as_such() -> None:
    """A task that called a model with no price is listed (the inbox, `signoff tasks`, the REST
    API) with its cost not known beside what is, not as $0.0000 — a priced one as it cost."""
    shop = _counter()

    def counted(price: Any) -> str:
        script = ScriptedModel(says.hand_back(Tally(total=0)), **price)
        return shop.app.agent(shop.Clerk).do(shop.Count(), shop.counter, model=script,
                                             budget_usd=float("inf"), for_=shop.boss).task

    unpriced, priced = counted({"price": None}), counted({})
    listed = {t.id: t for t in Inbox(shop.app).tasks(shop.boss).items}
    assert (listed[unpriced].cost_known, listed[priced].cost_known) == (False, True)
    assert listed[unpriced].spend_words == "$0.0000 + calls of no known price"
    assert listed[priced].spend_words == f"${listed[priced].spend_usd:.4f}"
    assert TaskOut.of(listed[unpriced]).cost_known is False


def test_a_result_that_does_not_fit_is_told_and_retried() -> None:
    """A hand back that does not validate is refused with the reason; a good one ends Done."""
    shop = _counter()
    script = ScriptedModel(says.raw("hand_back", '{"total": "many"}'),
                           says.hand_back(Tally(total=2)))
    outcome = shop.app.agent(shop.Clerk).do(shop.Count(), shop.counter, model=script)
    assert outcome.status is TaskStatus.DONE
    assert outcome.result == Tally(total=2)
    told = [m.text for m in script.seen.messages[1] if m.role == "tool"]
    assert told[0].startswith("Invalid: the result does not fit (total: Input should be a valid "
                              "integer")


DEEP = "[" * 5000 + "]" * 5000
"""Arguments nested more deeply than Python's JSON reader can read."""


@pytest.mark.parametrize("arguments", [DEEP, '{"counter": ' + DEEP + "}",
                                       '{"counter": ' + "[" * 150 + "]" * 150 + "}"])
@pytest.mark.parametrize("tool", ["bump", "hand_back"])
def test_arguments_nested_too_deeply_are_told_and_the_task_goes_on(tool: str,
                                                                   arguments: str) -> None:
    """A call whose arguments nest too deeply to read, or more than 100 levels (which Python
    reads, and the writes after it might not), to a tool or to hand back, is told to the model
    as Invalid, kept in the receipt, and the task goes on to its end."""
    shop = _counter()
    script = ScriptedModel(says.raw(tool, arguments), says.hand_back(Tally(total=1)))
    outcome = shop.app.agent(shop.Clerk).do(shop.Count(), shop.counter, model=script)
    assert outcome.status is TaskStatus.DONE
    (told,) = [m.text for m in script.seen.messages[1] if m.role == "tool"]
    assert told.startswith("Invalid: ")
    assert "nested too deeply to read" in told
    assert f"{tool} was asked for: {told}" in shop.app.receipt(outcome.task).words


class _Broken(ScriptedModel):
    """A model whose code breaks, its error naming its internals."""

    def complete(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("socket 7 at 0x7f3a: secret internals")


def test_a_model_that_breaks_fails_the_task_without_its_internals(
        caplog: pytest.LogCaptureFixture) -> None:
    """A model's code that raises ends the task Failed with the error's kind, and the details
    only in the log."""
    shop = _counter()
    outcome = shop.app.agent(shop.Clerk).do(shop.Count(), shop.counter, model=_Broken())
    assert outcome.status is TaskStatus.FAILED
    assert outcome.problem == "The model failed: RuntimeError. The log has the details."
    assert "secret internals" in caplog.text


def test_a_task_goes_on_in_a_worker_after_a_restart() -> None:
    """A task whose process stopped goes on in a worker, with the script where it was."""
    shop = _counter()
    script = ScriptedModel(says.tool(shop.bump, counter=shop.counter.id),
                           says.tool(shop.bump, counter=shop.counter.id),
                           says.hand_back(Tally(total=2)))
    handle = shop.app.agent(shop.Clerk)
    task = shop.app._agency.loop.start(
        handle.registered, shop.Count(), shop.counter, for_=None, model=script, max_steps=10,
        budget_usd=1.0,
    )
    shop.app._agency.loop.step(task)  # one model call, then the process "stops"
    shop.app._agency.loop.models.clear()
    assert shop.app.outcome(task).status is TaskStatus.RUNNING
    assert shop.app.worker(model_for=lambda _agent, _task: script).run_once() == 1
    outcome = shop.app.outcome(task)
    assert (outcome.status, outcome.result) == (TaskStatus.DONE, Tally(total=2))
    with shop.app.session(as_=shop.app.system) as s:
        assert s.get(shop.Counter, shop.counter.id).value == 2


def test_a_subject_of_the_wrong_kind_is_refused() -> None:
    """Doing a skill on something it does not work on is a UserError naming both."""
    from signoff import UserError

    shop = _counter()
    with pytest.raises(UserError, match="count works on a Counter record, not 'seven'"):
        shop.app.agent(shop.Clerk).do(shop.Count(), "seven", model=ScriptedModel())


def test_a_running_worker_settles_an_approval_a_stopped_process_left_since_it_started() -> None:
    """An approval left running by a process that stopped while the worker was already up is
    settled by the worker's periodic recovery: not run blindly (its action is not idempotent),
    told as of unknown outcome, and the task goes on to its end."""
    from datetime import timedelta

    from signoff import ProposalStatus
    from signoff.agents import repository as repo

    shop = _counter()

    class Asker(Agent):
        purpose = "You count."
        skills = [shop.Count()]

    shop.app.add_agent(Asker, sponsor=shop.boss)
    script = ScriptedModel(says.tool(shop.bump, counter=shop.counter.id),
                           says.hand_back(Tally(total=0)))
    outcome = shop.app.agent(Asker).do(shop.Count(), shop.counter, model=script)
    assert outcome.status is TaskStatus.WAITING
    (proposal,) = shop.app.proposals(task=outcome.task)
    looks = {"n": 0}

    def stop() -> bool:
        looks["n"] += 1
        if looks["n"] == 2:  # the worker is up: now a process claims the approval and dies
            with shop.app.database.connect() as db:
                repo.claim_proposal(db, proposal, ProposalStatus.APPROVED,
                                    decided_by_id=shop.boss.id, decided_at=repo.now())
        return shop.app.outcome(outcome.task).status is TaskStatus.DONE or looks["n"] > 500

    worker = shop.app.worker(model_for=lambda _agent, _task: script)
    said: list[str] = []
    worker.run_forever(every=0.001, recover_every=0.001, stuck_after=timedelta(0), stop=stop,
                       tell=said.append)
    assert said == ["Settled 1 interrupted approval(s); passed 0 deadline(s); stepped 0 task(s)."]
    assert shop.app.outcome(outcome.task).status is TaskStatus.DONE
    assert shop.app.proposal(proposal.id).status is ProposalStatus.FAILED
    told = [m.text for m in script.seen.messages[-1] if m.role == "tool"]
    assert told[0].startswith("The outcome of bump is unknown")
    with shop.app.session(as_=shop.app.system) as s:
        assert s.get(shop.Counter, shop.counter.id).value == 0  # never run blindly


@pytest.mark.parametrize(
    ("spent", "reserve", "budget_usd", "fits"),
    [(0.0, 1.0, 1.0, True), (0.5, 0.6, 1.0, False), (0.6, 0.4, 1.0, True), (1.0, 0.0, 1.0, True)],
)
def test_a_reservation_fits_what_is_left(spent: float, reserve: float, budget_usd: float,
                                         fits: bool) -> None:
    """A reservation fits when, counted with what is spent, it stays within the budget."""
    from signoff.limits import budget

    assert budget.fits(spent, reserve, budget_usd) is fits


def test_a_settled_call_replaces_its_reservation_with_its_cost() -> None:
    """Settled, a call's reservation gives way to what it cost; unused, it is taken back; a
    cost over its reservation is told apart (a cost equal to it, computed twice, is not)."""
    from signoff.limits import budget

    assert budget.settled(0.75, 0.25, 0.125) == pytest.approx(0.625)
    assert budget.unreserved(0.75, 0.25) == pytest.approx(0.5)
    assert budget.over_reserved(0.26, 0.25)
    assert not budget.over_reserved(0.1 + 0.2, 0.3)


@pytest.mark.parametrize(("limits", "told"), [
    ({"max_steps": 0}, "max_steps must be a whole number of model calls, 1 or more, not 0."),
    ({"max_steps": 2.5}, "max_steps must be a whole number of model calls, 1 or more, not 2.5."),
    ({"budget_usd": float("nan")}, "budget_usd must be a number of US dollars, 0 or more"),
    ({"budget_usd": -1}, "budget_usd must be a number of US dollars, 0 or more"),
    ({"budget_usd": "1"}, "budget_usd must be a number of US dollars, 0 or more"),
])
def test_limits_no_task_could_keep_are_refused_before_it_starts(limits: dict[str, Any],
                                                                 told: str) -> None:
    """A step limit under one, or a budget that is not a number of dollars (NaN, negative), is
    the developer's mistake, told as such; no task is started."""
    shop = _counter()
    with pytest.raises(UserError, match=re.escape(told)):
        shop.app.agent(shop.Clerk).do(shop.Count(), shop.counter, model=ScriptedModel(),
                                      **limits)
    with shop.app.database.connect() as db:
        assert db.execute(select(func.count()).select_from(tasks)).scalar_one() == 0


def test_work_for_a_person_named_by_handle() -> None:
    """`for_` takes a person's handle as well as the person; a handle of nobody, or anything
    else, is told."""
    shop = _counter()
    outcome = shop.app.agent(shop.Clerk).do(shop.Count(), shop.counter, for_="b@x.example",
                                            model=ScriptedModel(says.hand_back(Tally(total=0))))
    assert shop.app.receipt(outcome.task).words.startswith("Clerk began count for Bo.")
    with pytest.raises(UserError, match=re.escape("There is nobody with the id or handle 'z@x.example'")):
        shop.app.agent(shop.Clerk).do(shop.Count(), shop.counter, for_="z@x.example",
                                      model=ScriptedModel())
    with pytest.raises(UserError, match="for_ takes a person"):
        shop.app.agent(shop.Clerk).do(shop.Count(), shop.counter, for_=42,  # type: ignore[arg-type]
                                      model=ScriptedModel())


def test_limits_declared_on_the_agent_are_checked_as_given_ones() -> None:
    """An agent declaring a budget that is not a number of dollars is told so when it is asked
    to work (not as a database error); a budget given as a Decimal is a number of dollars."""
    shop = _counter()
    shop.Clerk.budget_usd = float("nan")
    with pytest.raises(UserError, match="budget_usd must be a number of US dollars"):
        shop.app.agent(shop.Clerk).do(shop.Count(), shop.counter, model=ScriptedModel())
    outcome = shop.app.agent(shop.Clerk).do(shop.Count(), shop.counter, budget_usd=Decimal("0.5"),
                                            model=ScriptedModel(says.hand_back(Tally(total=0))))
    assert outcome.status is TaskStatus.DONE
