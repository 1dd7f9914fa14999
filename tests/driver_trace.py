"""What a database driver really sends: every statement, on every connection an engine opens, and
the transactions they make.

On SQLite, the driver's own trace callback (``sqlite3.Connection.set_trace_callback``) is told
each statement as SQLite runs it, the ``BEGIN`` signoff sends and the ``COMMIT`` or ``ROLLBACK``
of the driver's ``commit()`` and ``rollback()`` included. On PostgreSQL, libpq's trace of the
protocol (psycopg's ``PGconn.trace``) records each message the driver sends the server: the
``BEGIN``, ``COMMIT`` and ``ROLLBACK`` psycopg sends as it begins and ends a transaction, and each
statement run. Neither counts calls of anyone's functions: a ``commit()`` with no transaction
open sends nothing, and is not counted.

A transaction is counted per connection: a ``BEGIN`` opens one, which its ``COMMIT`` or
``ROLLBACK`` ends, and a statement sent outside one is a transaction of its own (as SQLite and
PostgreSQL run it). Connection settings (SQLite's ``PRAGMA``) and empty statements (the pool's
ping, ``;``) are statements, not transactions.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, event

__all__ = ["Sent", "Trace", "tracing"]


@dataclass(frozen=True, kw_only=True)
class Sent:
    """What the driver sent over some span, on every connection."""

    statements: tuple[str, ...]
    """Each statement sent: each connection's in the order it sent them, one connection after
    another (PostgreSQL's with ``$n`` for their parameters)."""
    transactions: int
    """Transactions begun (and statements sent outside one, each its own)."""
    rolled_back: int
    """How many of them ended in a ``ROLLBACK``."""


@dataclass(kw_only=True)
class _Connection:
    """One connection's statements since they were last taken, and whether it is in a
    transaction (which may span a take)."""

    statements: list[str] = field(default_factory=list)
    transactions: int = 0
    rolled_back: int = 0
    open: bool = False

    def sent(self, statement: str) -> None:
        self.statements.append(statement)
        words = statement.upper().replace(";", " ").split()
        first = words[0] if words else ""
        if first in ("BEGIN", "START"):  # START TRANSACTION
            self.transactions += 1
            self.open = True
        elif first in ("COMMIT", "END") or (first == "ROLLBACK" and words[1:2] != ["TO"]):
            self.rolled_back += first == "ROLLBACK"
            self.open = False
        elif not self.open and first not in ("", "PRAGMA"):
            self.transactions += 1  # SQLite and PostgreSQL run it in a transaction of its own

    def take(self) -> tuple[list[str], int, int]:
        taken = (self.statements, self.transactions, self.rolled_back)
        self.statements, self.transactions, self.rolled_back = [], 0, 0
        return taken


class Trace:
    """The statements the connections of one engine sent (see `tracing`)."""

    def __init__(self, folder: Path) -> None:
        self._folder = folder
        self._connections: list[_Connection] = []
        self._libpq: dict[int, _LibpqTrace] = {}  # by the pool's record of the connection

    def take(self) -> Sent:
        """What was sent since the trace began or was last taken (then forgotten)."""
        for libpq in self._libpq.values():
            libpq.read()
        statements: list[str] = []
        transactions = rolled_back = 0
        for connection in self._connections:
            sent, begun, undone = connection.take()
            statements += sent
            transactions += begun
            rolled_back += undone
        return Sent(statements=tuple(statements), transactions=transactions,
                    rolled_back=rolled_back)

    def _connected(self, dbapi_connection: Any, record: Any) -> None:
        connection = _Connection()
        self._connections.append(connection)
        if hasattr(dbapi_connection, "set_trace_callback"):  # sqlite3
            dbapi_connection.set_trace_callback(connection.sent)
        else:  # psycopg: libpq's own trace, to a file of the connection's
            self._libpq[id(record)] = _LibpqTrace(dbapi_connection.pgconn, connection,
                                                  self._folder / f"{len(self._connections)}.trace")

    def _closing(self, _dbapi_connection: Any, record: Any) -> None:
        libpq = self._libpq.pop(id(record), None)
        if libpq is not None:
            libpq.read(again=False)

    def _end(self) -> None:
        for libpq in self._libpq.values():
            libpq.read(again=False)
        self._libpq.clear()


class _LibpqTrace:
    """libpq's trace of one psycopg connection, read back into the statements it sent.

    libpq writes the trace through a stdio stream of its own, flushed only when the trace is
    stopped: a read stops it, reads what was added, and starts it again."""

    def __init__(self, pgconn: Any, connection: _Connection, path: Path) -> None:
        from psycopg import pq

        self._pgconn, self._connection, self._path = pgconn, connection, path
        self._flags = pq.Trace.SUPPRESS_TIMESTAMPS | pq.Trace.REGRESS_MODE
        self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        self._read = 0
        self._parsed: dict[str, str] = {}  # a prepared statement's text, by its name
        self._bound: dict[str, str] = {}  # the text a portal runs, by its name
        self._start()

    def _start(self) -> None:
        self._pgconn.trace(self._fd)
        self._pgconn.set_trace_flags(self._flags)

    def read(self, *, again: bool = True) -> None:
        """Add the statements traced since the last read to the connection's; trace on after
        it unless not `again` (the connection is closing, or the trace ends)."""
        if self._fd < 0:
            return
        self._pgconn.untrace()  # flushes libpq's stream
        with open(self._path, encoding="utf-8", errors="replace") as file:
            file.seek(self._read)
            text = file.read()
            self._read = file.tell()
        for message in _MESSAGE.finditer(text):
            self._message(message["kind"], message["body"] or "")
        if again:
            self._start()
        else:
            os.close(self._fd)
            self._fd = -1

    def _message(self, kind: str, body: str) -> None:
        if kind == "Query":  # the simple protocol: BEGIN, COMMIT, ROLLBACK, pings
            self._connection.sent(body.strip()[1:-1])
        elif kind == "Parse" and (parse := _PARSE.match(body)):
            self._parsed[parse["name"]] = parse["sql"]
        elif kind == "Bind" and (bind := _BIND.match(body)):
            self._bound[bind["portal"]] = self._parsed.get(bind["name"], "?")
        elif kind == "Execute" and (execute := _EXECUTE.match(body)):
            self._connection.sent(self._bound.get(execute["portal"], "?"))


_MESSAGE = re.compile(r"^F\t\d+\t(?P<kind>\w+)(?:\t(?P<body>.*?))?(?=\n[FB]\t|\Z)",
                      re.MULTILINE | re.DOTALL)
"""A message the client sent, as libpq traces it (its text may run over several lines)."""
_PARSE = re.compile(r' "(?P<name>[^"]*)" "(?P<sql>.*)" \d+(?: \S+)*\s*$', re.DOTALL)
_BIND = re.compile(r' "(?P<portal>[^"]*)" "(?P<name>[^"]*)"')
_EXECUTE = re.compile(r' "(?P<portal>[^"]*)"')


@contextmanager
def tracing(engine: Engine) -> Iterator[Trace]:
    """Trace every connection `engine` opens while the block runs. The pool's idle connections
    are closed first, so that each one used in the block is opened (and traced) in it: call this
    between transactions, with none checked out."""
    engine.dispose()
    with tempfile.TemporaryDirectory(prefix="signoff-trace-") as folder:
        trace = Trace(Path(folder))
        event.listen(engine, "connect", trace._connected)
        event.listen(engine, "close", trace._closing)
        try:
            yield trace
        finally:
            trace._end()
            event.remove(engine, "connect", trace._connected)
            event.remove(engine, "close", trace._closing)
            engine.dispose()
