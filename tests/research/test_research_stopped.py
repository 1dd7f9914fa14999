"""`signoff research` stopped with Ctrl-C says where its task stands, as the database records it:
stopped before its task was recorded, that nothing was (nothing is lost: ask again); stopped
once its task had ended, that it had, and how to see it. Both said "Stopped." alone. A real
research app on a real SQLite file; Ctrl-C is raised where the person's would land."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from signoff.agents.tasks import TaskStatus
from signoff.cli.research import _local_person, research
from signoff.research import Corpus, research_app
from signoff.research import skill as research_skill

QUESTION = "How often should a kettle be descaled?"


def test_ctrl_c_before_the_task_is_recorded_says_nothing_was(
        kettles: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C as the research begins, before its task is written: exit 130, and a sentence that
    nothing was asked or kept, with the command that asks again; no task in the database."""
    database = f"sqlite:///{tmp_path / 'r.db'}"

    def pressed(*_: Any, **__: Any) -> Any:
        raise KeyboardInterrupt  # (Ctrl-C, pressed before the task was recorded)

    monkeypatch.setattr(research_skill, "ask", pressed)
    done = CliRunner().invoke(research, [QUESTION, "--corpus", str(kettles), "--database",
                                         database])
    assert done.exit_code == 130, done.output
    assert done.stderr.strip() == (
        "Stopped before its research task was recorded: nothing was asked or kept, so nothing "
        f"is lost. Ask again with signoff research '{QUESTION}' --database {database} "
        f"--corpus {kettles}")
    app = research_app(Corpus.from_folder(kettles), database=database)
    assert _tasks_of(app) == []


def test_ctrl_c_after_the_task_ended_says_it_had(
        kettles: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C once the task has ended, before its answer is printed: exit 130, and a sentence
    naming the task, Done, and the command that shows it."""
    database = f"sqlite:///{tmp_path / 'r.db'}"
    real = research_skill.ask

    def answered_then_pressed(*args: Any, **kwargs: Any) -> Any:
        real(*args, **kwargs)
        raise KeyboardInterrupt  # (Ctrl-C, pressed as the answer came)

    monkeypatch.setattr(research_skill, "ask", answered_then_pressed)
    done = CliRunner().invoke(research, [QUESTION, "--corpus", str(kettles), "--database",
                                         database])
    assert done.exit_code == 130, done.output
    app = research_app(Corpus.from_folder(kettles), database=database)
    (task,) = _tasks_of(app)
    assert app.outcome(task).status is TaskStatus.DONE
    assert done.stderr.strip().splitlines()[-1] == (
        f"Stopped. The research task {task} is Done already; see it with signoff research "
        f"--go-on {task} --database {database} --corpus {kettles}")


def _tasks_of(app: Any) -> list[str]:
    """The ids of the tasks of this machine's person."""
    from signoff.inbox import Inbox

    return [t.id for t in Inbox(app).tasks(_local_person(app)).items]
