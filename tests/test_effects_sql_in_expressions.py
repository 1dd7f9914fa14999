"""SQL text that does more than read, put into a query through SQLAlchemy's operators and
expression builders rather than handed to ``.where()`` itself: what it does goes on, through
``and_``, ``==``, a column's methods, ``func``, a subquery, into the statement that runs it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import (
    String,
    and_,
    case,
    cast,
    delete,
    func,
    literal,
    literal_column,
    not_,
    or_,
    select,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, aliased, mapped_column

from signoff.effects import analyse


class Base(DeclarativeBase):
    pass


class Note(Base):
    __tablename__ = "note"
    id: Mapped[int] = mapped_column(primary_key=True)
    body: Mapped[str] = mapped_column()


def deletes_inside_and(session: Session) -> list[Any]:
    return list(session.scalars(select(Note).where(and_(text("1=1; DELETE FROM note")))))


def notifies_inside_not(session: Session) -> list[Any]:
    return list(session.scalars(select(Note).where(not_(text("pg_notify('a', 'b')")))))


def compared_with_text(session: Session) -> list[Any]:
    return list(session.scalars(select(Note).where(Note.body == text("set_config('a','b',false)"))))


def in_a_column_method(session: Session) -> list[Any]:
    return list(session.scalars(select(Note).where(
        Note.body.like(literal_column("set_config('a','b',false)")))))


def in_a_case(session: Session) -> list[Any]:
    return list(session.execute(select(case((Note.id == 1, literal_column("nextval('s')")),
                                            else_=0))))


def in_a_subquery(session: Session) -> list[Any]:
    sub = select(literal_column("pg_advisory_lock(1)")).scalar_subquery()
    return list(session.scalars(select(Note).where(Note.id == sub)))


def in_a_subquery_of_in(session: Session) -> list[Any]:
    return list(session.scalars(select(Note).where(
        Note.id.in_(select(literal_column("nextval('s')"))))))


def in_arithmetic(session: Session) -> list[Any]:
    return list(session.scalars(select(Note).where(Note.id + literal_column("nextval('s')") > 1)))


def in_a_sql_function(session: Session) -> list[Any]:
    return list(session.scalars(select(Note).where(
        Note.body == func.lower(text("setval('s', 1)")))))


def in_a_writing_cte(session: Session) -> list[Any]:
    gone = delete(Note).returning(Note.id).cte("gone")
    return list(session.execute(select(gone)))


HIDDEN = [deletes_inside_and, notifies_inside_not, compared_with_text, in_a_column_method,
          in_a_case, in_a_subquery, in_a_subquery_of_in, in_arithmetic, in_a_sql_function,
          in_a_writing_cte]


@pytest.mark.parametrize("fn", HIDDEN, ids=[f.__name__ for f in HIDDEN])
def test_sql_put_in_through_an_expression_is_counted(fn: Callable[..., Any]) -> None:
    """What the SQL does (delete, change the server's settings or a sequence, take a lock,
    notify) counts: the query is not found to only read."""
    effects = analyse(fn, name=fn.__name__)
    assert not effects.only_reads, effects.explain()


def test_a_delete_inside_and_is_named() -> None:
    effects = analyse(deletes_inside_and, name="deletes_inside_and")
    assert "Note" in effects.deletes or "note" in effects.deletes, effects.explain()


def reads_with_operators(session: Session) -> list[Any]:
    sub = select(Note.id).where(Note.body == "x").scalar_subquery()
    other = aliased(Note)
    return [
        *session.scalars(select(Note).where(and_(Note.id == sub, or_(
            Note.body == "a", not_(Note.body.like("b%")), text("note.id > 0"))))),
        *session.execute(select(case((Note.id == 1, "one"), else_="other"), cast(Note.id, String),
                                literal(1), func.count(Note.id)).group_by(Note.id)),
        *session.execute(select(Note, other).join(other, other.id == Note.id)
                         .where(other.body.in_(["x", "y"]), func.lower(Note.body) != "z")),
    ]


def test_ordinary_queries_still_only_read() -> None:
    """``and_``, ``or_``, ``not_``, comparisons, ``case``, ``cast``, a subquery, ``func.count``
    and harmless text: the query still only reads."""
    effects = analyse(reads_with_operators, name="reads_with_operators")
    assert effects.only_reads, effects.explain()
