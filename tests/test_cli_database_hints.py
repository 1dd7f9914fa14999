"""A database a command cannot use is told with what is wrong with it: a folder where the
SQLite file should be, a database opened read-only (its URL in SQLite's URI form) that a command
writes to, a file that is not SQLite's, a file another process keeps locked; a PostgreSQL
database the server does not have. Never a folder said not to exist that does."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy.engine import make_url

from signoff import App
from signoff.cli import main
from signoff.store import database as store_database

EXIT_FAILED = 5


def _app_file(tmp_path: Path, name: str, url: str) -> Path:
    app_file = tmp_path / f"{name}.py"
    app_file.write_text(f"from signoff import App\napp = App('shop', database={url!r})\n")
    return app_file


def test_a_database_that_is_a_folder_is_told_so(tmp_path: Path) -> None:
    """The app's database URL names a folder: the sentence says it is a folder, not a file."""
    (tmp_path / "shop.db").mkdir()
    app_file = _app_file(tmp_path, "folder_shop", f"sqlite:///{tmp_path / 'shop.db'}")
    result = CliRunner().invoke(main, ["users", "list", "--app", str(app_file)])
    assert result.exit_code == EXIT_FAILED, result.output
    assert f"{tmp_path / 'shop.db'} is a folder, not a database file" in result.output
    assert "Traceback" not in result.output


def test_a_read_only_database_written_to_is_told_so(tmp_path: Path) -> None:
    """A database opened read-only (``?mode=ro&uri=true``) that `users add` writes to: it is
    read-only, says the sentence; not that its folder, which is there, does not exist."""
    made = App("shop", database=f"sqlite:///{tmp_path / 'shop.db'}")
    made.database.ensure_schema()
    made.database.dispose()
    url = f"sqlite:///file:{tmp_path / 'shop.db'}?mode=ro&uri=true"
    app_file = _app_file(tmp_path, "read_only_shop", url)
    listed = CliRunner().invoke(main, ["users", "list", "--app", str(app_file)])
    assert listed.exit_code == 0, listed.output          # (it reads)
    result = CliRunner().invoke(main, ["users", "add", "ada@shop.example", "Ada",
                                       "--app", str(app_file)])
    assert result.exit_code == EXIT_FAILED, result.output
    assert "does not exist" not in result.output, result.output
    assert "it is read-only here" in result.output, result.output
    assert "Traceback" not in result.output


def test_a_file_that_is_not_a_database_is_told_so(tmp_path: Path) -> None:
    """The app's database URL names a file that is not SQLite's: the sentence says so, not to
    check that it "may be read and written by you", and the file is left as it was."""
    path = tmp_path / "notes.db"
    path.write_text("These are notes, not a database.\n" * 100)
    app_file = _app_file(tmp_path, "notes_shop", f"sqlite:///{path}")
    result = CliRunner().invoke(main, ["db", "upgrade", "--app", str(app_file)])
    assert result.exit_code == EXIT_FAILED, result.output
    assert f"{path} is not a SQLite database" in result.output, result.output
    assert "may be read and written by you" not in result.output
    assert path.read_text() == "These are notes, not a database.\n" * 100


def test_a_database_another_process_keeps_locked_is_told_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another connection holds the file's write lock past signoff's wait (a backup, a shell
    left in a transaction): the sentence says that another process holds it and to run again
    once it is done, not to check who may read and write the file."""
    monkeypatch.setattr(store_database, "_WAIT_SECONDS", 0.2)  # (30 s in use)
    path = tmp_path / "shop.db"
    app_file = _app_file(tmp_path, "locked_shop", f"sqlite:///{path}")
    assert CliRunner().invoke(main, ["db", "upgrade", "--app", str(app_file)]).exit_code == 0
    holder = sqlite3.connect(path, isolation_level=None)
    try:
        holder.execute("BEGIN EXCLUSIVE")
        result = CliRunner().invoke(main, ["users", "add", "ada@shop.example", "Ada",
                                           "--app", str(app_file)])
    finally:
        holder.rollback()
        holder.close()
    assert result.exit_code == EXIT_FAILED, result.output
    assert "database is locked" in result.output, result.output
    assert "Another process held its write lock" in result.output, result.output
    assert "may be read and written by you" not in result.output
    assert "Traceback" not in result.output


def test_a_postgresql_database_that_is_not_there_is_told_to_be_made(
        tmp_path: Path, postgres_url: str) -> None:
    """A server that has no database of the name in the URL: the sentence names it and how to
    make it (it said to check that the database "is running and reachable", which it is)."""
    url = make_url(postgres_url).set(database="not_made_yet")
    app_file = _app_file(tmp_path, "pg_shop", url.render_as_string(hide_password=False))
    result = CliRunner().invoke(main, ["db", "revision", "--app", str(app_file)])
    assert result.exit_code == EXIT_FAILED, result.output
    assert "The server has no database not_made_yet: make it" in result.output, result.output
    assert "running and reachable" not in result.output
