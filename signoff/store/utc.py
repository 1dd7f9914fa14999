"""Times as signoff keeps them: in UTC, and read back with their time zone on every database.

SQLite has no type for a moment in time: SQLAlchemy writes a datetime there as text without its
zone and reads it back naive. A column of `UtcDateTime` writes every moment in UTC and reads it
back aware, in UTC, on SQLite as on PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any, overload

from sqlalchemy import DateTime, Interval
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator

__all__ = ["UtcDateTime", "aware"]


@overload
def aware(when: datetime) -> datetime: ...
@overload
def aware(when: None) -> None: ...
def aware(when: datetime | None) -> datetime | None:
    """`when` in UTC, with its time zone (a naive time is taken to be in UTC already)."""
    if when is None:
        return None
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)


class UtcDateTime(TypeDecorator[datetime]):
    """A moment in time, written in UTC and read back aware.

    On SQLite it is written as SQLAlchemy writes a datetime there ("2026-12-03 14:28:08.806179",
    what files made before this type hold), by the standard library's C code: a time is written
    at every step of a task, and SQLAlchemy's own conversion costs several times as much."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        return aware(value)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        return aware(value)

    def coerce_compared_value(self, op: Any, value: Any) -> Any:
        """The type of what a time is compared with or moved by: a span of time is an
        interval (``updated_at - timedelta(hours=1)``), not a moment."""
        if isinstance(value, timedelta):
            return Interval()
        return self

    def bind_processor(self, dialect: Dialect) -> Callable[[Any], Any] | None:
        if dialect.name != "sqlite":
            return super().bind_processor(dialect)
        return _sqlite_text

    def result_processor(self, dialect: Dialect, coltype: object) -> Callable[[Any], Any] | None:
        if dialect.name != "sqlite":
            return super().result_processor(dialect, coltype)
        return _sqlite_moment


def _sqlite_text(value: datetime | None) -> str | None:
    if value is None:
        return None
    if value.tzinfo is not None and value.tzinfo is not UTC:
        value = value.astimezone(UTC)
    return value.isoformat(" ", "microseconds").removesuffix("+00:00")


def _sqlite_moment(value: str | datetime | None) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        return aware(value)
    return datetime.fromisoformat(value + "+00:00")
