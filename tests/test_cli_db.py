"""`signoff db`: the revision signoff's tables are at, and taking them back for an older release
(the guide to upgrading, "Going back"), on a real SQLite file, each command in a process of its
own as an operator runs it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import create_engine

from signoff.store.migrate import head_revision
from tests.db_cli import SHOP_APP, revision_of, signoff_in


def test_the_revision_is_told_and_the_tables_taken_back_and_up_again(tmp_path: Path) -> None:
    """A new database has no revision yet; once the app used it, the newest; `db downgrade`
    takes it back to the revision named (what it asks first, unless --yes), tells where it is,
    and `db revision` (which does not upgrade it) says so; the app's next use upgrades it."""
    db = tmp_path / "shop.db"
    (tmp_path / "shop.py").write_text(SHOP_APP.format(db=db))
    told = signoff_in(tmp_path, "db", "revision")
    assert told.returncode == 0, told.stderr
    assert "not made yet" in told.stdout
    assert signoff_in(tmp_path, "users", "add", "ada@shop.example", "Ada").returncode == 0
    told = signoff_in(tmp_path, "db", "revision", "--json")
    assert json.loads(told.stdout) == {"revision": head_revision(), "newest": head_revision()}

    asked = signoff_in(tmp_path, "db", "downgrade", "0006_issue15", given="n\n")
    assert asked.returncode == 1  # (click's abort, having asked)
    assert (f"back from {head_revision()} to 0006_issue15 (what only newer releases record is "
            "not kept)?") in asked.stderr
    assert revision_of(db) == head_revision()

    done = signoff_in(tmp_path, "db", "downgrade", "0006_issue15", given="y\n")
    assert done.returncode == 0, done.stderr
    assert f"were at {head_revision()}, and are at 0006_issue15 now" in done.stdout
    assert revision_of(db) == "0006_issue15"
    told = signoff_in(tmp_path, "db", "revision")
    assert told.stdout.startswith("signoff's tables are at 0006_issue15; this signoff makes")
    assert revision_of(db) == "0006_issue15"

    listed = signoff_in(tmp_path, "users", "list")  # the app used again: upgraded as it opens
    assert "ada@shop.example" in listed.stdout
    assert revision_of(db) == head_revision()


def test_a_revision_that_is_not_one_is_told_with_those_there_are(tmp_path: Path) -> None:
    """A downgrade to a revision no script has changes nothing and lists the revisions, exit 2."""
    db = tmp_path / "shop.db"
    (tmp_path / "shop.py").write_text(SHOP_APP.format(db=db))
    assert signoff_in(tmp_path, "users", "add", "ada@shop.example", "Ada").returncode == 0
    told = signoff_in(tmp_path, "db", "downgrade", "0006", "--yes")
    assert told.returncode == 2, told.stderr
    assert "There is no revision '0006' of signoff's tables to go back to" in told.stderr
    assert "0006_issue15" in told.stderr
    assert revision_of(db) == head_revision()


@pytest.mark.parametrize("revision", ["0010_identity", "0013_token_purposes", "0006_issue15"])
def test_what_is_no_going_back_is_told_before_anything_is_asked(
        tmp_path: Path, revision: str) -> None:
    """Tables at 0006 taken "back" to a later revision, and a database whose tables are not
    made yet, are each told in a sentence (exit 2), before any question, and nothing changes
    (alembic's error was "a reason it did not foresee")."""
    db = tmp_path / "shop.db"
    (tmp_path / "shop.py").write_text(SHOP_APP.format(db=db))
    if revision != "0006_issue15":
        assert signoff_in(tmp_path, "users", "add", "ada@shop.example", "Ada").returncode == 0
        assert signoff_in(tmp_path, "db", "downgrade", "0006_issue15", "--yes").returncode == 0
    told = signoff_in(tmp_path, "db", "downgrade", revision, given="")
    assert told.returncode == 2, told.stderr
    assert "[y/N]" not in told.stderr
    assert ("only goes back" in told.stderr if revision != "0006_issue15" else
            "not made in this database yet" in told.stderr), told.stderr
    assert revision_of(db) == (None if revision == "0006_issue15" else "0006_issue15")


def test_tables_a_newer_signoff_made_are_told_as_unknown(tmp_path: Path) -> None:
    """At a revision no script of this signoff has, `db revision` says this signoff refuses the
    database (it said this one would upgrade it), and names the revision to take them back to
    with the newer one installed: this one's newest (it said "REVISION")."""
    db = tmp_path / "shop.db"
    (tmp_path / "shop.py").write_text(SHOP_APP.format(db=db))
    assert signoff_in(tmp_path, "users", "add", "ada@shop.example", "Ada").returncode == 0
    engine = create_engine(f"sqlite:///{db}")
    try:
        with engine.begin() as connection:
            connection.exec_driver_sql("UPDATE signoff_alembic_version SET version_num = '0099_x'")
    finally:
        engine.dispose()
    told = signoff_in(tmp_path, "db", "revision")
    assert told.returncode == 0, told.stderr
    assert "0099_x, which this signoff does not know" in told.stdout
    assert f"db downgrade {head_revision()} --app" in told.stdout  # (the revision to name)
    refused = signoff_in(tmp_path, "db", "downgrade", "0006_issue15", "--yes")
    assert refused.returncode == 2
    assert "take them back with that version installed" in refused.stderr
