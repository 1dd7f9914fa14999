"""The transactions a loop runs on the connection it holds are the driver's own, begun and ended
on it directly: what they write commits or rolls back as one, whether it went through a prepared
statement, SQLAlchemy's Connection, or both; and while one is open, the thread is known to hold
SQLite's write lock."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Column, Integer, MetaData, Table, bindparam, insert, select

from signoff.exceptions import UserError
from signoff.store.database import Database
from signoff.store.prepared import prepare

metadata = MetaData()
notes = Table("notes", metadata, Column("id", Integer, primary_key=True))


def _database(tmp_path: Path) -> Database:
    database = Database(f"sqlite:///{tmp_path}/notes.db")
    database.holds(metadata)
    return database


def _ids(database: Database) -> list[int]:
    with database.engine.connect() as connection:
        return [row[0] for row in connection.execute(select(notes.c.id).order_by(notes.c.id))]


def _add(db: object, note: int) -> None:
    prepare(db, "add_note", lambda: insert(notes).values(id=bindparam("id"))).run(  # type: ignore[arg-type]
        db, {"id": note})  # type: ignore[arg-type]


class _Stop(Exception):
    pass


def test_a_prepared_statement_and_sqlalchemys_commit_together(tmp_path: Path) -> None:
    database = _database(tmp_path)
    with database.holding():
        with database.connect() as db:
            _add(db, 1)
            db.execute(insert(notes).values(id=2))  # (SQLAlchemy begins: the same transaction)
        with database.connect() as db:  # the held connection is free again
            _add(db, 3)
    assert _ids(database) == [1, 2, 3]


@pytest.mark.parametrize("through_sqlalchemy", [False, True])
def test_an_error_rolls_back_all_of_it(tmp_path: Path, through_sqlalchemy: bool) -> None:
    database = _database(tmp_path)

    def write_then_fail() -> None:
        with database.connect() as db:
            _add(db, 1)
            if through_sqlalchemy:
                db.execute(insert(notes).values(id=2))
            raise _Stop

    with database.holding():
        with pytest.raises(_Stop):
            write_then_fail()
        with database.connect() as db:
            _add(db, 3)
    assert _ids(database) == [3]


def test_a_second_writer_in_the_same_thread_is_refused_at_once(tmp_path: Path) -> None:
    database = _database(tmp_path)

    def second_writer() -> None:
        with database.engine.begin() as other:
            other.execute(insert(notes).values(id=2))

    with database.holding(), database.connect() as db:
        _add(db, 1)
        with pytest.raises(UserError, match="already holds SQLite's write lock"):
            second_writer()
    assert _ids(database) == [1]


def test_the_held_connection_is_not_lent_while_its_transaction_is_open(tmp_path: Path) -> None:
    database = _database(tmp_path)
    with database.holding():
        assert database.held_connection() is not None
        with database.connect():
            assert database.held_connection() is None
        assert database.held_connection() is not None
