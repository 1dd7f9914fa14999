"""A Ctrl-C once `signoff research` has printed its answer does not make a finished research a
failure: it exits as the research ended (0 for an answer), not 130. Pressed at once, it lands
while the outcome's last line is written, and says where the task stands and how to show it
again; pressed a moment later, it lands while Python tears the process down (a few tenths of
a second, where the system's default for SIGINT ended the process: 130), and is ignored."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
QUESTION = "How often should a kettle be descaled?"
QUOTE = "A kettle should be descaled every month."


@pytest.mark.parametrize("after", [0.0, 0.1], ids=["at-once", "a-moment-later"])
def test_ctrl_c_after_the_answer_is_printed_exits_as_the_research_ended(
        tmp_path: Path, after: float) -> None:
    """The answer is printed whole, the exit is 0, and what stderr says, if anything, is that
    the research had ended, with the command that shows it again (it said "Stopped." and exited
    130, or was ended by the signal)."""
    folder = tmp_path / "kettles"
    folder.mkdir()
    (folder / "kettle.md").write_text(f"# Kettles\n\n{QUOTE}\n")
    env = {**os.environ, "SIGNOFF_CACHE_DIR": str(tmp_path / "cache"),
           "SIGNOFF_DATA_DIR": str(tmp_path / "data"), "SIGNOFF_PYTHON_DOCS": "none"}
    env.pop("SIGNOFF_APP", None)
    research = subprocess.Popen(
        [sys.executable, "-m", "signoff", "research", QUESTION, "--corpus", str(folder)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        printed = []
        for line in research.stdout or ():
            printed.append(line)
            if line.startswith("Nothing waits for approval."):  # (its outcome's last line)
                break
        time.sleep(after)
        research.send_signal(signal.SIGINT)
        rest, err = research.communicate(timeout=120)
    finally:
        research.kill()
    out = "".join(printed) + rest
    assert f"{QUOTE} [1]" in out, (out, err)
    assert research.returncode == 0, (research.returncode, err)
    said = " ".join(err.split())
    assert said == "" or (said.startswith("Stopped while its outcome was shown. The research had "
                                          "ended: its task ") and " is Done; show it again with "
                          "signoff research --go-on " in said), said


WAY_OUT = """
import os, signal, sys
from signoff.store import points

def ctrl_c(point, where):
    if point == "research.written" and os.environ.get("LAND_IN") == "last-line":
        os.kill(os.getpid(), signal.SIGINT)  # (the last line written, the block ending)
    if point == "research.shown":  # (the outcome shown: Ctrl-C lands on the command's way out)
        if os.environ.get("LAND_IN") == "shutdown":  # (or as Python shuts its threads down)
            import threading
            threading._register_atexit(lambda: os.kill(os.getpid(), signal.SIGINT))
        else:
            os.kill(os.getpid(), signal.SIGINT)

sys.argv = ["signoff", *sys.argv[1:]]
with points.pausing(ctrl_c):
    from signoff_launch import main
    main()
"""


@pytest.mark.parametrize("land_in", ["last-line", "way-out", "shutdown"])
def test_ctrl_c_on_the_commands_way_out_is_ignored(tmp_path: Path, land_in: str) -> None:
    """A Ctrl-C that lands once the outcome is shown, on the command's way out (its exit code
    worked out, its context closing; or as the block that showed it ends, the suite's run
    under load caught it there) or as Python shuts its threads down, is ignored: exit 0,
    nothing said (it was "Stopped.", exit 130, or a KeyboardInterrupt's traceback "Exception
    ignored in: <module 'threading'>", when the machine was slow enough for a Ctrl-C a moment
    after the last line to land there: the suite's runs caught both)."""
    folder = tmp_path / "kettles"
    folder.mkdir()
    (folder / "kettle.md").write_text(f"# Kettles\n\n{QUOTE}\n")
    env = {**os.environ, "SIGNOFF_CACHE_DIR": str(tmp_path / "cache"),
           "SIGNOFF_DATA_DIR": str(tmp_path / "data"), "SIGNOFF_PYTHON_DOCS": "none"}
    env.pop("SIGNOFF_APP", None)
    env["LAND_IN"] = land_in
    done = subprocess.run([sys.executable, "-c", WAY_OUT, "research", QUESTION, "--corpus",
                           str(folder)], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    assert f"{QUOTE} [1]" in done.stdout, (done.stdout, done.stderr)
    assert done.returncode == 0, (done.returncode, done.stderr)
    assert done.stderr.strip() == "", done.stderr
