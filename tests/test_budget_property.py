"""Spend never exceeds the budget and steps never exceed the limit, over thousands of runs."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel
from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

from signoff import Agent, App, Permits, Price, Skill, TaskStatus, allow, spends
from signoff.testing import ScriptedModel, ScriptLine, says


class Done(BaseModel):
    """What the runs hand back."""

    ok: bool


@pytest.fixture(scope="module")
def shop() -> SimpleNamespace:
    """One app for every generated run: a counter, a free tool, and two that spend."""
    app = App("t", database="sqlite://")

    class Meter(app.Record):  # type: ignore[name-defined, misc]
        name: Mapped[str] = mapped_column(String(20), unique=True)
        value: Mapped[int] = mapped_column(default=0)
        __security__ = [allow("read", "update", "create")]

    @spends(cost=0.01)
    def charge_card(meter: Meter) -> None:
        meter.value += 100

    @app.action
    def bump(meter: Meter) -> int:
        """Add one."""
        meter.value += 1
        return meter.value

    @app.action
    def pay_small(meter: Meter) -> int:
        """Pay a cent."""
        charge_card(meter)
        return meter.value

    @app.action
    @spends(cost=0.25)
    def pay_big(meter: Meter) -> int:
        """Pay a quarter."""
        meter.value += 10
        return meter.value

    class Run(Skill[Meter, Done]):
        description = "Run."
        tools = [bump, pay_small, pay_big]

    class Runner(Agent):
        purpose = "You run."
        skills = [Run()]
        may = Permits.everything()

    app.add_agent(Runner)
    with app.session(as_=app.system) as s:
        meter = Meter(name="m")
        s.add(meter)
    return SimpleNamespace(app=app, Meter=Meter, Run=Run, Runner=Runner, meter=meter,
                           tools={"bump": bump, "pay_small": pay_small, "pay_big": pay_big})


@settings(max_examples=1000, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(
    calls=st.lists(st.sampled_from(["bump", "pay_small", "pay_big"]), max_size=8),
    max_steps=st.integers(min_value=1, max_value=10),
    budget=st.floats(min_value=0.0, max_value=1.0, allow_nan=False),
    input_price=st.floats(min_value=0.0, max_value=200.0, allow_nan=False),
    output_price=st.floats(min_value=0.0, max_value=200.0, allow_nan=False),
)
def test_spend_and_steps_stay_within_their_limits(
    shop: SimpleNamespace, calls: list[str], max_steps: int, budget: float, input_price: float,
    output_price: float,
) -> None:
    """A model reporting the most its reservation allows, tools that spend, random limits: the
    spend never passes the budget, the steps never pass the limit, and a halt for money comes
    before the call that could pass it."""
    lines: list[ScriptLine] = [says.tool(shop.tools[name], meter=shop.meter.id) for name in calls]
    lines.append(says.hand_back(Done(ok=True)))
    model = ScriptedModel(*lines, usage="worst",
                          price=Price(input_per_mtok=input_price, output_per_mtok=output_price))
    outcome = shop.app.agent(shop.Runner).do(shop.Run(), shop.meter, model=model,
                                             max_steps=max_steps, budget_usd=budget)
    assert outcome.spend_usd <= budget
    assert outcome.steps <= max_steps
    assert outcome.steps == len(model.seen.messages)
    receipt = shop.app.receipt(outcome.task)
    assert sum(e.cost_usd for e in receipt.entries) <= outcome.spend_usd + 1e-9
    if outcome.status is TaskStatus.HALTED and "could cost up to" in outcome.problem:
        halt = receipt.entries[-1].data
        assert halt["spend_usd"] + halt["reserved_usd"] > budget
    else:
        assert outcome.status in (TaskStatus.DONE, TaskStatus.HALTED)
