"""A review of the hard limits ("a spend budget that is never exceeded, checked before each
call"; "steps never exceed the limit"): usage a model reports that is no count of tokens, an
agent's `max_output_tokens`, a declared cost, the step of a model call lost in a crash, what a
receipt says a task cost, and what a worker says it stepped."""

from __future__ import annotations

import json
import math
import signal
from collections.abc import Iterator
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from sqlalchemy import select, update

from signoff import (
    Agent,
    App,
    Invalid,
    Permits,
    Price,
    Skill,
    TaskStatus,
    Unavailable,
    Usage,
    UserError,
    spends,
)
from signoff.agents import repository as repo
from signoff.models import OpenAICompatibleModel, Reply, ToolSpec, allow_model_requests
from signoff.store.tables import tasks
from signoff.testing import ScriptedModel, says
from tests.box_world import Report, box_world
from tests.forking import killed_at
from tests.provider_servers import Canned, ProviderServer, openai_completion, serving

PRICE = Price(input_per_mtok=3.0, output_per_mtok=15.0)
"""A model price at which a call of 500 tokens in and 1000 out costs $0.0165."""
FREE = Price(input_per_mtok=0.0, output_per_mtok=0.0)
BUY_USD = 0.10
"""What one `buy` (alone) spends."""
ORDER_USD = 0.25
"""What one `order` (proposed) spends."""


def _shop(url: str = "sqlite://") -> SimpleNamespace:
    """A box to tend, with `jot` (record-only, alone), `buy` (spends, alone; refused for the
    part "none") and `order` (spends, proposed to Noor, the clerk's sponsor)."""
    app = App("limits", database=url)
    Box, _, jot = box_world(app)

    @app.action("Buy a part")
    @spends(cost=BUY_USD)
    def buy(part: str) -> str:
        """Buys a part; there is no part "none", and the supplier of "offline" parts cannot
        be reached."""
        if part == "none":
            raise Invalid("There is no part “none”.")
        if part == "offline":
            raise Unavailable("The supplier cannot be reached; nothing was sent.")
        return f"Bought {part}."

    @app.action("Order a part")
    @spends(cost=ORDER_USD)
    def order(part: str) -> str:
        """Orders a part."""
        return f"Ordered {part}."

    class Tend(Skill[None, Report]):
        description = "Tend the box."
        tools = [jot, buy, order]

        def brief(self, subject: None) -> str:
            return "Tend the box."

    class Clerk(Agent):
        purpose = "You tend boxes."
        skills = [Tend()]
        may = Permits(alone=[jot, buy])

    noor = app.people.find("noor@limits.example") or app.people.add(
        "noor@limits.example", "Noor")
    app.add_agent(Clerk, sponsor=noor)
    app.agent(Clerk)  # its account made now, not by two processes at once
    with app.session(as_=app.system) as s:
        box = s.scalars(select(Box)).first()
        if box is None:
            box = Box(name="B-1")
            s.add(box)
    return SimpleNamespace(app=app, Box=Box, box=box, jot=jot, buy=buy, order=order, Tend=Tend,
                           Clerk=Clerk, noor=noor)


def _jots(shop: SimpleNamespace, count: int) -> list[Any]:
    """`count` turns that each jot a note on the box, then the result."""
    return [*(says.tool(shop.jot, box=shop.box.id, note=f"n{i}") for i in range(count)),
            says.hand_back(Report(summary="Tended."))]


def _reserved(shop: SimpleNamespace, task: str) -> float:
    """What was reserved for the task's last model call, as its receipt says."""
    reserved = [e.data["reserved_usd"] for e in shop.app.receipt(task).entries
                if e.kind in ("model_call", "reserved") and "reserved_usd" in e.data]
    return float(reserved[-1])


# -- 1. usage that is no count of tokens -------------------------------------------------------


@pytest.mark.parametrize(("usage", "shown"), [
    (Usage(input_tokens=-10_000_000, output_tokens=0), "-10000000 tokens in and 0 out"),
    (Usage(input_tokens=500, output_tokens=-1), "500 tokens in and -1 out"),
    (Usage(input_tokens=math.nan, output_tokens=10), "nan tokens in and 10 out"),  # type: ignore[arg-type]
    (Usage(input_tokens="500", output_tokens=10), "'500' tokens in and 10 out"),  # type: ignore[arg-type]
    (Usage(input_tokens=True, output_tokens=10), "True tokens in and 10 out"),
], ids=["negative in", "negative out", "nan", "text", "bool"])
def test_usage_that_is_no_count_of_tokens_stops_the_task(usage: Usage, shown: str) -> None:
    """A reply whose usage is below 0 (which lowered the spend recorded: a $0.10 task made 13
    calls, and recorded -$29.80) or not a whole number is told, naming the model and what it
    reported; what was reserved for the call is counted as spent, and the task stops."""
    shop = _shop()
    honest = Usage(input_tokens=500, output_tokens=1000)
    script = ScriptedModel(*_jots(shop, 12), price=PRICE,
                           usage=lambda turn: usage if turn == 0 else honest)
    outcome = shop.app.agent(shop.Clerk).do(shop.Tend(), None, model=script, budget_usd=0.10,
                                            max_steps=50)
    assert outcome.status is TaskStatus.HALTED
    assert outcome.problem.startswith(f"Halted: scripted reported {shown}, which is no count "
                                      "of tokens"), outcome.problem
    assert len(script.seen.messages) == 1
    assert outcome.steps == 1
    assert outcome.spend_usd == pytest.approx(_reserved(shop, outcome.task))
    assert 0 < outcome.spend_usd <= 0.10
    assert shop.app.receipt(outcome.task).cost_usd == pytest.approx(outcome.spend_usd)


@pytest.fixture
def server() -> Iterator[ProviderServer]:
    """A scripted OpenAI-compatible server on 127.0.0.1, which real requests may reach."""
    with serving() as started, allow_model_requests():
        yield started


@pytest.mark.parametrize(("usage", "told"), [
    ((-10_000_000, 0), "-10000000 tokens in"),
    ((500, -5), "-5 tokens out"),
    ((math.nan, 10), "nan tokens in"),
    (("lots", 10), "'lots' tokens in"),
    ((12.5, 10), "12.5 tokens in"),
], ids=["negative in", "negative out", "nan", "text", "fraction"])
def test_a_server_reporting_usage_that_is_no_count_of_tokens_is_refused(
    server: ProviderServer, usage: tuple[Any, Any], told: str,
) -> None:
    """The real OpenAI-compatible client refuses usage that is no count of tokens where it
    reads it, naming the model and what it reported: the task fails after that one request,
    what was reserved for it counted as spent (the server answered honestly after)."""
    shop = _shop()
    first = openai_completion(calls=[("c0", "jot", json.dumps(
        {"box": str(shop.box.id), "note": "n0"}))])
    first["usage"] = {"prompt_tokens": usage[0], "completion_tokens": usage[1]}
    server.answer(Canned(body=first), *(Canned(body=openai_completion(
        calls=[(f"c{i}", "jot", json.dumps({"box": str(shop.box.id), "note": f"n{i}"}))],
        usage=(500, 1000))) for i in range(1, 12)))
    with OpenAICompatibleModel("m", base_url=f"{server.url}/v1", price=PRICE) as model:
        outcome = shop.app.agent(shop.Clerk).do(shop.Tend(), None, model=model,
                                                budget_usd=0.10, max_steps=50)
    assert outcome.status is TaskStatus.FAILED
    assert outcome.problem.startswith(f"The model failed: openai-compatible:m reported {told}, "
                                      "which is no count of tokens"), outcome.problem
    assert len(server.received) == 1
    assert outcome.spend_usd == pytest.approx(_reserved(shop, outcome.task))
    assert 0 < outcome.spend_usd <= 0.10
    assert shop.app.receipt(outcome.task).cost_usd == pytest.approx(outcome.spend_usd)


def test_a_server_reporting_negative_usage_once_keeps_the_budget(server: ProviderServer) -> None:
    """The reproduction: a server reporting -10,000,000 tokens in once, and honest usage after,
    no longer takes a $0.10 task past its budget (it took 13 calls, recorded as -$29.80)."""
    shop = _shop()
    calls = [Canned(body=openai_completion(calls=[(f"c{i}", "jot", json.dumps(
        {"box": str(shop.box.id), "note": f"n{i}"}))], usage=(-10_000_000 if i == 0 else 500,
                                                              0 if i == 0 else 1000)))
             for i in range(12)]
    server.answer(*calls)
    with OpenAICompatibleModel("m", base_url=f"{server.url}/v1", price=PRICE) as model:
        outcome = shop.app.agent(shop.Clerk).do(shop.Tend(), None, model=model,
                                                budget_usd=0.10, max_steps=50)
    assert outcome.status is TaskStatus.FAILED
    assert len(server.received) == 1
    assert 0 < outcome.spend_usd <= 0.10


# -- 2. max_output_tokens ----------------------------------------------------------------------


@pytest.mark.parametrize(("tokens", "told"), [
    (-1_000_000, "must be a whole number of tokens, 1 or more, not -1000000"),
    (0, "must be a whole number of tokens, 1 or more, not 0"),
    (512.5, "must be a whole number of tokens, 1 or more, not 512.5"),
    (True, "must be a whole number of tokens, 1 or more, not True"),
    ("1024", "must be a whole number of tokens, 1 or more, not '1024'"),
    (10**9, "must be at most 1,000,000 tokens"),
], ids=["negative", "0", "fraction", "bool", "text", "too many"])
def test_max_output_tokens_no_call_could_keep_is_refused_as_the_agent_is_registered(
    tokens: Any, told: str,
) -> None:
    """An agent's `max_output_tokens` below 1 left out of each call's reservation what the
    model writes (a negative one made it 0, and the budget was passed unseen): it is refused
    when the agent is registered, as its other limits are, and when a task is asked of it."""
    app = App("t", database="sqlite://")

    class Careless(Agent):
        purpose = "You tend boxes."
        max_output_tokens = tokens

    with pytest.raises(UserError, match=f"Careless.max_output_tokens {told}"):
        app.add_agent(Careless, sponsor=None)

    shop = _shop()
    shop.Clerk.max_output_tokens = tokens  # (changed after it was registered)
    with pytest.raises(UserError, match=f"Clerk.max_output_tokens {told}"):
        shop.app.agent(shop.Clerk).do(shop.Tend(), None, model=ScriptedModel())


def test_a_sane_max_output_tokens_is_reserved() -> None:
    """A whole number of tokens within the bound is kept, and reserved before each call."""
    shop = _shop()
    shop.Clerk.max_output_tokens = 4000
    script = ScriptedModel(*_jots(shop, 0), price=PRICE, usage="worst")
    outcome = shop.app.agent(shop.Clerk).do(shop.Tend(), None, model=script)
    assert outcome.done
    assert _reserved(shop, outcome.task) >= PRICE.cost(0, 4000)


# -- 3. a declared cost ------------------------------------------------------------------------


@pytest.mark.parametrize("cost", [-1, -0.01, math.nan, math.inf, "0.10", True, Decimal("NaN"),
                                  Decimal("-1"), 10**400],
                         ids=["-1", "-0.01", "nan", "inf", "text", "bool", "Decimal NaN",
                              "Decimal -1", "10**400"])
def test_a_declared_cost_that_is_no_amount_of_dollars_is_refused_where_it_is_made(
    cost: Any,
) -> None:
    """`@spends(cost=...)` takes US dollars, 0 or more: a negative cost added to the budget as
    each call ran, and NaN passed every check of it ("could spend $nan"); each is refused as the
    mark is made, in a sentence saying how to write one."""
    with pytest.raises(UserError, match=r"A declared cost is the most one call spends, in US "
                                        r"dollars: a number of 0 or more, such as "
                                        r"@spends\(cost=0\.02\)"):
        spends(cost=cost)


@pytest.mark.parametrize(("cost", "kept"), [(0, 0.0), (0.02, 0.02), (Decimal("0.10"), 0.1),
                                            (3, 3.0)])
def test_a_declared_cost_in_dollars_is_kept(cost: Any, kept: float) -> None:
    """A number of dollars, 0 or more (a Decimal too), is the cost the analysis reads."""
    app = App("t", database="sqlite://")

    @spends(cost=cost)
    def charge() -> None:
        """Charges a card."""

    @app.action("Pay")
    def pay() -> str:
        """Pays."""
        charge()
        return "Paid."

    assert app.actions.info("pay").effects.cost_usd == pytest.approx(kept)


# -- 4. the step of a model call lost in a crash -----------------------------------------------


class _Billed(ScriptedModel):
    """A scripted model that writes a line to a file each time it is asked (the bill)."""

    def __init__(self, bill: Path, *lines: Any, price: Price) -> None:
        super().__init__(*lines, price=price, usage=Usage(input_tokens=500, output_tokens=100))
        self.bill = bill

    def complete(self, messages: Any, tools: list[ToolSpec] | Any, *,
                 max_output_tokens: int) -> Reply:
        reply = super().complete(messages, tools, max_output_tokens=max_output_tokens)
        with open(self.bill, "a", encoding="utf-8") as file:
            file.write("asked\n")
        return reply


def _task_of(app: App) -> str | None:
    with app.database.connect() as db:
        found: str | None = db.execute(select(tasks.c.id)).scalar()
    return found


@pytest.mark.parametrize("db", ["sqlite", "postgresql"])
@pytest.mark.parametrize("price", [FREE, PRICE], ids=["free", "priced"])
def test_a_model_call_lost_in_a_crash_is_one_of_the_steps(
        tmp_path: Path, price: Price, db: str, request: pytest.FixtureRequest) -> None:
    """A process killed while its model call is out (the model answered; the reply is not
    stored) has used a step up: resumed again and again, a task of at most 2 steps asks the
    model twice in all, then halts at its limit (it asked once more each time, for nothing, at
    no price: `--max-steps 2` gave 3 requests, and a restart loop 8). On SQLite and on a
    PostgreSQL server, each process its own."""
    shop = _shop(request.getfixturevalue("postgres_database") if db == "postgresql"
                 else f"sqlite:///{tmp_path / 'steps.db'}")
    bill = tmp_path / "bill.txt"

    def work() -> None:  # the first process starts the task; each one after resumes it
        model = _Billed(bill, *_jots(shop, 8), price=price)
        found = _task_of(shop.app)
        if found is None:
            shop.app.agent(shop.Clerk).do(shop.Tend(), None, model=model, max_steps=2)
        else:
            shop.app.agent(shop.Clerk).resume(found, model=model)

    exits = []
    for _ in range(6):
        exits.append(killed_at("loop.model_replied", work, shop.app))
        if exits[-1] != -signal.SIGKILL:
            break
    task = _task_of(shop.app)
    assert task is not None
    outcome = shop.app.outcome(task)
    asked = bill.read_text().splitlines()
    assert exits == [-signal.SIGKILL, -signal.SIGKILL, 1]
    assert len(asked) == 2
    assert outcome.status is TaskStatus.HALTED
    assert outcome.problem == "Halted: it reached its limit of 2 steps."
    assert outcome.steps == 2
    if price is PRICE:  # (a reservation tells the lost reply apart in the receipt)
        assert shop.app.receipt(task).words.count("its reply was lost") == 2
        assert shop.app.receipt(task).cost_usd == pytest.approx(outcome.spend_usd)
    shop.app.database.dispose()


def test_a_model_turn_that_stops_at_a_limit_leaves_its_steps_as_they_were() -> None:
    """The step counted with a call's reservation, ahead of it, is given back when the call is
    not made: a task that halts at its budget counts only the calls it made."""
    shop = _shop()
    script = ScriptedModel(*_jots(shop, 10), price=Price(input_per_mtok=1000.0,
                                                         output_per_mtok=1000.0),
                           usage=Usage(input_tokens=500, output_tokens=50))
    outcome = shop.app.agent(shop.Clerk).do(shop.Tend(), None, model=script, budget_usd=3.5)
    assert outcome.status is TaskStatus.HALTED
    assert outcome.steps == len(script.seen.messages)
    ran_out = shop.app.agent(shop.Clerk).do(shop.Tend(), None, model=ScriptedModel(
        *_jots(shop, 1)[:1]))  # a script of one turn: asked for a second, it says so
    assert ran_out.status is TaskStatus.FAILED
    assert ran_out.steps == 1  # (the call that failed before it was made is not counted)


# -- 5. what a receipt says a task cost ----------------------------------------------------------


def test_a_receipt_counts_what_its_tools_spent() -> None:
    """What a receipt says the task cost in all is what the task spent: its model calls and
    what its spending tools spent (it left them out: $0.0026 of $0.2026). Each reservation,
    and each given back (a call refused before its code was called, which could not spend),
    is an entry of the receipt. A call its own code refused ("none") may have spent before it
    refused: what was reserved for it stays spent (it was given back); one that could not reach
    outside ("offline", `Unavailable`: nothing was sent) spent nothing."""
    shop = _shop()
    script = ScriptedModel(
        says.tools(says.tool(shop.buy, part="cable"), says.tool(shop.buy, part="none"),
                   says.tool(shop.buy, part="offline"),
                   says.tool(shop.order, part="wheel")),
        says.hand_back(Report(summary="Bought.")), price=PRICE)
    waiting = shop.app.agent(shop.Clerk).do(shop.Tend(), None, model=script, budget_usd=1.0)
    assert waiting.waiting
    (proposal,) = shop.app.proposals(task=waiting.task)
    shop.app.approve(proposal, by=shop.noor)
    outcome = shop.app.outcome(waiting.task)
    assert outcome.done
    receipt = shop.app.receipt(outcome.task)
    models = sum(e.cost_usd for e in receipt.entries if e.kind == "model_call")
    assert outcome.spend_usd == pytest.approx(models + 2 * BUY_USD + ORDER_USD)
    assert receipt.cost_usd == pytest.approx(outcome.spend_usd)
    assert "$0.1000, the most buy spends, is reserved from the budget before it runs" in (
        receipt.words)
    assert "given back: it ended Invalid" not in receipt.words
    assert "The $0.1000 reserved for buy is given back: it ended Unavailable" in receipt.words
    assert "$0.2500, the most order spends, is reserved" in receipt.words


def test_a_receipt_counts_a_spending_call_a_crash_cut_off(tmp_path: Path) -> None:
    """A spending call whose process was killed while it ran is counted as spent (its outcome
    is unknown), and its receipt says so: the receipt's total is still what was spent."""
    shop = _shop(f"sqlite:///{tmp_path / 'spend.db'}")

    def script() -> ScriptedModel:
        return ScriptedModel(says.tool(shop.buy, part="cable"),
                             says.hand_back(Report(summary="Bought.")), price=PRICE)

    def work() -> None:
        shop.app.agent(shop.Clerk).do(shop.Tend(), None, model=script(), budget_usd=1.0)

    assert killed_at("loop.call_marked", work, shop.app) == -signal.SIGKILL
    task = _task_of(shop.app)
    assert task is not None
    outcome = shop.app.agent(shop.Clerk).resume(task, model=script())
    receipt = shop.app.receipt(task)
    assert outcome.done, receipt.words
    assert "The outcome of buy is unknown" in receipt.words
    assert outcome.spend_usd >= BUY_USD
    assert receipt.cost_usd == pytest.approx(outcome.spend_usd)
    shop.app.database.dispose()


# -- 6. what a worker says it stepped ----------------------------------------------------------


def test_a_worker_counts_only_the_tasks_it_stepped(tmp_path: Path) -> None:
    """`signoff worker --once` says how many tasks it stepped: not one another process holds,
    which it leaves to that process (it counted every running task it looked at)."""
    shop = _shop(f"sqlite:///{tmp_path / 'worker.db'}")

    def work() -> None:
        shop.app.agent(shop.Clerk).do(shop.Tend(), None, model=ScriptedModel(*_jots(shop, 1)))

    for _ in range(2):  # two tasks left running by processes killed as they called the model
        assert killed_at("loop.model_reserved", work, shop.app) == -signal.SIGKILL
    with shop.app.database.connect() as db:
        left = list(db.execute(select(tasks.c.id).order_by(tasks.c.id)).scalars())
        assert len(left) == 2
        held = left[0]
        db.execute(update(tasks).where(tasks.c.id == held).values(  # another machine's holder
            holder="elsewhere:1:1:1", held_until=repo.now() + timedelta(minutes=1)))
    worker = shop.app.worker(model_for=lambda _agent, _task: ScriptedModel(*_jots(shop, 1)))
    assert worker.run_once() == 1
    assert shop.app.outcome(left[1]).done
    assert shop.app.outcome(held).status is TaskStatus.RUNNING
    shop.app.database.dispose()
