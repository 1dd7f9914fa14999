"""The campaign: runs of one agent task with several processes on it and random SIGKILLs.

Run as ``.venv/bin/python bench/campaign.py --runs 300 [--databases sqlite postgres temporal]
[--seed 1] [--json out.json]`` (PostgreSQL: a server of its own is started, as the tests do;
``temporal``: the app's data on PostgreSQL, its tasks run on a Temporal dev server of the
campaign's own, or ``--temporal ADDRESS``).

Each run is one task on a fresh database, worked on at once by three processes forked from this
one (which has imported everything): the agent's (``agent.do``), a decider's (says yes, or now
and then no, to every proposal it finds) and a worker's (``worker.run_once`` with the model;
on Temporal, a Temporal worker of the app, the only place where steps run).
Its script asks, over two turns, for a random mix of calls: alone record-only (``raise_level``),
alone outside (``post_letter``), proposed record-only (``lift``), proposed outside
(``send_invoice``) and proposed spending (``pay``, $0.60 on a $1.00 budget), several per turn.
At random moments one of the processes is SIGKILLed and another of its kind takes its place
(for the agent's: its caller, who never heard back, asks again — the work goes on if it was
stored, and starts if it was not). Once they are done, or after a while, a fresh
process settles what is left (``worker.recover()``, decisions, ``run_once``) as an operator's
``signoff worker`` would.

Then, read from the database and the files without the library:

* **double runs**: an outside call whose line is written twice, or a record-only call with two
  `Mark` rows (every call's text or tag is unique in the run);
* **lost updates**: the box's level is not the sum of what the record-only runs that are
  recorded added;
* **waiting on nothing**: a task that waits with no proposal left to wait on (and a task that
  did not end, counted apart);
* **over budget**: a task whose recorded spend passes its budget, or whose real spend (what
  the payments and the model calls billed) passes it.

Every figure should be 0. ``tests/test_campaign.py`` runs a few dozen of these in the suite.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import signal
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import asdict, dataclass, field
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sqlalchemy import create_engine, select, text  # noqa: E402

from signoff import AgentRefused, ProposalStatus, TaskStatus  # noqa: E402
from signoff.agents import holds  # noqa: E402
from signoff.agents import repository as repo  # noqa: E402
from signoff.store.tables import proposals, tasks  # noqa: E402
from signoff.testing import ScriptedModel, says  # noqa: E402
from tests.guarantees_app import PAY_USD, Report, build, lines  # noqa: E402

BUDGET = 1.0
KINDS = ("raise_level", "post_letter", "lift", "send_invoice", "pay")


@dataclass(kw_only=True)
class Figures:
    """What the campaign counted on one database."""

    database: str
    runs: int = 0
    kills: int = 0
    double_runs: int = 0
    lost_updates: int = 0
    waiting_on_nothing: int = 0
    not_ended: int = 0
    over_budget: int = 0
    unknown_outcomes: int = 0
    """Outside calls whose outcome is told as unknown after a kill (not an error)."""
    ended: dict[str, int] = field(default_factory=dict)
    """How the tasks ended, by status."""
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0


def plan(rng: random.Random, run: int) -> list[list[tuple[str, dict[str, Any]]]]:
    """Two turns of 1–4 calls each, of random kinds, each with a unique text or tag."""
    turns = []
    for turn in range(2):
        calls = []
        for position in range(rng.randint(1, 4)):
            kind = rng.choice(KINDS)
            tag = f"r{run}t{turn}p{position}"
            if kind in ("raise_level", "lift"):
                calls.append((kind, {"by": rng.randint(1, 9), "tag": tag}))
            else:
                calls.append((kind, {"text": tag}))
        turns.append(calls)
    return turns


def script(shop: SimpleNamespace, turns: list[list[tuple[str, dict[str, Any]]]],
           bill: Path) -> ScriptedModel:
    """The model of the run: each turn's calls, then the result; every call billed to a file."""
    lines_ = []
    for calls in turns:
        lines_.append(says.tools(*[
            says.tool(getattr(shop, kind), box=shop.box.id, **arguments)
            if kind in ("raise_level", "lift") else says.tool(getattr(shop, kind), **arguments)
            for kind, arguments in calls]))
    lines_.append(says.hand_back(Report(summary="Tended.")))
    return _Billed(bill, *lines_)


class _Billed(ScriptedModel):
    """A scripted model at a price, writing what each call cost to the bill as it answers."""

    def __init__(self, bill: Path, *lines_: Any) -> None:
        from signoff import Price

        super().__init__(*lines_, price=Price(input_per_mtok=10.0, output_per_mtok=10.0))
        self.bill = bill

    def complete(self, messages: Any, tools: Any, *, max_output_tokens: int) -> Any:
        reply = super().complete(messages, tools, max_output_tokens=max_output_tokens)
        assert self.price is not None
        with open(self.bill, "a", encoding="utf-8") as file:
            file.write(f"{self.price.cost(reply.usage.input_tokens, reply.usage.output_tokens)}\n")
        return reply


# -- the processes -------------------------------------------------------------------------


def _task_of(shop: SimpleNamespace) -> str | None:
    with shop.app.database.connect() as db:
        found = db.execute(select(tasks.c.id)).scalar()
    return str(found) if found is not None else None


def _ended(shop: SimpleNamespace) -> bool:
    task = _task_of(shop)
    return task is not None and shop.app.outcome(task).status in (
        TaskStatus.DONE, TaskStatus.HALTED, TaskStatus.FAILED)


def agent(shop: SimpleNamespace, model: Callable[[], ScriptedModel], _rng: random.Random) -> None:
    """The agent's process: start the work (once), and step it as far as it goes here."""
    task = _task_of(shop)
    if task is None:
        shop.app.agent(shop.Clerk).do(shop.Tend(), None, model=model(), budget_usd=BUDGET)
    else:
        shop.app.agent(shop.Clerk).resume(task, model=model())


def decider(shop: SimpleNamespace, _model: Callable[[], ScriptedModel],
            rng: random.Random) -> None:
    """A decider's process: yes (four times in five) or no to each proposal it finds."""
    deadline = time.monotonic() + 8
    while time.monotonic() < deadline and not _ended(shop):
        for proposal in shop.app.proposals(status=ProposalStatus.WAITING):
            try:
                if rng.random() < 0.8:
                    shop.app.approve(proposal.id, by=shop.noor)
                else:
                    shop.app.reject(proposal.id, by=shop.noor, reason="Not now.")
            except AgentRefused:
                pass  # another decided it first
        time.sleep(0.02)


def worker(shop: SimpleNamespace, model: Callable[[], ScriptedModel], _rng: random.Random) -> None:
    """A worker's process: step what can go on, with the model, until the task ends (on
    Temporal: run a Temporal worker of the app, looking for tasks nobody is on twice a second)."""
    deadline = time.monotonic() + 8
    if shop.app.runner is not None:
        served = shop.app.temporal_worker(model_for=lambda _agent, _task: model(),
                                          stalled_after=timedelta(seconds=1))
        with served.running():
            while time.monotonic() < deadline and not _ended(shop):
                served.sweep()
                time.sleep(0.5)
        return
    running = shop.app.worker(model_for=lambda _agent, _task: model())
    while time.monotonic() < deadline and not _ended(shop):
        running.run_once()
        time.sleep(0.02)


def settle(shop: SimpleNamespace, model: Callable[[], ScriptedModel], rng: random.Random) -> None:
    """After every process stopped: settle what they left, decide what waits, finish."""
    if _task_of(shop) is None:  # killed before the work was stored: its caller asks again
        agent(shop, model, rng)
    if shop.app.runner is not None:
        served = shop.app.temporal_worker(model_for=lambda _agent, _task: model(),
                                          stuck_after=timedelta(0), stalled_after=timedelta(0))
        with served.running():
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and not _ended(shop):
                served.sweep()
                for proposal in shop.app.proposals(status=ProposalStatus.WAITING):
                    with suppress(AgentRefused):
                        shop.app.approve(proposal.id, by=shop.noor)
                time.sleep(0.2)
        return
    running = shop.app.worker(model_for=lambda _agent, _task: model())
    for _ in range(10):
        running.recover()
        running.run_once()
        for proposal in shop.app.proposals(status=ProposalStatus.WAITING):
            with suppress(AgentRefused):
                shop.app.approve(proposal.id, by=shop.noor)
        if _ended(shop):
            return


ROLES: dict[str, Callable[[SimpleNamespace, Callable[[], ScriptedModel], random.Random], None]] = {
    "agent": agent, "decider": decider, "worker": worker, "settle": settle}


def _fork(shop: SimpleNamespace, role: str, model: Callable[[], ScriptedModel], seed: int) -> int:
    """Start `role` in a forked child; its pid."""
    shop.app.database.dispose()  # no pooled connection crosses the fork
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            ROLES[role](shop, model, random.Random(seed))
        except BaseException:
            import traceback

            traceback.print_exc()
            code = 1
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    return pid


# -- one run -------------------------------------------------------------------------------


def one_run(figures: Figures, shop: SimpleNamespace, url: str, outbox: Path, run: int,
            rng: random.Random) -> None:
    """A run of `shop` on the fresh database `url`, its effects under `outbox` (where the app
    writes them); counted in `figures`."""
    turns = plan(rng, run)
    bill = outbox / "bill.txt"

    def model() -> ScriptedModel:
        return script(shop, turns, bill)

    alive: dict[int, str] = {}
    for role in ("agent", "decider", "worker"):
        alive[_fork(shop, role, model, rng.randrange(1 << 30))] = role
    kills = sorted(rng.uniform(0.0, 0.6) for _ in range(rng.randint(0, 3)))
    started = time.monotonic()
    crashed = Counter[str]()
    while alive and time.monotonic() - started < 12:
        if kills and time.monotonic() - started >= kills[0]:
            kills.pop(0)
            victim = rng.choice(sorted(alive))
            os.kill(victim, signal.SIGKILL)
            figures.kills += 1
            role = alive.pop(victim)
            os.waitpid(victim, 0)
            again = role  # the agent's caller starts the work again (it never heard back)
            alive[_fork(shop, again, model, rng.randrange(1 << 30))] = again
            continue
        pid, status = os.waitpid(-1, os.WNOHANG)
        if pid == 0:
            time.sleep(0.002)
            continue
        role = alive.pop(pid, "?")
        if os.waitstatus_to_exitcode(status) != 0:
            crashed[role] += 1
    for pid in alive:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    settler = _fork(shop, "settle", model, 0)
    _, status = os.waitpid(settler, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        crashed["settle"] += 1
    shop.app.database.dispose()
    if crashed:
        figures.problems.append(f"run {run}: a process failed ({dict(crashed)})")
    _check(figures, url, outbox, run, turns)
    figures.runs += 1


def _check(figures: Figures, url: str, outbox: Path, run: int,
           turns: list[list[tuple[str, dict[str, Any]]]]) -> None:
    """Count what is wrong after run `run`, reading the database and files directly."""
    engine = create_engine(url)
    try:
        with engine.connect() as db:
            marks = [r.label for r in db.execute(text("SELECT label FROM mark"))]
            level = db.execute(text("SELECT level FROM box")).scalar_one()
            task_rows = [r._mapping for r in db.execute(select(tasks))]
            proposal_rows = [r._mapping for r in db.execute(select(proposals))]
            states = [c.state for t in task_rows for c in repo.calls_of(db, t["id"])]
    finally:
        engine.dispose()
    written = Counter(lines(outbox / "letters.txt") + lines(outbox / "invoices.txt")
                      + lines(outbox / "payments.txt"))
    doubled = [k for k, n in written.items() if n > 1] + [
        k for k, n in Counter(marks).items() if n > 1]
    if doubled:
        figures.double_runs += len(doubled)
        figures.problems.append(f"run {run}: ran twice: {doubled}")
    added = sum(int(label.rsplit(":", 1)[1]) for label in marks)
    if level != added:
        figures.lost_updates += 1
        figures.problems.append(f"run {run}: level {level}, but the runs recorded add {added}")
    figures.unknown_outcomes += states.count("unknown")
    for task in task_rows:
        figures.ended[task["status"]] = figures.ended.get(task["status"], 0) + 1
        pending = [p for p in proposal_rows if p["task_id"] == task["id"]
                   and p["status"] in (ProposalStatus.WAITING.value,
                                       ProposalStatus.APPROVED.value)]
        if task["status"] == TaskStatus.WAITING.value and not pending:
            figures.waiting_on_nothing += 1
            figures.problems.append(f"run {run}: the task waits on nothing")
        elif task["status"] in (TaskStatus.WAITING.value, TaskStatus.RUNNING.value):
            figures.not_ended += 1
            figures.problems.append(f"run {run}: the task is still {task['status']} ({_head(task)})")
        billed = sum(float(x) for x in lines(outbox / "bill.txt"))
        paid = len(lines(outbox / "payments.txt")) * PAY_USD
        if task["spend_usd"] > task["budget_usd"] + 1e-9 or billed + paid > BUDGET + 1e-9:
            figures.over_budget += 1
            figures.problems.append(
                f"run {run}: spend {task['spend_usd']:.4f} recorded, {billed + paid:.4f} real, "
                f"on a budget of {task['budget_usd']:.2f}")
    if not task_rows:
        figures.not_ended += 1
        figures.problems.append(f"run {run}: no task was stored")
    del turns


def _head(task: Any) -> str:
    """Who held a task left unended, and since when it was unwritten, in words: what a
    campaign that finds one has to go on."""
    holder = task["holder"]
    held = "held by nobody" if holder is None else (
        f"held by {holder} (its process {'runs' if holds.process_runs(holder) else 'is gone'}) "
        f"until {task['held_until']:%H:%M:%S}")
    return f"{held}, fence {task['fence']}, last written {task['updated_at']:%H:%M:%S}"


# -- databases -----------------------------------------------------------------------------


class _Live:
    """The database the campaign's app is built on, made afresh from a template for each run:
    a SQLite file copied over, or a PostgreSQL database made again from its template."""

    def __init__(self, kind: str, work: Path, server: str) -> None:
        self.kind, self.work, self.server = kind, work, server
        self.name = f"campaign_{uuid.uuid4().hex[:8]}"
        if kind == "sqlite":
            self.url = f"sqlite:///{work / 'live.db'}"
        else:
            self._admin(f'CREATE DATABASE "{self.name}_live"')
            base = server.rsplit("/", 1)[0].replace("postgresql://", "postgresql+psycopg://", 1)
            self.url = f"{base}/{self.name}_live"

    def keep_as_template(self) -> None:
        """What the live database holds now is what each run starts from."""
        if self.kind == "sqlite":
            shutil.copyfile(self.work / "live.db", self.work / "template.db")
        else:
            self._admin(f'CREATE DATABASE "{self.name}_template" TEMPLATE "{self.name}_live"')

    def renew(self) -> None:
        """The live database, as the template holds it (every process on it has ended)."""
        if self.kind == "sqlite":
            for suffix in ("-wal", "-shm"):
                (self.work / f"live.db{suffix}").unlink(missing_ok=True)
            shutil.copyfile(self.work / "template.db", self.work / "live.db")
            return
        self._admin(f'DROP DATABASE "{self.name}_live" WITH (FORCE)')
        self._admin(f'CREATE DATABASE "{self.name}_live" TEMPLATE "{self.name}_template"')

    def drop(self) -> None:
        """Drop the campaign's databases (PostgreSQL; the SQLite files go with their folder)."""
        if self.kind != "sqlite":
            for which in ("live", "template"):
                self._admin(f'DROP DATABASE IF EXISTS "{self.name}_{which}" WITH (FORCE)')

    def _admin(self, statement: str) -> None:
        import psycopg

        with psycopg.connect(self.server, autocommit=True) as connection:
            connection.execute(statement)  # type: ignore[arg-type]


@contextmanager
def _server(kind: str, given: str = "") -> Iterator[str]:
    """The PostgreSQL server to use (for `kind` postgres or temporal): `given`, or one of the
    campaign's own."""
    if kind == "sqlite" or given:
        yield given
        return
    from tests.postgres_server import running_server

    with running_server() as server:
        yield server


@contextmanager
def _temporal(kind: str, given: str = "") -> Iterator[None]:
    """For `kind` temporal: the app built from here on runs its tasks on the Temporal server
    at `given`, or on a dev server of the campaign's own."""
    if kind != "temporal":
        yield
        return
    from tests.temporal_server import running_server

    with contextlib.ExitStack() as stack:
        address = given or stack.enter_context(running_server()).address
        os.environ["SIGNOFF_TEMPORAL"] = address
        os.environ["SIGNOFF_TEMPORAL_QUEUE"] = f"campaign-{uuid.uuid4().hex[:8]}"
        try:
            yield
        finally:
            del os.environ["SIGNOFF_TEMPORAL"], os.environ["SIGNOFF_TEMPORAL_QUEUE"]


def campaign(kind: str, runs: int, seed: int, work: Path, server: str = "",
             temporal: str = "") -> Figures:
    """`runs` runs on `kind` databases (on PostgreSQL `server`, when given; on Temporal
    `temporal`, when given, for kind temporal); what was counted."""
    figures = Figures(database=kind)
    rng = random.Random(seed)
    started = time.monotonic()
    outbox = work / "live"
    outbox.mkdir()
    with _server(kind, server) as server, _temporal(kind, temporal):
        live = _Live(kind, work, server)
        shop = build(live.url, outbox)
        shop.app.database.dispose()
        live.keep_as_template()
        for run in range(runs):
            live.renew()
            one_run(figures, shop, live.url, outbox, run, rng)
            shutil.rmtree(outbox)
            outbox.mkdir()
        shop.app.database.dispose()
        live.drop()
    figures.seconds = time.monotonic() - started
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=300, help="runs per database")
    parser.add_argument("--databases", nargs="+", default=["sqlite", "postgres"],
                        choices=["sqlite", "postgres", "temporal"])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, help="write the figures here too")
    parser.add_argument("--server", default="",
                        help="a PostgreSQL server's libpq URL, as a superuser (default: one of "
                             "the campaign's own)")
    parser.add_argument("--temporal", default="",
                        help="a Temporal server's address, for --databases temporal (default: a "
                             "dev server of the campaign's own)")
    options = parser.parse_args(argv)
    results = []
    for kind in options.databases:
        with tempfile.TemporaryDirectory(prefix=f"signoff-campaign-{kind}-") as work:
            figures = campaign(kind, options.runs, options.seed, Path(work), options.server,
                               options.temporal)
        results.append(figures)
        print(f"{kind}: {figures.runs} runs, {figures.kills} SIGKILLs, {figures.seconds:.0f} s: "
              f"double runs {figures.double_runs}, lost updates {figures.lost_updates}, "
              f"waiting on nothing {figures.waiting_on_nothing}, not ended {figures.not_ended}, "
              f"over budget {figures.over_budget}; unknown outcomes told "
              f"{figures.unknown_outcomes}; tasks ended {dict(figures.ended)}", flush=True)
        for problem in figures.problems[:20]:
            print(f"  {problem}")
    if options.json:
        options.json.write_text(json.dumps([asdict(f) for f in results], indent=1))
    bad = sum(f.double_runs + f.lost_updates + f.waiting_on_nothing + f.not_ended + f.over_budget
              + len(f.problems) for f in results)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
