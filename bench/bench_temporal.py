"""The Temporal runner against the in-process one, on the same machine in the same run.

Run as ``.venv/bin/python bench/bench_temporal.py [--round-trips 40] [--tasks 200]
[--waiting 10000] [--window 30]``. It starts a PostgreSQL server and a Temporal dev server of
its own on loopback (the app's data, ``tests/scale_app.py``, in PostgreSQL; Temporal's in a
file), worker processes as ``signoff worker --temporal`` would run them, and measures:

* **the approval round trip**: `app.approve` of a task's one proposal until the task has gone
  on and ended (the approved call, the next model turn, the result), median and 90th
  percentile — in-process, and on Temporal with steps as local activities (the default) and as
  ordinary ones. Target on Temporal: a median of at most 150 ms;
* **tasks per second**: tasks of one turn of two calls that run alone, started 16 at a time,
  until every one is done — one worker process, then three;
* **waiting costs no worker CPU**: the CPU time (user + system, from /proc) of one worker
  process over a window while no task exists, and over the same window while `--waiting`
  tasks wait on proposals.

Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from signoff import ProposalStatus, TaskStatus, Temporal  # noqa: E402
from tests import scale_app  # noqa: E402
from tests.postgres_server import _admin, _sqlalchemy_url, running_server  # noqa: E402
from tests.temporal_server import running_server as running_temporal  # noqa: E402

TARGET_MS = 150.0


class Bench:
    """The servers, and a fresh database and queue per measurement."""

    def __init__(self, postgres: str, temporal: str, work: Path) -> None:
        self.postgres, self.temporal, self.work = postgres, temporal, work
        self.workers: list[subprocess.Popen[bytes]] = []

    @contextmanager
    def shop(self, *, temporal: bool, workers: int = 0, local: bool = True
             ) -> Iterator[SimpleNamespace]:
        """The scale app on a fresh database: in-process, or on Temporal with `workers`
        worker processes on a queue of its own (stopped when the block ends)."""
        name = f"bench_{uuid.uuid4().hex[:8]}"
        _admin(self.postgres, "CREATE DATABASE {}", name)
        url = _sqlalchemy_url(self.postgres, name)
        outbox = self.work / name
        outbox.mkdir()
        queue = f"bench-{uuid.uuid4().hex[:8]}"
        runner = Temporal(address=self.temporal, task_queue=queue,
                          local_activities=local) if temporal else None
        shop = scale_app.build(url, outbox, runner=runner)
        self.workers = [scale_app.spawn_worker(url, self.temporal, queue, outbox,
                                               self.work / f"{name}-worker{i}.log")
                        for i in range(workers)]
        try:
            yield shop
        finally:
            for worker in self.workers:
                worker.terminate()
            for worker in self.workers:
                worker.wait(timeout=60)
            self.workers = []
            shop.app.database.dispose()
            _admin(self.postgres, "DROP DATABASE IF EXISTS {} WITH (FORCE)", name)


def _started_all(shop: SimpleNamespace, jobs: list[scale_app.Job], until: TaskStatus) -> float:
    """Start `jobs` 16 at a time and wait until each task is `until`; the seconds it took."""
    began = time.perf_counter()
    with ThreadPoolExecutor(max_workers=16) as pool:
        ids = list(pool.map(lambda job: scale_app.start(shop, job), jobs))
    while any(shop.app.outcome(task).status is not until for task in ids):
        time.sleep(0.1)
    return time.perf_counter() - began


def round_trips(shop: SimpleNamespace, count: int) -> list[float]:
    """Milliseconds of each approval of a one-proposal task, until the task is done."""
    timings = []
    for number in range(count + 3):  # the first three warm up
        task = scale_app.start(shop, scale_app.Job(number=number, plan="one_proposal"))
        while shop.app.outcome(task).status is not TaskStatus.WAITING:
            time.sleep(0.01)
        (proposal,) = shop.app.proposals(task=task, status=ProposalStatus.WAITING)
        began = time.perf_counter()
        decision = shop.app.approve(proposal, by=shop.noor)
        took = (time.perf_counter() - began) * 1000
        if decision.task_status != TaskStatus.DONE.value:
            raise SystemExit(f"The task was {decision.task_status} after the approval.")
        if number >= 3:
            timings.append(took)
    return timings


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of process `pid` (its threads included)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_over(pid: int, seconds: float) -> float:
    """CPU seconds process `pid` used over the next `seconds`."""
    before = _cpu_seconds(pid)
    time.sleep(seconds)
    return _cpu_seconds(pid) - before


def _summary(timings: list[float]) -> str:
    ordered = sorted(timings)
    p90 = ordered[int(len(ordered) * 0.9) - 1]
    return f"median {statistics.median(ordered):6.1f} ms, p90 {p90:6.1f} ms"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--round-trips", type=int, default=40)
    parser.add_argument("--tasks", type=int, default=200)
    parser.add_argument("--waiting", type=int, default=10_000)
    parser.add_argument("--window", type=float, default=30.0)
    options = parser.parse_args(argv)
    with ExitStack() as stack:
        postgres = stack.enter_context(running_server())
        temporal = stack.enter_context(running_temporal())
        work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="signoff-bench-")))
        bench = Bench(postgres, temporal.address, work)
        print(f"Approval round trip ({options.round_trips} approvals each):", flush=True)
        results: dict[str, list[float]] = {}
        for label, on_temporal, local in (("in-process", False, True),
                                          ("Temporal, local activities", True, True),
                                          ("Temporal, ordinary activities", True, False)):
            with bench.shop(temporal=on_temporal, workers=1 if on_temporal else 0,
                            local=local) as shop:
                results[label] = round_trips(shop, options.round_trips)
            print(f"  {label:32} {_summary(results[label])}", flush=True)
        base = statistics.median(results["in-process"])
        for label in ("Temporal, local activities", "Temporal, ordinary activities"):
            median = statistics.median(results[label])
            verdict = "within" if median <= TARGET_MS else "OVER"
            print(f"  {label}: {median / base:.1f}x in-process; {verdict} the {TARGET_MS:.0f} ms "
                  "target", flush=True)

        print(f"Tasks per second ({options.tasks} tasks of two calls alone, 16 started at a "
              "time):", flush=True)
        with bench.shop(temporal=False) as shop:
            alone = [scale_app.Job(number=n, plan="alone") for n in range(options.tasks)]
            seconds = _started_all(shop, alone, TaskStatus.DONE)
        print(f"  in-process (the starters step them)  {options.tasks / seconds:6.1f} tasks/s",
              flush=True)
        for workers in (1, 3):
            with bench.shop(temporal=True, workers=workers) as shop:
                seconds = _started_all(shop, alone, TaskStatus.DONE)
            print(f"  Temporal, {workers} worker(s)                {options.tasks / seconds:6.1f}"
                  " tasks/s", flush=True)

        print(f"Worker CPU while {options.waiting} tasks wait on proposals "
              f"({options.window:.0f} s windows):", flush=True)
        with bench.shop(temporal=True, workers=1) as shop:
            worker = bench.workers[0].pid
            time.sleep(3)  # the worker connects
            idle = cpu_over(worker, options.window)
            print(f"  no task:        {idle:6.3f} CPU s ({100 * idle / options.window:.2f}% of a "
                  "core)", flush=True)
            waiting = [scale_app.Job(number=n, plan="one_proposal")
                       for n in range(options.waiting)]
            seconds = _started_all(shop, waiting, TaskStatus.WAITING)
            print(f"  {options.waiting} tasks started and waiting in {seconds:.0f} s "
                  f"({options.waiting / seconds:.0f}/s)", flush=True)
            time.sleep(timedelta(seconds=15).total_seconds())  # the last ones settle
            busy = cpu_over(worker, options.window)
            print(f"  {options.waiting} waiting: {busy:6.3f} CPU s ({100 * busy / options.window:.2f}%"
                  f" of a core); {busy - idle:+.3f} CPU s against no task", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
