"""SQL run by what only looks like building a statement: a schema object's DDL
(``Base.metadata.create_all(bind)``, ``Table.drop(bind)``) changes the database, and SQL text
given as a part of a statement (``literal_column("f()")``, ``.where(text("…"))``) is read as
what it does there. Honest uses of both still only read."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import String, literal_column, select, text
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

from signoff.effects import EffectKind, analyse


class Base(DeclarativeBase):
    """The records of this test."""


class Shelf(Base):
    """A record whose table the actions drop and make."""

    __tablename__ = "shelf"
    id: Mapped[int] = mapped_column(primary_key=True)
    label: Mapped[str] = mapped_column(String(40))


def tables_made(session: Session) -> int:
    """Makes every table of the records (DDL)."""
    Base.metadata.create_all(session.get_bind())
    return 1


def tables_dropped(session: Session) -> int:
    """Drops every table of the records."""
    Base.metadata.drop_all(session.get_bind())
    return 1


def shelf_table_dropped(session: Session) -> int:
    """Drops the shelves' table."""
    Shelf.__table__.drop(session.get_bind())  # type: ignore[attr-defined]
    return 1


def shelf_table_made(session: Session) -> int:
    """Makes the shelves' table, if it is missing."""
    Shelf.__table__.create(session.get_bind(), checkfirst=True)  # type: ignore[attr-defined]
    return 1


def backend_ended(session: Session) -> int:
    """Ends another server process, through a column of raw SQL."""
    return len(session.execute(select(literal_column("pg_terminate_backend(4242)"))).all())


def setting_changed_in_a_filter(session: Session) -> int:
    """Changes a server setting, through raw SQL given as a filter."""
    return len(session.execute(
        select(Shelf).where(text("set_config('app.user', 'root', false) IS NOT NULL"))).all())


def shelves_deleted_in_a_filter(session: Session) -> int:
    """Deletes every shelf, through a second statement in raw SQL given as a filter."""
    return len(session.scalars(select(Shelf).where(text("1 = 1; DELETE FROM shelf"))).all())


def shelves_deleted_in_an_order(session: Session) -> int:
    """Deletes every shelf, through raw SQL given as an order."""
    return len(session.scalars(select(Shelf).order_by(text("id; DELETE FROM shelf"))).all())


def shelves_filtered_by_text(session: Session, label: str) -> int:
    """Filters and orders shelves by raw SQL that only reads."""
    found = select(Shelf).where(text("label = :label")).order_by(text("label desc"))
    return len(session.scalars(found, {"label": label}).all())


def shelves_counted_by_a_raw_column(session: Session) -> int:
    """Counts shelves by a raw column that only reads."""
    counted = select(literal_column("count(*)").label("n")).select_from(Shelf)
    return int(session.execute(counted).scalar_one())


DOING_MORE = [tables_made, tables_dropped, shelf_table_dropped, shelf_table_made, backend_ended,
              setting_changed_in_a_filter, shelves_deleted_in_a_filter,
              shelves_deleted_in_an_order]


@pytest.mark.parametrize("fn", DOING_MORE, ids=lambda f: f.__name__)
def test_ddl_and_sql_text_given_as_a_part_are_not_taken_to_only_read(
        fn: Callable[..., Any]) -> None:
    """Each changes the database or the server through SQL that looks like building a
    statement: it is not found to only read."""
    found = analyse(fn, name=fn.__name__)
    assert not found.only_reads
    assert {e.kind for e in found.effects} & {EffectKind.CHANGES, EffectKind.DELETES}


def test_a_schema_change_says_it_runs_ddl() -> None:
    """What ``create_all`` does is told as a change of the database's schema."""
    found = analyse(tables_made, name="tables_made")
    assert any("changes the database's schema" in e.reason for e in found.effects)


def test_a_second_statement_in_a_filter_deletes_its_records() -> None:
    """``DELETE FROM shelf`` hidden in a filter deletes shelves."""
    deleted = analyse(shelves_deleted_in_a_filter, name="x").deletes
    assert "shelf" in {name.lower() for name in deleted}  # (the table, or its record's name)


@pytest.mark.parametrize("fn", [shelves_filtered_by_text, shelves_counted_by_a_raw_column],
                         ids=lambda f: f.__name__)
def test_raw_sql_that_only_reads_given_as_a_part_only_reads(fn: Callable[..., Any]) -> None:
    """A filter, an order or a column of raw SQL that only reads leaves the action reading."""
    found = analyse(fn, name=fn.__name__)
    assert found.only_reads, found.explain()
