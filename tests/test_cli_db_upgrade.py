"""`signoff db upgrade`: signoff's tables brought to the newest revision on a real SQLite file,
each command in a process of its own as an operator runs it — from nothing, after a downgrade,
and run again (nothing to do). Before it, `signoff db upgrade` was "No such command 'upgrade'.
Did you mean 'downgrade'?"."""

from __future__ import annotations

from pathlib import Path

from signoff.store.migrate import head_revision
from tests.db_cli import SHOP_APP, revision_of, signoff_in


def test_db_upgrade_makes_the_tables_goes_forward_after_a_downgrade_and_twice_does_nothing(
        tmp_path: Path) -> None:
    """On a new file it makes the tables at the newest revision; after `db downgrade` it brings
    them forward again, saying from where; run again, it says there is nothing to do (exit 0)."""
    db = tmp_path / "shop.db"
    (tmp_path / "shop.py").write_text(SHOP_APP.format(db=db))
    head = head_revision()

    made = signoff_in(tmp_path, "db", "upgrade")
    assert made.returncode == 0, made.stderr
    assert made.stdout == f"signoff's tables are made, at {head}, the newest this signoff makes.\n"
    assert revision_of(db) == head

    back = signoff_in(tmp_path, "db", "downgrade", "0006_issue15", "--yes")
    assert back.returncode == 0, back.stderr
    assert revision_of(db) == "0006_issue15"

    forward = signoff_in(tmp_path, "db", "upgrade")
    assert forward.returncode == 0, forward.stderr
    assert forward.stdout == (f"signoff's tables were at 0006_issue15, and are at {head} now, "
                              "the newest this signoff makes.\n")
    assert revision_of(db) == head

    again = signoff_in(tmp_path, "db", "upgrade")
    assert again.returncode == 0, again.stderr
    assert again.stdout == (f"signoff's tables are at {head}, the newest this signoff makes: "
                            "nothing to do.\n")
    assert again.stderr == ""


def test_db_upgrade_of_a_folder_that_is_not_there_is_told_in_a_sentence(tmp_path: Path) -> None:
    """A database in a folder that does not exist: the sentence other commands say, exit 5, no
    traceback, and no folder made."""
    missing = tmp_path / "not-here" / "shop.db"
    (tmp_path / "shop.py").write_text(SHOP_APP.format(db=missing))
    told = signoff_in(tmp_path, "db", "upgrade")
    assert told.returncode == 5, told.stdout + told.stderr
    assert told.stderr.startswith("Error: The database sqlite:///")
    assert f"The folder {missing.parent} does not exist" in told.stderr
    assert "Traceback" not in told.stderr
    assert not missing.parent.exists()
