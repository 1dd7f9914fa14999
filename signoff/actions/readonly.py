"""Read-only enforcement for queries: what a query may not do while it runs, refused as it tries.

The same guard (the audit hook, with `reading_records_only` for a session) holds an action found
to only read as it runs, and the validators of a tool call's arguments as they are checked
before the gate: each names what it holds in its refusals (`read_only_guard`'s ``held``).

A query (``@app.action(query=True)``) runs inside :func:`read_only_guard` with a session passed
through :func:`make_session_read_only`. Three layers refuse anything but reading:

* **the database connection** refuses writes: SQLite runs with ``PRAGMA query_only=ON`` and an
  authorizer that denies every write and setting for as long as the session holds the
  connection, PostgreSQL runs the session's transactions as ``READ ONLY``; the driver's own
  connection under it is a `ReadOnlyDriver` (`readonly_driver`) that, while the query runs,
  passes only statements that read and refuses the driver's ways to end the transaction or
  loosen the connection; a connection the query takes from a pool itself (its engine's, or
  one of an engine it makes) is restricted the same way, and a SQLite database it opens with
  ``sqlite3.connect`` is refused; a query's transaction ends rolled back, and a PostgreSQL
  connection's advisory locks are released before it goes back to the pool. The database's
  refusal is translated into :class:`ReadOnlyViolation`;
* **ORM flushes** with pending changes are refused before any SQL is sent;
* **a PEP 578 audit hook**, scoped by a context variable to the thread or task running the query,
  blocks socket connects, subprocesses, ``os.system`` / exec / spawn / fork, files opened for
  writing, remove / rename / mkdir / chmod and their kin, ``shutil``'s copies and deletions, and
  native code reached through ``ctypes``; and starting a thread, or handing work to a thread
  pool, whose code would go on outside the guard (`readonly_threads`).

Every refusal is raised as :class:`ReadOnlyViolation` *and* recorded in the active
:class:`Guard`, so that a query which catches the refusal and returns normally still ends
``Failed``: the runner checks :attr:`Guard.violated` after the call.

What is deliberately let through while guarded:

* **reads** of every kind (files opened for reading, directory listings, name lookups);
* **the import system**: a module first imported during a query loads normally, but its bytecode
  cache is not written (the write is refused with ``PermissionError``, which the import system
  ignores, and is not counted as a violation);
* **logging**: what a handler, formatter or filter that existed before the query began does
  while it handles a record (open its file, reach a syslog socket) is the application's logging
  configuration. A handler the query made (``logging.FileHandler(path, delay=True)``) is refused
  like any other write, and so is code the query handed a handler: an argument's ``__repr__``,
  a formatter or filter it gave one.

The guard is a safety net for honest code, not a sandbox: Python code that wants to escape it can
(work handed to a thread the app started before, through a queue it reads, runs outside the
context; a socket, file or SQLite connection opened before the query can still be written; C
extensions that write without raising an audit event are not seen).
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import sqlite3
import sys
import threading
import weakref
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from contextvars import ContextVar
from dataclasses import dataclass, field
from types import FrameType
from typing import Any
from weakref import WeakSet

from sqlalchemy import Engine, event
from sqlalchemy.engine import Connection, ExceptionContext
from sqlalchemy.exc import UnboundExecutionError
from sqlalchemy.orm import Session, SessionTransaction, UOWTransaction
from sqlalchemy.pool import ConnectionPoolEntry, Pool, SingletonThreadPool, StaticPool

from signoff.actions.readonly_driver import (
    ReadOnlyDriver,
    app_functions,
    reading_refusal,
    sqlite_authorizer,
)
from signoff.actions.readonly_events import BLOCKED
from signoff.actions.readonly_threads import hold_threads
from signoff.exceptions import ReadOnlyViolation, UserError
from signoff.security.enforcement import RuledSession
from signoff.store.database import READ_ONLY

__all__ = [
    "BlockedOperation",
    "Guard",
    "make_session_read_only",
    "read_only_guard",
    "reading_records_only",
    "refuse_pending_changes",
    "unguarded",
]


@dataclass(kw_only=True)
class Guard:
    """What one guarded call tried and was refused; see :func:`read_only_guard`."""

    violations: list[ReadOnlyViolation] = field(default_factory=list)
    """Every refusal raised while the guard was active, in the order they happened."""
    held: str = "A query"
    """What it holds to reading, as its refusals name it ("A query may only read: …")."""

    _outer: Guard | None = field(default=None, init=False, repr=False, compare=False)
    _handlers_before: frozenset[Any] = field(default=frozenset(), init=False, repr=False,
                                             compare=False)
    _logging_before: frozenset[Any] = field(default=frozenset(), init=False, repr=False,
                                            compare=False)
    """The formatters and filters the app's handlers had as the guard began (weakly)."""
    _given_back: list[tuple[Any, Any]] = field(default_factory=list, init=False, repr=False,
                                               compare=False)
    """Shared connections given back to their pool meanwhile: writable again as it ends."""

    @property
    def violated(self) -> bool:
        """Whether the guarded code tried anything but reading (even if it caught the refusal)."""
        return bool(self.violations)


_active: ContextVar[Guard | None] = ContextVar("signoff_read_only_guard", default=None)
"""The innermost guard of this thread or task, or None when nothing is guarded."""


@contextmanager
def read_only_guard(held: str = "A query") -> Iterator[Guard]:
    """Block everything but reading for the code run inside, in this context (thread/task) only.

    Yields the :class:`Guard` that records each refusal; `held` names what it holds, in the
    refusals' words. Guards nest: a refusal is recorded in
    the innermost guard and in every guard around it. Tasks created inside the block inherit
    the guard, as they inherit every context variable; other threads and tasks are unaffected.

    ::

        with read_only_guard() as guard:
            result = query(...)
        if guard.violated:
            ...  # the run is Failed, whatever the query returned
    """
    _install_audit_hook()
    guard = Guard(held=held)
    guard._outer = _active.get()
    if guard._outer is None:  # the logging handlers the app has: weak references to each
        guard._handlers_before = frozenset(getattr(logging, "_handlerList", ()))
        guard._logging_before = _parts_of(guard._handlers_before)
    token = _active.set(guard)
    try:
        yield guard
    finally:
        _active.reset(token)
        if guard._outer is None:
            # A formatter or filter the query left on a handler stays the query's code.
            for ref in _parts_of(guard._handlers_before) - guard._logging_before:
                if (part := ref()) is not None:
                    _GIVEN_BY_QUERIES.add(part)
            for dbapi_connection, record in guard._given_back:
                _reset_on_checkin(dbapi_connection, record)


@contextmanager
def unguarded() -> Iterator[None]:
    """Lift every guard for the code run inside, in this context only.

    For signoff's own bookkeeping done in the middle of a guarded call (writing a run record,
    say), never for an action's code.
    """
    token = _active.set(None)
    try:
        yield
    finally:
        _active.reset(token)


class BlockedOperation(ReadOnlyViolation, PermissionError):
    """A :class:`ReadOnlyViolation` raised by the audit hook, for an operation of the system.

    It is also a :class:`PermissionError`, as the system itself would refuse, so that the
    standard library's cleanup after a failed call runs (``socket.create_connection`` closes the
    socket it made, for instance). Code that swallows every ``OSError`` swallows it too, but the
    refusal stays recorded in the guard.
    """


def _refuse(
    what: str, *, event: str, kind: type[ReadOnlyViolation] = ReadOnlyViolation
) -> ReadOnlyViolation:
    """The violation for `what` the query tried, recorded in every active guard."""
    guard = _active.get()
    held = guard.held if guard is not None else "A query"
    violation = kind(f"{held} may only read: it tried to {what}.", event=event)
    while guard is not None:
        guard.violations.append(violation)
        guard = guard._outer
    return violation


# --- The audit hook ---------------------------------------------------------------------------

_hook_lock = threading.Lock()
_hook_installed = False


def _install_audit_hook() -> None:
    """Add the audit hook to this process, once (audit hooks cannot be removed)."""
    global _hook_installed
    if _hook_installed:
        return
    with _hook_lock:
        if not _hook_installed:
            sys.addaudithook(_audit)
            hold_threads(_thread_refusal)
            _hook_installed = True


def _thread_refusal(what: str, event: str) -> ReadOnlyViolation | None:
    """The refusal of starting a thread (`readonly_threads`), None where nothing is guarded
    or where it is the app's logging handler that starts it (made before the query)."""
    if _active.get() is None:
        return None
    handler = _logging_handler(sys._getframe(2))  # (the code that starts the thread)
    if handler is not None and _made_before_the_query(handler):
        return None
    return _refuse(what, event=event, kind=BlockedOperation)


def _audit(
    event: str, args: tuple[Any, ...], _guard: Callable[[], Guard | None] = _active.get
) -> None:
    # Called on every audit event of the process, guarded or not: the unguarded path must stay
    # a single context variable read.
    if _guard() is None:
        return
    describe = BLOCKED.get(event)
    if describe is None:
        return
    try:
        what = describe(args)
    except Exception:  # arguments shaped unlike this Python's documentation: refuse all the same
        what = f"do {event}"
    if what is None:
        return
    caller = sys._getframe(1)  # the Python code whose call raised the event
    if _is_bytecode_cache_write(caller):
        # A module imported for the first time during the query: let the import go on without
        # writing its cache (importlib ignores an OSError there), and do not blame the query.
        raise PermissionError(errno.EACCES, "A query does not write the bytecode cache")
    handler = _logging_handler(caller)
    if handler is not None and _made_before_the_query(handler):
        return
    raise _refuse(what, event=event, kind=BlockedOperation)


_IMPORTLIB_WRITERS = frozenset({"_write_atomic", "set_data"})


def _is_bytecode_cache_write(frame: FrameType) -> bool:
    code = frame.f_code
    return code.co_name in _IMPORTLIB_WRITERS and (
        code.co_filename == "<frozen importlib._bootstrap_external>"  # usual, frozen
        or code.co_filename.endswith(os.path.join("importlib", "_bootstrap_external.py"))
    )


_HANDLE = logging.Handler.handle.__code__
_CALL_HANDLERS = logging.Logger.callHandlers.__code__
_SHOWING = frozenset({logging.LogRecord.getMessage.__code__, logging.Filterer.filter.__code__})
"""Where a handler makes the record's message text (its arguments' own ``__str__``) or asks
its filters: code the record carries in, not the handler's own."""
_SHOWN_BY = frozenset({"__str__", "__repr__", "__format__", "getMessage", "format",
                       "formatMessage", "formatException", "formatStack", "filter"})


def _logging_handler(frame: FrameType | None) -> logging.Handler | None:
    """The logging handler handling a record in `frame` or a caller of it, if any, while it
    does its own work (writes, sends): None while it formats or filters the record, where the
    code run is what the record was given (an argument's ``__repr__``, a formatter or filter
    the query set), held as the query's own."""
    while frame is not None:
        code = frame.f_code
        if code is _HANDLE or code is _CALL_HANDLERS:
            found = frame.f_locals.get("self" if code is _HANDLE else "hdlr")
            return found if isinstance(found, logging.Handler) else None
        own = frame.f_locals.get("self")
        if code is _FILTER or isinstance(own, logging.Formatter | logging.Filter):
            if not _apps_own(frame.f_locals.get("f") if code is _FILTER else own):
                return None  # (a formatter or filter the query made, or gave a handler)
        elif (code in _SHOWING or code.co_name in _SHOWN_BY) and not (
                code is _HANDLER_FORMAT and isinstance(own, logging.Handler)):
            return None  # (a record's own code: its message, its arguments' text)
        frame = frame.f_back
    return None


_FILTER = logging.Filterer.filter.__code__
_HANDLER_FORMAT = logging.Handler.format.__code__
_GIVEN_BY_QUERIES: weakref.WeakSet[Any] = weakref.WeakSet()
"""Formatters and filters a query gave one of the app's handlers (never the app's own)."""


def _parts_of(handlers: frozenset[Any]) -> frozenset[Any]:
    """Weak references to the formatters and filters of `handlers` (weak references too)."""
    found = set()
    for ref in handlers:  # (a plain loop: this runs as every query and call's check begins)
        if (handler := ref()) is None or (handler.formatter is None and not handler.filters):
            continue
        for part in (handler.formatter, *handler.filters):
            if part is not None and part not in _GIVEN_BY_QUERIES:
                with contextlib.suppress(TypeError):  # (not weakly referable: the query's)
                    found.add(weakref.ref(part))
    return frozenset(found)


def _apps_own(part: object) -> bool:
    """Whether `part` was on one of the app's handlers as the outermost guard began."""
    guard = _active.get()
    while guard is not None and guard._outer is not None:
        guard = guard._outer
    try:
        return guard is not None and weakref.ref(part) in guard._logging_before
    except TypeError:
        return False


def _made_before_the_query(handler: logging.Handler) -> bool:
    """Whether `handler` existed when the outermost guard began (the app's, not the query's)."""
    guard = _active.get()
    while guard is not None and guard._outer is not None:
        guard = guard._outer
    return guard is not None and weakref.ref(handler) in guard._handlers_before


# --- Read-only sessions -----------------------------------------------------------------------

_READ_ONLY = READ_ONLY
"""Key in ``Session.info`` (the session is read-only) and in a pooled connection's ``info`` (the
dialect whose read-only setting it carries, to be undone when it goes back to the pool)."""
_CONNECTIONS = "signoff.read_only_connections"

_watched_engines: WeakSet[Engine] = WeakSet()
_watched_pools: WeakSet[Pool] = WeakSet()
_watch_lock = threading.Lock()


def make_session_read_only(session: Session) -> None:
    """Make this session read-only, for SQLite and PostgreSQL databases.

    Its database connection refuses writes: SQLite's ``PRAGMA query_only=ON`` is set when the
    session's transaction begins on a connection and reset when the connection goes back to the
    pool (so that the next session on it — on an in-memory database, the *only* connection — can
    write again); on PostgreSQL each of its transactions runs ``SET TRANSACTION READ ONLY``. The
    database's refusal, and any ORM flush with pending changes, raise :class:`ReadOnlyViolation`
    (recorded in the active :class:`Guard` if there is one). Calling it twice changes nothing.
    """
    if session.info.get(_READ_ONLY):
        return
    session.info[_READ_ONLY] = True
    if not isinstance(session, RuledSession):  # signoff's own sessions have them on the class
        event.listen(session, "after_begin", _restrict_on_begin)
        event.listen(session, "before_flush", _refuse_flush)
        event.listen(session, "after_transaction_end", _release_bound_connections)
    if session.in_transaction():
        # Already begun (a subject loaded first, say): restrict the connection it holds.
        # PostgreSQL lets a transaction become read-only after its first query, never back.
        with suppress(UnboundExecutionError):  # no bind yet: after_begin will see the first one
            _restrict(session, session.connection())


def refuse_pending_changes(session: Session) -> None:
    """Refuse (and record) the changes a query left in `session` without flushing them.

    For the runner to call after a query returns, since a change never flushed reaches no
    database yet is still something the query did.
    """
    listed = _pending_changes(session)
    if listed:
        raise _refuse(f"change records without saving them ({listed})", event="flush")


def _restrict_on_begin(
    session: Session, _transaction: SessionTransaction, connection: Connection
) -> None:
    _restrict(session, connection)


# Registered once on signoff's session class (registering on each session costs more than a
# query's whole transaction); each does nothing unless the session was made read-only.


@event.listens_for(RuledSession, "after_begin")
def _restrict_if_read_only(
    session: Session, transaction: SessionTransaction, connection: Connection
) -> None:
    if session.info.get(_READ_ONLY):
        _restrict(session, connection)


@event.listens_for(RuledSession, "before_flush")
def _refuse_flush_if_read_only(session: Session, context: UOWTransaction, instances: object
                               ) -> None:
    if session.info.get(_READ_ONLY) or session.info.get(_READING_RECORDS):
        _refuse_flush(session, context, instances)


_READING_RECORDS = "signoff_reading_records"


@contextmanager
def reading_records_only(session: Session) -> Iterator[None]:
    """While the block runs, `session` (one of signoff's) may read records and change none: a
    flush with changes is refused, as a read-only session's is, and so is what the block left
    unflushed as it ends. Its connection is not restricted (the transaction goes on to write
    what signoff keeps of the run); with `read_only_guard`, for an action found to only read."""
    session.info[_READING_RECORDS] = True
    engine = session.get_bind().engine
    if engine not in _reading_engines:
        with _watch_lock:
            if engine not in _reading_engines:
                event.listen(engine, "before_cursor_execute", _refuse_writing_statement)
                _reading_engines.add(engine)
    token = _records_only.set(True)
    try:
        yield
        refuse_pending_changes(session)
    finally:
        _records_only.reset(token)
        session.info.pop(_READING_RECORDS, None)


_records_only: ContextVar[bool] = ContextVar("signoff_records_only", default=False)
"""Whether the code running in this context may only read (see `reading_records_only`)."""
_reading_engines: WeakSet[Engine] = WeakSet()


def _refuse_writing_statement(connection: Connection, cursor: Any, statement: str,
                              parameters: Any, context: Any, executemany: bool) -> None:
    """A statement that does more than read, sent through SQLAlchemy while an action found to
    only read runs (`reading_records_only`): refused before it is sent."""
    if not _records_only.get():
        return
    refusal = reading_refusal(statement, postgresql=connection.dialect.name == "postgresql")
    if refusal:
        raise _refuse(refusal, event="execute")


@event.listens_for(RuledSession, "after_transaction_end")
def _release_if_read_only(session: Session, transaction: SessionTransaction) -> None:
    if session.info.get(_CONNECTIONS):
        _release_bound_connections(session, transaction)


def _restrict(session: Session, connection: Connection) -> None:
    _watch(connection.engine)
    dialect = connection.dialect.name
    if dialect == "postgresql":
        if getattr(_driver_of(connection.connection.dbapi_connection), "autocommit", False):
            raise UserError(
                "A read-only session needs transactions, and this PostgreSQL connection runs in "
                "AUTOCOMMIT mode. Open the query's session without isolation_level='AUTOCOMMIT'."
            )
        with unguarded():  # signoff's own statement, past the driver filter of a guarded checkout
            connection.exec_driver_sql("SET TRANSACTION READ ONLY")
    elif dialect != "sqlite":
        raise UserError(
            f"signoff can make a session read-only on SQLite and PostgreSQL, not on "
            f"{connection.dialect.name}. Run queries on one of those databases."
        )
    _restrict_pooled(dialect, connection.connection)
    session.info.setdefault(_CONNECTIONS, []).append(connection)


def _restrict_pooled(dialect: str, pooled: Any) -> None:
    """Make a pooled connection refuse writes until it goes back to the pool: SQLite's
    query_only and authorizer, and (both) the driver connection put behind a `ReadOnlyDriver`."""
    if pooled.info.get(_READ_ONLY):
        return
    driver = _driver_of(pooled.dbapi_connection)
    if dialect == "sqlite":
        cursor = driver.cursor()
        try:
            cursor.execute("PRAGMA query_only=ON")
        finally:
            cursor.close()
        # Setting an authorizer expires every statement prepared before: each is checked again.
        given = pooled.info.get(_APP_FUNCTIONS)
        if given is None:  # (an app gives its functions as a connection is made: read once)
            with unguarded():  # (signoff's own statement, whatever the hold refuses)
                given = pooled.info[_APP_FUNCTIONS] = app_functions(driver)
        driver.set_authorizer(sqlite_authorizer(_refuse_sql, given) if given else
                              _SQLITE_AUTHORIZER)
    _wrap_driver(pooled, driver, postgresql=dialect == "postgresql")
    pooled.info[_READ_ONLY] = dialect


@event.listens_for(Pool, "checkout")
def _restrict_if_guarded(dbapi_connection: Any, _record: ConnectionPoolEntry, pooled: Any) -> None:
    # A connection checked out of any pool while a query runs (one it takes from its engine
    # itself with connect() or raw_connection(), one of an engine it makes) is as read-only as
    # its session's, and reset when it goes back.
    if not _guarded():
        return
    driver = _driver_of(dbapi_connection)
    if isinstance(driver, sqlite3.Connection):
        dialect = "sqlite"
    elif type(driver).__module__.partition(".")[0] == "psycopg":
        dialect = "postgresql"
    else:
        raise _refuse(f"connect to a database signoff cannot make read-only ({type(driver).__name__})",
                      event="sql")
    pool = getattr(pooled, "_pool", None)  # the pool a connection fairy came from
    if isinstance(pool, Pool):
        _watch_pool(pool)
    _restrict_pooled(dialect, pooled)


def _guarded() -> bool:
    return _active.get() is not None


def _refuse_sql(what: str) -> ReadOnlyViolation:
    return _refuse(what, event="sql")


_SQLITE_AUTHORIZER = sqlite_authorizer(_refuse_sql)

_APP_FUNCTIONS = "signoff.app_functions"
"""Where a pooled SQLite connection keeps the names of the functions the app gave it."""


def _driver_of(dbapi_connection: Any) -> Any:
    """The driver's own connection, under signoff's `ReadOnlyDriver` if there is one."""
    if isinstance(dbapi_connection, ReadOnlyDriver):
        return object.__getattribute__(dbapi_connection, "_real")
    return dbapi_connection


def _wrap_driver(pooled: Any, driver: Any, *, postgresql: bool) -> None:
    """Put a `ReadOnlyDriver` where the pooled connection and its pool entry keep the driver's
    connection, so that neither ``.dbapi_connection`` nor ``.driver_connection`` reaches it."""
    if isinstance(pooled.dbapi_connection, ReadOnlyDriver):
        return
    wrapper = ReadOnlyDriver(driver, guarded=_guarded, refuse=_refuse_sql, postgresql=postgresql)
    pooled.dbapi_connection = wrapper
    # SQLAlchemy's pool entry has no public way to it from the pooled connection; its
    # driver_connection reads the entry's dbapi_connection.
    entry = getattr(pooled, "_connection_record", None)
    if entry is not None:
        entry.dbapi_connection = wrapper


def _unwrap_driver(holder: Any) -> Any:
    """Give the pooled connection or pool entry `holder` its driver connection back."""
    driver = _driver_of(holder.dbapi_connection)
    if driver is not holder.dbapi_connection:
        holder.dbapi_connection = driver
    return driver


def _watch(engine: Engine) -> None:
    """Translate the read-only refusals of `engine`, and undo query_only at check-in (once)."""
    if engine in _watched_engines:
        return
    with _watch_lock:
        if engine not in _watched_engines:
            event.listen(engine, "handle_error", _translate_refusal)
            _watched_engines.add(engine)
    _watch_pool(engine.pool)


def _watch_pool(pool: Pool) -> None:
    """Undo a read-only connection's restrictions when it goes back to `pool` (once per pool)."""
    if pool in _watched_pools:
        return
    with _watch_lock:
        if pool not in _watched_pools:
            shared = isinstance(pool, SingletonThreadPool | StaticPool)
            event.listen(pool, "checkin", _reset_shared_on_checkin if shared else _reset_on_checkin)
            _watched_pools.add(pool)


def _reset_on_checkin(dbapi_connection: Any, record: ConnectionPoolEntry) -> None:
    dialect = record.info.pop(_READ_ONLY, None)
    if dbapi_connection is None or dialect is None:
        return
    driver = _unwrap_driver(record)
    if dialect == "sqlite":
        _sqlite_writable(driver)
    elif dialect == "postgresql":
        _postgresql_reset(driver)


def _reset_shared_on_checkin(dbapi_connection: Any, record: ConnectionPoolEntry) -> None:
    # One connection for the whole thread (an in-memory SQLite database): a session the query
    # opens and closes gives back the very connection the query reads on, still read-only. It
    # is made writable once the outermost guard ends (before, it stayed read-only, and the
    # next write refused as if it were the query's).
    guard = _active.get()
    if guard is None:
        _reset_on_checkin(dbapi_connection, record)
        return
    while guard._outer is not None:
        guard = guard._outer
    guard._given_back.append((dbapi_connection, record))


def _release_bound_connections(session: Session, transaction: SessionTransaction) -> None:
    # A session bound to a Connection it did not open keeps it after the transaction: the pool
    # never sees it come back, so undo query_only here.
    if transaction.parent is not None:
        return
    for connection in session.info.pop(_CONNECTIONS, []):
        if connection.closed or connection.invalidated:
            continue  # returned to the pool, which reset it
        dialect = connection.info.pop(_READ_ONLY, None)
        pooled = connection.connection
        driver = _unwrap_driver(pooled)
        entry = getattr(pooled, "_connection_record", None)
        if entry is not None:
            _unwrap_driver(entry)
        if dialect == "sqlite":
            _sqlite_writable(driver)
        elif dialect == "postgresql":
            _postgresql_reset(driver)


def _sqlite_writable(dbapi_connection: Any) -> None:
    dbapi_connection.set_authorizer(None)
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA query_only=OFF")
    finally:
        cursor.close()


def _postgresql_reset(dbapi_connection: Any) -> None:
    """Undo what a query can leave on a PostgreSQL connection past its rolled-back transaction:
    session advisory locks. The statement runs on its own (autocommit: the query's transaction
    is over), one round trip rather than a transaction's three."""
    was = dbapi_connection.autocommit
    if not was:
        dbapi_connection.rollback()  # (no round trip when no transaction is open: the usual)
        dbapi_connection.autocommit = True
    try:
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute("SELECT pg_advisory_unlock_all()")
        finally:
            cursor.close()
    finally:
        if not was:
            dbapi_connection.autocommit = False


def _translate_refusal(context: ExceptionContext) -> None:
    connection = context.connection
    if connection is None or connection.closed or connection.invalidated:
        return
    dialect = connection.info.get(_READ_ONLY)
    error = context.original_exception
    if dialect == "sqlite":
        refused = getattr(error, "sqlite_errorname", "") in ("SQLITE_READONLY", "SQLITE_AUTH")
    elif dialect == "postgresql":
        refused = getattr(error, "sqlstate", None) == "25006"  # read_only_sql_transaction
    else:
        refused = False
    if refused:
        statement = " ".join((context.statement or "").split())
        if len(statement) > 120:
            statement = statement[:119] + "…"
        raise _refuse(f"write to the database ({statement})", event="sql") from error


def _refuse_flush(session: Session, _context: UOWTransaction, _instances: object) -> None:
    listed = _pending_changes(session)
    if listed:
        raise _refuse(f"save {listed} to the database", event="flush")


def _pending_changes(session: Session) -> str:
    """The unflushed changes in `session` as a person reads them, or "" when there are none."""
    kinds: Counter[tuple[str, str]] = Counter()
    for instance in session.new:
        kinds["new", type(instance).__name__] += 1
    for instance in session.dirty:
        if session.is_modified(instance):
            kinds["changed", type(instance).__name__] += 1
    for instance in session.deleted:
        kinds["deleted", type(instance).__name__] += 1
    parts = [
        f"a {kind} {name}" if count == 1 else f"{count} {kind} {name} records"
        for (kind, name), count in kinds.items()
    ]
    if not parts:
        return ""
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
