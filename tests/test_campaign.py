"""A small campaign (``bench/campaign.py``): runs of one task with the agent's, a decider's and
a worker's processes on it at once and random SIGKILLs, on SQLite, PostgreSQL, and PostgreSQL
with the tasks run on Temporal (the worker's process a Temporal worker) — no call runs twice,
no update is lost, no task waits on nothing or is left unfinished, and no spend passes its
budget. The full campaign (300 runs a database) is run from the command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RUNS = {"sqlite": 12, "postgres": 12, "temporal": 8}
"""Runs per kind (a run on Temporal waits longer on a killed worker's workflow task)."""


@pytest.mark.parametrize("kind", ["sqlite", "postgres", "temporal"])
def test_a_small_campaign_finds_nothing_wrong(kind: str, tmp_path: Path,
                                              request: pytest.FixtureRequest) -> None:
    """A dozen runs (eight on Temporal) with kills and three processes on each task: every
    figure is 0."""
    server = request.getfixturevalue("postgres_server") if kind != "sqlite" else ""
    temporal = request.getfixturevalue("temporal_server").address if kind == "temporal" else ""
    out = tmp_path / "figures.json"
    done = subprocess.run(
        [sys.executable, "bench/campaign.py", "--runs", str(RUNS[kind]), "--databases", kind,
         "--seed", "7", "--json", str(out), *(["--server", server] if server else []),
         *(["--temporal", temporal] if temporal else [])],
        cwd=ROOT, capture_output=True, text=True, timeout=900, check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (figures,) = json.loads(out.read_text())
    assert figures["runs"] == RUNS[kind]
    assert figures["kills"] > 0
    assert [figures[k] for k in ("double_runs", "lost_updates", "waiting_on_nothing",
                                 "not_ended", "over_budget")] == [0, 0, 0, 0, 0]
    assert figures["problems"] == []
