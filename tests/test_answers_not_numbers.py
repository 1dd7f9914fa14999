"""What a model is told of a tool's result is JSON a provider takes: a float that is no number
(NaN, an infinity), which an action may return as Python computes it, is told as its text — it
was told as the bare ``NaN`` that JSON does not have, which a provider may refuse, and with it
every later step of the task."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from signoff import Agent, App, Permits, Skill, TaskStatus
from signoff.testing import ScriptedModel, says


def _refused(constant: str) -> Any:
    raise ValueError(f"{constant} is not JSON")


@pytest.mark.parametrize(("returned", "told"), [
    (math.nan, "nan"), (math.inf, "inf"), (-math.inf, "-inf"),
    ({"ratio": math.nan, "parts": [1.5, math.inf]}, {"ratio": "nan", "parts": [1.5, "inf"]}),
])
@pytest.mark.parametrize("declared", [True, False], ids=["declared", "undeclared"])
def test_a_result_that_is_no_number_is_told_as_json(returned: Any, told: Any,
                                                    declared: bool) -> None:
    """Declared (``-> float``, ``-> dict[str, Any]``) or not (``-> Any``: it was told as null,
    or the run as only "Done.")."""
    app = App("ratios", database="sqlite://")

    def ratio(a: float) -> Any:
        return returned

    if declared:
        ratio.__annotations__["return"] = float if isinstance(returned, float) else dict[str, Any]
    ratio = app.action("Work out a ratio")(ratio)

    class Working(Skill[None, str]):
        """Work ratios out."""

        description = "Work ratios out."
        tools = [ratio]

    class Clerk(Agent):
        """Works ratios out."""

        purpose = "You work ratios out."
        skills = [Working()]
        may = Permits(alone=[ratio])

    app.people.add("me@ratios.example", "Me")
    app.add_agent(Clerk, sponsor="me@ratios.example")
    model = ScriptedModel(says.tool(ratio, a=0), says.hand_back("worked out"))
    outcome = app.agent(Clerk).do(Working(), None, for_=app.people.get("me@ratios.example"),
                                  model=model)
    assert outcome.status is TaskStatus.DONE, outcome.problem
    (answer,) = [m.text for m in model.seen.messages[-1] if m.role == "tool"]
    assert json.loads(answer, parse_constant=_refused) == told, answer
