"""Three Temporal workers finish many tasks while one is SIGKILLed and the server restarts.

Run as ``.venv/bin/python bench/temporal_scale.py --tasks 300 [--server POSTGRES_URL]
[--json out.json]``: a PostgreSQL server (the given one, or one of its own, as the tests start)
holds the app's data (``tests/scale_app.py``), a Temporal dev server of its own runs the tasks'
workflows, and three worker processes (``tests/scale_app.py``) step them. Each task's model
asks, in each of two turns, for two calls at once: record-only or outside, alone or proposed.
Four decider threads approve each waiting task's proposals, in the order they were made.

When a quarter of the tasks have ended, one worker is SIGKILLed and started again; when more
than half have, the Temporal server is stopped and started again (on the same file). Then, read
from the database and the files:

* **record-only not once**: a record-only call (alone or approved) whose `Mark` rows are not
  exactly one;
* **outside twice**: an outside call whose line is written more than once;
* **proposals lost**: a proposal the uninterrupted run made (and had approved) that is missing
  or not Done;
* **receipts differ**: a task whose receipt, in words, is not the receipt of the same job run
  uninterrupted in-process (on a SQLite file, in this same run);
* **not ended**: a task not Done.

Every figure should be 0. A task the kill interrupted inside a model call (its reply lost: what
was reserved for it is counted as spent) or inside an outside call (of unknown outcome) says so
in its receipt, which then differs, rightly: those are counted apart. ``tests/test_temporal_scale.py``
runs a smaller count in the suite.
"""

from __future__ import annotations

import argparse
import json
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, suppress
from dataclasses import asdict, dataclass, field
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sqlalchemy import create_engine, select, text  # noqa: E402

from signoff import AgentRefused, ProposalStatus, TaskStatus, Temporal  # noqa: E402
from signoff.agents import repository as repo  # noqa: E402
from signoff.store.tables import proposals, tasks  # noqa: E402
from tests import scale_app  # noqa: E402

WORKERS = 3
DECIDERS = 4


@dataclass(kw_only=True)
class Figures:
    """What the run counted."""

    tasks: int = 0
    kills: int = 0
    server_restarts: int = 0
    record_only_not_once: int = 0
    outside_twice: int = 0
    proposals_lost: int = 0
    receipts_differ: int = 0
    not_ended: int = 0
    unknown_outcomes: int = 0
    """Outside calls told as of unknown outcome (their worker was killed as they ran)."""
    told_interrupted: int = 0
    """Tasks whose receipt differs only as it tells of the kill: a model call whose reply was
    lost (what was reserved counted as spent), or an outside call of unknown outcome."""
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)


# -- deciding --------------------------------------------------------------------------------


def decide_waiting(shop: SimpleNamespace, *, share: int = 0, of: int = 1) -> int:
    """Approve, in the order they were made, the proposals of the tasks (this decider's share of
    them) that wait; how many."""
    waiting = [p for p in shop.app.proposals(status=ProposalStatus.WAITING)
               if hash(p.task) % of == share]
    by_task: dict[str, list[Any]] = {}
    for proposal in sorted(waiting, key=lambda p: p.created_at):
        by_task.setdefault(proposal.task, []).append(proposal)
    approved = 0
    for task, pending in by_task.items():
        if shop.app.outcome(task).status is not TaskStatus.WAITING:
            continue  # its turn is still being gated: decided once it waits
        for proposal in pending:
            with suppress(AgentRefused):
                shop.app.approve(proposal.id, by=shop.noor)
                approved += 1
    return approved


def _decider(shop: SimpleNamespace, share: int, stop: threading.Event) -> None:
    while not stop.is_set():
        try:
            if decide_waiting(shop, share=share, of=DECIDERS) == 0:
                stop.wait(0.05)
        except Exception:  # the database or the server went: the decider keeps going
            traceback.print_exc()
            stop.wait(0.5)


# -- the run ---------------------------------------------------------------------------------


def _ended(url: str) -> int:
    engine = create_engine(url)
    try:
        with engine.connect() as db:
            return int(db.execute(select(text("count(*)")).select_from(tasks).where(
                tasks.c.status.in_([s.value for s in (TaskStatus.DONE, TaskStatus.HALTED,
                                                      TaskStatus.FAILED)]))).scalar_one())
    finally:
        engine.dispose()


def run(count: int, server: str, work: Path, figures: Figures) -> None:
    """`count` tasks on Temporal, with a worker killed and the server restarted; counted."""
    from tests.postgres_server import _admin, _sqlalchemy_url
    from tests.temporal_server import running_server

    name = f"scale_{uuid.uuid4().hex[:8]}"
    _admin(server, "CREATE DATABASE {}", name)
    url = _sqlalchemy_url(server, name)
    outbox, baseline_box = work / "outbox", work / "baseline"
    outbox.mkdir()
    baseline_box.mkdir()
    workers: list[subprocess.Popen[bytes]] = []
    stop = threading.Event()
    try:
        with running_server() as temporal:
            queue = f"scale-{uuid.uuid4().hex[:8]}"
            shop = scale_app.build(url, outbox, runner=Temporal(
                address=temporal.address, task_queue=queue, settle_within=timedelta(seconds=5)))
            workers = [scale_app.spawn_worker(url, temporal.address, queue, outbox,
                                              work / f"worker{i}.log")
                       for i in range(WORKERS)]
            deciders = [threading.Thread(target=_decider, args=(shop, i, stop), daemon=True)
                        for i in range(DECIDERS)]
            for thread in deciders:
                thread.start()
            started = time.monotonic()
            with ThreadPoolExecutor(max_workers=8) as starting:
                starts = [starting.submit(scale_app.start, shop, n) for n in range(count)]
                _watch(url, count, workers, temporal, figures, work, queue, outbox, starts,
                       started)
            stop.set()
            for thread in deciders:
                thread.join(timeout=60)
            figures.seconds = time.monotonic() - started
            for worker in workers:
                worker.terminate()
            for worker in workers:
                with suppress(subprocess.TimeoutExpired):
                    worker.wait(timeout=30)
            shop.app.database.dispose()
        baseline = _baseline(count, work / "baseline.db", baseline_box)
        _check(figures, url, outbox, count, baseline, shop)
    finally:
        stop.set()
        for worker in workers:
            if worker.poll() is None:
                worker.kill()
                worker.wait()
        _admin(server, "DROP DATABASE IF EXISTS {} WITH (FORCE)", name)


def _watch(url: str, count: int, workers: list[subprocess.Popen[bytes]], temporal: Any,
           figures: Figures, work: Path, queue: str, outbox: Path, starts: list[Any],
           started: float) -> None:
    """Until every task has ended (or ten minutes have passed): kill a worker at a quarter,
    restart the server past a half."""
    killed = restarted = False
    while time.monotonic() - started < 600:
        ended = _ended(url)
        if ended >= count and all(s.done() for s in starts):
            return
        if not killed and ended >= count // 4:
            killed = True
            workers[0].send_signal(signal.SIGKILL)
            workers[0].wait()
            figures.kills += 1
            workers[0] = scale_app.spawn_worker(url, temporal.address, queue, outbox,
                                                work / "worker0.log")
        elif killed and not restarted and ended >= count * 55 // 100:
            restarted = True
            temporal.restart()
            figures.server_restarts += 1
        time.sleep(0.2)


def _baseline(count: int, database: Path, outbox: Path) -> tuple[dict[int, list[str]], Counter[str]]:
    """Each job's receipt, in words, run uninterrupted in-process on a SQLite file; and the
    proposals that were made (and approved), by action."""
    shop = scale_app.build(f"sqlite:///{database}", outbox)
    words = {}
    for number in range(count):
        task = scale_app.start(shop, number)
        while decide_waiting(shop):
            pass
        words[number] = [e.words for e in shop.app.receipt(task).entries]
    proposed = Counter(p.action for p in shop.app.proposals())
    shop.app.database.dispose()
    return words, proposed


def _check(figures: Figures, url: str, outbox: Path, count: int,
           baseline: tuple[dict[int, list[str]], Counter[str]], shop: SimpleNamespace) -> None:
    """Count what is wrong, reading the database and the files."""
    engine = create_engine(url)
    try:
        with engine.connect() as db:
            marks = Counter(r[0] for r in db.execute(text("SELECT tag FROM mark")))
            task_rows = [r._mapping for r in db.execute(select(tasks))]
            proposal_rows = [r._mapping for r in db.execute(select(proposals))]
            figures.unknown_outcomes = sum(c.state == "unknown" for t in task_rows
                                           for c in repo.calls_of(db, t["id"]))
    finally:
        engine.dispose()
    written = Counter(scale_app.lines(outbox / "letters.txt")
                      + scale_app.lines(outbox / "invoices.txt"))
    figures.tasks = len(task_rows)
    planned = [(kind, tag) for n in range(count) for calls in scale_app.plan(n)
               for kind, tag in calls]
    for kind, tag in planned:
        if kind in ("note", "lift") and marks[tag] != 1:
            figures.record_only_not_once += 1
            figures.problems.append(f"{tag} ran {marks[tag]} times")
        if kind in ("post", "invoice") and written[tag] > 1:
            figures.outside_twice += 1
            figures.problems.append(f"{tag} was written {written[tag]} times")
    receipts, proposed = baseline
    done = Counter(p["action"] for p in proposal_rows
                   if p["status"] == ProposalStatus.DONE.value)
    figures.proposals_lost = sum((proposed - done).values())
    if figures.proposals_lost:
        figures.problems.append(f"proposals planned {dict(proposed)}, done {dict(done)}")
    for row in task_rows:
        if row["status"] != TaskStatus.DONE.value:
            figures.not_ended += 1
            figures.problems.append(f"task {row['id']} is {row['status']}: {row['problem']}")
            continue
        number = int(row["subject_json"]["number"])
        words = [e.words for e in shop.app.receipt(row["id"]).entries]
        if words != receipts[number] and any(_told_interrupted(w) for w in words):
            figures.told_interrupted += 1  # the kill fell inside its model call or outside call
        elif words != receipts[number]:
            figures.receipts_differ += 1
            figures.problems.append(f"job {number}'s receipt differs: "
                                    f"{sorted(set(words) ^ set(receipts[number]))[:4]}")
    figures.not_ended += count - len(task_rows)


def _told_interrupted(words: str) -> bool:
    """Whether a receipt entry tells of work a kill interrupted."""
    return "before the work stopped" in words or "the work stopped while it ran" in words


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, default=300)
    parser.add_argument("--server", default="",
                        help="a PostgreSQL server's libpq URL, as a superuser (default: one of "
                             "its own)")
    parser.add_argument("--json", type=Path, help="write the figures here too")
    options = parser.parse_args(argv)
    figures = Figures()
    with ExitStack() as stack, tempfile.TemporaryDirectory(prefix="signoff-scale-") as work:
        server = options.server
        if not server:
            from tests.postgres_server import running_server

            server = stack.enter_context(running_server())
        run(options.tasks, server, Path(work), figures)
    print(f"{figures.tasks} tasks on Temporal, 3 workers, {figures.kills} SIGKILL(s), "
          f"{figures.server_restarts} server restart(s), {figures.seconds:.0f} s: record-only "
          f"not once {figures.record_only_not_once}, outside twice {figures.outside_twice}, "
          f"proposals lost {figures.proposals_lost}, receipts differ {figures.receipts_differ}, "
          f"not ended {figures.not_ended}; receipts telling of the kill {figures.told_interrupted} "
          f"(unknown outcomes told {figures.unknown_outcomes})",
          flush=True)
    for problem in figures.problems[:20]:
        print(f"  {problem}")
    if options.json:
        options.json.write_text(json.dumps(asdict(figures), indent=1))
    bad = (figures.record_only_not_once + figures.outside_twice + figures.proposals_lost
           + figures.receipts_differ + figures.not_ended)
    return 1 if bad or not figures.kills or not figures.server_restarts else 0


if __name__ == "__main__":
    raise SystemExit(main())
