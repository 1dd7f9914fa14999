"""Ctrl-C while the ``signoff`` command is still importing signoff (about a second) ends it as
Ctrl-C does anywhere in it — "Stopped.", exit 130 — not with Python's traceback of the import it
cut off. The command's own entry point (`signoff_launch`), in a real subprocess; the SIGINT is
sent by the process to itself as the import of the command line begins, which makes the moment
certain."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

INTERRUPTED_AS_IT_IMPORTS = """
import builtins, os, signal, sys
real = builtins.__import__
def imported(name, *args, **options):
    if name == "signoff.cli":
        os.kill(os.getpid(), signal.SIGINT)
    return real(name, *args, **options)
builtins.__import__ = imported
sys.argv = ["signoff", "--help"]
import signoff_launch
signoff_launch.main()
"""


def test_ctrl_c_while_signoff_is_imported_says_stopped() -> None:
    done = subprocess.run([sys.executable, "-c", INTERRUPTED_AS_IT_IMPORTS], cwd=ROOT,
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert (done.returncode, done.stderr, done.stdout) == (130, "Stopped.\n", "")


def test_the_command_runs_as_ever_through_its_entry_point() -> None:
    done = subprocess.run([sys.executable, "-c", "import sys; sys.argv = ['signoff', '--help'];"
                           " import signoff_launch; signoff_launch.main()"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Usage: signoff [OPTIONS] COMMAND [ARGS]...")
