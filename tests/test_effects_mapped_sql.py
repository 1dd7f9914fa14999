"""SQL a record's mapping puts into every statement that loads it — a ``column_property`` of SQL
text, a relationship joined on it — runs as the action reads records of it, without the
action's writing it: what it does more than read is the action's.

(The records' names are their own: the analysis names records by class, so a mapping's SQL
counts for every record of the process called so — another test's `Ticket` included.)"""

from __future__ import annotations

from typing import Annotated, Any

from sqlalchemy import ForeignKey, String, func, literal_column, select, text
from sqlalchemy.orm import (
    DeclarativeBase,
    Mapped,
    Session,
    column_property,
    mapped_column,
    relationship,
)

from signoff import App, Provided
from signoff.effects import analyse

TheSession = Annotated[Session, Provided("session")]


def test_a_column_of_sql_that_writes_is_run_by_reading_its_record() -> None:
    """A record whose mapping gives a column ``nextval('s')`` (a sequence advanced each time
    one is loaded): an action that reads it does not only read; its path names the column."""
    app = App("t", database="sqlite://")

    class NumberedTicket(app.Record):  # type: ignore[name-defined,misc]
        body: Mapped[str] = mapped_column(String(40), default="")
        number = column_property(literal_column("nextval('tickets')"))

    @app.action
    def count_tickets(session: TheSession) -> int:
        """Count the tickets."""
        return len(session.scalars(select(NumberedTicket)).all())

    effects = app.actions.info("count_tickets").effects
    assert not effects.only_reads, effects.explain()
    assert any("NumberedTicket.number" in line for line in effects.explain()), effects.explain()


def test_a_relationship_joined_on_sql_that_writes_is_run_by_reading_its_record() -> None:
    """A relationship whose join holds ``text(…)`` calling a function that writes: reading
    the records it is of (and so loading it) does not only read."""
    app = App("t", database="sqlite://")

    class PetKeeper(app.Record):  # type: ignore[name-defined,misc]
        name: Mapped[str] = mapped_column(String(40), default="")

    class KeptPet(app.Record):  # type: ignore[name-defined,misc]
        keeper_id: Mapped[Any] = mapped_column(ForeignKey(PetKeeper.id))
        keeper = relationship(PetKeeper, viewonly=True, primaryjoin=lambda: (
            KeptPet.keeper_id == PetKeeper.id) & text("set_config('a', 'b', false) <> ''"))

    @app.action
    def keepers(session: TheSession) -> list[str]:
        """The pets' keepers."""
        return [pet.keeper.name for pet in session.scalars(select(KeptPet))]

    effects = app.actions.info("keepers").effects
    assert not effects.only_reads, effects.explain()


def test_a_mapping_of_sql_that_only_reads_still_only_reads() -> None:
    """Columns of SQL that only computes or reads (``upper(body)``, a count in a subquery) and
    a plain relationship: the action still only reads."""
    app = App("t", database="sqlite://")

    class Shelf(app.Record):  # type: ignore[name-defined,misc]
        label: Mapped[str] = mapped_column(String(40), default="")
        shouted = column_property(func.upper(literal_column("label")))

    class Book(app.Record):  # type: ignore[name-defined,misc]
        title: Mapped[str] = mapped_column(String(40), default="")
        shelf_id: Mapped[Any] = mapped_column(ForeignKey(Shelf.id))
        shelf = relationship(Shelf)

    Shelf.books = column_property(  # type: ignore[attr-defined]
        select(func.count(Book.id)).where(Book.shelf_id == Shelf.id).scalar_subquery())

    @app.action(query=True)
    def shelves(session: TheSession) -> list[str]:
        """The shelves, and their books' titles."""
        return [f"{book.shelf.shouted}: {book.title}" for book in session.scalars(select(Book))]

    effects = app.actions.info("shelves").effects
    assert effects.only_reads, effects.explain()


class _Base(DeclarativeBase):
    pass


class Counter(_Base):
    """A class mapped apart from the app's records, on a base of the app's own."""

    __tablename__ = "counter"
    id: Mapped[int] = mapped_column(primary_key=True)
    next = column_property(literal_column("nextval('counter')"))


def reads_a_counter(session: Session) -> list[Any]:
    return list(session.scalars(select(Counter)))


def test_a_class_mapped_apart_from_the_records_counts_its_columns_sql() -> None:
    """Selecting a class mapped on the app's own base, whose column advances a sequence:
    not found to only read."""
    effects = analyse(reads_a_counter, name="reads_a_counter")
    assert not effects.only_reads, effects.explain()
