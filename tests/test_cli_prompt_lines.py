"""What a command says after its [y/N] question begins a line of its own: Ctrl-C at
`signoff db downgrade`'s question ("Stopped.") and no answer at all (a script's stdin at its end)
were written after "[y/N]: ", on the question's line, as click leaves it open."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from signoff.cli import EXIT_USAGE, main
from tests.test_cli_prompts import _at_a_terminal
from tests.workshop_web import open_workshop

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "examples" / "workshop.py")


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> object:
    """The workshop in a SQLite file, which the commands' processes open too."""
    monkeypatch.setenv("SIGNOFF_PROFILE", str(tmp_path / "profile.json"))
    monkeypatch.delenv("SIGNOFF_APP", raising=False)
    return open_workshop(tmp_path, monkeypatch)


def test_ctrl_c_at_the_question_says_stopped_on_a_line_of_its_own(shop: object) -> None:
    """Ctrl-C at the question: "Stopped." begins a line, exit 130."""
    code, written = _at_a_terminal(["db", "downgrade", "0006_issue15", "--app", APP],
                                   until=b"[y/N]", then=None)
    assert code == 130, written
    assert re.search(r"\[y/N\]: ?\r?\n(\^C)?Stopped\.", written), written


def test_no_answer_is_told_on_a_line_of_its_own(shop: object) -> None:
    """No answer (stdin at its end): the sentence saying to give --yes begins a line."""
    done = CliRunner().invoke(main, ["db", "downgrade", "0006_issue15", "--app", APP])
    assert done.exit_code == EXIT_USAGE, done.output
    assert re.search(r"\[y/N\]: ?\nError: Taking the tables back asks first", done.output), \
        done.output
