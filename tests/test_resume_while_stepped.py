"""`resume(task, model=…)` in one thread while another thread of the process steps that task:
the task goes on with the model it has, told in the log (the model given to `resume` replaced
it, and the step under way finished with a model nobody gave it)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from signoff import Agent, App, Permits, Skill, TaskStatus
from signoff.models.base import Message, Reply, ToolSpec
from signoff.store.tables import tasks
from signoff.testing import ScriptedModel, says


class _Held(ScriptedModel):
    """A scripted model whose first answer waits until `go` is set (and says when asked)."""

    def __init__(self, *lines: Any) -> None:
        super().__init__(*lines)
        self.asked, self.go = threading.Event(), threading.Event()

    def complete(self, messages: list[Message], tools: list[ToolSpec], *,
                 max_output_tokens: int) -> Reply:
        self.asked.set()
        assert self.go.wait(30)
        return super().complete(messages, tools, max_output_tokens=max_output_tokens)


def test_a_task_stepped_here_keeps_its_model_when_resumed_meanwhile(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    app = App("speak", database=f"sqlite:///{tmp_path / 'speak.db'}", key=b"k" * 32)

    @app.action("Peek", query=True)
    def peek() -> str:
        """Look."""
        return "seen"

    class Plain(Skill[None, str]):
        description = "Say something."
        tools: list[Any] = [peek]

    class Speaker(Agent):
        purpose = "You speak."
        skills = [Plain()]
        may = Permits()

    app.add_agent(Speaker)
    first = _Held(says.tool(peek), says.hand_back("from the first"))
    other = ScriptedModel(says.hand_back("from the other"))
    ended: list[Any] = []
    doing = threading.Thread(target=lambda: ended.append(
        app.agent(Speaker).do(Plain(), model=first)))
    doing.start()
    assert first.asked.wait(30)
    with app.database.reading() as db:
        (task,) = db.execute(select(tasks.c.id)).scalars()
    resumed = app.agent(Speaker).resume(task, model=other)
    assert resumed.status is TaskStatus.RUNNING
    first.go.set()
    doing.join(30)
    (outcome,) = ended
    assert outcome.status is TaskStatus.DONE
    assert outcome.result == "from the first"  # (its second step too: "from the other")
    assert other.seen.messages == []
    assert any("goes on with the model it has" in r.getMessage() for r in caplog.records)
    app.database.dispose()
