"""`signoff db upgrade`: signoff's tables brought to the newest revision on a real SQLite file,
each command in a process of its own as an operator runs it — from nothing, after a downgrade,
and run again (nothing to do). Before it, `signoff db upgrade` was "No such command 'upgrade'.
Did you mean 'downgrade'?"."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import psycopg
from sqlalchemy.engine import make_url

from signoff.store.migrate import _MIGRATING, head_revision
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


def test_two_db_upgrades_at_once_on_postgresql_say_which_one_upgraded(
        tmp_path: Path, postgres_database: str) -> None:
    """Two `db upgrade` started together on tables at 0001 (on PostgreSQL, whose advisory lock
    keeps them apart): one brings them forward and says from where, the other says there was
    nothing to do (both said they had brought them from 0001: each read where they were before
    it waited for the other). The lock is held by the test until both wait on it."""
    app = f"from signoff import App\napp = App('shop', database={postgres_database!r})\n"
    (tmp_path / "shop.py").write_text(app)
    assert signoff_in(tmp_path, "db", "upgrade").returncode == 0
    assert signoff_in(tmp_path, "db", "downgrade", "0001", "--yes").returncode == 0
    libpq = make_url(postgres_database).set(drivername="postgresql").render_as_string(
        hide_password=False)
    env = {k: v for k, v in os.environ.items() if k != "SIGNOFF_APP"}
    with psycopg.connect(libpq, autocommit=True) as holder:
        holder.execute("SELECT pg_advisory_lock(%s)", (_MIGRATING,))
        runs = [subprocess.Popen([sys.executable, "-m", "signoff.cli", "db", "upgrade", "--app",
                                  str(tmp_path / "shop.py")], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, env=env) for _ in range(2)]
        try:
            waiting = 0
            for _ in range(1200):  # (each waits on the lock once it has loaded the app)
                row = holder.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'advisory' "
                    "AND datname = current_database()").fetchone()
                waiting = row[0] if row is not None else 0
                if waiting == 2 or any(run.poll() is not None for run in runs):
                    break
                time.sleep(0.1)
            assert waiting == 2, [run.communicate() for run in runs]
        finally:
            holder.execute("SELECT pg_advisory_unlock(%s)", (_MIGRATING,))
        told = [run.communicate(timeout=120) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], told
    said = sorted(out for out, _err in told)
    assert said == sorted([
        f"signoff's tables were at 0001, and are at {head_revision()} now, the newest this "
        "signoff makes.\n",
        f"signoff's tables are at {head_revision()}, the newest this signoff makes: nothing "
        "to do.\n"]), told
