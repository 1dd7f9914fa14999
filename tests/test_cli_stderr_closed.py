"""A usage error or a failure, when the command's stderr is closed (``signoff run --bogus 2>&-``)
or its reader is gone: click's report of it was written to stdout, into what a script reads
there, when stderr was closed. Nothing of it reaches stdout now, and the exit code stands.
Real processes, with a shell closing stderr, and real pipes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.workshop_web import open_workshop

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "examples" / "workshop.py")


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> object:
    """The workshop in a SQLite file (its address in ``WORKSHOP_DATABASE``, for the command)."""
    monkeypatch.setenv("SIGNOFF_PROFILE", str(tmp_path / "profile.json"))
    return open_workshop(tmp_path, monkeypatch)


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def _stderr_lost(command: list[str], lost: str) -> subprocess.CompletedProcess[str]:
    """`command` run with its stdout read, and its stderr closed (by a shell: ``2>&-``) or
    with its reader gone (a pipe whose reading end is closed, as ``2> >(true)`` leaves one)."""
    if lost == "closed":
        return subprocess.run(["sh", "-c", 'exec "$@" 2>&-', "sh", *command],
                              stdout=subprocess.PIPE, text=True, env=_env(), cwd=ROOT,
                              timeout=120)
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run(command, stdout=subprocess.PIPE, stderr=write, text=True,
                              env=_env(), cwd=ROOT, timeout=120)
    finally:
        os.close(write)


@pytest.mark.parametrize("lost", ["closed", "reader gone"])
@pytest.mark.parametrize(("args", "code"), [
    (["run", "--bogus"], 2),
    (["bogus"], 2),
    (["users", "token", "--bogus"], 2),
    (["help", "nothing"], 2),
    (["run", "nobody", "estimate_repair", "--app", APP], 2),
    (["users", "token", "nobody@workshop.example", "--app", APP], 3),
])
def test_an_error_with_stderr_lost_writes_nothing_on_stdout(
        shop: object, args: list[str], code: int, lost: str) -> None:
    """A usage error (2) or a failure (3), stderr closed or its reader gone: stdout is empty
    (it held click's "Usage: … Error: …" when stderr was closed), and the code stands."""
    done = _stderr_lost([sys.executable, "-m", "signoff", *args], lost)
    assert (done.returncode, done.stdout) == (code, "")


def test_the_installed_command_with_stderr_closed_writes_nothing_on_stdout() -> None:
    """``signoff run --bogus 2>&-``, as the installed command: exit 2, and nothing on stdout."""
    command = Path(sys.executable).parent / "signoff"
    assert command.is_file(), command
    done = _stderr_lost([str(command), "run", "--bogus"], "closed")
    assert (done.returncode, done.stdout) == (2, "")
