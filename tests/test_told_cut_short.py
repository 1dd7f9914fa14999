"""What a model wrote, quoted back in a refusal, is cut short: a value or a parameter name of
900 KB, or a 1 MB tool name, is told by its start and its length (it was told whole, sent to the
model again in every call after it — millions of tokens — and kept whole in the receipt);
arguments past 1 MB are not read at all, and told so."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from signoff import Agent, App, Permits, Skill, TaskStatus
from signoff.exceptions import Invalid
from signoff.testing import ScriptedModel, ScriptLine

LONG = "x" * 10_000_000


@pytest.mark.parametrize(("tool", "arguments", "told"), [
    ("count", json.dumps({"n": LONG[:900_000]}), "“" + "x" * 77 + "… (900,000 characters)”"),
    ("count", json.dumps({"n": 1, LONG[:900_000]: 2}),
     "“" + "x" * 77 + "… (900,000 characters)”"),
    (LONG[:1_000_000], "{}", "“" + "x" * 77 + "… (1,000,000 characters)”"),
    # (arguments past the 1,000,000 bytes a call may have are not read at all: told so)
    ("count", json.dumps({"n": LONG}), "Invalid: The arguments were 10,000,009 bytes, more than "
                                       "the 1,000,000 a tool call may have"),
])
def test_a_huge_value_or_name_the_model_wrote_is_told_cut_short(
        tmp_path: Path, tool: str, arguments: str, told: str) -> None:
    app = App("counts", database=f"sqlite:///{tmp_path / 'counts.db'}", key=b"k" * 32)

    @app.action("Count", query=True)
    def count(n: int) -> int:
        """Count to n."""
        return n

    class Counting(Skill[None, str]):
        description = "Count."
        tools: list[Any] = [count]

    class Counter(Agent):
        purpose = "You count."
        skills = [Counting()]
        may = Permits()

    app.add_agent(Counter, sponsor=app.people.add("sue@counts.example", "Sue"))
    model = ScriptedModel(ScriptLine(calls=((tool, arguments),)),
                          ScriptLine(calls=(("hand_back", '{"result": "done"}'),)))
    outcome = app.agent(Counter).do(Counting(), None, model=model)
    assert outcome.status is TaskStatus.DONE, outcome.problem
    (answer,) = [m.text for m in model.seen.messages[-1] if m.role == "tool"]
    assert told in answer
    assert len(answer) < 1_000
    assert max(len(e.words) for e in app.receipt(outcome.task).entries) < 1_000
    app.database.dispose()


def test_a_huge_key_in_the_location_is_cut_short() -> None:
    app = App("t", database="sqlite://")

    @app.action
    def price(prices: dict[str, int]) -> int:
        """Price things."""
        return len(prices)

    key = "K" * 5000
    with pytest.raises(Invalid) as told:
        app.actions.values_from_json("price", json.dumps({"prices": {key: "x"}}))
    assert len(told.value.message) < 400, told.value.message[:120]
    assert "5,000 characters" in told.value.message
    app.database.dispose()


def test_a_huge_key_in_a_handed_back_result_is_cut_short() -> None:
    """The same in the hand back's refusal (signoff/agents/handing_back.py `_wrong_fields`)."""
    from pydantic import BaseModel

    from signoff.agents.handing_back import read_result

    class Totals(BaseModel):
        totals: dict[str, int]

    told = read_result(Totals, json.dumps({"totals": {"K" * 5000: "x"}}))
    assert isinstance(told, str)
    assert len(told) < 400, told[:120]
