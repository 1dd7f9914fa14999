"""A SQLite database a command cannot use is told with what is wrong with it: a folder where
the file should be, a database opened read-only (its URL in SQLite's URI form) that a command
writes to; never a folder said not to exist that does."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from signoff import App
from signoff.cli import main

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
