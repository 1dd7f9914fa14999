"""Revision 0007 (issue 11) turns what the release before the journal wrote — each task's
messages, tool calls and receipt entries — into its journal of steps, on SQLite and PostgreSQL.

The old rows are written by the old code itself: the package as it was at `BEFORE_JOURNAL`,
taken from the repository's history and run in a process of its own, does a task that finishes
after an alone call and one left waiting on a proposal, and tells what it stored. This process
then upgrades the same database and reads it back.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import MetaData, Table, create_engine, select, text

ROOT = Path(__file__).resolve().parent.parent
BEFORE_JOURNAL = "d5ac185"
"""main before the journal: the release whose tables the migration converts."""

_OLD_WORK = r'''
"""Done with the old package: one task finished after an alone call, one waiting on a
proposal; what was stored, as JSON on stdout."""
import json, sys
from datetime import UTC
from pathlib import Path

import signoff
from signoff import Price
from signoff.store.tables import messages, proposals, tasks, tool_calls
from signoff.testing import ScriptedModel, says
from sqlalchemy import select
from tests.guarantees_app import Report, build

url, outbox = sys.argv[1], Path(sys.argv[2])
PRICE = Price(input_per_mtok=1.0, output_per_mtok=2.0)
shop = build(url, outbox)
clerk = shop.app.agent(shop.Clerk)
done = clerk.do(shop.Tend(), None, model=ScriptedModel(
    says.tool("Up by two.", shop.raise_level, box=shop.box.id, by=2, tag="old"),
    says.hand_back(Report(summary="Raised.")), price=PRICE))
waiting = clerk.do(shop.Tend(), None, model=ScriptedModel(
    says.tools(says.tool(shop.jot, box=shop.box.id, note="before"),
               says.tool(shop.set_level, box=shop.box.id, level=7), why="Note, then set."),
    says.hand_back(Report(summary="Set.")), price=PRICE))

def iso(when):
    if when is None:
        return None
    return (when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)).isoformat()

stored = {"package": signoff.__file__, "done": done.task, "waiting": waiting.task,
          "status": {done.task: str(done.status.value), waiting.task: str(waiting.status.value)},
          "receipts": {}, "conversations": {}, "calls": {}, "heads": {}}
for task in (done.task, waiting.task):
    stored["receipts"][task] = [
        [str(getattr(e.kind, "value", e.kind)), e.words, e.data, e.cost_usd, iso(e.at)]
        for e in shop.app.receipt(task).entries]
with shop.app.database.engine.connect() as db:
    for task in (done.task, waiting.task):
        stored["conversations"][task] = [r[0] for r in db.execute(
            select(messages.c.data).where(messages.c.task_id == task).order_by(messages.c.seq))]
        stored["calls"][task] = [
            {**{k: v for k, v in r._mapping.items() if k not in ("task_id", "started_at",
                                                                "finished_at")},
             **{k: iso(r._mapping[k]) for k in ("started_at", "finished_at")
                if r._mapping[k] is not None}}
            for r in db.execute(select(tool_calls).where(tool_calls.c.task_id == task)
                                .order_by(tool_calls.c.turn, tool_calls.c.position))]
        head = db.execute(select(tasks.c.turn, tasks.c.message_count).where(
            tasks.c.id == task)).one()
        stored["heads"][task] = list(head)
    stored["proposals"] = [list(r) for r in db.execute(
        select(proposals.c.id, proposals.c.tool_call_id, tool_calls.c.call_id).join(
            tool_calls, tool_calls.c.id == proposals.c.tool_call_id))]
shop.app.database.dispose()
print(json.dumps(stored))
'''


@pytest.fixture(scope="module")
def old_package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The package (and the test app it was tested with) as it was before the journal."""
    where = tmp_path_factory.mktemp("before-journal")
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", BEFORE_JOURNAL, "signoff", "tests/__init__.py",
         "tests/box_world.py", "tests/guarantees_app.py"],
        capture_output=True, check=False)
    assert archive.returncode == 0, (
        f"These tests need the repository's history (commit {BEFORE_JOURNAL}): run them in a "
        f"git clone, not an export. {archive.stderr.decode()}")
    subprocess.run(["tar", "-x", "-C", str(where)], input=archive.stdout, check=True)
    return where


def _written_by_old_code(old_package: Path, url: str, outbox: Path) -> dict[str, Any]:
    """Run the old package's work on `url`; what it stored."""
    outbox.mkdir(exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(old_package)}
    ran = subprocess.run([sys.executable, "-c", _OLD_WORK, url, str(outbox)], cwd=old_package,
                         env=env, capture_output=True, text=True, timeout=300, check=False)
    assert ran.returncode == 0, ran.stderr
    stored: dict[str, Any] = json.loads(ran.stdout)
    assert Path(stored["package"]).is_relative_to(old_package)  # the old code wrote it
    assert stored["status"] == {stored["done"]: "Done", stored["waiting"]: "Waiting"}
    return stored


@pytest.fixture
def old_database(database: str, old_package: Path, tmp_path: Path) -> tuple[str, dict[str, Any]]:
    """A database (SQLite file or PostgreSQL) as the old code left it, and what it stored."""
    return database, _written_by_old_code(old_package, database, tmp_path / "outbox")


@pytest.fixture
def connection(old_database: tuple[str, dict[str, Any]]) -> Iterator[Any]:
    """A connection to the old database."""
    engine = create_engine(old_database[0])
    try:
        with engine.connect() as connection:
            yield connection
    finally:
        engine.dispose()


# -- reading the journal as the spec of its rows says --------------------------------------------


def _table(connection: Any, name: str) -> Table:
    """Table `name` as the database has it now (read with its types: JSON parsed, times)."""
    return Table(name, MetaData(), autoload_with=connection)


def _journal(connection: Any, task: str) -> list[dict[str, Any]]:
    """Task `task`'s journal rows, in order."""
    steps = _table(connection, "signoff_steps")
    return [dict(r) for r in connection.execute(select(
        steps.c.seq, steps.c.turn, steps.c.kind, steps.c.cost_usd, steps.c.data).where(
        steps.c.task_id == task).order_by(steps.c.seq)).mappings()]


def _conversation(journal: list[dict[str, Any]]) -> list[Any]:
    return [m for row in journal for m in row["data"].get("messages", ())]


def _receipt(journal: list[dict[str, Any]]) -> list[list[Any]]:
    return [[e["kind"], e["words"], e["data"], e["cost_usd"], _iso(e["at"])]
            for row in journal for e in row["data"].get("entries", ())]


def _calls(journal: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    folded: dict[str, dict[str, Any]] = {}
    for row in journal:
        for change in row["data"].get("calls", ()):
            folded.setdefault(change["id"], {}).update(change)
            assert folded[change["id"]]["turn"] == row["turn"], "a call is stored in its turn"
    return folded


def _iso(when: str) -> str:
    return datetime.fromisoformat(when).astimezone(UTC).isoformat()


def _upgraded(connection: Any) -> None:
    from signoff.store.migrate import upgrade

    connection.rollback()  # what was read before
    with connection.begin():
        upgrade(connection)


def _taken_back(connection: Any) -> None:
    from signoff.store.migrate import downgrade

    connection.rollback()  # what was read before
    with connection.begin():
        downgrade(connection, "0006_issue15")


def _journal_matches(connection: Any, stored: dict[str, Any]) -> None:
    """Each task's journal holds exactly what the old code stored of it, in the rows the
    migration promises."""
    for task in (stored["done"], stored["waiting"]):
        journal = _journal(connection, task)
        assert [r["seq"] for r in journal] == list(range(1, len(journal) + 1))
        assert _conversation(journal) == stored["conversations"][task]
        assert _receipt(journal) == [[*e[:4], _iso(e[4])] for e in stored["receipts"][task]]
        assert _calls(journal) == {c["id"]: {**c, "task_id": task} for c in stored["calls"][task]}
        entries = len(stored["receipts"][task])
        turns = sorted({c["turn"] for c in stored["calls"][task]})
        assert [(r["turn"], r["kind"]) for r in journal] == [
            (0, "messages"),
            *[(0, e[0]) for e in stored["receipts"][task]],
            *[(t, "calls") for t in turns]]
        assert [r["cost_usd"] for r in journal[1:1 + entries]] == [
            e[3] for e in stored["receipts"][task]]
        seq = connection.execute(text("SELECT seq FROM signoff_tasks WHERE id = :t"),
                                 {"t": task}).scalar_one()
        assert seq == len(journal)
    proposals = connection.execute(text(
        "SELECT id, tool_call_id, call_id FROM signoff_proposals")).all()
    assert sorted(map(list, proposals)) == sorted(stored["proposals"])


def _old_tables_match(connection: Any, stored: dict[str, Any]) -> None:
    """The old tables, rebuilt, hold what the old code stored."""
    messages, entries, calls = (_table(connection, f"signoff_{name}")
                                for name in ("messages", "receipt_entries", "tool_calls"))
    for task in (stored["done"], stored["waiting"]):
        assert list(connection.execute(select(messages.c.data).where(
            messages.c.task_id == task).order_by(messages.c.seq)).scalars()) == stored[
            "conversations"][task]
        assert [[r.kind, r.words, r.data, r.cost_usd, _when(r.at)] for r in connection.execute(
            select(entries).where(entries.c.task_id == task).order_by(entries.c.id))] == [
            [*e[:4], _iso(e[4])] for e in stored["receipts"][task]]
        assert [{k: _when(v) if k in _TIMES else v for k, v in c.items()
                 if k != "task_id" and not (k in _TIMES and v is None)}
                for c in connection.execute(select(calls).where(calls.c.task_id == task)
                                            .order_by(calls.c.turn, calls.c.position)).mappings()
                ] == [{k: _iso(v) if k in _TIMES else v for k, v in c.items()}
                      for c in stored["calls"][task]]


_TIMES = ("started_at", "finished_at")


def _when(when: datetime) -> str:
    return (when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)).isoformat()


# -- the tests -------------------------------------------------------------------------------------


def test_the_upgrade_turns_the_old_rows_into_each_tasks_journal(
        old_database: tuple[str, dict[str, Any]], connection: Any) -> None:
    """Upgraded, each task's journal is its conversation (one step), its receipt entries (a
    step each, in order, with their cost) and its calls (a step per turn, in that turn, as they
    stood); the task head counts the steps, each proposal keeps its call's id, and the old
    tables are gone."""
    from sqlalchemy import inspect

    _, stored = old_database
    _upgraded(connection)
    _journal_matches(connection, stored)
    found = set(inspect(connection).get_table_names())
    assert not found & {"signoff_messages", "signoff_tool_calls", "signoff_receipt_entries"}
    assert {fk["referred_table"] for fk in inspect(connection).get_foreign_keys(
        "signoff_proposals")} == {"signoff_tasks"}


def test_taken_back_and_upgraded_again_nothing_is_lost(
        old_database: tuple[str, dict[str, Any]], connection: Any) -> None:
    """Taken back to 0006, the old tables hold again exactly what the old code stored (the
    proposals' foreign key to their calls restored); brought forward again, the journal is the
    same."""
    from sqlalchemy import inspect

    _, stored = old_database
    _upgraded(connection)
    first = {t: _journal(connection, t) for t in (stored["done"], stored["waiting"])}
    _taken_back(connection)
    _old_tables_match(connection, stored)
    assert "signoff_steps" not in inspect(connection).get_table_names()
    assert {fk["referred_table"] for fk in inspect(connection).get_foreign_keys(
        "signoff_proposals")} == {"signoff_tasks", "signoff_tool_calls"}
    _upgraded(connection)
    again = {t: _journal(connection, t) for t in (stored["done"], stored["waiting"])}
    assert [[(r["seq"], r["turn"], r["kind"], r["data"]) for r in rows]
            for rows in again.values()] == [[(r["seq"], r["turn"], r["kind"], r["data"])
                                              for r in rows] for rows in first.values()]
    _journal_matches(connection, stored)


def test_after_the_upgrade_the_new_code_reads_the_old_tasks_and_the_waiting_one_finishes(
        old_database: tuple[str, dict[str, Any]], tmp_path: Path) -> None:
    """Opened by the new code, the database is upgraded and holds exactly what tables.py
    declares; the finished task's receipt is the old one, entry for entry; the waiting task's
    proposal is listed, and its yes runs the call once (the record changed once, the alone call
    of its turn not run again); a worker of this process gives the task its model again, the
    model sees the old conversation and its turn's answers after it, and the task finishes.
    Taken back to 0006 and opened again, both receipts read as before."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from signoff import Price, TaskStatus
    from signoff.store.migrate import VERSION_TABLE
    from signoff.store.tables import metadata
    from signoff.testing import ScriptedModel, says
    from tests.box_world import Report
    from tests.guarantees_app import build

    url, stored = old_database
    done, waiting = stored["done"], stored["waiting"]
    shop = build(url, tmp_path / "outbox")  # opening the app upgrades its tables
    try:
        with shop.app.database.engine.connect() as connection:
            context = MigrationContext.configure(connection,
                                                 opts={"version_table": VERSION_TABLE})
            assert [d for d in compare_metadata(context, metadata)
                    if d[0] != "remove_table"] == []  # the app's records are not signoff's
        assert _receipt_of(shop, done) == _old_receipt(stored, done)
        assert shop.app.outcome(done).status is TaskStatus.DONE
        calls = stored["calls"][waiting]  # an alone call done, and the proposed one
        assert [c["state"] for c in calls] == ["done", "proposed"]

        (proposal,) = shop.app.proposals(task=waiting)
        assert [proposal.id, calls[1]["id"], calls[1]["call_id"]] in stored["proposals"]
        shop.app.approve(proposal, by=shop.noor)
        model = ScriptedModel(  # the script the old process played (it goes on at turn 2)
            says.tools(says.tool(shop.jot, box=shop.box.id, note="before"),
                       says.tool(shop.set_level, box=shop.box.id, level=7)),
            says.hand_back(Report(summary="Set.")), price=Price(input_per_mtok=1.0,
                                                               output_per_mtok=2.0))
        shop.app.worker(model_for=lambda _agent, _task: model).run_once()
        assert shop.app.outcome(waiting).status is TaskStatus.DONE

        with shop.app.session(as_=shop.app.system) as s:
            assert s.get(shop.Box, shop.box.id).level == 7
            marks = [m.tool for m in s.scalars(select(shop.Mark))]
        assert sorted(marks) == ["jot", "raise_level", "set_level"]  # each call ran once

        (seen,) = model.seen.messages  # one model turn after the upgrade
        before = stored["conversations"][waiting]
        assert [m.to_json() for m in seen[:len(before)]] == before
        added = seen[len(before):]  # the turn's answers: the alone call's, kept from before
        assert [(m.role, m.tool_call_id) for m in added] == [  # the upgrade, and the yes's
            ("tool", c["call_id"]) for c in calls]
        assert calls[0]["answer"] in added[0].text
        assert "Level 7." in added[1].text

        after = {task: _receipt_of(shop, task) for task in (done, waiting)}
        assert after[waiting][:len(stored["receipts"][waiting])] == _old_receipt(
            stored, waiting)
        assert len(after[waiting]) > len(stored["receipts"][waiting])
    finally:
        shop.app.database.dispose()

    engine = create_engine(url)  # what the new code wrote, taken back and brought forward
    try:
        with engine.connect() as connection:
            _taken_back(connection)
    finally:
        engine.dispose()
    again = build(url, tmp_path / "outbox")
    try:
        assert {task: _receipt_of(again, task) for task in (done, waiting)} == after
        assert again.app.outcome(waiting).status is TaskStatus.DONE
    finally:
        again.app.database.dispose()


def _receipt_of(shop: Any, task: str) -> list[list[Any]]:
    """Task `task`'s receipt, read by the app, as the old process wrote it out."""
    return [[str(getattr(e.kind, "value", e.kind)), e.words, e.data, e.cost_usd, _when(e.at)]
            for e in shop.app.receipt(task).entries]


def _old_receipt(stored: dict[str, Any], task: str) -> list[list[Any]]:
    return [[*e[:4], _iso(e[4])] for e in stored["receipts"][task]]
