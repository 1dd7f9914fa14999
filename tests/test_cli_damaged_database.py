"""A SQLite file whose pages are damaged ("database disk image is malformed") is told as a file
that is not a database is: it is not a SQLite database (or damaged), and what to give instead;
it was told to check that it "may be read and written by you", which it may."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from signoff import App
from signoff.cli import main
from signoff.cli.failures import EXIT_FAILED


def test_a_damaged_database_file_is_told_as_one(tmp_path: Path) -> None:
    path = tmp_path / "shop.db"
    made = App("shop", database=f"sqlite:///{path}")
    made.database.ensure_schema()
    made.database.dispose()
    whole = path.read_bytes()
    page = int.from_bytes(whole[16:18], "big")  # (the header keeps the page size)
    path.write_bytes(whole[:page] + b"\xa5" * (len(whole) - page))  # all but the first page
    app_file = tmp_path / "damaged_shop.py"
    app_file.write_text(f"from signoff import App\napp = App('shop', database='sqlite:///{path}')\n")
    result = CliRunner().invoke(main, ["users", "list", "--app", str(app_file)])
    assert result.exit_code == EXIT_FAILED, result.output
    told = " ".join(result.output.split())
    assert "database disk image is malformed" in told, told
    assert f"{path} is not a SQLite database (or it is encrypted, or damaged)" in told, told
    assert "may be read and written by you" not in told
    assert "Traceback" not in told
