"""Statements compiled once and run on the driver's own cursor: the loop's hot path.

SQLAlchemy Core spends some 30 µs around each statement it executes (an execution context, a
result object, events); the driver itself spends 2–3. signoff's bookkeeping — a task's turn, its
messages, its tool calls and receipt entries — runs a handful of small statements per step, so it
compiles each shape once per dialect (``prepare``) and runs it on the cursor of the transaction
it is given, with the column types' own conversions (JSON, dates, booleans) applied both ways.
The transaction stays SQLAlchemy's: what a prepared statement writes commits, or not, with
everything else in it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sqlalchemy import ClauseElement, Dialect, Table, bindparam, insert
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.schema import ScalarElementColumnDefault

from signoff.exceptions import StoreError

__all__ = ["Prepared", "Rows", "insert_of", "prepare"]

Convert = Callable[[Any], Any]


class Rows:
    """What a prepared statement gave: its rows as mappings, and how many rows it changed."""

    __slots__ = ("rowcount", "rows")

    def __init__(self, rows: list[dict[str, Any]], rowcount: int) -> None:
        self.rows = rows
        self.rowcount = rowcount

    def first(self) -> dict[str, Any] | None:
        """The first row, or None."""
        return self.rows[0] if self.rows else None

    def scalar(self) -> Any:
        """The first column of the first row, or None."""
        return next(iter(self.rows[0].values())) if self.rows else None


class Prepared:
    """One statement compiled for one dialect: its SQL, its parameters in the driver's order,
    and the conversions of its parameters and result columns."""

    def __init__(self, statement: ClauseElement, dialect: Dialect) -> None:
        compiled = statement.compile(dialect=dialect)
        if not isinstance(compiled, SQLCompiler):
            raise TypeError(f"Only SQL statements can be prepared, not {statement!r}.")
        if any(b.expanding for b in compiled.binds.values()):
            raise TypeError("A prepared statement takes no expanding IN (...) parameter.")
        self.sql = compiled.string
        self._positional = bool(compiled.positional)
        names = list(compiled.positiontup or ()) if self._positional else list(compiled.binds)
        self._names = names
        self._binds: list[tuple[str, Any, Convert | None]] = []
        for name in names:
            bind = compiled.binds[name]
            self._binds.append((name, bind.value, bind.type.dialect_impl(dialect).bind_processor(dialect)))
        self._fixed = {name: fixed for name, fixed, _ in self._binds}
        """Each parameter's own value, where the statement gives one (else None)."""
        self._columns: list[tuple[str, Convert | None]] | None = None
        selected = getattr(statement, "selected_columns", ())
        self._result_types = [(c.key, c.type) for c in selected]
        self._dialect = dialect
        self.on_sqlite = dialect.name == "sqlite"
        """Whether it was compiled for SQLite."""

    def run(self, db: Connection | Session, params: Mapping[str, Any] | None = None) -> Rows:
        """Run in `db`'s transaction (a connection, or a session's connection)."""
        connection = db if db.__class__ is Connection or not isinstance(db, Session) else (
            db.connection())
        return self.run_on(connection, params or {})

    def run_on(self, connection: Connection, params: Mapping[str, Any]) -> Rows:
        """Run on `connection`, in the transaction it has begun."""
        raw, description, rowcount = self._execute(connection, params)
        if description is None:
            return Rows([], rowcount)
        columns = self._columns_for(description)
        return Rows([{name: (convert(v) if convert is not None and v is not None else v)
                      for (name, convert), v in zip(columns, r, strict=True)} for r in raw],
                    rowcount)

    def raw(self, db: Connection | Session, params: Mapping[str, Any]
            ) -> tuple[Sequence[Any], Sequence[Any] | None]:
        """Run in `db`'s transaction, as `run` does; its rows as the driver gave them (no column
        converted yet: see `row_of`), and the cursor's description."""
        connection = db if db.__class__ is Connection or not isinstance(db, Session) else (
            db.connection())
        raw, description, _ = self._execute(connection, params)
        return raw, description

    def row_of(self, raw: Any, description: Sequence[Any]) -> dict[str, Any]:
        """One row of `raw`'s, converted as `run` converts it."""
        return {name: (convert(v) if convert is not None and v is not None else v)
                for (name, convert), v in zip(self._columns_for(description), raw, strict=True)}

    def _execute(self, connection: Connection, params: Mapping[str, Any]
                 ) -> tuple[Sequence[Any], Sequence[Any] | None, int]:
        given = {**self._fixed, **params}  # (not `params.get`: a call per parameter)
        values = [given[name] if convert is None else convert(given[name])
                  for name, _, convert in self._binds]
        cursor = connection.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
        try:
            try:
                cursor.execute(self.sql, values if self._positional else dict(
                    zip(self._names, values, strict=True)))
            except self._dialect.loaded_dbapi.Error as error:
                raise _store_error(connection, error) from error
            description = cursor.description
            raw = cursor.fetchall() if description is not None else []
            return raw, description, cursor.rowcount
        finally:
            cursor.close()

    def _columns_for(self, description: Sequence[Any]) -> list[tuple[str, Convert | None]]:
        if self._columns is None:
            found = []
            for i, d in enumerate(description):
                name, type_ = self._result_types[i] if i < len(self._result_types) else (d[0], None)
                convert = (type_.dialect_impl(self._dialect).result_processor(self._dialect, d[1])
                           if type_ is not None else None)
                found.append((name, convert))
            self._columns = found
        return self._columns


def _store_error(connection: Connection, error: Exception) -> StoreError:
    """The driver's `error`, as the Core path tells it (`Database.error`): a sentence naming
    the database; the driver's error is the cause."""
    from signoff.store.database import password_misread  # (it imports this module)
    from signoff.store.hints import server_hint

    shown = connection.engine.url.render_as_string(hide_password=True)
    reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    operational = isinstance(error, connection.dialect.loaded_dbapi.OperationalError)
    what = "could not be used" if operational else "refused a statement"
    hint = server_hint(connection.engine.url, str(error)) if (
        operational and connection.dialect.name != "sqlite") else ""
    return StoreError(password_misread(connection.engine.url) or
                      f"The database {shown} {what}: {reason}.{' ' if hint else ''}{hint}",
                      url=shown)


_KEPT = "_signoff_prepared"
"""Where a dialect keeps the statements prepared for it (in its ``__dict__``: they go with it)."""
_lock = threading.Lock()


def prepare(db: Connection | Session, key: Any, build: Callable[[], ClauseElement]) -> Prepared:
    """The statement `build` makes, compiled once per `key` for `db`'s dialect."""
    dialect = db.dialect if db.__class__ is Connection or not isinstance(db, Session) else (
        db.get_bind().dialect)
    try:  # (kept on the dialect itself: a weak dictionary's lookup took three calls a statement)
        known: dict[Any, Prepared] = dialect.__dict__[_KEPT]
    except KeyError:
        with _lock:
            known = dialect.__dict__.setdefault(_KEPT, {})
    if key in known:
        return known[key]
    return known.setdefault(key, Prepared(build(), dialect))


def insert_of(table: Table, columns: Sequence[str]) -> ClauseElement:
    """An INSERT of `columns` into `table`, with every other column's plain default given as a
    fixed value (a prepared statement has no SQLAlchemy to fill them in)."""
    values: dict[str, Any] = {c: bindparam(c) for c in columns}
    for column in table.columns:
        default = column.default
        if column.name in values or not isinstance(default, ScalarElementColumnDefault):
            continue
        values[column.name] = bindparam(f"default_{column.name}", default.arg, type_=column.type)
    return insert(table).values(values)
