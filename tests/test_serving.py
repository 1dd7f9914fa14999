"""A served session's lease: written before its first task, renewed while served, removed as it
closes; a server of another machine is taken for stopped once its lease has run out, one of
this machine once its process is gone, and a live one never."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import insert, select, text

from signoff import App
from signoff.agents import holds, serving
from signoff.store.tables import servings


def _leased(app: App, work: str, server: str, until: datetime) -> None:
    with app.database.connect() as db:
        db.execute(insert(servings).values(work_id=work, agent="clerk", server=server,
                                           until=until))


def test_a_session_whose_server_has_stopped_is_told_and_a_live_ones_never(database: str) -> None:
    """Of four sessions of the agent: one served by another machine whose lease holds, one by
    another machine whose lease ran out, one by a process of this machine that is gone, one
    by this process (its lease run out, but it still runs): the second and third are stopped."""
    app = App("t", database=database)
    app.database.ensure_schema()
    now = datetime.now(UTC)
    host, _pid, started, _ = holds.holder_id().rsplit(":", 3)
    _leased(app, "w-elsewhere-live", "elsewhere.example:4242:99:1", now + timedelta(minutes=1))
    _leased(app, "w-elsewhere-gone", "elsewhere.example:4242:99:1", now - timedelta(seconds=1))
    _leased(app, "w-here-gone", f"{host}:999999:{started}:1", now + timedelta(minutes=1))
    _leased(app, "w-this-process", holds.holder_id(), now - timedelta(seconds=1))
    assert sorted(serving.stopped(app.database, "clerk")) == ["w-elsewhere-gone", "w-here-gone"]
    assert serving.stopped(app.database, "another") == []
    serving.forget(app.database, "w-here-gone")
    assert sorted(serving.stopped(app.database, "clerk")) == ["w-elsewhere-gone"]
    app.database.dispose()


def test_a_lease_is_written_as_serving_starts_and_removed_as_it_ends(database: str) -> None:
    """`Serving.start` writes the session's lease, this process's, until a minute on; `end`
    removes it."""
    app = App("t", database=database)
    app.database.ensure_schema()
    lease = serving.Serving(app.database, "w-1", "clerk")
    lease.start()
    with app.database.connect() as db:
        (row,) = db.execute(select(servings)).all()
    assert (row.work_id, row.agent, row.server) == ("w-1", "clerk", holds.holder_id())
    assert serving.stopped(app.database, "clerk") == []
    lease.end()
    with app.database.connect() as db:
        assert db.execute(select(servings)).all() == []
    app.database.dispose()


def test_a_lease_that_cannot_be_renewed_is_told_by_what_it_is_of(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """A session's lease whose renewal fails (its table gone here) is logged as the MCP
    session's, not as a call's, and tried again."""
    import logging
    import time

    from signoff.agents import runs

    monkeypatch.setattr(runs, "RENEW_EVERY", 0.1)
    app = App("t", database=f"sqlite:///{tmp_path / 't.db'}")
    app.database.ensure_schema()
    lease = serving.Serving(app.database, "w-1", "clerk")
    with caplog.at_level(logging.WARNING, logger="signoff.agents"):
        lease.start()
        with app.database.connect() as db:
            db.execute(text("DROP TABLE signoff_servings"))
        told = "The lease of the MCP session of work w-1 could not be renewed"
        deadline = time.monotonic() + 10  # (another test's lease may be told meanwhile)
        while told not in caplog.text and time.monotonic() < deadline:
            time.sleep(0.05)
    lease._renewing.close()
    assert told in caplog.text
    app.database.dispose()


def test_a_lease_dropped_without_being_ended_is_let_go(tmp_path: Path) -> None:
    """A session's lease no one holds any more (its server dropped without closing it) is let
    go as it is collected: no longer renewed here; its row stays, for the next server to end
    the session's tasks once it has run out."""
    import gc

    from signoff.agents import runs

    app = App("t", database=f"sqlite:///{tmp_path / 't.db'}")
    app.database.ensure_schema()
    lease = serving.Serving(app.database, "w-dropped", "clerk")
    lease.start()
    assert ("work", "w-dropped") in runs.held()
    del lease
    gc.collect()
    assert ("work", "w-dropped") not in runs.held()
    with app.database.connect() as db:
        assert [r.work_id for r in db.execute(select(servings))] == ["w-dropped"]
    app.database.dispose()
