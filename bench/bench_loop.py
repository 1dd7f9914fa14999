"""The agent loop's cost: per tool call run alone, and per approval round trip, beside plain loops.

Run as ``.venv/bin/python bench/bench_loop.py [--n 20 200] [--approvals 50] [--reps 7]``
(``--profile`` adds where the time goes, from cProfile; ``--tracing`` measures only what
OpenTelemetry tracing costs per alone call, untraced and traced in the same run: bench/README.md).

Everything signoff does here is durable: the app's database is a SQLite file (WAL, as signoff
opens files by default) in a temporary folder, and every step of a task — the model's turn with
the call it asked for and that call's run (one step for a record-only call), each proposal and
decision — is committed before the next one starts, so a killed process loses no more than the
step it was in. Each series gets a fresh database.

Measured, median and min over ``--reps`` runs (after ``--warmup``), per item:

* **Alone, per tool call**: a scripted model making N calls of one tool (one per model turn), then
  handing back; ``agent.do(...)`` timed end to end, divided by N. Three tools take three paths:
  ``add(a, b)`` declared ``query=True`` (run enforced read-only), ``add(a, b)`` as a plain action
  (nothing found to change, so it runs alone in an ordinary transaction), and ``add_to(tally, b)``,
  which changes a record and runs alone only because the agent has ``Permits.everything()``.
* **Approval round trip**: a script of K calls of ``add_to`` under default ``Permits()``, each
  proposed; from the first stop, K times: find the waiting proposal, approve it (the call runs,
  the task resumes inline up to the next stop). Timed from the first stop to the end, divided
  by K — the peers' scripts time the same span.
* **Plain loops, same run**: the same scripted steps in a plain Python loop (JSON arguments
  decoded, ``add`` called, the result appended to a list), and the same loop also writing each
  step to a SQLite file with a commit (the cost of durability alone, same pragmas as signoff).
  For approvals: a generator that stops at each call (plain), and the same with a row committed
  at the stop and another at the decision (plain + SQLite).

* **The ORM's own record change, same run** (when ``add_to`` is measured): SQLAlchemy's ORM
  with no signoff above it, a record like the tally loaded by id, changed, flushed and
  committed, one transaction per item, on a SQLite file opened as signoff opens its own. What a
  call that changes a record costs at the least while records are ORM objects: ``add_to`` is
  printed as a ratio of it plus the floor. Beside it, the same change by the bare driver (the
  record read by id and written back, one transaction each): the ORM's own work is the
  difference, the most that a record path around the ORM's unit of work could take off.

* **Labels (provenance), per step**: a task that reads 20 notes, then makes N calls of
  ``add_to`` that run alone, each adding the wind one note gives: the tally's id is in the brief,
  the amount only in a note, so each call is labelled against everything seen (the amount is
  found in a note, and endorsed: ``Endorse.amount(read_outside, argument="b")``). Twice: once with
  the notes trusted (no outside content, so nothing is labelled: the fast path) and once with
  them outside content (``untrusted=True``). Timed end to end, divided by the task's steps; the
  ratio is what labels add per step (target: at most 10%).

Targets (issue 11, this 2-core machine): per tool call run alone at most 250 µs for ``add`` and
``add_plain`` and 400 µs for ``add_to``, the same at N=200 as at N=20; at most 1.2 ms per approval
round trip; at most 2 transactions per alone call and 4 per approval round trip (``--profile``
counts them). Times are printed, never asserted.

The scripted model is given a fixed usage so that it does not count tokens itself; the loop still
does (it reserves the budget before each model call), and that is counted as the loop's.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import json
import os
import platform
import pstats
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlalchemy.orm import Mapped, mapped_column

from signoff import (
    Agent,
    App,
    Endorse,
    Permits,
    ProposalStatus,
    Skill,
    TaskStatus,
    allow,
    policy,
)
from signoff.models.base import Usage
from signoff.security.principals import Principal
from signoff.testing import ScriptedModel, ScriptLine, says

TARGET_CALL_US = {"add": 250.0, "add_plain": 250.0, "add_to": 400.0}
"""Issue 11's targets per alone call, by tool."""
TARGET_TRIP_US = 1200.0
USAGE = Usage(input_tokens=100, output_tokens=20)


# -- the app ---------------------------------------------------------------------------------


@dataclass(kw_only=True)
class Bench:
    """One app on its own SQLite file, with what the measurements need."""

    app: App
    folder: Path
    clerk: Principal
    tally_id: Any
    skill: Skill[Any, Any]
    alone: type[Agent]
    asks: type[Agent]
    tools: dict[str, Any]
    counts: Skill[Any, Any]
    tally: Any

    def close(self) -> None:
        self.app.database.dispose()
        shutil.rmtree(self.folder, ignore_errors=True)


def make_bench() -> Bench:
    """A fresh app: a Tally record, three tools, two agents, one person."""
    folder = Path(tempfile.mkdtemp(prefix="signoff-bench-loop-"))
    app = App("benchloop", database=f"sqlite:///{folder}/bench.db")
    is_helper = policy.role("helper")
    is_clerk = policy.role("clerk")

    class Tally(app.Record):  # type: ignore[name-defined, misc]
        """A running total."""

        total: Mapped[int] = mapped_column(default=0)
        __security__ = [allow("read", "update", "create", when=is_helper | is_clerk)]

    @app.action("Add two numbers", query=True)
    def add(a: int, b: int) -> int:
        """The sum of a and b."""
        return a + b

    @app.action("Add two numbers (not a query)", name="add_plain")
    def add_plain(a: int, b: int) -> int:
        """The sum of a and b."""
        return a + b

    @app.action("Add to the tally")
    def add_to(tally: Tally, b: int) -> int:
        """Add b to the tally; its new total."""
        tally.total += b
        return tally.total

    @app.action("Read a note", query=True, name="read_note")
    def read_note(i: int) -> str:
        """A note (trusted: the app's own)."""
        return _note(i)

    @app.action("Read a note from outside", query=True, name="read_outside", untrusted=True)
    def read_outside(i: int) -> str:
        """A note someone outside wrote."""
        return _note(i)

    class Count(Skill[Tally, int]):
        """Read notes, then count on the tally."""

        description = "Read notes, then count."
        tools = [read_note, read_outside, add_to]
        endorses = (Endorse.amount(read_outside, at_most=1000, argument="b", of=add_to),)

        def brief(self, subject: Tally) -> str:
            return f"Read the notes, then add the wind each gives to the tally {subject.id}."

    class Sum(Skill[None, int]):
        """Add numbers."""

        description = "Add numbers."
        tools = [add, add_plain, add_to]

    class Alone(Agent):
        """Runs every tool alone."""

        purpose = "You add numbers."
        skills = [Sum()]
        may = Permits.everything()
        roles = ["helper"]
        max_steps = 100_000
        budget_usd = 100.0

    class Asks(Agent):
        """Proposes what changes records."""

        purpose = "You add numbers."
        skills = [Sum()]
        roles = ["helper"]
        max_steps = 100_000
        budget_usd = 100.0

    clerk = app.people.add("clerk@bench.example", "Clerk", roles=["clerk"])
    app.add_agent(Alone, sponsor=clerk)
    app.add_agent(Asks, sponsor=clerk)
    with app.session(as_=clerk) as s:
        tally = Tally()
        s.add(tally)
    Alone.skills = [Sum(), Count()]
    return Bench(app=app, folder=folder, clerk=clerk, tally_id=tally.id, skill=Sum(),
                 alone=Alone, asks=Asks, tools={"add": add, "add_plain": add_plain,
                                                "add_to": add_to, "read_note": read_note,
                                                "read_outside": read_outside},
                 counts=Count(), tally=tally)


def script(bench: Bench, tool: str, n: int) -> list[ScriptLine]:
    """N calls of `tool`, one per turn, then the hand back."""
    action = bench.tools[tool]
    if tool == "add_to":
        lines = [says.tool("Add one.", action, tally=bench.tally_id, b=1) for _ in range(n)]
    else:
        lines = [says.tool(action, a=i, b=1) for i in range(n)]
    return [*lines, says.hand_back(n)]


def run_alone(bench: Bench, tool: str, n: int) -> float:
    """Seconds for one ``agent.do`` of N alone calls of `tool`."""
    model = ScriptedModel(*script(bench, tool, n), usage=USAGE)
    agent = bench.app.agent(bench.alone)
    t0 = time.perf_counter()
    outcome = agent.do(bench.skill, None, for_=bench.clerk, model=model)
    elapsed = time.perf_counter() - t0
    if outcome.status is not TaskStatus.DONE or outcome.result != n:
        raise RuntimeError(f"The alone run ended {outcome.status}: {outcome.problem}")
    return elapsed


def run_approvals(bench: Bench, k: int, trips: list[float] | None = None) -> float:
    """Seconds from the first stop to the end of a task of K proposed calls, each approved."""
    model = ScriptedModel(*script(bench, "add_to", k), usage=USAGE)
    app = bench.app
    outcome = app.agent(bench.asks).do(bench.skill, None, for_=bench.clerk, model=model)
    if outcome.status is not TaskStatus.WAITING:
        raise RuntimeError(f"The task did not stop for a decision: {outcome.status}")
    t0 = time.perf_counter()
    for _ in range(k):
        start = time.perf_counter()
        (waiting,) = app.proposals(task=outcome.task, status=ProposalStatus.WAITING)
        app.approve(waiting, by=bench.clerk)
        if trips is not None:
            trips.append(time.perf_counter() - start)
    elapsed = time.perf_counter() - t0
    end = app.outcome(outcome.task)
    if end.status is not TaskStatus.DONE or end.result != k:
        raise RuntimeError(f"The approval run ended {end.status}: {end.problem}")
    return elapsed


def run_labelled(bench: Bench, reader: str, seen: int, n: int) -> float:
    """Seconds for one ``agent.do`` of `seen` reads with `reader`, then N alone calls of
    ``add_to`` (labelled at each step when the reads were outside content)."""
    read, add_to = bench.tools[reader], bench.tools["add_to"]
    model = ScriptedModel(*[says.tool(read, i=i) for i in range(seen)],
                          *[says.tool(add_to, tally=bench.tally_id, b=_wind(i % seen))
                            for i in range(n)],
                          says.hand_back(n), usage=USAGE)
    t0 = time.perf_counter()
    outcome = bench.app.agent(bench.alone).do(bench.counts, bench.tally, for_=bench.clerk,
                                              model=model)
    elapsed = time.perf_counter() - t0
    if outcome.status is not TaskStatus.DONE:
        raise RuntimeError(f"The labelled run ended {outcome.status}: {outcome.problem}")
    return elapsed


def label_steps(seen: int, n: int) -> float:
    """Seconds the labels alone take over the same task's steps: a task's provenance given
    `seen` outside notes, then for each of N steps, the call's arguments labelled (the amount
    found in a note and endorsed) and its result seen (what the loop does per step, without the
    loop)."""
    from signoff.limits.provenance import Provenance, Seen

    tally = str(uuid.uuid4())
    endorses = (Endorse.amount("read_outside", at_most=1000, argument="b", of="add_to"),)
    t0 = time.perf_counter()
    provenance = Provenance(trusted=[
        "You add numbers.", "Read notes, then count.",
        f"Read the notes, then add the wind each gives to the tally {tally}."])
    for i in range(seen):
        provenance.add(Seen(tool="read_outside", arguments=json.dumps({"i": i}), value=_note(i),
                            text=_note(i), outside="outside content"))
    for i in range(n):
        arguments = {"tally": tally, "b": _wind(i % seen)}
        labels = provenance.label("add_to", arguments, endorses=endorses)
        if labels.untrusted or len(labels.arguments) != 2:
            raise RuntimeError(f"The tally's arguments should be traced and trusted: {labels}")
        provenance.add(Seen(tool="add_to", arguments=json.dumps(arguments), value=i + 1,
                            text=str(i + 1), outside=None))
    return time.perf_counter() - t0


def _note(i: int) -> str:
    """What note `i` says (the same, read as the app's own or from outside)."""
    return f"Note {i}: the weather at station {1000 + i} was {i % 7} degrees, wind {_wind(i)} km/h."


def _wind(i: int) -> int:
    """The wind note `i` gives: a number found in no other note, nor in the brief."""
    return 11 + 3 * i


# -- the plain loops -------------------------------------------------------------------------


def add(a: int, b: int) -> int:
    return a + b


def steps_of(n: int) -> list[tuple[str, str]]:
    """The same scripted steps as signoff's runs: (tool, arguments as JSON text)."""
    return [("add", json.dumps({"a": i, "b": 1})) for i in range(n)] + [
        ("hand_back", json.dumps({"result": n}))
    ]


def plain_loop(steps: list[tuple[str, str]]) -> Any:
    tools = {"add": add}
    history: list[tuple[str, str, Any]] = []
    for name, arguments in steps:
        if name == "hand_back":
            return json.loads(arguments)["result"]
        out = tools[name](**json.loads(arguments))
        history.append((name, arguments, out))
    return None


def open_plain_db(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("CREATE TABLE IF NOT EXISTS steps (task TEXT, turn INTEGER, tool TEXT, "
               "arguments TEXT, state TEXT, result TEXT, PRIMARY KEY (task, turn))")
    return db


def plain_sqlite_loop(db: sqlite3.Connection, task: str, steps: list[tuple[str, str]]) -> Any:
    tools = {"add": add}
    history: list[tuple[str, str, Any]] = []
    for turn, (name, arguments) in enumerate(steps):
        if name == "hand_back":
            return json.loads(arguments)["result"]
        out = tools[name](**json.loads(arguments))
        history.append((name, arguments, out))
        db.execute("BEGIN")
        db.execute("INSERT INTO steps VALUES (?, ?, ?, ?, 'done', ?)",
                   (task, turn, name, arguments, json.dumps(out)))
        db.execute("COMMIT")
    return None


def open_journal_db(folder: Path) -> sqlite3.Connection:
    """signoff's own schema in a SQLite file (made by its migrations), opened with the driver
    alone: where the floor below writes."""
    app = App("benchfloor", database=f"sqlite:///{folder}/floor.db")
    app.database.ensure_schema()
    app.database.dispose()
    db = sqlite3.connect(folder / "floor.db", isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("PRAGMA foreign_keys=ON")
    return db


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")


def journal_floor_loop(db: sqlite3.Connection, steps: list[tuple[str, str]]) -> Any:
    """The rows signoff keeps of each alone call, written with the driver alone, in one
    transaction per call as signoff writes them: the floor of durable bookkeeping, with no Python
    layer above it.

    Each call is one step of the journal, in two statements: the task's head moved on (guarded
    by its revision and its holder's fence, the hold renewed, the step's number taken and
    returned) and the step's row appended, with the model's turn (its message, the new tool call,
    a receipt entry) and the call's run (its outcome, a receipt entry, the tool's answer as a
    message).
    """
    task, count, revision = str(uuid.uuid4()), 2, 0
    db.execute("BEGIN IMMEDIATE")
    db.execute("INSERT INTO signoff_tasks (id, agent, skill, subject_type, status, turn, "
               "turn_open, message_count, steps, spend_usd, max_steps, budget_usd, model, "
               "problem, revision, created_at, updated_at, fence, reserved_usd, seq) VALUES "
               "(?, 'alone', 'sum', '', 'running', 0, 0, 2, 0, 0.0, 100000, 100.0, 'scripted', "
               "'', 0, ?, ?, 0, 0.0, 1)", (task, _now(), _now()))
    _append(db, task, 1, 0, "start", {"messages": [{"role": "system", "text": "You add numbers."},
                                             {"role": "user", "text": "Add numbers."}]})
    db.execute("COMMIT")
    for turn, (name, arguments) in enumerate(steps, start=1):
        if name == "hand_back":
            return json.loads(arguments)["result"]
        call = str(uuid.uuid4())
        out = add(**json.loads(arguments))
        db.execute("BEGIN IMMEDIATE")
        seq = db.execute(
            "UPDATE signoff_tasks SET steps = ?, turn = ?, turn_open = 0, message_count = ?, "
            "revision = ?, updated_at = ?, held_until = ?, seq = seq + 1 WHERE id = ? AND "
            "revision = ? AND fence = 0 RETURNING seq",
            (turn, turn, count + 2, revision + 1, _now(), _now(), task, revision)).fetchone()[0]
        _append(db, task, seq, turn, "model_call", {
            "messages": [{"role": "assistant", "text": "", "tool_calls": [
                {"id": f"call_{turn}_0", "name": name, "arguments": arguments}]},
                {"role": "tool", "text": json.dumps(out), "tool_call_id": f"call_{turn}_0"}],
            "calls": [{"id": call, "task_id": task, "turn": turn, "position": 0,
                       "call_id": f"call_{turn}_0", "tool": name, "arguments": arguments,
                       "why": "", "state": "new"},
                      {"id": call, "state": "done", "leave": "alone", "outcome": "Done",
                       "value": out, "ran_as": ["Alone"], "effects": [],
                       "answer": json.dumps(out), "finished_at": _now()}],
            "entries": [{"kind": "model_call", "at": _now(), "cost_usd": 0.0,
                         "words": f"scripted was asked (step {turn}) and answered with {name}.",
                         "data": {"input_tokens": 100, "output_tokens": 20}},
                        {"kind": "tool_call", "at": _now(), "cost_usd": 0.0,
                         "words": f"Alone ran {name} alone, as itself: Done.",
                         "data": {"tool": name, "arguments": arguments, "outcome": "Done"}}]})
        db.execute("COMMIT")
        count, revision = count + 2, revision + 1
    return None


def _append(db: sqlite3.Connection, task: str, seq: int, turn: int, kind: str,
            data: dict[str, Any]) -> None:
    """A step's row, numbered `seq` by the statement that moved its task's head on."""
    db.execute("INSERT INTO signoff_steps VALUES (?, ?, ?, ?, ?, 0.0, ?)",
               (task, seq, turn, kind, _now(), json.dumps(data)))


class OrmBaseline:
    """SQLAlchemy's ORM alone, with no signoff above it: a record like the bench's tally loaded
    by id (a statement built once), changed, flushed and committed, one transaction per item,
    on a SQLite file opened as signoff opens its files (WAL, ``synchronous=NORMAL``, BEGIN
    IMMEDIATE, one connection held). What a call that changes a record costs at the least while
    records are ORM objects: ``add_to`` cannot go below it plus the floor."""

    def __init__(self, folder: Path) -> None:
        from sqlalchemy import bindparam, create_engine, event, select
        from sqlalchemy.orm import DeclarativeBase, Session

        class Base(DeclarativeBase):
            pass

        class Tally(Base):
            __tablename__ = "tally"
            id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
            total: Mapped[int] = mapped_column(default=0)

        engine = create_engine(f"sqlite:///{folder}/orm.db")

        @event.listens_for(engine, "connect")
        def pragmas(dbapi_connection: Any, _record: Any) -> None:
            dbapi_connection.isolation_level = None
            dbapi_connection.execute("PRAGMA journal_mode=WAL")
            dbapi_connection.execute("PRAGMA synchronous=NORMAL")

        @event.listens_for(engine, "begin")
        def begin(connection: Any) -> None:
            connection.connection.driver_connection.execute("BEGIN IMMEDIATE")

        Base.metadata.create_all(engine)
        self._engine, self._session = engine, Session
        self._connection = engine.connect()
        with Session(bind=self._connection, expire_on_commit=False) as session, session.begin():
            tally = Tally()
            session.add(tally)
        self._id = tally.id
        self._by_id = select(Tally).where(Tally.id == bindparam("id"))
        self._driver = sqlite3.connect(folder / "orm.db", isolation_level=None)
        self._driver.execute("PRAGMA synchronous=NORMAL")

    def run(self, n: int) -> None:
        """N record changes, one commit each."""
        for b in range(n):
            with self._session(bind=self._connection, expire_on_commit=False) as session, (
                    session.begin()):
                tally = session.scalars(self._by_id, {"id": self._id}).one_or_none()
                tally.total += b
                session.flush()

    def run_driver(self, n: int) -> None:
        """The same N record changes by the bare driver on the same file: the record read by
        its id and written back, one transaction each. What a record change would cost with no
        ORM at all; the ORM's own work is the difference."""
        db = self._driver
        ident = self._id.hex  # as SQLAlchemy's Uuid keeps it in SQLite
        for b in range(n):
            db.execute("BEGIN IMMEDIATE")
            (total,) = db.execute("SELECT total FROM tally WHERE id = ?", (ident,)).fetchone()
            db.execute("UPDATE tally SET total = ? WHERE id = ?", (total + b, ident))
            db.execute("COMMIT")

    def close(self) -> None:
        self._driver.close()
        self._connection.close()
        self._engine.dispose()


def plain_stops(steps: list[tuple[str, str]]) -> Iterator[tuple[str, str]]:
    """A loop that stops at each call for a decision (sent back as True) and goes on after it."""
    history: list[tuple[str, str, Any]] = []
    for name, arguments in steps:
        if name == "hand_back":
            return
        approved = yield name, arguments
        out = add(**json.loads(arguments)) if approved else None
        history.append((name, arguments, out))


def plain_approvals(k: int) -> float:
    loop = plain_stops(steps_of(k))
    next(loop)
    t0 = time.perf_counter()
    for _ in range(k):
        try:
            loop.send(True)
        except StopIteration:
            break
    return time.perf_counter() - t0


def plain_sqlite_approvals(db: sqlite3.Connection, task: str, k: int) -> float:
    """Each stop commits a pending row; each decision commits the decision with the result."""
    steps = steps_of(k)

    def stop(turn: int) -> None:
        name, arguments = steps[turn]
        db.execute("BEGIN")
        db.execute("INSERT INTO steps VALUES (?, ?, ?, ?, 'waiting', NULL)",
                   (task, turn, name, arguments))
        db.execute("COMMIT")

    stop(0)
    t0 = time.perf_counter()
    for turn in range(k):
        db.execute("BEGIN")
        (arguments,) = db.execute("SELECT arguments FROM steps WHERE task = ? AND turn = ? "
                                  "AND state = 'waiting'", (task, turn)).fetchone()
        out = add(**json.loads(arguments))
        db.execute("UPDATE steps SET state = 'done', result = ? WHERE task = ? AND turn = ?",
                   (json.dumps(out), task, turn))
        db.execute("COMMIT")
        if turn + 1 < k:
            stop(turn + 1)
    return time.perf_counter() - t0


# -- timing ----------------------------------------------------------------------------------


@dataclass(kw_only=True)
class Measured:
    name: str
    samples: list[float]
    per: int

    @property
    def median_us(self) -> float:
        return statistics.median(self.samples) / self.per * 1e6

    @property
    def min_us(self) -> float:
        return min(self.samples) / self.per * 1e6


def timed(fn: Callable[[], Any], reps: int, warmup: int) -> list[Any]:
    """Seconds of the last `reps` of warmup + reps calls (a float returned is the interval; a
    tuple of them is kept as it is)."""
    out = []
    for i in range(warmup + reps):
        gc.collect()
        t0 = time.perf_counter()
        r = fn()
        dt = r if isinstance(r, float | tuple) else time.perf_counter() - t0
        if i >= warmup:
            out.append(dt)
    return out


def show(m: Measured) -> Measured:
    total_med = statistics.median(m.samples) * 1e3
    total_min = min(m.samples) * 1e3
    print(f"{m.name:<44} total median {total_med:9.2f} ms  min {total_min:9.2f} ms"
          f"  | per item ({m.per}) median {m.median_us:9.1f} µs  min {m.min_us:9.1f} µs",
          flush=True)
    return m


def verdict(value_us: float, target_us: float) -> str:
    return f"{'meets' if value_us <= target_us else 'misses'} the target of {target_us:.0f} µs"


# -- tracing ---------------------------------------------------------------------------------

TRACING_MODES = ("off", "on", "sdk")
"""Tracing off (the loop's no-op `Observer`); on, as signoff traces with the SDK; and on with
every span made by the SDK's own tracer (how signoff traced before its step spans), to compare."""


def tracing_provider() -> tuple[Any, Any]:
    """An OpenTelemetry SDK tracer provider as an app would run it: spans batched
    (`BatchSpanProcessor`, its defaults) to an exporter that keeps them in memory, standing in
    for a collector: the run checks from it that every span it expects was exported, and it
    costs what one that drops them costs. And that exporter."""
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(BatchSpanProcessor(exporter))
    return provider, exporter


def traced_bench(mode: str) -> tuple[Bench, Any, Any]:
    """A fresh app traced as `mode` says; its provider and exporter (None when off)."""
    bench = make_bench()
    if mode == "off":
        return bench, None, None
    provider, exporter = tracing_provider()
    bench.app.trace(provider)
    if mode == "sdk":  # every span by the SDK's tracer, as content capture does
        tracing = bench.app._agency.loop.observer
        tracing._steps = tracing._tracer
    return bench, provider, exporter


def check_exported(exporter: Any, tool: str, n: int) -> None:
    """The spans of a run of N alone calls of `tool` were all exported."""
    names = [span.name for span in exporter.get_finished_spans()]
    exporter.clear()
    if names.count(f"execute_tool {tool}") != n or names.count("chat scripted") != n + 1:
        raise RuntimeError(f"Tracing on exported {len(names)} spans for {n} calls.")


def run_traced(tool: str, n: int, reps: int, warmup: int) -> dict[str, dict[str, list[float]]]:
    """Seconds (wall, cpu) per alone call of `tool` in each mode: one run of each mode after
    another, in an order turned round each time, so that a busy moment falls on all of them."""
    made = {mode: traced_bench(mode) for mode in TRACING_MODES}
    samples: dict[str, dict[str, list[float]]] = {m: {"wall": [], "cpu": []} for m in made}
    try:
        for i in range(warmup + reps):
            for mode in TRACING_MODES if i % 2 else TRACING_MODES[::-1]:
                bench = made[mode][0]
                gc.collect()
                cpu = time.process_time()  # every thread's: the batch processor's counts
                wall = run_alone(bench, tool, n)
                cpu = time.process_time() - cpu
                if i >= warmup:
                    samples[mode]["wall"].append(wall / n)
                    samples[mode]["cpu"].append(cpu / n)
            for _bench, provider, exporter in made.values():
                if provider is not None:  # exported, checked and let go, untimed
                    provider.force_flush()
                    check_exported(exporter, tool, n)
    finally:
        for bench, provider, _exporter in made.values():
            if provider is not None:
                provider.shutdown()
            bench.close()
    return samples


def hooks_us(bench: Bench, observer: Any, reps: int, flush: Callable[[], Any] = lambda: None,
             ) -> float:
    """What the points the loop calls for one alone call cost `observer`, in µs of CPU time,
    beyond the model call itself: around the model call, around the tool call, the verdict, the
    call's end; inside the task's run, as the loop calls them. On a real task's rows."""
    from signoff.agents import repository as repo
    from signoff.agents.gate import gate

    outcome = run_alone_outcome(bench, "add", 1)
    with bench.app.database.connect() as db:
        task = repo.load_task(db, outcome.task)
        (call, _) = repo.calls_of(db, outcome.task)
    info = bench.app.actions.info("add")
    verdict = gate("add", info.effects, [bench.alone.may], query=info.query)
    model = ScriptedModel(says.tool(bench.tools["add"], a=1, b=1), usage=USAGE)
    messages: tuple[Any, ...] = ()
    answer = bench.app.actions.run("add", {"a": 1, "b": 1}, as_=bench.clerk)

    def points() -> None:
        with observer.running(task):
            for _ in range(reps):
                observer.complete(task, model, messages, (), max_output_tokens=1)
                with observer.tool_call(task, call):
                    observer.gated(verdict)
                    observer.tool_ended(state="done", outcome="Done", answer="2", result=answer)

    def bare() -> None:
        for _ in range(reps):
            model.complete(messages, (), max_output_tokens=1)

    return (least_cpu(points, flush) - least_cpu(bare)) / reps * 1e6


def span_us(start_span: Callable[..., Any], parent: Any, reps: int,
            flush: Callable[[], Any]) -> float:
    """µs of CPU for one span with a chat span's attributes (5 as it starts, 4 as it ends),
    started with `start_span` under `parent` and ended (the batch processor queues it)."""
    from opentelemetry import trace

    started = {"gen_ai.operation.name": "chat", "gen_ai.provider.name": "signoff",
               "gen_ai.request.model": "scripted", "gen_ai.request.max_tokens": 1024,
               "gen_ai.conversation.id": str(uuid.uuid4())}
    ended = {"gen_ai.usage.input_tokens": 100, "gen_ai.usage.output_tokens": 20,
             "gen_ai.response.finish_reasons": ("tool_call",), "signoff.cost_usd": 0.0}

    def spans() -> None:
        with trace.use_span(parent):
            for _ in range(reps):
                span = start_span("chat scripted", attributes=started)
                span.set_attributes(ended)
                span.end()

    return least_cpu(spans, flush) / reps * 1e6


def least_cpu(fn: Callable[[], None], after: Callable[[], Any] = lambda: None) -> float:
    """The CPU time of this process (every thread) while `fn` runs, in seconds: the least of 5
    rounds, the least disturbed (`after` runs untimed after each: the spans' flush, so that the
    batch processor's queue never fills and drops)."""
    def once() -> float:
        t0 = time.process_time()
        fn()
        spent = time.process_time() - t0
        after()
        return spent

    return min(once() for _ in range(5))


def run_alone_outcome(bench: Bench, tool: str, n: int) -> Any:
    """``agent.do`` of N alone calls of `tool`; its outcome."""
    model = ScriptedModel(*script(bench, tool, n), usage=USAGE)
    return bench.app.agent(bench.alone).do(bench.skill, None, for_=bench.clerk, model=model)


def measure_points() -> dict[str, float]:
    """µs of CPU, in a tight loop: the loop's points for one alone call untraced, traced, and
    traced with the SDK's own spans; one span by the SDK's tracer, and one step span."""
    from signoff.agents.observer import Observer
    from signoff.agents.step_spans import StepSpans
    from signoff.agents.tracing import Tracing

    bench = make_bench()
    provider, exporter = tracing_provider()
    try:
        tracing = Tracing(database=bench.app.database, tracer_provider=provider)
        figures = {"untraced": hooks_us(bench, Observer(), 20_000),
                   "on": hooks_us(bench, tracing, 500, provider.force_flush)}
        tracing._steps = tracing._tracer
        figures["sdk"] = hooks_us(bench, tracing, 500, provider.force_flush)
        tracer = provider.get_tracer("signoff")
        parent = tracer.start_span("invoke_agent bench")
        steps = StepSpans.over(tracer, "signoff", "0")
        assert steps is not None
        figures["sdk span"] = span_us(tracer.start_span, parent, 1_000, provider.force_flush)
        figures["step span"] = span_us(steps.start_span, parent, 1_000, provider.force_flush)
        parent.end()
        provider.force_flush()
        exporter.clear()
    finally:
        provider.shutdown()
        bench.close()
    return figures


def measure_tracing(args: argparse.Namespace) -> None:
    """Per alone call: tracing off, on, and on with the SDK's own spans; runs interleaved, in one
    run; the whole measured `--rounds` times."""
    reps, warmup = args.reps, args.warmup
    print("\n== tracing: per tool call run alone, off / on / on with the SDK's own spans "
          "(OpenTelemetry SDK, BatchSpanProcessor, in-memory exporter)")
    by_tool: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for round_ in range(1, args.rounds + 1):
        for n in args.n:
            for tool in args.tools:
                samples = run_traced(tool, n, reps, warmup)
                off = samples["off"]
                row: dict[str, Any] = {"off cpu": statistics.median(off["cpu"]) * 1e6,
                                       "off wall": statistics.median(off["wall"]) * 1e6}
                text = [f"round {round_} {tool} N={n}: CPU off {row['off cpu']:7.1f} µs/call"]
                for mode in ("on", "sdk"):
                    for clock in ("cpu", "wall"):
                        mine, base = samples[mode][clock], off[clock]
                        row[f"{mode} {clock}"] = statistics.median(mine) / statistics.median(base)
                        row[f"{mode} {clock} pairs"] = statistics.median(
                            a / b for a, b in zip(mine, base, strict=True))
                    text.append(f"{mode} ×{row[f'{mode} cpu']:.3f} (pairs ×"
                                f"{row[f'{mode} cpu pairs']:.3f}; wall ×{row[f'{mode} wall']:.3f})")
                print(";  ".join(text), flush=True)
                by_tool.setdefault((tool, n), []).append(row)
    points = measure_points()
    print("\n== tracing on / off per alone call (CPU time of the process, medians of "
          f"{reps} runs each, the median of each run's pair beside it), every round; "
          "target ≤ ×1.15")
    for (tool, n), rows in by_tool.items():
        rounds = "  ".join(f"×{r['on cpu']:.3f} (×{r['on cpu pairs']:.3f})" for r in rows)
        sdk = "  ".join(f"×{r['sdk cpu']:.3f} (×{r['sdk cpu pairs']:.3f})" for r in rows)
        worst = max(max(r["on cpu"], r["on cpu pairs"]) for r in rows)
        print(f"{tool + f' N={n}':<14} on  {rounds}  — {'meets' if worst <= 1.15 else 'misses'}")
        print(f"{'':<14} sdk {sdk}  (every span by the SDK's tracer)")
    call = statistics.median(r["off cpu"] for rows in by_tool.values() for r in rows)
    print(f"\n== what it is made of, CPU in a tight loop (a share of the median untraced alone "
          f"call above, {call:.0f} µs)")
    print(f"the loop's points for one alone call, beyond the model call (the least of 5 rounds;"
          f" ±0.5 µs is noise): untraced {points['untraced']:.2f} µs "
          f"({points['untraced'] / call * 100:.2f}%); traced {points['on']:.1f} µs "
          f"({points['on'] / call * 100:.1f}%); traced with the SDK's own spans "
          f"{points['sdk']:.1f} µs ({points['sdk'] / call * 100:.1f}%)")
    print(f"one span with a chat span's 9 attributes, under a task's span: by the SDK's tracer "
          f"{points['sdk span']:.1f} µs ({points['sdk span'] / call * 100:.1f}%), a step span "
          f"{points['step span']:.1f} µs ({points['step span'] / call * 100:.1f}%); "
          "two a call")


# -- profile ---------------------------------------------------------------------------------


def profile(title: str, fn: Callable[[], object], per: int, top: int) -> None:
    """Where the time of one call of `fn` goes: signoff's own functions by inclusive time, then
    every function by its own time; each as a share of the whole and per item."""
    profiler = cProfile.Profile()
    profiler.enable()
    fn()
    profiler.disable()
    stats: dict[Any, Any] = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    total = max(ct for _cc, _nc, _tt, ct, _callers in stats.values())  # the whole run
    here = str(Path(__file__).resolve().parent.parent / "signoff")

    def row(key: Any, nc: int, seconds: float) -> str:
        filename, line, name = key
        where = (f"{Path(filename).relative_to(here.rsplit('/', 1)[0])}:{line}"
                 if filename.startswith(here) else f"{Path(filename).name}:{line}")
        return (f"  {seconds / total * 100:5.1f}%  {seconds / per * 1e6:8.1f} µs/item  "
                f"{nc / per:7.1f} calls/item  {name}  ({where})")

    print(f"\n-- profile: {title} — {total * 1e3:.0f} ms under cProfile")
    calls = {name: nc for (_f, _l, name), (_cc, nc, _tt, _ct, _callers) in stats.items()}
    commits = calls.get("<method 'commit' of 'sqlite3.Connection' objects>", 0) / per
    statements = calls.get("<method 'execute' of 'sqlite3.Cursor' objects>", 0) / per
    print(f"per item: {commits:.1f} transactions committed, {statements:.1f} SQL statements "
          "(BEGIN included); a generator's calls count each resume")
    print(f"signoff's functions, by inclusive time (top {top}):")
    own = [(k, v) for k, v in stats.items() if k[0].startswith(here)]
    for key, (_cc, nc, _tt, ct, _callers) in sorted(own, key=lambda kv: -kv[1][3])[:top]:
        print(row(key, nc, ct))
    print(f"every function, by its own time (top {top}):")
    for key, (_cc, nc, tt, _ct, _callers) in sorted(stats.items(), key=lambda kv: -kv[1][2])[:top]:
        print(row(key, nc, tt))


# -- main ------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, nargs="+", default=[20, 200], help="tool calls per run")
    parser.add_argument("--approvals", type=int, default=50,
                        help="approved calls per run (K; 0: skip the round trips)")
    parser.add_argument("--reps", type=int, default=7, help="timed runs per measurement")
    parser.add_argument("--warmup", type=int, default=1, help="untimed runs before them")
    parser.add_argument("--tools", nargs="+", default=["add", "add_plain", "add_to"],
                        choices=["add", "add_plain", "add_to"], help="alone tools to measure")
    parser.add_argument("--profile", type=int, nargs="*", default=None, metavar="N",
                        help="also profile one run of each tool at these N (default: the "
                        "smallest --n) and one approval run")
    parser.add_argument("--top", type=int, default=25, help="rows per profile table")
    parser.add_argument("--json", default=None, help="write every sample to this file")
    parser.add_argument("--labels", type=int, default=20,
                        help="alone calls after 20 results seen, for the labels' cost (0: skip)")
    parser.add_argument("--tracing", action="store_true",
                        help="measure only tracing's cost: alone calls untraced, and traced with "
                        "the OpenTelemetry SDK (needs signoff[otlp])")
    parser.add_argument("--rounds", type=int, default=2,
                        help="with --tracing: how many times the whole measurement is made")
    args = parser.parse_args()
    reps, warmup, k = args.reps, args.warmup, args.approvals

    import sqlalchemy

    print(f"signoff agent loop — python {platform.python_version()}, {os.cpu_count()} cpus, "
          f"sqlite {sqlite3.sqlite_version}, sqlalchemy {sqlalchemy.__version__}; "
          f"reps {reps}, warmup {warmup}; SQLite file, WAL, synchronous=NORMAL", flush=True)
    if args.tracing:
        measure_tracing(args)
        return
    results: dict[str, Measured] = {}
    plain_dir = Path(tempfile.mkdtemp(prefix="signoff-bench-plain-"))
    plain_db = open_plain_db(plain_dir / "plain.db")
    journal_db = open_journal_db(plain_dir)
    orm = OrmBaseline(plain_dir)
    counter = iter(range(10**9))
    try:
        print("\n== per tool call, run alone (receipts stored)")
        for n in args.n:
            steps = steps_of(n)
            results[f"plain/{n}"] = show(Measured(
                name=f"plain Python loop N={n}", per=n,
                samples=timed(lambda steps=steps: plain_loop(steps), reps, warmup)))
            results[f"plain_sqlite/{n}"] = show(Measured(
                name=f"plain loop + SQLite commit N={n}", per=n,
                samples=timed(lambda steps=steps: plain_sqlite_loop(
                    plain_db, f"t{next(counter)}", steps), reps, warmup)))
            results[f"floor/{n}"] = show(Measured(
                name=f"signoff's rows, driver only N={n}", per=n,
                samples=timed(lambda steps=steps: journal_floor_loop(journal_db, steps),
                              reps, warmup)))
            if "add_to" in args.tools:
                results[f"orm/{n}"] = show(Measured(
                    name=f"SQLAlchemy ORM, a record changed N={n}", per=n,
                    samples=timed(lambda n=n: orm.run(n), reps, warmup)))
                results[f"driver_change/{n}"] = show(Measured(
                    name=f"the same change, driver only N={n}", per=n,
                    samples=timed(lambda n=n: orm.run_driver(n), reps, warmup)))
            for tool in args.tools:
                bench = make_bench()
                try:
                    results[f"{tool}/{n}"] = show(Measured(
                        name=f"signoff {tool} N={n}", per=n,
                        samples=timed(lambda b=bench, t=tool, n=n: run_alone(b, t, n),
                                      reps, warmup)))
                finally:
                    bench.close()

        if k > 0:
            print(f"\n== approval round trip (stop → approve → resume → next stop), K={k}")
            results["plain_approve"] = show(Measured(
                name=f"plain loop, stop = yield K={k}", per=k,
                samples=timed(lambda: plain_approvals(k), reps, warmup)))
            results["plain_sqlite_approve"] = show(Measured(
                name=f"plain loop + SQLite commits K={k}", per=k,
                samples=timed(lambda: plain_sqlite_approvals(plain_db, f"t{next(counter)}", k),
                              reps, warmup)))
            bench = make_bench()
            trips: list[float] = []
            try:
                results["approve"] = show(Measured(
                    name=f"signoff approve K={k}", per=k,
                    samples=timed(lambda: run_approvals(bench, k), warmup=warmup, reps=0)
                    + timed(lambda: run_approvals(bench, k, trips), warmup=0, reps=reps)))
            finally:
                bench.close()
            head, tail = trips[: min(5, k)], trips[-min(5, k):]
            print(f"{'  one trip, across runs':<44} median {statistics.median(trips) * 1e6:9.1f} µs"
                  f"  (first 5 of a run {statistics.median(head) * 1e6:.1f} µs, "
                  f"last 5 {statistics.median(tail) * 1e6:.1f} µs)")
        if args.labels:
            seen, n = 20, args.labels
            print(f"\n== labels: {seen} results seen, then {n} alone calls (per step)")
            bench = make_bench()
            try:  # the two alternate, run by run, so that the machine's drift falls on both
                pairs = timed(lambda: (run_labelled(bench, "read_note", seen, n),
                                       run_labelled(bench, "read_outside", seen, n)), reps, warmup)
                for i, what in enumerate(("trusted", "outside")):
                    results[f"labels_{what}"] = show(Measured(
                        name=f"signoff {seen} {what} reads + {n} add_to", per=seen + n,
                        samples=[pair[i] for pair in pairs]))
            finally:
                bench.close()
            results["labels_alone"] = show(Measured(
                name=f"labels alone, {seen} seen + {n} labelled", per=seen + n,
                samples=timed(lambda: label_steps(seen, n), reps, warmup)))
    finally:
        plain_db.close()
        journal_db.close()
        orm.close()
        shutil.rmtree(plain_dir, ignore_errors=True)

    print("\n== ratios (medians)")
    for n in args.n:
        plain, durable = results[f"plain/{n}"], results[f"plain_sqlite/{n}"]
        floor = results[f"floor/{n}"]
        print(f"{'floor N=' + str(n):<18} {floor.median_us:9.1f} µs/call: signoff's rows alone "
              f"take {floor.median_us / TARGET_CALL_US['add_plain'] * 100:.0f}% of add_plain's "
              "target")
        for tool in args.tools:
            m = results[f"{tool}/{n}"]
            print(f"{tool + f' N={n}':<18} {m.median_us:9.1f} µs/call  ×{m.median_us / plain.median_us:8.0f}"
                  f" plain loop  ×{m.median_us / durable.median_us:6.1f} plain+SQLite  "
                  f"×{m.median_us / floor.median_us:5.1f} its rows  "
                  f"— {verdict(m.median_us, TARGET_CALL_US[tool])}")
        if f"orm/{n}" in results:
            orm_us = results[f"orm/{n}"].median_us
            least = orm_us + floor.median_us
            print(f"{'ORM N=' + str(n):<18} {orm_us:9.1f} µs/change: SQLAlchemy's own record "
                  f"change takes {orm_us / TARGET_CALL_US['add_to'] * 100:.0f}% of add_to's "
                  f"target; with the floor, {least / TARGET_CALL_US['add_to'] * 100:.0f}% "
                  f"(add_to ×{results[f'add_to/{n}'].median_us / least:.1f} the two)")
            bare = results[f"driver_change/{n}"].median_us
            print(f"{'driver N=' + str(n):<18} {bare:9.1f} µs/change: the same change by the "
                  f"bare driver; the ORM's own work is {orm_us - bare:.0f} µs of it, "
                  f"{(orm_us - bare) / results[f'add_to/{n}'].median_us * 100:.0f}% of add_to "
                  "(the most a record path around the ORM could take off)")
    if len(args.n) > 1:
        low, high = min(args.n), max(args.n)
        for tool in args.tools:
            growth = results[f"{tool}/{high}"].median_us / results[f"{tool}/{low}"].median_us
            print(f"{tool:<18} per call at N={high} / at N={low}: ×{growth:.2f} (target ×1)")
    if k > 0:
        m = results["approve"]
        print(f"{'approve K=' + str(k):<18} {m.median_us:9.1f} µs/trip  "
              f"×{m.median_us / results['plain_approve'].median_us:8.0f} plain loop  "
              f"×{m.median_us / results['plain_sqlite_approve'].median_us:6.1f} plain+SQLite  "
              f"— {verdict(m.median_us, TARGET_TRIP_US)}")

    if args.labels:
        clean, labelled = results["labels_trusted"], results["labels_outside"]
        added = labelled.median_us / clean.median_us - 1
        print(f"{'labels':<18} {labelled.median_us:9.1f} µs/step with outside content seen, "
              f"{clean.median_us:.1f} without: {added:+.1%} per step "
              f"(end to end, within this machine's noise)")
        alone = results["labels_alone"].median_us / clean.median_us
        print(f"{'labels alone':<18} {results['labels_alone'].median_us:9.1f} µs/step: "
              f"{alone:+.2%} of a step — {'meets' if alone <= 0.10 else 'misses'} the target "
              "of +10%")

    if args.json:
        Path(args.json).write_text(json.dumps({
            key: {"name": m.name, "per": m.per, "samples_s": m.samples,
                  "per_item_median_us": m.median_us, "per_item_min_us": m.min_us}
            for key, m in results.items()
        }, indent=2))

    if args.profile is not None:
        for n in args.profile or [min(args.n)]:
            for tool in args.tools:
                bench = make_bench()
                try:
                    run_alone(bench, tool, n)  # warm
                    profile(f"signoff {tool}, one run of N={n}",
                            lambda b=bench, t=tool, n=n: run_alone(b, t, n), n, args.top)
                finally:
                    bench.close()
        if k > 0:
            bench = make_bench()
            try:
                run_approvals(bench, k)  # warm
                profile(f"signoff approve, one run of K={k}", lambda: run_approvals(bench, k), k,
                        args.top)
            finally:
                bench.close()


if __name__ == "__main__":
    main()
