"""An ``--app`` path whose bytes are not UTF-8 (Python reads each such byte as a lone surrogate):
a failure names the byte as its escape (``\\xff``), not the surrogate's (``\\udcff``, which names
no byte given), and a hint that quotes ``--app`` quotes it so that a shell reads the same bytes
back. Run as a real process, with the bytes as its argument."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _signoff(*args: str | bytes, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SIGNOFF_PROFILE": str(cwd / "profile.json"),
           "WORKSHOP_DATABASE": f"sqlite:///{cwd / 'workshop.db'}"}
    env.pop("SIGNOFF_APP", None)
    return subprocess.run([sys.executable, "-m", "signoff.cli", *args], cwd=cwd, env=env,
                          capture_output=True, timeout=120, check=False)


def test_a_path_not_there_names_its_byte_as_given(tmp_path: Path) -> None:
    """`--app` naming a file that is not there, its name holding the byte 0xff: the sentence
    names the byte as ``\\xff``, exit 2."""
    path = os.fsencode(tmp_path) + b"/shop\xff.py"
    done = _signoff("users", "list", "--app", path, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    told = done.stderr.decode("utf-8", "replace")
    assert told.strip() == f"Error: There is no file {tmp_path}/shop\\xff.py.", told
    assert "\\udc" not in told


def test_a_hint_quotes_such_a_path_as_a_shell_reads_it_back(tmp_path: Path) -> None:
    """The workshop kept in a file whose name holds the byte 0xff, with nobody in it yet: the
    hint to add people quotes --app in the shell's $'…' form, which bash reads back as the
    very bytes of the path (it was printed as ``'…\\udcff.py'``)."""
    path = os.fsencode(tmp_path) + b"/shop\xff.py"
    shutil.copy(ROOT / "examples" / "workshop.py", path)
    done = _signoff("users", "list", "--app", path, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    said = done.stdout.decode("ascii")  # (nothing but ASCII in it: the byte is escaped)
    quoted = re.search(r"--app (\$'[^']*')", said)
    assert quoted is not None, said
    assert quoted.group(1) == f"$'{tmp_path}/shop\\xff.py'"
    read_back = subprocess.run(["bash", "-c", f"printf %s {quoted.group(1)}"],
                               capture_output=True, check=True, timeout=30)
    assert read_back.stdout == path
