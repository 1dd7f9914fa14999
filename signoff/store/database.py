"""One database per app: an engine configured for SQLite files, in-memory SQLite, or PostgreSQL."""

from __future__ import annotations

import json
import os
import random
import re
import sqlite3
import stat
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import orjson
from sqlalchemy import Engine, MetaData, create_engine, event
from sqlalchemy.engine import URL, Connection
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.pool import StaticPool

from signoff._extras import install_extra
from signoff.exceptions import StoreError, UserError
from signoff.store import journal, json_text
from signoff.store.hints import server_hint
from signoff.store.migrate import lock_schema

__all__ = ["READ_ONLY", "SECOND_WRITER", "Database", "database_url_for", "is_conflict", "reading_only"]

_reading = ContextVar("signoff_reading_only", default=False)

READ_ONLY = "signoff.read_only"
"""The mark a pooled connection carries (its ``info``) while it is made read-only for a query's
run (SQLite's query_only on): the dialect's name."""


@contextmanager
def reading_only() -> Iterator[None]:
    """SQLite transactions begun in this block begin as readers do, without taking the write
    lock (a query's run: it is made read-only once begun, and must not keep writers waiting)."""
    token = _reading.set(True)
    try:
        yield
    finally:
        _reading.reset(token)


def database_url_for(app_name: str) -> str:
    """The default database of an app named `app_name`: a SQLite file in the working directory."""
    return f"sqlite:///{app_name}.db"


class Database:
    """The engine an app's records and signoff's own tables share, and their schema.

    SQLite files run in WAL mode with foreign keys on; ``sqlite://`` is one in-memory database
    shared by every session of the process, on one connection whose transactions take turns
    (`_TakingTurns`); any other URL is handed to SQLAlchemy as it is.
    """

    def __init__(self, url: str) -> None:
        self.url = url
        """The SQLAlchemy URL this database was opened with."""
        self.engine: Engine = _engine_for(url)
        """The SQLAlchemy engine."""
        self.is_sqlite = self.engine.dialect.name == "sqlite"
        """Whether this is a SQLite database (file or memory)."""
        self._metadatas: list[MetaData] = []
        self._created: dict[int, int] = {}
        self._tables: list[Any] = []  # (each metadata's tables, in order)
        self._sizes: list[int | None] = []  # (how many of each were there when last created)
        self._migrations: dict[int, Callable[[Connection], None]] = {}
        self._held = _Held()  # whether this thread holds a transaction of connect()

    @property
    def file(self) -> str | None:
        """The SQLite file this database lives in, or None (memory, or another server)."""
        if self.is_sqlite and self.engine.url.database not in (None, "", ":memory:"):
            return self.engine.url.database
        return None

    def holds(self, metadata: MetaData, *,
              migrations: Callable[[Connection], None] | None = None) -> None:
        """Keep the tables of `metadata` in this database: brought up to date by `migrations`
        when given (signoff's own tables), else created when first needed (the app's records,
        including classes declared since last time)."""
        if all(m is not metadata for m in self._metadatas):
            self._metadatas.append(metadata)
            self._tables.append(metadata.tables)
        if migrations is not None:
            self._migrations[id(metadata)] = migrations

    @property
    def metadatas(self) -> tuple[MetaData, ...]:
        """The metadata of every table this database keeps (signoff's own, the app's records)."""
        return tuple(self._metadatas)

    def ensure_schema(self) -> None:
        """Bring every table this database holds up to date (once, and again for record classes
        declared since). A database that cannot be reached, or refuses, is a `StoreError`."""
        if self._sizes == list(map(len, self._tables)):
            return  # (nothing declared since: found at once, as each transaction begins)
        try:
            self._ensure_schema()
        except DBAPIError as error:
            raise self.error(error) from error

    def _ensure_schema(self) -> None:
        for metadata in self._metadatas:
            if self._created.get(id(metadata)) == len(metadata.tables):
                continue
            # Its transactions write: on SQLite they take the write lock as they begin, even
            # when a reader's (`reading`) is the first to need the tables. Begun as a reader's,
            # one failed "database is locked" at once when another connection was writing.
            writing = _reading.set(False)
            try:
                migrate = self._migrations.get(id(metadata))
                if migrate is not None:
                    with self.engine.begin() as connection:
                        migrate(connection)
                else:  # (an app's records: processes starting at once take turns)
                    with self.engine.begin() as connection:
                        lock_schema(connection)
                        metadata.create_all(connection)
            finally:
                _reading.reset(writing)
            self._created[id(metadata)] = len(metadata.tables)
        self._sizes = [self._created.get(id(m)) for m in self._metadatas]

    @contextmanager
    def holding(self) -> Iterator[None]:
        """Keep one connection for this thread while the block runs: the transactions begun in
        it (`connect`, and the sessions of `held_connection`) take none from the pool. A loop
        holds one for its steps: checking a connection out and in costs more than a step's
        transaction on SQLite."""
        if self._held.connection is not None:
            yield
            return
        try:
            self.ensure_schema()
            connection = self.engine.connect()
        except DBAPIError as error:
            raise self.error(error) from error
        self._held.connection = connection
        try:
            yield
        finally:
            self._held.connection = None
            connection.close()

    @contextmanager
    def joining(self, connection: Connection) -> Iterator[None]:
        """While the block runs, this thread's transactions on the database (`connect`,
        `reading`, the app's sessions) are the one `connection` has open: the app's own code
        called inside it (a skill's `version_of`, read as a yes claims its call) reads what
        that transaction reads, and waits on no lock of its own (on SQLite a transaction of its
        own would wait on the one this thread holds)."""
        before = self._held.joined
        self._held.joined = connection
        try:
            yield
        finally:
            self._held.joined = before

    def joined_connection(self) -> Connection | None:
        """The connection whose transaction this thread's are (see `joining`), if any."""
        return self._held.joined

    def in_transaction(self) -> bool:
        """Whether this thread is inside a transaction of signoff's (`connect`'s, or one it
        joins): on SQLite another of its own would wait on it."""
        return self._held.depth or self._held.joined is not None

    def refuse_second_writer(self, doing: str) -> None:
        """`UserError` when this thread holds SQLite's write lock on this database in a
        transaction of its own (an `app.session()` block): `doing` would wait on it."""
        if self.is_sqlite and any(c.engine is self.engine for c in _held_writers()):
            raise UserError(f"{doing} cannot run here: {SECOND_WRITER}")

    def held_connection(self) -> Connection | None:
        """The connection this thread holds (see `holding`), when no transaction is open on it."""
        connection = self._held.connection
        if connection is None or connection.in_transaction() or connection.closed:
            return None
        return connection

    @contextmanager
    def connect(self) -> Iterator[Connection]:
        """A connection in a transaction, committed when the block ends without an error.

        The driver's errors (unreachable, locked, refused) come out as `StoreError`. Within
        `joining`, it is the transaction joined, committed or rolled back by its owner.
        """
        joined = self._held.joined
        if joined is not None:
            yield joined
            return
        if self.is_sqlite and self._held.depth:
            # SQLite has one writer: a second transaction from the thread that holds one would
            # wait on its own lock until the busy timeout. Say so at once.
            raise UserError("signoff opened a second SQLite transaction inside one it holds; "
                            "it would wait on itself. Do the work in the transaction held.")
        self._held.depth = True
        try:
            self.ensure_schema()
            held = self.held_connection()
            if held is not None:
                with held.begin():
                    yield held
            else:
                with self.engine.begin() as connection:
                    yield connection
        except DBAPIError as error:
            raise self.error(error) from error
        finally:
            self._held.depth = False

    @contextmanager
    def reading(self) -> Iterator[Connection]:
        """`connect`, for a transaction that only reads: on SQLite it begins as readers begin
        theirs, taking no write lock, so that it neither waits on a writer (a long run holding
        the lock, in this process or another) nor keeps one waiting, and reads the database as
        last committed."""
        # (its begin only reads: the block's own transactions are theirs. Entered and left by
        # hand, as an ExitStack would: that and `reading_only` took ten calls a transaction.)
        transaction = self.connect()
        token = _reading.set(True)
        try:
            db = transaction.__enter__()
        finally:
            _reading.reset(token)
        try:
            yield db
        except BaseException as error:
            if not transaction.__exit__(type(error), error, error.__traceback__):
                raise
        else:
            transaction.__exit__(None, None, None)

    def error(self, error: DBAPIError) -> StoreError:
        """The driver's `error` in a sentence naming this database, and, for a server that
        could not be connected to, what to check (`server_hint`)."""
        shown = self.engine.url.render_as_string(hide_password=True)
        reason = str(error.orig).strip().splitlines()[0] if error.orig else type(error).__name__
        what = "could not be used" if isinstance(error, OperationalError) else "refused a statement"
        hint = server_hint(self.engine.url, str(error.orig or "")) if (
            isinstance(error, OperationalError) and not self.is_sqlite) else ""
        return StoreError(password_misread(self.engine.url) or
                          f"The database {shown} {what}: {reason}.{' ' if hint else ''}{hint}",
                          url=shown)

    def dispose(self) -> None:
        """Close every pooled connection."""
        self.engine.dispose()


class _Held(threading.local):
    """What a thread holds of a database (see `Database.holding`, `joining`, `connect`)."""

    def __init__(self) -> None:
        self.connection: Connection | None = None
        """The connection it holds (`holding`)."""
        self.joined: Connection | None = None
        """The connection whose transaction it joins (`joining`)."""
        self.depth = False
        """Whether it is inside a transaction of `connect`'s."""


def _engine_for(url: str) -> Engine:
    try:
        if url in ("sqlite://", "sqlite:///:memory:"):
            engine = create_engine(
                "sqlite://",
                poolclass=StaticPool,
                connect_args={"check_same_thread": False, "factory": _TakingTurns},
                json_serializer=json_text.dumps, json_deserializer=_json_loads,
            )
        elif url.startswith("sqlite"):
            engine = create_engine(url, connect_args={"check_same_thread": False,
                                                      "timeout": _WAIT_SECONDS},
                                   json_serializer=json_text.dumps, json_deserializer=_json_loads)
            _open_privately(engine)
        else:
            engine = create_engine(url, pool_pre_ping=True, json_serializer=json_text.dumps)
    except ModuleNotFoundError as missing:  # the URL's driver is not installed
        driver = (missing.name or "").split(".")[0]
        if driver == "psycopg2":
            extra = ("pip install psycopg2-binary; or name psycopg 3, postgresql+psycopg://…, "
                     f"which signoff's postgres extra brings: {install_extra('postgres')}")
        elif driver.startswith("psycopg"):
            extra = f"install signoff's postgres extra, {install_extra('postgres')}"
        else:
            extra = f"pip install {_DRIVER_PACKAGES.get(driver, driver)}"
        raise UserError(f"The database {_shown(url)} needs the driver {driver}, which is not "
                        f"installed: {extra}.") from missing
    except Exception as error:  # SQLAlchemy's ArgumentError, ...
        raise UserError(
            f"signoff cannot open the database {_shown(url)}: {error}. Give a SQLAlchemy URL such "
            "as 'sqlite:///app.db' or 'postgresql+psycopg://user@host/db'."
        ) from error
    # The journal's steps gathered in a transaction are appended as it commits (in it), and
    # forgotten when it rolls back: see signoff.store.journal.
    event.listen(engine, "commit", journal.flush)
    event.listen(engine, "rollback", journal.discard)
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
        # pysqlite's own transaction handling defers BEGIN; take it over so that a transaction
        # starts when SQLAlchemy says so (and reads are repeatable inside it).
        event.listen(engine, "begin", _sqlite_begin)
        event.listen(engine, "handle_error", _sqlite_commit_refused)
    return engine


def _open_privately(engine: Engine) -> None:
    """Before a connection opens the SQLite file of `engine` (a path, not the URI form): a
    folder that is not there, or a folder where the file should be, is a `StoreError` saying
    what to do (SQLite said "unable to open database file"; no folder is made: a mistyped path
    made folders wherever it pointed), as is a file where the folder should be, or a folder
    the file cannot be made in; a file not there yet is made readable by its owner alone
    (mode 0600: it keeps proposals, people and their tokens' hashes). SQLite makes its -wal and
    -shm files with the database's mode. A file that is there already is left as it is."""
    url = engine.url
    path = url.database
    if not path or path == ":memory:" or url.query.get("uri") in ("true", "1"):
        return
    shown = url.render_as_string(hide_password=True)

    def opening(*_: Any) -> None:
        try:
            mode = os.stat(path).st_mode
        except (FileNotFoundError, NotADirectoryError):  # (it, or a folder it is in, is not
            pass                                        # there, or is a file)
        except OSError:  # (not to be looked at: SQLite says why it cannot open it)
            return
        else:
            if not stat.S_ISDIR(mode):
                return  # (there already: opened as it is, one stat a new connection)
            raise StoreError(f"The database {shown} could not be opened: "
                             f"{os.path.abspath(path)} is a folder, not a database file: give "
                             "the app the path of a file (which it makes when it is not there "
                             "yet).", url=shown)
        folder = os.path.dirname(path) or "."
        if os.path.lexists(folder) and not os.path.isdir(folder):
            raise StoreError(f"The database {shown} could not be opened: {folder} is a file, "
                             "not a folder: give the app a database in a folder.", url=shown)
        if not os.path.isdir(folder):
            home = (f" A ~ in a database's URL is not your home folder: write the path out "
                    f"({os.path.expanduser(path)})." if path.startswith("~") else "")
            raise StoreError(f"The database {shown} could not be opened. The folder {folder} "
                             "does not exist: make it, or give the app a database in a folder "
                             "that does (a relative path is read from the folder you run in)."
                             + home, url=shown)
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        except FileExistsError:  # (made meanwhile, by another process)
            pass
        except OSError as error:
            raise StoreError(f"The database {shown} could not be opened: its file cannot be "
                             f"made in the folder {folder} ({error.strerror or error}): give the "
                             "app a database in a folder you may write to.", url=shown) from None

    event.listen(engine, "do_connect", opening)


def _sqlite_commit_refused(context: Any) -> None:
    """A COMMIT SQLite refused (a deferred foreign key left unmet) leaves its transaction open,
    where SQLAlchemy takes it for ended, and the connection's next BEGIN would fail: it is
    rolled back. (Only a commit fails so with no statement of its own.)"""
    connection = context.connection
    if context.statement is not None or connection is None or not isinstance(
            context.original_exception, sqlite3.IntegrityError):
        return
    driver = connection.connection.dbapi_connection
    if driver is not None and driver.in_transaction:
        driver.rollback()


_DRIVER_PACKAGES = {"MySQLdb": "mysqlclient", "pymysql": "PyMySQL", "mysql": "mysql-connector-python",
                    "asyncmy": "asyncmy", "aiomysql": "aiomysql", "pyodbc": "pyodbc",
                    "cx_Oracle": "cx_Oracle", "oracledb": "oracledb", "pymssql": "pymssql",
                    "pg8000": "pg8000", "asyncpg": "asyncpg", "aiosqlite": "aiosqlite"}
"""The package pip installs for each database driver whose module is named otherwise (or that
SQLAlchemy's dialects name by module)."""


def _shown(url: str) -> str:
    """`url` with its password hidden (as given, when it does not parse)."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return repr(url)


_LONG_NUMBER = re.compile(r"[0-9]{19}")
"""A run of 19 digits: in JSON text, maybe an int orjson would read as a float (any shorter
int is less than 2**63)."""


def _json_loads(text: str | bytes) -> Any:
    """JSON text read from a SQLite column as the standard library reads it, by orjson when it
    reads it alike (a step's data is read back several times a step; the standard library's
    decoder took six calls a value): not text with a run of 19 digits (an int beyond 64 bits,
    which orjson reads as a float), nor what orjson refuses (``NaN``, ``Infinity``, ``1e400``,
    a lone surrogate: the standard library's writer writes them, and reads them back)."""
    if type(text) is str and _LONG_NUMBER.search(text) is None:
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            pass
    return json.loads(text)


_WAIT_SECONDS = 30
"""How long a SQLite transaction waits to begin while another holds the database's write lock
(a file's), or its one connection (memory's), before it fails with "database is locked"."""


class _TakingTurns(sqlite3.Connection):
    """The one connection of a database in memory, which every thread of the process shares (a
    connection of its own would be a database of its own): a transaction waits to begin until
    another thread's has ended, as a writer of a file waits for its lock, so that two threads'
    statements never mix in one transaction. A thread that begins again inside its own
    transaction is not made to wait on itself: SQLite refuses that BEGIN, as it does a file's.
    A thread's commit or rollback never ends another thread's transaction."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._turn = threading.Lock()
        self._taker: int | None = None

    def take_turn(self) -> None:
        """Wait until no other thread's transaction is open here; this thread's turn then."""
        me = threading.get_ident()
        if self._taker == me:
            return
        if not self._turn.acquire(timeout=_WAIT_SECONDS):
            raise sqlite3.OperationalError("database is locked")
        self._taker = me

    def end_turn(self) -> None:
        """This thread's turn ends when its transaction has (committed or rolled back)."""
        if self._taker == threading.get_ident() and not self.in_transaction:
            self._taker = None
            self._turn.release()

    def _anothers(self) -> bool:
        """Whether another thread's transaction is open here: this thread has none to end (the
        pool resets a connection it hands back with a rollback, which would end that one)."""
        return self._taker is not None and self._taker != threading.get_ident()

    def commit(self) -> None:
        if self._anothers():
            return
        try:
            super().commit()
        finally:
            self.end_turn()

    def rollback(self) -> None:
        if self._anothers():
            return
        try:
            super().rollback()
        finally:
            self.end_turn()

    def close(self) -> None:
        try:
            super().close()
        finally:
            if self._taker == threading.get_ident():
                self._taker = None
                self._turn.release()


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    _into_wal(cursor)
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute(f"PRAGMA busy_timeout={_WAIT_SECONDS * 1000}")
    cursor.close()
    dbapi_connection.create_function("signoff_casefold", 1, _casefold, deterministic=True)


def _into_wal(cursor: sqlite3.Cursor) -> None:
    """Put the file in WAL mode (or find it so), trying again while another connection holds its
    write lock, up to the busy timeout.

    Switching reads the file's header and only then takes the write lock; SQLite fails that
    "database is locked" at once, its busy timeout unwaited (a reader waiting to write could wait
    on another that waits on it). Processes opening a new file at the same moment all switch it
    (one of five failed in a run of the suite), as does one opening a file another program writes
    in rollback mode. Each failed try ends its read, so the others go on."""
    deadline = time.monotonic() + _WAIT_SECONDS
    pause = 0.001
    while True:
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() + pause > deadline:
                raise
        time.sleep(pause * random.uniform(0.5, 1.5))  # (apart, so that tries do not meet again)
        pause = min(pause * 2, 0.05)


def _casefold(text: object) -> object:
    """SQL's ``signoff_casefold(text)`` on SQLite: Python's `str.casefold` (SQLite's own lower()
    lowers only ASCII letters), for handles found in any case."""
    return text.casefold() if isinstance(text, str) else text


class _Writers(threading.local):
    def __init__(self) -> None:
        self.begun: list[weakref.ref[Connection]] = []


_writers = _Writers()
"""The connections this thread has begun a writer's transaction on (SQLite), as weak
references: see `_one_writer_a_thread`."""

SECOND_WRITER = ("this thread already holds SQLite's write lock in a transaction of its own (an "
                 "`app.session()` block, say), and signoff's would wait on it until the database's "
                 "timeout. Do the work after that block ends, or within it only read.")
"""Why a writer's transaction was refused at once (see `_one_writer_a_thread`)."""


def _held_writers(but: Connection | None = None) -> list[Connection]:
    """The connections this thread has a writer's transaction open on (SQLite), `but` aside:
    what was begun is looked at as it stands (a transaction ended, or a connection gone, holds
    nothing)."""
    begun = _writers.begun
    if not begun:
        return []
    held = [other for ref in begun if (other := ref()) is not None and not other.closed
            and other.in_transaction() and other is not but]
    _writers.begun = [weakref.ref(other) for other in held]
    return held


def _one_writer_a_thread(connection: Connection) -> None:
    """Refuse, at once, a writer's transaction on SQLite while the same thread has one open on
    another connection of the database: SQLite has one writer, so it would wait on the thread's
    own lock (30 s) and fail "database is locked" (an agent's task begun inside an
    `app.session()` block)."""
    begun = _writers.begun
    if len(begun) == 1 and begun[0]() is connection:
        return  # (the one this thread writes on, again: a loop's, step after step)
    if any(other.engine is connection.engine for other in _held_writers(but=connection)):
        raise UserError(f"signoff cannot begin a transaction here: {SECOND_WRITER}")
    _writers.begun.append(weakref.ref(connection))


def _sqlite_begin(connection: Connection) -> None:
    # IMMEDIATE: a transaction takes the write lock when it starts, so that one which reads and
    # then writes waits its turn (busy_timeout) instead of failing at once with "database is
    # locked" when another process wrote in between. A query's transaction (`reading_only`), or
    # one on a connection made read-only, begins as readers do: it takes no write lock.
    # Both statements go to the driver directly: SQLAlchemy's execution path would cost more
    # than the transaction itself.
    # Whether the connection is read-only is told by the mark a query's run leaves on it (with
    # query_only) until it is writable again: no statement asks SQLite. (A query_only an app
    # sets on its connections itself is not seen: its transactions then fail to begin.)
    # On a database in memory, the transaction first waits for its turn on the one connection.
    # The driver's errors here ("database is locked" once the wait is over) come out as
    # SQLAlchemy's, as those of a statement do, so that `Database.connect` tells them as a
    # StoreError (SQLAlchemy does not wrap what a "begin" listener raises).
    fairy = connection.connection
    only = _reading.get() or (READ_ONLY in fairy.info and fairy.info[READ_ONLY])
    # (a query's: a ReadOnlyDriver; pysqlite's is the DB-API connection, reached in no call)
    driver: Any = (fairy.dbapi_connection if connection.dialect.driver == "pysqlite"
                   else fairy.driver_connection)
    turns = getattr(driver, "take_turn", None)
    begin = "BEGIN" if only else "BEGIN IMMEDIATE"
    if not only and turns is None:
        _one_writer_a_thread(connection)
    try:
        if turns is not None:
            turns()
        cursor = driver.cursor()
        try:
            cursor.execute(begin)
        except BaseException:
            if turns is not None:
                driver.end_turn()
            raise
        finally:
            cursor.close()
    except sqlite3.Error as error:
        raise DBAPIError.instance(begin, None, error, sqlite3.Error) from error


def is_conflict(error: BaseException) -> bool:
    """Whether `error` (SQLAlchemy's, the driver's own from a prepared statement, or signoff's
    `StoreError` with either as its cause) is a serialization failure or a deadlock: the
    transaction may be run again."""
    seen: set[int] = set()
    each: BaseException | None = error
    while each is not None and id(each) not in seen:
        seen.add(id(each))
        for found in (each, getattr(each, "orig", None)):
            if getattr(found, "sqlstate", None) in ("40001", "40P01"):
                return True
        each = each.__cause__
    return False


def password_misread(url: URL) -> str:
    """What to say of a database at `url` whose password holds an ``@`` written as itself (what
    follows it was read as the host, and the driver's words, like the URL shown, repeat part of
    the password): naming none of it. "" for any other URL."""
    host = url.host or ""
    if "@" not in host:  # (no machine's name holds one)
        return ""
    named = f" {url.database}" if url.database else ""
    return (f"The database{named} at {host.rpartition('@')[2]} could not be used: the password "
            "in its URL holds an @ written as itself, so what follows it was read as the host. "
            "Write the password %-encoded there (@ as %40).")
