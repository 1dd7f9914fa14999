"""With an app named by SIGNOFF_APP (as the README's walk exports it), `signoff receipt` and
`signoff stop` of a `signoff research` task's id say that research keeps a task of that id, and
the command that reads it there: they said only "There is no task with id … that Noor may see"."""

from __future__ import annotations

import json
import os
import runpy
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _signoff(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "signoff.cli", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=300, check=False, env=env)


def test_a_research_tasks_id_given_to_an_app_names_the_command_that_reads_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "with.md").write_text("# The with statement\n\nThe with statement wraps a block "
                                   "in the methods of a context manager.\n")
    monkeypatch.setenv("WORKSHOP_DATABASE", f"sqlite:///{tmp_path / 'workshop.db'}")
    runpy.run_path(str(ROOT / "examples" / "workshop.py"), run_name="workshop_research_id")[
        "setup"]()
    env = {k: v for k, v in os.environ.items()
           if k not in ("SIGNOFF_AS", "SIGNOFF_TOKEN", "SIGNOFF_APP")}
    env.update(SIGNOFF_DATA_DIR=str(tmp_path / "data"), SIGNOFF_CACHE_DIR=str(tmp_path / "cache"),
               SIGNOFF_PROFILE=str(tmp_path / "profile.json"))
    asked = _signoff(env, "research", "--corpus", str(notes), "--json",
                     "What does the with statement do?")
    assert asked.returncode == 0, asked.stderr
    task = json.loads(asked.stdout)["task"]
    url = f"sqlite:///{tmp_path / 'data' / 'research.db'}"
    env["SIGNOFF_APP"] = "examples/workshop.py"
    saved = _signoff(env, "users", "token", "noor@workshop.example", "--save")
    assert saved.returncode == 0, saved.stderr
    for command, doing in (("receipt", "see it"), ("stop", "stop it")):
        done = _signoff(env, command, task)
        assert done.returncode == 3, done.stdout + done.stderr
        told = " ".join(done.stderr.split())
        assert told.startswith(f"Error: There is no task with id {task} that Noor may "), told
        assert told.endswith(f" A task of `signoff research` has this id: {doing} with "
                             f"`signoff {command} {task} --database {shlex.quote(url)}`."), told
    shown = _signoff(env, "receipt", task, "--database", url)
    assert shown.returncode == 0, shown.stderr
    assert "Status: Done." in shown.stdout
    elsewhere = _signoff(env, "receipt", "0c4d9d1e-5b7a-4c1e-9d2f-3a6b8c0e1f24")
    assert elsewhere.returncode == 3
    assert "signoff research" not in elsewhere.stderr  # (no such task there either)
