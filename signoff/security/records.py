"""App records: SQLAlchemy 2 declarative classes with a UUID ``id`` and record rules.

``class Repair(app.Record)`` gives the class a table named after it (``repair``), an ``id``
given at construction, and ``__security__``: the rules the library enforces on every load and
flush of a session acting as someone.
"""

from __future__ import annotations

import re
import uuid
from typing import Any, ClassVar

from sqlalchemy import String, Uuid, event, inspect
from sqlalchemy.orm import DeclarativeBase, Mapped, declared_attr, mapped_column

from signoff.security.rules import Rule

__all__ = ["RecordBase", "make_record_base", "record_label", "record_type_name"]


class RecordBase:
    """What every app record has, whatever app it belongs to."""

    __security__: ClassVar[list[Rule]] = []
    """The record rules of this type: nothing is allowed unless a rule allows it."""

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    """The record's id, given when the record is made."""

    @declared_attr.directive
    @classmethod
    def __tablename__(cls) -> str:
        return re.sub(r"(?<!^)(?=[A-Z])", "_", cls.__name__).lower()

    def __str__(self) -> str:
        return record_label(self)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.id}>"


def make_record_base() -> type[RecordBase]:
    """A fresh declarative base for one app's records (each app has its own metadata)."""

    class Record(RecordBase, DeclarativeBase):
        """The base of this app's records."""

    event.listen(Record, "init", _give_id, propagate=True)
    return Record


def _give_id(target: RecordBase, _args: Any, kwargs: dict[str, Any]) -> None:
    if kwargs.get("id") is None:
        kwargs["id"] = uuid.uuid4()


def record_type_name(cls: type) -> str:
    """The name of a record type as a person reads it ("Repair")."""
    return cls.__name__


def record_label(record: Any) -> str:
    """How a record reads to a person: its type and its first unique text column ("Repair T-7"),
    or its type and id."""
    cls = type(record)
    try:
        columns = inspect(cls).columns
    except Exception:  # not mapped: not a record
        return str(record)
    for column in columns:
        if column.unique and isinstance(column.type, String):
            value = getattr(record, column.key, None)
            if value:
                return f"{cls.__name__} {value}"
    return f"{cls.__name__} {getattr(record, 'id', '?')}"
