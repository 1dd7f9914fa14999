"""`signoff db downgrade` refuses, in a sentence and with nothing changed, what is no going back
to an older release: a revision newer than the one the tables are at (no "failed for a reason it
did not foresee"), and 'base', which no release of signoff runs on and which takes away every
person, task and receipt signoff keeps (the question asked says only that "what only newer
releases record is not kept"). On a real SQLite file, each command in a process of its own."""

from __future__ import annotations

from pathlib import Path

from tests.db_cli import SHOP_APP, revision_of, signoff_in


def _made(tmp: Path) -> Path:
    db = tmp / "shop.db"
    (tmp / "shop.py").write_text(SHOP_APP.format(db=db))
    assert signoff_in(tmp, "users", "add", "ada@shop.example", "Ada").returncode == 0
    return db


def test_a_revision_newer_than_the_tables_is_told_in_a_sentence(tmp_path: Path) -> None:
    db = _made(tmp_path)
    assert signoff_in(tmp_path, "db", "downgrade", "0006_issue15", "--yes").returncode == 0
    told = signoff_in(tmp_path, "db", "downgrade", "0010_identity", "--yes")
    assert told.returncode == 2, told.stderr
    assert "did not foresee" not in told.stderr
    assert "0006_issue15" in told.stderr  # (where they are)
    assert revision_of(db) == "0006_issue15"


def test_base_is_no_release_to_go_back_to_and_nobody_is_lost(tmp_path: Path) -> None:
    db = _made(tmp_path)
    told = signoff_in(tmp_path, "db", "downgrade", "base", "--yes")
    assert told.returncode == 2, told.stdout
    assert revision_of(db) is not None
    assert "ada@shop.example" in signoff_in(tmp_path, "users", "list").stdout


def test_the_revision_the_tables_are_at_is_nothing_to_take_back(tmp_path: Path) -> None:
    """Taken "back" to the revision they are at, nothing is asked (it asked to take them "back
    from 0006_issue15 to 0006_issue15"), nothing changes, and it says so, exit 0."""
    db = _made(tmp_path)
    assert signoff_in(tmp_path, "db", "downgrade", "0006_issue15", "--yes").returncode == 0
    told = signoff_in(tmp_path, "db", "downgrade", "0006_issue15", given="")
    assert told.returncode == 0, told.stderr
    assert "[y/N]" not in told.stderr
    assert "at 0006_issue15 already: nothing to take back" in told.stdout, told.stdout
    assert revision_of(db) == "0006_issue15"
