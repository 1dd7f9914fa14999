"""`signoff db downgrade` refuses, in a sentence and with nothing changed, what is no going back
to an older release: a revision newer than the one the tables are at (no "failed for a reason it
did not foresee"), and 'base', which no release of signoff runs on and which takes away every
person, task and receipt signoff keeps (the question asked says only that "what only newer
releases record is not kept"). On a real SQLite file, each command in a process of its own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from sqlalchemy import create_engine

from signoff.store.migrate import current_revision

_APP = '''
from signoff import App

app = App("shop", database="sqlite:///{db}")
'''


def _signoff(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "SIGNOFF_APP"}
    return subprocess.run([sys.executable, "-m", "signoff.cli", *args, "--app",
                           str(tmp / "shop.py")], capture_output=True, text=True, timeout=120,
                          check=False, env=env)


def _revision_of(db: Path) -> str | None:
    engine = create_engine(f"sqlite:///{db}")
    try:
        with engine.connect() as connection:
            return current_revision(connection)
    finally:
        engine.dispose()


def _made(tmp: Path) -> Path:
    db = tmp / "shop.db"
    (tmp / "shop.py").write_text(_APP.format(db=db))
    assert _signoff(tmp, "users", "add", "ada@shop.example", "Ada").returncode == 0
    return db


def test_a_revision_newer_than_the_tables_is_told_in_a_sentence(tmp_path: Path) -> None:
    db = _made(tmp_path)
    assert _signoff(tmp_path, "db", "downgrade", "0006_issue15", "--yes").returncode == 0
    told = _signoff(tmp_path, "db", "downgrade", "0010_identity", "--yes")
    assert told.returncode == 2, told.stderr
    assert "did not foresee" not in told.stderr
    assert "0006_issue15" in told.stderr  # (where they are)
    assert _revision_of(db) == "0006_issue15"


def test_base_is_no_release_to_go_back_to_and_nobody_is_lost(tmp_path: Path) -> None:
    db = _made(tmp_path)
    told = _signoff(tmp_path, "db", "downgrade", "base", "--yes")
    assert told.returncode == 2, told.stdout
    assert _revision_of(db) is not None
    assert "ada@shop.example" in _signoff(tmp_path, "users", "list").stdout
