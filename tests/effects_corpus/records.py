"""The record types of the corpus: an app's records made with `make_record_base()`."""

from __future__ import annotations

from sqlalchemy import ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column, relationship

from signoff.security.records import make_record_base

Record = make_record_base()


class Customer(Record):
    """Someone a repair is for."""

    name: Mapped[str] = mapped_column(String(80))


class Repair(Record):
    """A repair in the workshop."""

    title: Mapped[str] = mapped_column(String(200))
    price: Mapped[int] = mapped_column(default=0)
    status: Mapped[str] = mapped_column(String(20), default="open")

    def close(self) -> None:
        """Mark the repair closed (a change of the record)."""
        self.status = "closed"

    def describe(self) -> str:
        """The repair in words (a read)."""
        return f"{self.title} ({self.price}, {self.status})"


class Bin(Record):
    """Where parts are kept."""

    label: Mapped[str] = mapped_column(String(20), default="")


class Part(Record):
    """A part, kept in a bin."""

    bin_id: Mapped[int | None] = mapped_column(ForeignKey("bin.id"), default=None)
    bin: Mapped[Bin | None] = relationship()
