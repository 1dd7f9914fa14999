"""`signoff research --database` naming a file in a folder that is not there is refused, as an
app's database is (it made the folders wherever a mistyped path pointed, `/nonexistent/` too);
its own data folder is made on first use, as before."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent


def _research(tmp_path: Path, *args: str, data: Path) -> subprocess.CompletedProcess[str]:
    """`signoff research` over a small folder of notes, its data kept in `data`."""
    notes = tmp_path / "notes"
    notes.mkdir(exist_ok=True)
    (notes / "with.md").write_text("# The with statement\n\nThe with statement wraps a block "
                                   "in the methods of a context manager.\n")
    return subprocess.run([sys.executable, "-m", "signoff.cli", "research", "--corpus",
                           str(notes), *args],
                          capture_output=True, text=True, cwd=ROOT, timeout=300,
                          env={**os.environ, "SIGNOFF_DATA_DIR": str(data)})


def test_a_database_in_a_folder_not_there_is_refused_and_no_folder_made(tmp_path: Path) -> None:
    missing = tmp_path / "not" / "there"
    done = _research(tmp_path, "--database", f"sqlite:///{missing / 'r.db'}", "What does the with "
                     "statement do?", data=tmp_path / "data")
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"The folder {missing} does not exist: make it" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "not").exists()


def test_its_own_data_folder_is_made_on_first_use(tmp_path: Path) -> None:
    data = tmp_path / "first" / "use"
    done = _research(tmp_path, "--json", "What does the with statement do?", data=data)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (data / "research.db").is_file()
