"""Turns given from outside (a client acting as the agent's model): gated like a model's, and
never taken over by a worker's model."""

from __future__ import annotations

import json
import runpy
from pathlib import Path

import pytest
from sqlalchemy import text

from signoff.agents.turns import given_from_outside
from signoff.models.base import Reply, ToolCall
from signoff.testing import ScriptedModel, says

ROOT = Path(__file__).resolve().parent.parent


def test_a_worker_never_takes_a_turn_of_a_task_a_client_drives(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A task whose turns an MCP client gives is not stepped by a worker, even one whose model
    would happily go on with it; the client's next turn is taken as usual."""
    monkeypatch.setenv("WORKSHOP_DATABASE", f"sqlite:///{tmp_path / 'workshop.db'}")
    shop = runpy.run_path(str(ROOT / "examples" / "workshop.py"), run_name="workshop_turns")
    people = shop["setup"]()
    app, repair = shop["app"], people["repair"]
    handle = app.agent("estimator")
    task = handle.start("estimate_repair", repair, for_=people["noor"], model_name="an MCP client",
                        max_steps=100)

    def note(text: str) -> list[object]:
        call = ToolCall(id=f"c_{text}", name="note_repair",
                        arguments=json.dumps({"repair": str(repair.id), "note": text}))
        return handle.take_turn(task, Reply(tool_calls=(call,)), model_name="an MCP client")

    (first,) = note("Pads.")
    assert (first.state, first.outcome, first.answer) == ("done", "Done", "Noted on T-7.")
    eager = ScriptedModel(says.tool(shop["scrap_repair"], repair=repair.id))
    assert app.worker(model_for=lambda _agent, _task: eager).run_once() == 0
    assert app.outcome(task).steps == 1
    (second,) = note("And a cable.")
    assert second.outcome == "Done"
    assert app.outcome(task).steps == 2
    with app.database.connect() as db:
        stored = db.execute(text("select model from signoff_tasks where id = :t"),
                            {"t": task}).scalar()
    assert stored == "an MCP client (its turns given by a client)"
    assert given_from_outside(stored)
    assert not given_from_outside("gpt-4o")
