"""Times as signoff keeps them: in UTC, and read back with their time zone on every database.

SQLite has no type for a moment in time: SQLAlchemy writes a datetime there as text without its
zone and reads it back naive. A column of `UtcDateTime` writes every moment in UTC and reads it
back aware, in UTC, on SQLite as on PostgreSQL.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import overload

from sqlalchemy import DateTime
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
    """A moment in time, written in UTC and read back aware."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        return aware(value)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        return aware(value)
