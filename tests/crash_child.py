"""The app, scenario and child processes of the crash and concurrency tests.

Run by ``tests/test_crash.py`` as ``python -m tests.crash_child campaign ...``: one process that
imports everything once and then, for each step boundary k, forks a child that runs the scenario
and SIGKILLs itself at boundary k, then forks a fresh child that reopens the same database,
recovers and finishes. Run by ``tests/test_concurrency.py`` through ``multiprocessing`` (spawn):
``decide`` is the body of each of the eight deciders.

Killing at a commit boundary rather than after chosen repository functions (``save_task``,
``update_call``, ``claim_proposal``...) catches every point where the database changes, including
an action's own transaction (its writes with its tool-call row), which no repository function
ends, and it needs no list to keep up to date as the loop changes.

The app: a `Box` holds a level and a note; every record-only action also writes one `Mark` row,
so a count of marks is a count of runs. ``post_letter`` appends a line to a file (it reaches
outside, and is not idempotent); ``mirror`` overwrites a file (outside, ``idempotent=True``);
``send_invoice`` appends a line to another file, and is proposed. The three answer in the app's
own words (``untrusted=False``): what they return is no outside content.

Boundaries are counted by wrapping, in the child only, every commit that wrote something:
``Database.connect`` (signoff's own transactions: tasks, tool calls, proposals, receipts) and the
sessions an action runs in (its writes with its tool-call row), through SQLAlchemy's events and
the prepared statements signoff's bookkeeping runs on the driver's cursor. Each
writing transaction gives two boundaries: just before its commit (killed there, the transaction is
lost) and just after it (killed there, the database holds it and nothing after it ran). Reads
commit too, but they change nothing, so they are no boundary.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Annotated, Any

from sqlalchemy import event, select
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from signoff import (
    Agent,
    AgentRefused,
    App,
    Permits,
    ProposalStatus,
    Provided,
    Skill,
    Unavailable,
    policy,
)
from signoff.testing import ScriptedModel, says
from tests.box_world import Report, box_world

NOOR = "noor@crash.example"
LEVEL_APPROVED = 7
LEVEL_REJECTED = 9



def build(url: str, outbox: Path) -> SimpleNamespace:
    """The test app on database `url`, writing its outside effects under `outbox`."""
    app = App("crash", database=url, key=b"k" * 32)
    app.oversight.supervises_agents = policy.role("manager")

    Box, Mark, jot = box_world(app)

    letters = outbox / "letters.txt"
    mirror_file = outbox / "mirror.txt"
    invoices = outbox / "invoices.txt"
    payments = outbox / "payments.txt"
    bank_down = outbox / "bank-down"

    @app.action("Set the level")
    def set_level(box: Box, level: int, session: Annotated[Session, Provided("session")]) -> str:
        """Record-only: sets the level, and marks the run."""
        box.level = level
        session.add(Mark(tool="set_level", label=str(level)))
        return f"Level {level}."

    @app.action("Post a letter", untrusted=False)
    def post_letter(text: str) -> str:
        """Reaches outside, and is not idempotent: appends a line to the letters file."""
        with open(letters, "a", encoding="utf-8") as file:
            file.write(text + "\n")
        return "Posted."

    @app.action("Mirror the text", idempotent=True, untrusted=False)
    def mirror(text: str) -> str:
        """Reaches outside, idempotent: the mirror file holds `text`, however often it runs."""
        with open(mirror_file, "w", encoding="utf-8") as file:
            file.write(text + "\n")
        return "Mirrored."

    @app.action("Send an invoice", untrusted=False)
    def send_invoice(text: str) -> str:
        """Reaches outside, not idempotent, proposed: appends a line to the invoices file."""
        with open(invoices, "a", encoding="utf-8") as file:
            file.write(text + "\n")
        return "Sent."

    @app.action("Pay the bank", untrusted=False)
    def pay_bank(text: str) -> str:
        """Reaches outside, proposed: appends a line to the payments file, or, while the file
        `bank-down` is there, sends nothing and says the bank cannot be reached."""
        if bank_down.exists():
            raise Unavailable("The bank cannot be reached now: nothing was sent to it. Try "
                              "again later.")
        with open(payments, "a", encoding="utf-8") as file:
            file.write(text + "\n")
        return "Paid."

    class Tend(Skill[None, Report]):
        """Tend the box."""

        description = "Tend the box."
        tools = [jot, set_level, post_letter, mirror, send_invoice, pay_bank]

        def brief(self, subject: None) -> str:
            return "Tend the box."

    class Clerk(Agent):
        """Tends boxes."""

        purpose = "You tend boxes."
        skills = [Tend()]
        may = Permits(alone=[jot, post_letter, mirror])
        roles = ["clerk"]

    noor = app.people.find(NOOR)
    if noor is None:
        noor = app.people.add(NOOR, "Noor", roles=["manager"])
    app.add_agent(Clerk, sponsor=noor)
    return SimpleNamespace(app=app, Box=Box, Mark=Mark, Clerk=Clerk, Tend=Tend, noor=noor,
                           jot=jot, set_level=set_level, post_letter=post_letter, mirror=mirror,
                           send_invoice=send_invoice, letters=letters, mirror_file=mirror_file,
                           invoices=invoices, pay_bank=pay_bank, payments=payments,
                           bank_down=bank_down)


def box_of(shop: SimpleNamespace) -> Any:
    """The one box (made on first use)."""
    with shop.app.session(as_=shop.app.system) as s:
        box = s.scalars(select(shop.Box)).first()
        if box is None:
            box = shop.Box(name="B-1")
            s.add(box)
    return box


def script(shop: SimpleNamespace) -> ScriptedModel:
    """One turn of six calls (three alone, three proposed), one more alone call, the result."""
    box = box_of(shop)
    return ScriptedModel(
        says.tools(
            says.tool(shop.jot, box=box.id, note="checked"),
            says.tool(shop.post_letter, text="Dear customer"),
            says.tool(shop.mirror, text="level report"),
            says.tool(shop.set_level, box=box.id, level=LEVEL_APPROVED),
            says.tool(shop.set_level, box=box.id, level=LEVEL_REJECTED),
            says.tool(shop.send_invoice, text="Invoice 1"),
            why="Check, write, mirror, two levels to choose from, and an invoice.",
        ),
        says.tool(shop.jot, box=box.id, note="after"),
        says.hand_back(Report(summary="Tended.")),
    )


def decide_waiting(shop: SimpleNamespace) -> None:
    """Decide what waits, oldest first: yes to the approved level and to the invoice, no to the
    other level."""
    for proposal in reversed(shop.app.proposals(status=ProposalStatus.WAITING)):
        if proposal.arguments.get("level") == LEVEL_REJECTED:
            shop.app.reject(proposal, by=shop.noor, reason="Too high.")
        else:
            shop.app.approve(proposal, by=shop.noor)


# -- counting boundaries, in the child only ------------------------------------------------


_WRITES = ("insert", "update", "delete")


def arm(shop: SimpleNamespace, kill_at: int, log: Path) -> Callable[[], int]:
    """Kill this process at writing-commit boundary `kill_at` (1-based); the count so far."""
    from signoff.store import database as database_module

    engine = shop.app.database.engine
    seen = {"n": 0}

    def boundary(where: str) -> None:
        seen["n"] += 1
        with open(log, "a", encoding="utf-8") as file:
            file.write(f"{seen['n']} {where} in {_step_of_loop()}\n")
        if seen["n"] == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)

    def after_commit(where: str) -> None:
        if seen.pop("committing", 0):
            boundary(where)

    @event.listens_for(engine, "begin")
    def _begin(connection: Connection) -> None:
        after_commit("after commit")  # a commit made outside connect() or a session: here
        connection.info["wrote"] = False

    @event.listens_for(engine, "before_cursor_execute")
    def _write(connection: Connection, _cursor: Any, statement: str, *_: Any) -> None:
        if statement.lstrip().lower().startswith(_WRITES):
            connection.info["wrote"] = True

    @event.listens_for(engine, "commit")
    def _before_commit(connection: Connection) -> None:  # fired before the DBAPI commit
        if connection.info.get("wrote"):
            seen["committing"] = 1
            boundary("before commit")

    @event.listens_for(Session, "after_commit")
    def _after_session_commit(_session: Session) -> None:  # an action's run, committed
        after_commit("after commit (run)")

    # signoff's bookkeeping runs prepared statements on the driver's cursor, past SQLAlchemy's
    # cursor events: they say they write here.
    from signoff.store import prepared as prepared_module

    run_on = prepared_module.Prepared.run_on

    def run_prepared(self: Any, connection: Connection, params: Any) -> Any:
        if self.sql.lstrip().lower().startswith(_WRITES):
            connection.info["wrote"] = True
        return run_on(self, connection, params)

    prepared_module.Prepared.run_on = run_prepared  # type: ignore[method-assign]

    original = database_module.Database.connect

    @contextmanager
    def connect(self: Any) -> Iterator[Connection]:
        with original(self) as connection:
            yield connection
        after_commit("after commit")

    database_module.Database.connect = connect  # type: ignore[method-assign]
    return lambda: seen["n"]


def _step_of_loop() -> str:
    """The innermost function of signoff's agents or engine on the stack (what was committing)."""
    frame = sys._getframe(2)
    while frame is not None:
        path = frame.f_code.co_filename.replace(os.sep, "/")
        if "/signoff/agents/" in path and not path.endswith("/repository.py"):
            return frame.f_code.co_name
        frame = frame.f_back  # type: ignore[assignment]
    return "?"


# -- the phases ----------------------------------------------------------------------------


def run(shop: SimpleNamespace, kill_at: int, log: Path) -> None:
    """The scenario, uninterrupted unless boundary `kill_at` is reached."""
    model = script(shop)
    boundaries = arm(shop, kill_at, log)
    outcome = shop.app.agent(shop.Clerk).do(shop.Tend(), None, model=model)
    decide_waiting(shop)
    status = shop.app.outcome(outcome.task).status.value
    (log.parent / "run.json").write_text(json.dumps({"boundaries": boundaries(),
                                                     "status": status}))


def recover(shop: SimpleNamespace, report: Path) -> None:
    """A fresh process on the same database: recover, step, decide what still waits, finish.

    When the run was killed before its task was first stored, nothing of it exists and its
    caller never heard back: the work is started again, as that caller would."""
    model = script(shop)
    worker = shop.app.worker(model_for=lambda _agent, _task: model)
    worker.recover()
    worker.run_once()
    if not _task_ids(shop):
        shop.app.agent(shop.Clerk).do(shop.Tend(), None, model=model)
    decide_waiting(shop)
    worker.run_once()
    report.write_text(json.dumps({
        "tasks": [
            {"status": shop.app.outcome(t).status.value, "receipt": shop.app.receipt(t).words}
            for t in _task_ids(shop)
        ],
    }))


def _task_ids(shop: SimpleNamespace) -> list[str]:
    from signoff.store.tables import tasks

    with shop.app.database.connect() as db:
        return [r[0] for r in db.execute(select(tasks.c.id).order_by(tasks.c.created_at))]


def _fork(shop: SimpleNamespace, body: Callable[[], None]) -> int:
    """Run `body` in a forked child (a new process: no connection, no model, nothing of the
    last run but what the database and files hold); its exit code (-9: SIGKILLed)."""
    shop.app.database.dispose()  # no pooled connection crosses the fork
    pid = os.fork()
    if pid == 0:  # the child
        code = 0
        try:
            body()
        except BaseException:
            import traceback

            traceback.print_exc()
            code = 1
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def campaign(kind: str, work: Path, server: str, prefix: str) -> None:
    """Kill at k = 1, 2, … until the run completes before reaching k.

    The app is built once here, as a worker that imports its app would, on a "live" database
    and outbox; each k starts from a copy of a set-up template, runs in one forked child and
    recovers in another, and its database and outbox are then kept under the name ``k{k}``.
    Writes ``campaign.json`` in `work`, one entry per k."""
    live_outbox = work / "live"
    live_outbox.mkdir(parents=True)
    names = _Names(kind=kind, work=work, server=server, prefix=prefix)
    live = names.create("live")
    shop = build(live, live_outbox)
    box_of(shop)
    shop.app.database.dispose()
    template = names.keep(live, "template")
    live_outbox.rmdir()
    results = []
    k = 0
    while True:
        k += 1
        names.restore(template, live)
        live_outbox.mkdir()
        started = time.monotonic()
        log = live_outbox / "boundaries.log"
        ran = _fork(shop, lambda: run(shop, k, log))
        recovered = _fork(shop, lambda: recover(shop, live_outbox / "recover.json"))
        shop.app.database.dispose()
        kept = names.keep(live, f"k{k}")
        outbox = live_outbox.rename(work / f"k{k}")
        results.append({"k": k, "url": kept, "outbox": str(outbox), "run_exit": ran,
                        "recover_exit": recovered, "seconds": time.monotonic() - started})
        if ran != -signal.SIGKILL:
            break
    (work / "campaign.json").write_text(json.dumps(results))


@dataclass(frozen=True, kw_only=True)
class _Names:
    """Where the campaign's databases live: SQLite files in `work`, or PostgreSQL databases
    named ``{prefix}_{name}`` on `server`."""

    kind: str
    work: Path
    server: str
    prefix: str

    def create(self, name: str) -> str:
        """A new, empty database; its URL."""
        if self.kind == "sqlite":
            return f"sqlite:///{self.work / (name + '.db')}"
        _admin(self.server, f'CREATE DATABASE "{self.prefix}_{name}"')
        return _url(self.server, f"{self.prefix}_{name}")

    def keep(self, live: str, name: str) -> str:
        """Move the live database aside as `name` (every process on it has ended); its URL."""
        if self.kind == "sqlite":
            source = Path(live.removeprefix("sqlite:///"))
            target = self.work / f"{name}.db"
            for suffix in ("", "-wal", "-shm"):
                if Path(f"{source}{suffix}").exists():
                    Path(f"{source}{suffix}").rename(f"{target}{suffix}")
            return f"sqlite:///{target}"
        _admin(self.server, f'ALTER DATABASE "{self.prefix}_live" RENAME TO "{self.prefix}_{name}"')
        return _url(self.server, f"{self.prefix}_{name}")

    def restore(self, template: str, live: str) -> None:
        """Make the live database a copy of the template."""
        if self.kind == "sqlite":
            shutil.copyfile(template.removeprefix("sqlite:///"), live.removeprefix("sqlite:///"))
            return
        _admin(self.server,
               f'CREATE DATABASE "{self.prefix}_live" TEMPLATE "{self.prefix}_template"')


def _admin(server: str, statement: str) -> None:
    import psycopg

    with psycopg.connect(server, autocommit=True) as connection:
        connection.execute(statement)  # type: ignore[arg-type]


def _url(server: str, database: str) -> str:
    base = server.rsplit("/", 1)[0].replace("postgresql://", "postgresql+psycopg://", 1)
    return f"{base}/{database}"


# -- concurrency ---------------------------------------------------------------------------


def decide(url: str, outbox: str, proposal_id: str, verb: str, barrier: Any, results: Any) -> None:
    """One of the deciders: wait for the others, then approve or reject `proposal_id`; put
    (verb, "ok" | "refused" | "error", message) on `results`."""
    try:
        shop = build(url, Path(outbox))
        shop.app.proposal(proposal_id)  # everything imported and connected before the start
    except BaseException as error:
        barrier.abort()
        results.put((verb, "error", f"setup: {type(error).__name__}: {error}"))
        return
    barrier.wait()
    try:
        if verb == "approve":
            shop.app.approve(proposal_id, by=shop.noor)
        else:
            shop.app.reject(proposal_id, by=shop.noor, reason="No.")
    except AgentRefused as refused:
        results.put((verb, "refused", str(refused)))
    except Unavailable as unavailable:
        results.put((verb, "unavailable", str(unavailable)))
    except BaseException as error:
        import traceback

        results.put((verb, "error", f"{type(error).__name__}: {error}\n"
                     f"{''.join(traceback.format_tb(error.__traceback__))}"))
    else:
        results.put((verb, "ok", ""))
    finally:
        shop.app.database.dispose()


def propose_one(url: str, outbox: Path) -> str:
    """A task waiting on one proposal to set the level; the proposal's id."""
    shop = build(url, outbox)
    box = box_of(shop)
    model = ScriptedModel(
        says.tool("The level should be 7.", shop.set_level, box=box.id, level=LEVEL_APPROVED),
        says.hand_back(Report(summary="Levelled.")),
    )
    outcome = shop.app.agent(shop.Clerk).do(shop.Tend(), None, model=model)
    assert outcome.waiting, outcome
    (proposal,) = shop.app.proposals(task=outcome.task)
    shop.app.database.dispose()
    return proposal.id


if __name__ == "__main__":
    command, *rest = sys.argv[1:]
    if command == "campaign":
        campaign(rest[0], Path(rest[1]), server=rest[2], prefix=rest[3])
    else:
        raise SystemExit(f"unknown command {command!r}")
