"""A question holding a control character (a terminal's colour codes pasted in with it) is
refused in a sentence, before any task: its codes were searched for as words ("31m") and shown
back to the terminal as they came."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import func, select

from signoff.exceptions import UserError
from signoff.research.corpus import Corpus
from signoff.research.skill import ask, research_app
from signoff.store.tables import tasks

ROOT = Path(__file__).resolve().parent.parent.parent


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "kettle.md").write_text("# Kettle\n\nDescale the kettle monthly with vinegar.\n")
    return folder


@pytest.mark.parametrize("question", ["\x1b[31mHow often do I descale the kettle?\x1b[0m",
                                      "How often\x07 do I descale the kettle?",
                                      "How often do I descale\x00 the kettle?"])
def test_a_question_with_a_control_character_is_refused_before_any_task(
        notes: Path, question: str) -> None:
    app = research_app(Corpus.from_folder(notes), database="sqlite://")
    with pytest.raises(UserError, match=r"holds a control character \(U\+00[01][0-9A-F]\)"):
        ask(app, question)
    with app.database.connect() as db:
        assert db.execute(select(func.count()).select_from(tasks)).scalar_one() == 0


def test_tabs_and_line_breaks_are_a_questions_own(notes: Path) -> None:
    """A question pasted over two lines, or with a tab, is asked as ever."""
    app = research_app(Corpus.from_folder(notes), database="sqlite://")
    outcome = ask(app, "How often do I\tdescale\nthe kettle?")
    assert outcome.status.value == "Done", outcome.problem


def test_the_command_line_says_so_with_exit_2(notes: Path, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "signoff.cli", "research", "--corpus", str(notes),
         "\x1b[31mHow often do I descale the kettle?"], capture_output=True, text=True,
        cwd=ROOT, timeout=300, env={**os.environ, "SIGNOFF_DATA_DIR": str(tmp_path / "data")})
    assert done.returncode == 2, done.stdout + done.stderr
    assert "holds a control character (U+001B)" in done.stderr
    assert "\x1b" not in done.stdout + done.stderr
