"""Research's data folder is its owner's alone: it lists what research keeps (the questions
asked, in research.db), and was made 0755, open to every user of the machine."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from signoff.cli.research import research

QUESTION = "What does the with statement do?"


def _mode(path: Path) -> str:
    return oct(stat.S_IMODE(path.stat().st_mode))


def test_the_folders_research_makes_are_open_to_their_owner_alone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every folder research makes on the way to its database is 0700; one that was there
    already is left as it was."""
    there = tmp_path / "home"
    there.mkdir(mode=0o755)
    monkeypatch.setenv("SIGNOFF_DATA_DIR", str(there / "share" / "signoff"))
    before = os.umask(0o022)
    try:
        result = CliRunner().invoke(research, [QUESTION, "--json"])
    finally:
        os.umask(before)
    assert result.exit_code == 0, result.output
    assert (there / "share" / "signoff" / "research.db").is_file()
    assert {p.name: _mode(p) for p in (there, there / "share", there / "share" / "signoff")} == {
        "home": "0o755", "share": "0o700", "signoff": "0o700"}


def test_a_database_given_in_a_folder_of_ones_own_keeps_that_folder_as_it_is(
        tmp_path: Path) -> None:
    """`--database` in a folder that is there: research makes no folder, and changes none."""
    folder = tmp_path / "mine"
    folder.mkdir(mode=0o755)
    before = os.umask(0o022)
    try:
        result = CliRunner().invoke(research, [QUESTION, "--json", "--database",
                                               f"sqlite:///{folder / 'r.db'}"])
    finally:
        os.umask(before)
    assert result.exit_code == 0, result.output
    assert _mode(folder) == "0o755"
    assert _mode(folder / "r.db") == "0o600"
