"""The loop's cheap copies of its rows read exactly as the slow ones did."""

from __future__ import annotations

import dataclasses
import enum
import json
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine

from signoff.agents import repository as repo
from signoff.agents.proposals import Evidence, Proposal, ProposalStatus
from signoff.store import journal
from signoff.testing import says


def _proposal() -> Proposal:
    return Proposal(id="p1", task="t1", agent="A", skill="S", skill_version="1",
                    action="add_to", label="Add to", effects=("changes a Tally",),
                    arguments={"b": 1}, shown={"b": "1"}, why="because", evidence=(),
                    subject_version="", fingerprint="f", decide_by="", decide_person_id=None,
                    decide_queue=None, routed=False, for_id=None,
                    status=ProposalStatus.WAITING)


def test_replaced_is_dataclasses_replace() -> None:
    p = _proposal()
    changes: dict[str, Any] = {"decide_by": "Noor", "evidence": (Evidence(tool="t", arguments="{}",
                                                          answer="Done."),)}
    made = repo.replaced(p, **changes)
    assert made == dataclasses.replace(p, **changes)
    assert p.decide_by == ""  # the original is untouched
    with pytest.raises(TypeError):
        repo.replaced(p, no_such_field=1)


def test_call_rows_folded_from_changes() -> None:
    steps: list[dict[str, Any]] = [
        {"id": "c1", "task_id": "t1", "turn": 1, "position": 0, "call_id": "call_1_0",
         "tool": "add", "arguments": "{}", "why": "w", "state": "New"},
        {"id": "c1", "state": "Done", "outcome": "Done", "answer": "3",
         "finished_at": "2026-01-01T00:00:00+00:00"},  # (a column the row does not keep)
    ]
    folded: dict[str, dict[str, Any]] = {}
    for change in steps:
        folded.setdefault(change["id"], {}).update(change)
    row = repo._call(folded["c1"])
    assert row == repo.CallRow(id="c1", task_id="t1", turn=1, position=0, call_id="call_1_0",
                               tool="add", arguments="{}", why="w", state="Done", leave="",
                               outcome="Done", said="", value=None, problem="", ran_as=None,
                               effects=None, answer="3", began=True)
    assert repo._call({"id": "c2", "tool": "x", "began": False}).began is False


def test_call_change_keeps_times_as_text(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite:///{tmp_path / 'db.sqlite'}")
    try:
        with engine.connect() as db:
            at = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
            repo.update_call(db, "t1", "c1", state="Done", finished_at=at, value=[1],
                             ran_as=None, began=False)
            (change,) = journal.pending(db, "t1").calls
    finally:
        engine.dispose()
    assert change == {"id": "c1", "state": "Done", "finished_at": at.isoformat(),
                      "value": [1], "ran_as": None, "began": False}
    assert list(change) == ["id", "state", "finished_at", "value", "ran_as", "began"]


class _Colour(enum.Enum):
    RED = "red"


def test_script_arguments_as_json() -> None:
    line = says.tool("paint", n=3, x=1.5, yes=True, no=None, name="wall", colour=_Colour.RED,
                     when=date(2026, 1, 2))
    (call,) = line.calls
    assert json.loads(call[1]) == {"n": 3, "x": 1.5, "yes": True, "no": None, "name": "wall",
                                   "colour": "RED", "when": "2026-01-02"}


def test_scripted_model_keeps_what_it_was_asked() -> None:
    from signoff.models.base import Conversation, Message, Usage
    from signoff.testing import ScriptedModel

    model = ScriptedModel(says.text("a"), says.text("b"), says.text("c"),
                          usage=Usage(input_tokens=1, output_tokens=1))
    first = Conversation([Message(role="user", text="hi")])
    model.complete(first, [], max_output_tokens=10)
    given = [*first, Message(role="assistant", text="a"), Message(role="user", text="go")]
    model.complete(given, [], max_output_tokens=10)
    given.append(Message(role="user", text="changed after it was asked"))  # (not seen)
    assert model.seen.messages == [list(first), given[:3]]
    assert all(type(m) is list for m in model.seen.messages)
    held = model.seen.messages
    model.complete(first.grown([Message(role="assistant", text="a")]), [],
                   max_output_tokens=10)
    assert model.seen.messages is held  # (read again: the list it gave, grown)
    assert len(held) == 3
    assert held[2] == [*first, Message(role="assistant", text="a")]
    assert model.seen.tools == [[], [], []]
