"""The runnable examples run, and say what the README says they say."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _run(example: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_DATABASE")}
    return subprocess.run(
        [sys.executable, str(ROOT / "examples" / example)],
        capture_output=True, text=True, env=env, timeout=120, check=False, cwd=cwd,
    )


@pytest.mark.parametrize("times", [1, 2])
def test_workshop_runs(times: int, tmp_path: Path) -> None:
    """The workshop: the note alone, the price proposed, Mia's yes that cannot, Noor's that can;
    its data in workshop.db where it runs, and the demo runs again on the same file."""
    for _ in range(times):
        done = _run("workshop.py", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert "The task is waiting, on a decision from Mia." in done.stdout
        assert "Mia says yes: Mia approved set_price, but it did not run: Mia may not change " \
            "the price of Repair T-7." in done.stdout
        assert "T-7 now costs 45.00." in done.stdout
    assert (tmp_path / "workshop.db").exists()


def test_bakery_runs() -> None:
    """The bakery shows its catalogue, a clerk's refused rush, the boss's rush, and no wipe."""
    done = _run("bakery.py")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "set_rush     Set the rush (How soon)" in out
    assert "Cleo: set_rush → Denied: Cleo may not change the rush of Order B-12." in out
    assert "Bo: set_rush → Done: B-12 is now same day." in out
    assert "check: On is a date, written 2026-09-04 — “next tuesday” is not." in out
    assert "wipe → Gone: There is no action named “wipe” that can be run by name. The actions " \
           "are: deliver_on, pack, price_order, set_rush, shelve, take_order." in out
    assert "pack → Done: {'order': 'B-12', 'lines': ['2 × rye loaf'], 'pieces': 2}" in out
    assert done.stderr == ""


def test_crane_runs() -> None:
    """The crane refuses 50 t in its own words; 13 t fails, and only the log has the driver's."""
    done = _run("crane.py")
    assert done.returncode == 0, done.stderr
    assert "50 t → Invalid: Tower 1 lifts at most 40 t; 50 t is too heavy. Split the load." in (
        done.stdout
    )
    assert "13 t → Failed: It failed for a reason the app did not foresee" in done.stdout
    assert "encoder E-13" not in done.stdout
    assert "encoder E-13" in done.stderr
    assert "8 t → Done: Tower 1 lifted 8 t." in done.stdout


@pytest.mark.parametrize("script", ["demo"])
def test_readme_demo_command_runs(script: str, tmp_path: Path) -> None:
    """The README's demo command runs both examples to the end (its research database in a
    data directory of its own, not one another checkout's migrations have stamped)."""
    done = subprocess.run(
        [str(ROOT / "scripts" / script)], capture_output=True, text=True, timeout=300,
        check=False, env={**os.environ, "XDG_DATA_HOME": str(tmp_path)},
    )
    assert done.returncode == 0, done.stderr
    assert "== The bakery: actions by name ==" in done.stdout
    assert "== The crane: a told refusal and an untold failure ==" in done.stdout
    assert "Noor says yes: Noor approved set_price; it ran as Noor and the agent together." in done.stdout
    assert "Citations" in done.stdout
