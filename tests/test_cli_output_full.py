"""A command whose output cannot be written, its disk full (``> /dev/full``), says so in a
sentence and exits 5; it said signoff had failed "for a reason it did not foresee", to be
reported."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
APP = f"{ROOT / 'examples' / 'workshop.py'}:app"


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full on this system")
def test_output_to_a_full_disk_is_told_in_a_sentence(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`signoff actions > /dev/full`: one sentence naming the full disk, exit 5."""
    monkeypatch.setenv("WORKSHOP_DATABASE", f"sqlite:///{tmp_path / 'workshop.db'}")
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "signoff.cli", "actions", "--app", APP],
                              stdout=full, stderr=subprocess.PIPE, text=True, timeout=120,
                              check=False)
    assert done.returncode == 5, done.stderr
    assert done.stderr == ("Error: signoff could not write: No space left on device (the "
                           "output's, or a file's, disk is full): free some space there, and "
                           "run it again.\n"), done.stderr
