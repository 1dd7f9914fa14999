"""A process that talked to Temporal (`signoff worker --once`, a script that started a task)
exits as it ends: the Temporal client's core does not abort the interpreter's shutdown."""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tests.temporal_server import DevServer

ROOT = Path(__file__).resolve().parent.parent
RUNS = 24
"""How many processes: the abort came a run in twenty to sixty, so this catches it more often
than not (a sweep of sixty took minutes; the suite keeps to its time)."""

SWEEP = """
import sys
from signoff import App, Temporal
app = App("leaving", database=sys.argv[1], runner=Temporal(address=sys.argv[2]))
print(app.temporal_worker().sweep())
"""


def test_a_process_that_swept_on_temporal_exits_cleanly_every_time(
    tmp_path: Path, temporal_server: DevServer,
) -> None:
    """Two dozen processes sweep once, as `signoff worker --once` does, and end: each exits 0. The
    bridge's event loop was left running on its thread as the interpreter shut down, and the
    client's core, waking it, aborted the process now and then ("Fatal Python error:
    PyGILState_Release", exit 134)."""
    database = f"sqlite:///{tmp_path / 'leaving.db'}"
    subprocess.run([sys.executable, "-c", SWEEP, database, temporal_server.address],
                   cwd=ROOT, check=True, capture_output=True)  # its tables made, once

    def sweep(_: int) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-c", SWEEP, database, temporal_server.address],
                              cwd=ROOT, capture_output=True, text=True, timeout=120,
                              check=False)

    with ThreadPoolExecutor(max_workers=3) as pool:
        done = list(pool.map(sweep, range(RUNS)))
    failed = [(d.returncode, d.stderr[-600:]) for d in done if d.returncode != 0]
    assert not failed, f"{len(failed)} of {RUNS} exited otherwise: {failed[0]}"
    assert all(d.stdout.strip() == "0" for d in done)
