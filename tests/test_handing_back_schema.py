"""The hand-back tool a model is offered, for a result that is no object of its own (a list of
models, a model or nothing): its schema's references resolve, so the model can read what to
hand back, and what it hands back by that schema ends the task."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import pytest
from pydantic import BaseModel

from signoff import Agent, App, Permits, Skill, TaskStatus
from signoff.agents.handing_back import hand_back_spec
from signoff.testing import ScriptedModel, says


class Estimate(BaseModel):
    """One line of an estimate."""

    hours: int
    summary: str


@pytest.mark.parametrize(("result_type", "result"), [
    pytest.param(list[Estimate], [Estimate(hours=1, summary="Pads.")], id="a-list-of-models"),
    pytest.param(Estimate | None, Estimate(hours=2, summary="Cable."), id="a-model-or-nothing"),
])
def test_the_hand_back_offered_for_a_result_of_models_resolves(
        tmp_path: Path, result_type: Any, result: Any) -> None:
    """The schema the model is offered validates the result it hands back (each `$ref` finds
    its definition), and the task ends Done with it."""
    app = App("shop", database=f"sqlite:///{tmp_path / 'shop.db'}", key=b"k" * 32)

    class Estimating(Skill[None, result_type]):  # type: ignore[valid-type]
        description = "Estimate the work."
        tools: list[Any] = []

    class Estimator(Agent):
        purpose = "You estimate."
        skills = [Estimating()]
        may = Permits()

    sue = app.people.add("sue@shop.example", "Sue")
    app.add_agent(Estimator, sponsor=sue)
    model = ScriptedModel(says.hand_back(result))
    outcome = app.agent(Estimator).do(Estimating(), None, model=model)
    assert outcome.status is TaskStatus.DONE, outcome.problem
    (spec,) = [s for s in model.seen.tools[0] if s.name == "hand_back"]
    assert spec == hand_back_spec(result_type)
    handed = {"result": [e.model_dump() for e in result] if isinstance(result, list) else (
        result.model_dump())}
    jsonschema.validate(handed, spec.parameters)  # a dangling `$ref` raises here
    with pytest.raises(jsonschema.ValidationError):  # and the schema says what fits
        jsonschema.validate({"result": "not an estimate"}, spec.parameters)
    app.database.dispose()
