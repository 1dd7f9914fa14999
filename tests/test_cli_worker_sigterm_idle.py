"""A worker told to stop with SIGTERM (a service manager's stop, ``docker stop``) while it waits
between looks stops then, saying so, exit 0: it does not sleep out the rest of `--every` first
(a service manager kills what has not stopped within its time, 90 s for systemd, 10 s for
docker). A real worker process on a real SQLite file."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

_APP = '''
from signoff import App

app = App("shop", database="sqlite:///{db}")
'''


def test_sigterm_between_looks_stops_the_worker_then(tmp_path: Path) -> None:
    (tmp_path / "shop.py").write_text(_APP.format(db=tmp_path / "shop.db"))
    env = {k: v for k, v in os.environ.items() if k != "SIGNOFF_APP"}
    worker = subprocess.Popen(
        [sys.executable, "-m", "signoff.cli", "worker", "--every", "3600", "--app",
         str(tmp_path / "shop.py")], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=env)
    try:
        assert worker.stdout is not None
        started = worker.stdout.readline()
        assert "looks every" in started, started + worker.stderr.read() if worker.stderr else ""
        time.sleep(3)  # (its first look over: it waits for the next)
        worker.send_signal(signal.SIGTERM)
        out, err = worker.communicate(timeout=60)  # (an hour's look would not end by then)
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
    assert worker.returncode == 0, err
    assert "Stopped." in out
