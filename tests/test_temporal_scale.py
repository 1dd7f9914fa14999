"""Three Temporal workers finish tasks with proposals and parallel calls while one is SIGKILLed
and the server restarts (``bench/temporal_scale.py``, run here with 60 tasks; the full 300 from
the command line): every record-only call ran exactly once, no outside call twice, no proposal
was lost, and each task's receipt is that of the same job run uninterrupted."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TASKS = 60


def test_three_workers_a_kill_and_a_server_restart_change_nothing(
    postgres_server: str, tmp_path: Path,
) -> None:
    """Sixty tasks, a worker SIGKILLed at a quarter, the server restarted past half: every
    figure is 0."""
    out = tmp_path / "figures.json"
    done = subprocess.run(
        [sys.executable, "bench/temporal_scale.py", "--tasks", str(TASKS), "--server",
         postgres_server, "--json", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    figures = json.loads(out.read_text())
    assert (figures["tasks"], figures["kills"], figures["server_restarts"]) == (TASKS, 1, 1)
    assert [figures[k] for k in ("record_only_not_once", "outside_twice", "proposals_lost",
                                 "receipts_differ", "not_ended")] == [0, 0, 0, 0, 0]
