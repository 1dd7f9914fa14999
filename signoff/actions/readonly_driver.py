"""The database driver under a read-only session: what a query can reach of it refuses to write.

A query's session, its SQLAlchemy connection and the pooled connection under it lead to the
driver's own connection (``session.connection().connection.cursor()``, ``.driver_connection``)
and so to SQL that SQLAlchemy never sees. While a connection is read-only, signoff puts a
`ReadOnlyDriver` in the driver connection's place: while a query runs (`guarded()` says so), it
passes statements that only read (`reading_refusal` says why one does not) and refuses the
driver's own ways to end the transaction or loosen the connection (``commit``, ``autocommit``,
``set_authorizer``, ``executescript``, psycopg's ``pgconn`` …). Outside a query it is the
driver connection itself, so SQLAlchemy's rollback and the pool's reset work as before.

On SQLite, `sqlite_authorizer` is also set on the connection itself: the database refuses
statements that change a file, a schema or a setting, whichever way their text is written.
"""

from __future__ import annotations

import functools
import re
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from signoff.effects.sqltext import statements, unknown_function

__all__ = ["ReadOnlyCursor", "ReadOnlyDriver", "app_functions", "reading_refusal",
           "sqlite_authorizer"]

Refuse = Callable[[str], BaseException]
"""Makes (and records) the refusal of what a query tried, told as "run COMMIT"."""

_HEAD = re.compile(r"^[\s(]*([A-Za-z]+)")
_TRANSACTION_VERBS = frozenset({"BEGIN", "START", "SAVEPOINT", "RELEASE"})
"""Statements that begin a transaction or keep one going (never end it): SQLite's driver begins
its own with BEGIN, SQLAlchemy's nested ones are savepoints."""
_ROLLBACK_TO = re.compile(r"^[\s(]*ROLLBACK\s+(?:TRANSACTION\s+)?TO\b", re.I)
_LOCKING_BEGIN = re.compile(r"\b(IMMEDIATE|EXCLUSIVE|READ\s+WRITE)\b", re.I)
_READING_VERBS = frozenset({"SELECT", "WITH", "VALUES", "TABLE", "SHOW", "EXPLAIN", "PRAGMA"})
_WRITING_WORDS = re.compile(r"\b(INSERT|UPDATE|DELETE|MERGE|INTO|ANALY[SZ]E)\b", re.I)
_READ_PRAGMAS = frozenset(
    {"table_info", "table_xinfo", "index_list", "index_info", "index_xinfo", "foreign_key_list"}
)
_PRAGMA = re.compile(r"^\s*PRAGMA\s+(?:\w+\s*\.\s*)?(\w+)\s*(.*)$", re.I | re.S)


def reading_refusal(statement: object, *, postgresql: bool = False) -> str:
    """"" when `statement` only reads; else what it would do ("run COMMIT", "call set_config").

    The text is split as the database splits it (`statements`: quotes, dollar quotes, comments),
    on PostgreSQL both with and without backslash escapes in plain strings, so that no statement
    hides inside what the check takes for a string.
    """
    text = _text(statement)
    if text is None:
        return "run a statement whose text cannot be read"
    if len(text) <= _REMEMBERED_UP_TO:
        return _remembered_refusal(text, postgresql)
    return _text_refusal(text, postgresql)


_REMEMBERED_UP_TO = 4000
"""The longest statement whose answer is remembered (at most 1,024 of them are)."""


@functools.lru_cache(maxsize=1024)
def _remembered_refusal(text: str, postgresql: bool) -> str:
    """`_text_refusal`, remembered: a query's run sends the same few statements again and
    again, and the same text has the same answer."""
    return _text_refusal(text, postgresql)


def _text_refusal(text: str, postgresql: bool) -> str:
    """`reading_refusal` of one statement's text."""
    for escapes in (False, True) if postgresql else (False,):
        parts = statements(text, postgresql=postgresql, backslash_escapes=escapes)
        if parts is None:
            return f"run a statement whose quotes or comments cannot be read ({_short(text)})"
        for part in parts:
            refusal = _part_refusal(part)
            if refusal:
                return f"{refusal} ({_short(text)})"
    return ""


def _part_refusal(part: str) -> str:
    """What one statement, its quotes emptied, would do more than read, or ""."""
    head = _HEAD.match(part)
    verb = head.group(1).upper() if head else ""
    if verb in _TRANSACTION_VERBS or (verb == "ROLLBACK" and _ROLLBACK_TO.match(part)):
        return "begin a transaction that writes" if _LOCKING_BEGIN.search(part) else ""
    if verb not in _READING_VERBS:
        return f"run {verb or 'a statement'}"
    if verb == "PRAGMA":
        pragma = _PRAGMA.match(part)
        if pragma is None or (pragma.group(2).strip() and pragma.group(1).lower() not in _READ_PRAGMAS):
            return "change a setting"
        return ""  # (``PRAGMA table_info(t)``: a pragma's argument, no function)
    elif verb != "SHOW" and _WRITING_WORDS.search(part):
        return f"write through {verb}"
    called = unknown_function(part)
    return f"call {called}(), a function not known to only read" if called else ""


def _text(statement: object) -> str | None:
    if isinstance(statement, str):
        return statement
    if isinstance(statement, bytes | bytearray | memoryview):
        return bytes(statement).decode("utf-8", "replace")
    as_string = getattr(statement, "as_string", None)  # psycopg's sql.Composable
    if callable(as_string):
        try:
            text = as_string(None)
        except Exception:  # a composition that needs a live connection: unread, so refused
            return None
        return text if isinstance(text, str) else None
    return None


def _short(statement: str) -> str:
    words = " ".join(statement.split())
    return words if len(words) <= 80 else words[:79] + "…"


_DRIVER_REFUSED = frozenset(
    {
        # ending the transaction, or the connection's rules for the next one
        "commit", "tpc_begin", "tpc_commit", "tpc_prepare", "transaction", "pipeline",
        "set_autocommit", "set_read_only", "set_isolation_level", "set_deferrable",
        "isolation_level", "autocommit", "read_only", "deferrable",
        # statements sent past this wrapper, and ways to write other than SQL
        "pgconn", "executescript", "set_authorizer", "set_progress_handler", "setlimit",
        "setconfig", "enable_load_extension", "load_extension", "backup", "blobopen",
        "deserialize", "copy", "create_function", "create_aggregate", "create_window_function",
        "create_collation",
    }
)  # fmt: skip
"""Members of a driver connection (sqlite3, psycopg) a query may not touch."""


class ReadOnlyDriver:
    """A driver connection whose statements must only read while `guarded()` is true."""

    __slots__ = ("_guarded", "_postgresql", "_real", "_refuse")
    _guarded: Callable[[], bool]
    _postgresql: bool
    _real: Any
    _refuse: Refuse

    def __init__(self, real: Any, *, guarded: Callable[[], bool], refuse: Refuse,
                 postgresql: bool) -> None:
        object.__setattr__(self, "_real", real)
        object.__setattr__(self, "_guarded", guarded)
        object.__setattr__(self, "_refuse", refuse)
        object.__setattr__(self, "_postgresql", postgresql)

    @property
    def wrapped(self) -> Any:
        """The driver connection itself (for signoff, never handed to a query)."""
        if self._guarded():
            raise self._refuse("reach the database driver's own connection")
        return self._real

    def cursor(self, *args: Any, **kwargs: Any) -> ReadOnlyCursor:
        """A cursor whose statements are checked."""
        return ReadOnlyCursor(self._real.cursor(*args, **kwargs), driver=self)

    def execute(self, statement: Any, *args: Any, **kwargs: Any) -> ReadOnlyCursor:
        """``connection.execute``, checked."""
        self.check(statement)
        with _told_as_refused():
            return ReadOnlyCursor(self._real.execute(statement, *args, **kwargs), driver=self)

    def executemany(self, statement: Any, *args: Any, **kwargs: Any) -> ReadOnlyCursor:
        """``connection.executemany``, checked."""
        self.check(statement)
        with _told_as_refused():
            return ReadOnlyCursor(self._real.executemany(statement, *args, **kwargs),
                                  driver=self)

    def check(self, statement: Any) -> None:
        """Refuse `statement` if a query is running and it does more than read."""
        if self._guarded():
            refusal = reading_refusal(statement, postgresql=self._postgresql)
            if refusal:
                raise self._refuse(refusal)

    def __getattr__(self, name: str) -> Any:
        if name in _DRIVER_REFUSED and self._guarded():
            raise self._refuse(f"use the database driver's {name}")
        return getattr(self._real, name)

    def __setattr__(self, name: str, value: Any) -> None:
        if self._guarded():
            raise self._refuse(f"set the database driver's {name}")
        setattr(self._real, name, value)

    def __enter__(self) -> ReadOnlyDriver:
        if self._guarded():
            raise self._refuse("use the database driver's connection as a transaction")
        self._real.__enter__()
        return self

    def __exit__(self, *exc: object) -> Any:
        return self._real.__exit__(*exc)


class ReadOnlyCursor:
    """A driver cursor whose statements are checked by its `ReadOnlyDriver`."""

    __slots__ = ("_driver", "_real")
    _driver: ReadOnlyDriver
    _real: Any

    def __init__(self, real: Any, *, driver: ReadOnlyDriver) -> None:
        object.__setattr__(self, "_real", real)
        object.__setattr__(self, "_driver", driver)

    @property
    def connection(self) -> ReadOnlyDriver:
        """The connection, as the query may see it."""
        return self._driver

    def execute(self, statement: Any, *args: Any, **kwargs: Any) -> ReadOnlyCursor:
        """``cursor.execute``, checked."""
        self._driver.check(statement)
        with _told_as_refused():
            self._real.execute(statement, *args, **kwargs)
        return self

    def executemany(self, statement: Any, *args: Any, **kwargs: Any) -> ReadOnlyCursor:
        """``cursor.executemany``, checked."""
        self._driver.check(statement)
        with _told_as_refused():
            self._real.executemany(statement, *args, **kwargs)
        return self

    def stream(self, statement: Any, *args: Any, **kwargs: Any) -> Iterator[Any]:
        """psycopg's ``cursor.stream``, checked."""
        self._driver.check(statement)
        return iter(self._real.stream(statement, *args, **kwargs))

    def __getattr__(self, name: str) -> Any:
        if name in ("executescript", "copy", "pgconn", "_pgconn", "_conn") and self._driver._guarded():
            raise self._driver._refuse(f"use the database cursor's {name}")
        return getattr(self._real, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._real, name, value)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._real)

    def __next__(self) -> Any:
        return next(self._real)

    def __enter__(self) -> ReadOnlyCursor:
        self._real.__enter__()
        return self

    def __exit__(self, *exc: object) -> Any:
        return self._real.__exit__(*exc)


_SQLITE_WRITES = frozenset(
    getattr(sqlite3, name)
    for name in (
        "SQLITE_INSERT", "SQLITE_UPDATE", "SQLITE_DELETE", "SQLITE_ALTER_TABLE", "SQLITE_ATTACH",
        "SQLITE_DETACH", "SQLITE_REINDEX", "SQLITE_ANALYZE", "SQLITE_CREATE_INDEX",
        "SQLITE_CREATE_TABLE", "SQLITE_CREATE_TEMP_INDEX", "SQLITE_CREATE_TEMP_TABLE",
        "SQLITE_CREATE_TEMP_TRIGGER", "SQLITE_CREATE_TEMP_VIEW", "SQLITE_CREATE_TRIGGER",
        "SQLITE_CREATE_VIEW", "SQLITE_CREATE_VTABLE", "SQLITE_DROP_INDEX", "SQLITE_DROP_TABLE",
        "SQLITE_DROP_TEMP_INDEX", "SQLITE_DROP_TEMP_TABLE", "SQLITE_DROP_TEMP_TRIGGER",
        "SQLITE_DROP_TEMP_VIEW", "SQLITE_DROP_TRIGGER", "SQLITE_DROP_VIEW", "SQLITE_DROP_VTABLE",
    )
    if hasattr(sqlite3, name)
)  # fmt: skip


_SCHEMA_TABLES = frozenset({"sqlite_master", "sqlite_schema", "sqlite_temp_master", "sqlite_temp_schema"})
"""The schema tables: an FTS5 table prepares (and never runs) an update of them as it is read.
Passing it lets nothing through: without ``PRAGMA writable_schema`` (a setting, refused) SQLite
refuses such an update itself, and ``query_only`` refuses every write."""


_DENIED: ContextVar[BaseException | None] = ContextVar("signoff_sqlite_denied", default=None)
"""The refusal of a function call SQLite's authorizer last denied here (it can only answer
"deny"; the statement then fails with SQLite's own words, and is told as this refusal instead;
a write it denies is told where the statement is sent, as before)."""


@contextmanager
def _told_as_refused() -> Iterator[None]:
    """A statement SQLite's authorizer denied fails as the refusal the authorizer recorded."""
    _DENIED.set(None)
    try:
        yield
    except sqlite3.DatabaseError as error:
        denied = _DENIED.get()
        if denied is None:
            raise
        _DENIED.set(None)
        raise denied from error


def sqlite_authorizer(refuse: Refuse, given: frozenset[str] = frozenset()
                      ) -> Callable[[int, str | None, str | None, str | None, str | None], int]:
    """An authorizer for ``sqlite3.Connection.set_authorizer`` that denies, and has `refuse`
    record, every statement that would change a file, a schema or a setting (a ``PRAGMA`` given
    a value), load an extension or call a function the app gave the connection (`given`, their
    names in lower case: `app_functions`; one may be named as one of SQLite's own, ``lower``);
    reading and ending the transaction pass."""

    def authorize(action: int, arg1: str | None, arg2: str | None, _db: str | None,
                  _source: str | None) -> int:
        if action == sqlite3.SQLITE_UPDATE and (arg1 or "").lower() in _SCHEMA_TABLES:
            return sqlite3.SQLITE_OK  # FTS5 prepares such an update to read its table; see above
        if action in _SQLITE_WRITES:
            refuse(f"write to the database ({arg1 or 'a table'})")
            return sqlite3.SQLITE_DENY
        if action == sqlite3.SQLITE_PRAGMA and arg2 is not None and (arg1 or "") not in _READ_PRAGMAS:
            refuse(f"change the setting {arg1} to {arg2}")
            return sqlite3.SQLITE_DENY
        if action == sqlite3.SQLITE_FUNCTION and (arg2 or "").lower() == "load_extension":
            refuse("load a SQLite extension")
            return sqlite3.SQLITE_DENY
        if action == sqlite3.SQLITE_FUNCTION and (arg2 or "").lower() in given:
            _DENIED.set(refuse(f"call {arg2}(), a function the app gave the database (its code "
                               "is Python the analysis did not read)"))
            return sqlite3.SQLITE_DENY
        return sqlite3.SQLITE_OK

    return authorize


def app_functions(driver: sqlite3.Connection) -> frozenset[str]:
    """The functions given to a SQLite connection by Python (``create_function``), by name in
    lower case: those SQLite lists as not its own, but its extensions' (FTS, R-tree: what a
    connection made afresh lists) and SQLAlchemy's ``regexp`` and ``floor`` (what its
    ``regexp_match`` and ``func.floor`` run: an app that gives its own under those names is not
    told apart)."""
    given = _not_builtin(driver)
    return given - _EXTENSIONS - {"regexp", "floor"}


def _not_builtin(driver: sqlite3.Connection) -> frozenset[str]:
    """The functions a SQLite connection lists as not built in, by name in lower case."""
    cursor = driver.cursor()
    try:
        rows = cursor.execute("SELECT name FROM pragma_function_list WHERE builtin = 0").fetchall()
    except sqlite3.Error:  # (a SQLite before 3.30 lists none)
        return frozenset()
    finally:
        cursor.close()
    return frozenset(str(name).lower() for (name,) in rows)


def _extensions() -> frozenset[str]:
    """The functions SQLite's compiled-in extensions give every connection."""
    fresh = sqlite3.connect(":memory:")
    try:
        return _not_builtin(fresh)
    finally:
        fresh.close()


_EXTENSIONS = _extensions()
"""(Read as this module is imported: while a query runs, opening a connection is refused.)"""
