"""A result handed back with NaN or Infinity in it: no JSON keeps such a number (PostgreSQL
refuses it, and SQLite keeps text no JSON reader takes), so the model is told, as for any
result that does not fit, and hands it back again; the task ends Done with the result it
handed back then, on either database."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from signoff import Agent, App, Permits, Skill, TaskStatus
from signoff.testing import ScriptedModel, ScriptLine


class Estimate(BaseModel):
    """An estimate of the work."""

    hours: float
    summary: str


@pytest.mark.parametrize("hours", ["NaN", "Infinity", "-Infinity"])
def test_a_result_holding_no_finite_number_is_handed_back_again(database: str,
                                                                hours: str) -> None:
    """The model's first hand-back holds `hours` (JSON as Python reads it); it is refused in
    words the model is told, and its second ends the task."""
    app = App("shop", database=database, key=b"k" * 32)

    class Estimating(Skill[None, Estimate]):
        description = "Estimate the work."
        tools: list[Any] = []

    class Estimator(Agent):
        purpose = "You estimate."
        skills = [Estimating()]
        may = Permits()

    app.add_agent(Estimator, sponsor=app.people.add("sue@shop.example", "Sue"))
    model = ScriptedModel(
        ScriptLine(calls=(("hand_back", f'{{"hours": {hours}, "summary": "Pads."}}'),)),
        ScriptLine(calls=(("hand_back", '{"hours": 1.5, "summary": "Pads."}'),)),
    )
    outcome = app.agent(Estimator).do(Estimating(), None, model=model)
    assert outcome.status is TaskStatus.DONE, outcome.problem
    assert outcome.result == Estimate(hours=1.5, summary="Pads.")
    assert app.outcome(outcome.task).result == Estimate(hours=1.5, summary="Pads.")
    told = [m.text for m in model.seen.messages[-1] if m.role == "tool"]
    assert any("NaN or Infinity" in text for text in told), told
    app.database.dispose()
