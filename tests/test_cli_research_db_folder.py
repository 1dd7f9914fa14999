"""A folder where research's database should be (``research.db`` in the data directory) is
told by `signoff tasks`, `receipt` and `stop` as `signoff research` tells it: a folder, not a
database file, exit 5 (`signoff tasks` said there were no research tasks, "`signoff research`
makes it", exit 0; `receipt` that there was no research database, exit 2)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

TASK = "0c4d9d1e-5b7a-4c1e-9d2f-3a6b8c0e1f24"


@pytest.mark.parametrize("command", [["tasks"], ["tasks", "--json"], ["receipt", TASK],
                                     ["stop", TASK]])
def test_a_folder_for_the_research_database_is_told_as_one(tmp_path: Path,
                                                           command: list[str]) -> None:
    data = tmp_path / "data"
    (data / "research.db").mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if k != "SIGNOFF_APP"}
    done = subprocess.run([sys.executable, "-m", "signoff.cli", *command], capture_output=True,
                          text=True, cwd=tmp_path, timeout=120, check=False,
                          env={**env, "SIGNOFF_DATA_DIR": str(data)})
    assert done.returncode == 5, done.stdout + done.stderr
    assert done.stdout == ""
    assert (f"{data / 'research.db'} is a folder, not a database file"
            in " ".join(done.stderr.split())), done.stderr
    assert list((data / "research.db").iterdir()) == []
