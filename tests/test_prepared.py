"""Prepared statements: compiled once, run on the driver's cursor, with the columns' own
conversions — on SQLite and a real PostgreSQL server, against what SQLAlchemy itself reads."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    DateTime,
    Integer,
    MetaData,
    String,
    Table,
    bindparam,
    select,
    update,
)
from sqlalchemy.orm import Session

from signoff.store.database import Database
from signoff.store.prepared import Prepared, insert_of, prepare

metadata = MetaData()
things = Table(
    "prepared_things", metadata,
    Column("id", String(36), primary_key=True),
    Column("data", JSON, nullable=True),
    Column("flag", Boolean, nullable=False, default=False),
    Column("count", Integer, nullable=False, default=7),
    Column("at", DateTime(timezone=True), nullable=True),
)

AT = datetime(2026, 11, 29, 22, 41, 40, 123456, tzinfo=UTC)


@pytest.fixture(params=["file", "postgres"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    url = (request.getfixturevalue("postgres_database") if request.param == "postgres"
           else f"sqlite:///{tmp_path}/prepared.db")
    db = Database(url)
    db.holds(metadata)
    db.ensure_schema()
    yield db
    db.dispose()


def test_what_a_prepared_insert_writes_reads_back_as_sqlalchemy_reads_it(database: Database) -> None:
    with database.connect() as c:
        prepare(c, "insert", lambda: insert_of(things, ["id", "data", "at"])).run(
            c, {"id": "a", "data": {"x": [1, "two"], "y": None}, "at": AT})
    with database.connect() as c:
        row = c.execute(select(things).where(things.c.id == "a")).one()._mapping
        read = prepare(c, "read", lambda: select(things).where(things.c.id == bindparam("key"))
                       ).run(c, {"key": "a"}).first()
    # the plain defaults of the columns not given were filled in
    assert (row["flag"], row["count"]) == (False, 7)
    assert row["data"] == {"x": [1, "two"], "y": None}
    assert read is not None
    assert read == dict(row)
    assert read["flag"] is False
    assert read["at"].replace(tzinfo=UTC) == AT


def test_a_prepared_update_counts_the_rows_it_changed_and_commits_with_its_transaction(
    database: Database,
) -> None:
    with database.connect() as c:
        c.execute(things.insert().values(id="b", count=1))
    bump = update(things).where(things.c.id == bindparam("key"),
                                things.c.count == bindparam("was")).values(count=bindparam("now"))
    with database.connect() as c:
        assert prepare(c, "bump", lambda: bump).run(c, {"key": "b", "was": 1, "now": 2}).rowcount == 1
        assert prepare(c, "bump", lambda: bump).run(c, {"key": "b", "was": 1, "now": 3}).rowcount == 0
    def bump_then_fail() -> None:
        with database.connect() as c:
            prepare(c, "bump", lambda: bump).run(c, {"key": "b", "was": 2, "now": 9})
            raise RuntimeError("the transaction ends in an error")

    with pytest.raises(RuntimeError):
        bump_then_fail()
    with Session(database.engine) as session, session.begin():  # a session's connection too
        found = prepare(session, "count", lambda: select(things.c.count).where(
            things.c.id == bindparam("key"))).run(session, {"key": "b"})
        assert found.scalar() == 2  # the 9 was rolled back with its transaction


def test_a_statement_with_an_expanding_in_is_refused(database: Database) -> None:
    with pytest.raises(TypeError, match="expanding"):
        Prepared(select(things).where(things.c.id.in_(["a", "b"])), database.engine.dialect)


def test_a_statement_the_database_refuses_is_a_store_error_naming_it(tmp_path: Path,
                                                                    database: Database) -> None:
    """A prepared statement the database refuses (here a foreign key to nothing) raises
    `StoreError` with a sentence naming the database, as the Core path does, not the driver's
    own error; nothing of its transaction is kept."""
    from signoff import StoreError
    from signoff.agents import repository as repo
    from signoff.models.base import Message
    from signoff.store.tables import metadata as signoff_tables
    from signoff.store.tables import steps

    database.holds(signoff_tables)
    database.ensure_schema()
    with pytest.raises(StoreError, match="refused a statement") as raised, \
            database.connect() as c:
        repo.append_messages(c, "no-such-task", [Message(role="user", text="Hello.")])
    assert raised.value.url in str(raised.value)
    with database.connect() as c:
        assert c.execute(select(steps)).all() == []
