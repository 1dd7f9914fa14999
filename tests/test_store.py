"""The store: the database engine, and the driver's errors told as signoff's own."""

from __future__ import annotations

import re
import socket
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from signoff import App, StoreError, TaskStatus, UserError
from signoff.store import database as database_module
from signoff.store.database import SECOND_WRITER, Database
from signoff.testing import ScriptedModel, says
from tests.test_loop import Tally, _counter


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_an_unreachable_database_is_a_store_error() -> None:
    """A PostgreSQL server that is not there: StoreError naming the database, password hidden."""
    url = f"postgresql+psycopg://someone:secret@127.0.0.1:{_closed_port()}/nowhere"
    app = App("t", database=url)
    with pytest.raises(StoreError) as refused:
        app.people.all()
    assert "could not be used" in str(refused.value)
    assert "secret" not in str(refused.value)
    assert refused.value.url.startswith("postgresql+psycopg://someone:***@127.0.0.1")


def test_a_refused_statement_is_a_store_error(tmp_path: Path) -> None:
    """A statement the database refuses comes out as StoreError, and nothing is kept."""
    database = Database(f"sqlite:///{tmp_path / 'x.db'}")
    with database.connect() as connection:
        connection.execute(text("CREATE TABLE t (n INTEGER NOT NULL)"))
    def insert_two() -> None:
        with database.connect() as connection:
            connection.execute(text("INSERT INTO t VALUES (1)"))
            connection.execute(text("INSERT INTO t VALUES (NULL)"))

    with pytest.raises(StoreError, match="refused a statement: NOT NULL constraint failed"):
        insert_two()
    with database.connect() as connection:
        assert connection.execute(text("SELECT count(*) FROM t")).scalar_one() == 0
    database.dispose()


def test_a_bad_url_is_a_user_error() -> None:
    """A URL SQLAlchemy cannot read is the developer's mistake: UserError with an example."""
    with pytest.raises(UserError, match=r"sqlite:///app\.db"):
        Database("not a url at all")


@pytest.mark.parametrize(("url", "install"), [
    ("mysql://u@127.0.0.1/db", "pip install mysqlclient"),
    ("mysql+pymysql://u@127.0.0.1/db", "pip install PyMySQL"),
    ("postgresql+psycopg2://u@127.0.0.1/db", "pip install psycopg2-binary; or name psycopg 3"),
    ("mssql+pyodbc://u@dsn", "pip install pyodbc"),
])
def test_a_missing_driver_names_the_package_pip_installs(url: str, install: str) -> None:
    """A URL whose driver is not installed names what to install (its package, where the
    module is named otherwise): UserError, a misuse."""
    with pytest.raises(UserError, match="which is not installed") as refused:
        Database(url)
    assert f"installed: {install}" in str(refused.value)


def test_a_second_sqlite_transaction_inside_one_is_refused_at_once(tmp_path: Path) -> None:
    """A thread holding a SQLite transaction that opens another would wait on its own lock:
    it is told at once instead, and the first transaction still works."""
    database = Database(f"sqlite:///{tmp_path / 'x.db'}")
    with database.connect() as outer:
        outer.execute(text("CREATE TABLE t (n INTEGER)"))
        with pytest.raises(UserError, match="would wait on itself"), database.connect():
            pass
        outer.execute(text("INSERT INTO t VALUES (1)"))
    with database.connect() as connection:
        assert connection.execute(text("SELECT count(*) FROM t")).scalar_one() == 1
    database.dispose()


def test_signoff_begins_no_writer_inside_an_apps_session_on_sqlite(tmp_path: Path) -> None:
    """Inside an `app.session()` block that has written, the thread holds SQLite's write lock:
    an agent's task, or an action that writes, would wait on it for the database's timeout (30
    s) and fail "database is locked" (the action's run as "a reason the app did not foresee").
    Both are refused at once, saying what to do; a query still runs, and after the block both
    do."""
    shop = _counter(f"sqlite:///{tmp_path / 'shop.db'}")
    script = ScriptedModel(says.tool(shop.add, a=1, b=2), says.hand_back(Tally(total=3)))
    with shop.app.session(as_=shop.noor) as session:
        session.get(shop.Counter, shop.counter.id).value = 5
        session.flush()
        with pytest.raises(UserError, match=re.escape(SECOND_WRITER)):
            shop.app.agent(shop.Trusted).do(shop.Sum(), model=script)
        with pytest.raises(UserError, match="add cannot run here: this thread already holds "
                                            "SQLite's write lock"):
            shop.app.actions.run("add", {"a": 1, "b": 2}, as_=shop.noor)
    assert shop.app.actions.run("add", {"a": 1, "b": 2}, as_=shop.noor).value == 3
    assert shop.app.agent(shop.Trusted).do(shop.Sum(), model=script).status is TaskStatus.DONE
    with shop.app.session(as_=shop.noor) as session:
        assert session.get(shop.Counter, shop.counter.id).value == 5


@pytest.mark.parametrize("kind", ["file", "postgres"])
def test_a_held_connection_serves_every_transaction_of_its_thread(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest,
) -> None:
    """While a thread holds a connection, its transactions and sessions use it and the pool
    lends nothing more; what each transaction wrote is committed; after the block the
    connection goes back."""
    from signoff.security.acting import SYSTEM
    from signoff.security.sessions import open_session

    url = (request.getfixturevalue("postgres_database") if kind == "postgres"
           else f"sqlite:///{tmp_path / 'x.db'}")
    database = Database(url)
    with database.connect() as connection:
        connection.execute(text("CREATE TABLE t (n INTEGER)"))
    pool = database.engine.pool
    with database.holding():
        held = database.held_connection()
        assert held is not None
        lent = pool.checkedout()  # type: ignore[attr-defined]
        for n in range(3):
            with database.connect() as connection:
                assert connection is held
                assert database.held_connection() is None  # in a transaction now
                connection.execute(text("INSERT INTO t VALUES (:n)"), {"n": n})
        session = open_session(database, SYSTEM)
        with session.begin():
            assert session.connection().connection.dbapi_connection is \
                held.connection.dbapi_connection
            session.execute(text("INSERT INTO t VALUES (3)"))
        session.close()
        with database.holding():  # holding again inside changes nothing
            assert database.held_connection() is held
        assert pool.checkedout() == lent  # type: ignore[attr-defined]
    assert database.held_connection() is None
    assert pool.checkedout() == 0  # type: ignore[attr-defined]
    other = Database(url)  # another process's view: everything was committed
    with other.connect() as connection:
        assert connection.execute(text("SELECT count(*) FROM t")).scalar_one() == 4
    other.dispose()
    database.dispose()


def test_inside_a_held_transaction_a_second_one_is_still_refused_on_sqlite(tmp_path: Path) -> None:
    database = Database(f"sqlite:///{tmp_path / 'x.db'}")
    with (database.holding(), database.connect(),
          pytest.raises(UserError, match="would wait on itself"), database.connect()):
        pass
    database.dispose()


def test_an_interrupt_inside_a_statement_reaches_the_caller_as_it_is(tmp_path: Path) -> None:
    """Ctrl-C while a statement runs (`signoff worker` stopped mid-look) invalidates the
    connection; the transaction ends, and the caller is given the KeyboardInterrupt itself, not
    an error of the connection left behind. The database serves the next transaction."""
    from sqlalchemy import event

    database = Database(f"sqlite:///{tmp_path / 'interrupted.db'}")
    interrupted: list[str] = []

    def interrupt(*_args: object) -> None:
        if not interrupted:
            interrupted.append("once")
            raise KeyboardInterrupt

    event.listen(database.engine, "before_cursor_execute", interrupt)
    with pytest.raises(KeyboardInterrupt), database.connect() as db:
        db.execute(text("SELECT 1"))
    assert interrupted == ["once"]
    with database.connect() as db:
        assert db.execute(text("SELECT 2")).scalar() == 2
    database.dispose()


def test_threads_take_turns_at_a_database_in_memory() -> None:
    """A database in memory is one connection every thread shares: a second thread's transaction
    waits until the first's has committed, then sees what it wrote; no statement of one runs
    inside the other's transaction."""
    database = Database("sqlite://")
    with database.connect() as connection:
        connection.execute(text("CREATE TABLE t (n INTEGER NOT NULL)"))
    first_in, second_tried = threading.Event(), threading.Event()
    seen: list[Any] = []

    def first() -> None:
        with database.connect() as connection:
            connection.execute(text("INSERT INTO t VALUES (1)"))
            first_in.set()
            second_tried.wait(timeout=10)
            time.sleep(0.2)  # (the second is waiting to begin by now, or would have mixed in)
            connection.execute(text("INSERT INTO t VALUES (2)"))

    def second() -> None:
        first_in.wait(timeout=10)
        second_tried.set()
        try:
            with database.connect() as connection:
                seen.append(sorted(connection.execute(text("SELECT n FROM t")).scalars()))
                connection.execute(text("INSERT INTO t VALUES (3)"))
        except Exception as error:  # (told below)
            seen.append(error)

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert seen == [[1, 2]]
    with database.connect() as connection:
        assert sorted(connection.execute(text("SELECT n FROM t")).scalars()) == [1, 2, 3]


def test_a_failed_transaction_in_memory_lets_the_next_thread_in() -> None:
    """A transaction in memory that a statement's refusal rolls back ends its turn: another
    thread's transaction begins after it, and the database keeps what was committed."""
    database = Database("sqlite://")
    with database.connect() as connection:
        connection.execute(text("CREATE TABLE t (n INTEGER NOT NULL)"))
        connection.execute(text("INSERT INTO t VALUES (1)"))
    with pytest.raises(StoreError), database.connect() as connection:
        connection.execute(text("INSERT INTO t VALUES (NULL)"))
    done: list[list[int]] = []

    def other() -> None:
        with database.connect() as connection:
            done.append(sorted(connection.execute(text("SELECT n FROM t")).scalars()))

    thread = threading.Thread(target=other)
    thread.start()
    thread.join(timeout=30)
    assert done == [[1]]


def test_a_transaction_that_waits_too_long_to_begin_is_a_store_error(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A transaction that cannot begin before its wait is over ("database is locked": another
    holds the database) comes out as StoreError naming the database, not as the driver's own
    error (SQLAlchemy does not wrap what fails as a transaction begins)."""
    monkeypatch.setattr(database_module, "_WAIT_SECONDS", 0.2)
    database = Database("sqlite://")
    with database.connect() as connection:
        connection.execute(text("CREATE TABLE t (n INTEGER NOT NULL)"))
    inside, over = threading.Event(), threading.Event()

    def holder() -> None:
        with database.connect() as connection:
            connection.execute(text("INSERT INTO t VALUES (1)"))
            inside.set()
            over.wait(timeout=30)

    thread = threading.Thread(target=holder)
    thread.start()
    try:
        assert inside.wait(timeout=30)
        with pytest.raises(StoreError) as refused, database.connect() as connection:
            connection.execute(text("SELECT n FROM t"))
        assert str(refused.value) == "The database sqlite:// could not be used: database is locked."
    finally:
        over.set()
        thread.join(timeout=30)
    with database.connect() as connection:  # the holder's turn ended: the next one begins
        assert list(connection.execute(text("SELECT n FROM t")).scalars()) == [1]


def test_a_connection_handed_back_in_memory_never_ends_anothers_transaction() -> None:
    """The pool resets a connection handed back with a rollback; in memory every thread shares
    one, and a thread that hands back its connection (having begun nothing) must not roll back
    the transaction another thread has open: what that one then commits is kept."""
    database = Database("sqlite://")
    with database.connect() as connection:
        connection.execute(text("CREATE TABLE t (n INTEGER NOT NULL)"))
    inside, handed_back = threading.Event(), threading.Event()

    def writer() -> None:
        with database.connect() as connection:
            connection.execute(text("INSERT INTO t VALUES (1)"))
            inside.set()
            handed_back.wait(timeout=30)
            connection.execute(text("INSERT INTO t VALUES (2)"))

    thread = threading.Thread(target=writer)
    thread.start()
    assert inside.wait(timeout=30)
    database.engine.connect().close()  # checked out and back: the pool's rollback
    handed_back.set()
    thread.join(timeout=30)
    with database.connect() as connection:
        assert sorted(connection.execute(text("SELECT n FROM t")).scalars()) == [1, 2]


def test_tables_first_needed_by_a_read_are_made_as_a_writer_makes_them(tmp_path: Path) -> None:
    """An app whose first use of its database file is a read (`Database.reading`: a person
    looked up) makes its tables then, while another connection is writing: the tables are made
    in a transaction that takes the write lock as it begins, so it waits for the writer and
    goes on. Begun as the read's (a reader's), it read the schema, could not write it while
    the other wrote, and failed at once: "database is locked"."""
    path = tmp_path / "shop.db"
    writer = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("CREATE TABLE other (n INTEGER)")
    app = App("shop", database=f"sqlite:///{path}")
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("INSERT INTO other VALUES (1)")
    committing = threading.Timer(0.5, writer.commit)
    committing.start()
    try:
        assert app.people.find("nobody@shop.example") is None
    finally:
        committing.join(timeout=30)
        writer.close()
    app.people.add("ada@shop.example", "Ada")  # the tables are there
    assert app.people.get("ada@shop.example").name == "Ada"
    app.database.dispose()


def test_json_columns_read_back_what_was_written(database: str) -> None:
    """A JSON column is written by orjson where it can be (signoff.store.json_text) and read
    back as the standard library's JSON would: an int beyond 64 bits exactly, keys that are not
    strings as strings, text beyond ASCII as it was, and on SQLite (PostgreSQL's JSON refuses
    them) floats that are not finite as they were."""
    from sqlalchemy import JSON, Column, Integer, MetaData, Table, insert, select

    store = Database(database)
    table = Table("json_kept", MetaData(), Column("n", Integer, primary_key=True),
                  Column("value", JSON))
    with store.connect() as db:
        table.create(db, checkfirst=True)
    values: list[Any] = [
        {"big": 2**70, "nested": [1, {"n": -(2**80)}]},
        {1: "one", None: "none", 2.5: "half"},
        {"said": "Zoë paid 5 € — “fine”", "null": None},
        [0.1, 1e300, -0.0, 12],
    ]
    if store.is_sqlite:
        values.append({"inf": float("inf"), "ninf": float("-inf")})
    with store.connect() as db:
        db.execute(insert(table), [{"n": n, "value": v} for n, v in enumerate(values)])
    with store.connect() as db:
        read = dict(db.execute(select(table.c.n, table.c.value)).all())
    assert read[0] == values[0]
    assert read[0]["big"] == 2**70
    assert read[1] == {"1": "one", "null": "none", "2.5": "half"}
    assert read[2] == values[2]
    assert read[3] == values[3]
    if store.is_sqlite:
        assert read[4] == {"inf": float("inf"), "ninf": float("-inf")}
    store.dispose()


def test_json_text_is_orjsons_unless_the_standard_librarys_would_differ() -> None:
    """Text holding a null is orjson's when the value holds only JSON's own types and finite
    floats (it was written again by the standard library whenever it held a null, as every
    step's does); a float that is not finite anywhere in it, a key that is not text, or a type
    JSON has not, is written by the standard library, as it reads back."""
    import json

    import orjson

    from signoff.store.json_text import dumps

    plain = {"calls": [{"value": None, "cost": 0.25, "ran_as": ["Alone"], "n": 3, "ok": True}],
             "pair": (1, None)}
    assert dumps(plain) == orjson.dumps(plain).decode()
    for differing in ({"calls": [{"value": None, "cost": float("inf")}]},
                      [None, [float("nan")]], {"k": None, 1: "one"}, {float("nan"): None}):
        assert dumps(differing) == json.dumps(differing), differing
