"""A task Halted at its limit of model calls is told, on the command line, to be given a larger
``--max-steps``: `signoff research` and `signoff run` said only "Halted: it reached its limit of
2 steps." and exited 1, without the option that lifts it. Halted at its budget, it is told to
be given a larger ``--budget`` (the library's sentence names ``budget_usd``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.ports import free_port
from tests.provider_servers import Canned, openai_completion, serving
from tests.workshop_web import open_workshop

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "examples" / "workshop.py")
TOLD = "Give it a larger --max-steps"


def test_research_halted_at_its_step_limit_names_max_steps(tmp_path: Path) -> None:
    """The offline reader needs 3 steps (search, read, answer); given 1 it is Halted, and the
    line saying there is no answer names --max-steps."""
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "with.md").write_text("# The with statement\n\nThe with statement wraps a block "
                                   "in the methods of a context manager.\n")
    env = {k: v for k, v in os.environ.items() if k != "SIGNOFF_APP"}
    done = subprocess.run(
        [sys.executable, "-m", "signoff.cli", "research", "--corpus", str(notes),
         "What does the with statement do?", "--max-steps", "1"],
        capture_output=True, text=True, cwd=tmp_path, timeout=300, check=False,
        env={**env, "SIGNOFF_DATA_DIR": str(tmp_path / "data"),
             "SIGNOFF_CACHE_DIR": str(tmp_path / "cache")})
    assert done.returncode == 1, done.stdout + done.stderr
    (line,) = [x for x in done.stdout.splitlines() if x.startswith("No answer")]
    assert line == f"No answer: Halted: it reached its limit of 1 step. {TOLD} to let it make " \
                   "more model calls.", done.stdout


def test_run_halted_at_its_step_limit_names_max_steps(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """`signoff run --max-steps 1` whose model asks a tool first is Halted before its second
    call; stderr names --max-steps."""
    monkeypatch.setenv("SIGNOFF_PROFILE", str(tmp_path / "profile.json"))
    open_workshop(tmp_path, monkeypatch)
    with serving(free_port()) as server:
        server.answer(Canned(body=openai_completion(None, [("c1", "parts_for", json.dumps(
            {"fault": "rear brake does not bite"}))])))
        ran = subprocess.run(
            [sys.executable, "-m", "signoff.cli", "run", "estimator", "price_fleet_repair",
             "--for", "mia@workshop.example", "--subject", "ticket=T-7", "--app", APP,
             "--model", f"openai-compatible:m@{server.url}/v1", "--price", "0,0",
             "--max-steps", "1"],
            capture_output=True, text=True, timeout=120, check=False, env={**os.environ})
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert "halted, after 1 model call" in ran.stdout
    assert f"Halted: it reached its limit of 1 step. {TOLD}" in ran.stderr, ran.stderr


def test_research_halted_at_its_budget_names_budget(tmp_path: Path) -> None:
    """A first call dearer than the budget is Halted before it is asked (no server is
    reached): the line saying there is no answer names --budget, not budget_usd."""
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "with.md").write_text("# The with statement\n")
    env = {k: v for k, v in os.environ.items() if k != "SIGNOFF_APP"}
    done = subprocess.run(
        [sys.executable, "-m", "signoff.cli", "research", "--corpus", str(notes),
         "What does the with statement do?", "--budget", "0.0001", "--price", "1000,1000",
         "--model", f"openai-compatible:m@http://127.0.0.1:{free_port()}/v1"],
        capture_output=True, text=True, cwd=tmp_path, timeout=300, check=False,
        env={**env, "SIGNOFF_DATA_DIR": str(tmp_path / "data"),
             "SIGNOFF_CACHE_DIR": str(tmp_path / "cache")})
    (line,) = [x for x in done.stdout.splitlines() if x.startswith("No answer")]
    assert line.startswith("No answer: Halted: the next model call could cost up to $"), line
    assert line.endswith("left of its budget. Give it a larger --budget."), line
