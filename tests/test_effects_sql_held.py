"""SQL that does more than read, held somewhere on its way to the statement that runs it: in a
dict given to ``.values()`` or read back by key, a comprehension, an attribute, a class, a
module's constant, a parameter's default, either side of a conditional; or written out by other
means than ``text()`` (``column(…, is_literal=True)``, ``Function(name)``, ``.suffix_with(…)``,
a sequence's ``next_value()``, a writing CTE's columns). None of it is found to only read."""

from __future__ import annotations

import collections
import dataclasses
from collections.abc import Callable
from typing import Any, NamedTuple

import pytest
from sqlalchemy import (
    Sequence,
    column,
    func,
    insert,
    literal_column,
    select,
    text,
    union,
    update,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column
from sqlalchemy.sql.functions import Function

from signoff.effects import analyse


class Base(DeclarativeBase):
    pass


class Note(Base):
    __tablename__ = "note"
    id: Mapped[int] = mapped_column(primary_key=True)
    body: Mapped[str] = mapped_column()


def reads_through_a_dict(session: Session) -> list[Any]:
    parts = {"body": text("nextval('s')")}
    return list(session.execute(select(Note).where(Note.body == parts["body"])))


def reads_through_get(session: Session) -> list[Any]:
    parts = {"body": text("set_config('a', 'b', false)")}
    return list(session.execute(select(Note).where(Note.body == parts.get("body"))))


def reads_through_dict_values(session: Session) -> list[Any]:
    parts = {"body": text("pg_notify('a', 'b')")}
    return list(session.execute(select(Note).where(*parts.values())))


def reads_through_a_dict_key(session: Session) -> list[Any]:
    parts = {text("nextval('s')"): 1}
    return list(session.execute(select(Note).where(next(iter(parts)))))


def reads_through_dict_call(session: Session) -> list[Any]:
    parts = dict(body=text("nextval('s')"))
    return list(session.execute(select(Note).where(Note.body == parts["body"])))


def reads_through_a_chainmap(session: Session) -> list[Any]:
    parts = collections.ChainMap({"body": text("nextval('s')")})
    return list(session.execute(select(Note).where(Note.body == parts["body"])))


def reads_through_filter_by(session: Session) -> list[Any]:
    return list(session.execute(select(Note).filter_by(**{"body": text("nextval('s')")})))


def reads_through_a_dict_comprehension(session: Session) -> list[Any]:
    parts = {k: text("nextval('s')") for k in ["body"]}
    return list(session.execute(select(Note).where(Note.body == parts["body"])))


def reads_through_a_list_comprehension(session: Session) -> list[Any]:
    parts = [text("nextval('s')") for _ in range(1)]
    return list(session.execute(select(Note).where(*parts)))


def reads_through_a_generator(session: Session) -> list[Any]:
    parts = (text("nextval('s')") for _ in range(1))
    return list(session.execute(select(Note).where(*parts)))


def reads_through_a_stored_item(session: Session) -> list[Any]:
    parts: dict[str, Any] = {}
    parts["body"] = text("nextval('s')")
    return list(session.execute(select(Note).where(Note.body == parts["body"])))


def where_given(session: Session, parts: dict[str, Any]) -> list[Any]:
    return list(session.execute(select(Note).where(parts["t"])))


def reads_through_a_helper_given_a_dict(session: Session) -> list[Any]:
    return where_given(session, {"t": text("nextval('s')")})


class Holder:
    def __init__(self, held: Any) -> None:
        self.held = held


def reads_through_an_attribute_set_in_init(session: Session) -> list[Any]:
    holder = Holder(text("nextval('s')"))
    return list(session.execute(select(Note).where(holder.held)))


def reads_through_an_attribute_set_here(session: Session) -> list[Any]:
    holder = Holder(None)
    holder.held = text("nextval('s')")
    return list(session.execute(select(Note).where(holder.held)))


def reads_through_a_class_attribute(session: Session) -> list[Any]:
    class Parts:
        held = text("nextval('s')")
    return list(session.execute(select(Note).where(Parts.held)))


ADVANCES = text("nextval('s')")
PARTS = {"body": text("nextval('s')")}
SEQUENCE = Sequence("s")


def reads_through_a_module_constant(session: Session) -> list[Any]:
    return list(session.execute(select(Note).where(ADVANCES)))


def reads_through_a_module_dict(session: Session) -> list[Any]:
    return list(session.execute(select(Note).where(Note.body == PARTS["body"])))


def reads_through_an_annotated_default(session: Session, part: Any = ADVANCES) -> list[Any]:
    return list(session.execute(select(Note).where(part)))


def reads_through_a_default(session: Session, part=ADVANCES) -> list[Any]:  # type: ignore[no-untyped-def]
    return list(session.execute(select(Note).where(part)))


def reads_through_either(session: Session, flag: bool) -> list[Any]:
    return list(session.execute(select(Note).where(text("nextval('s')") if flag else text("1=1"))))


def reads_a_literal_column(session: Session) -> list[Any]:
    return list(session.execute(select(column("nextval('s')", is_literal=True))))


def reads_a_function_made(session: Session) -> list[Any]:
    return list(session.execute(select(Function("nextval", "s"))))


def reads_with_a_suffix(session: Session) -> list[Any]:
    return list(session.execute(select(Note).suffix_with(", nextval('s')")))


def reads_with_a_prefix(session: Session) -> list[Any]:
    return list(session.execute(select(Note).prefix_with("nextval('s'),")))


def reads_the_next_value(session: Session) -> list[Any]:
    return list(session.execute(select(SEQUENCE.next_value())))


def reads_a_new_sequence(session: Session) -> list[Any]:
    return list(session.execute(select(Sequence("s").next_value())))


def reads_a_writing_cte_column(session: Session) -> list[Any]:
    made = insert(Note).from_select(["body"], select(literal_column("'x'"))).returning(Note.id)
    return list(session.execute(select(Note).where(Note.id.in_(select(made.cte().c.id)))))


@dataclasses.dataclass
class Filter:
    where: Any


class Parts(NamedTuple):
    where: Any


def reads_through_a_dataclass(session: Session) -> list[Any]:
    return list(session.execute(select(Note).where(Filter(where=text("nextval('s')")).where)))


def reads_through_a_named_tuple(session: Session) -> list[Any]:
    return list(session.execute(select(Note).where(Parts(text("nextval('s')")).where)))


def reads_through_map(session: Session) -> list[Any]:
    return list(session.execute(select(Note).where(*map(text, ["nextval('s')"]))))


def reads_a_union(session: Session) -> list[Any]:
    return list(session.execute(union(select(Note.id), select(literal_column("nextval('s')")))))


HELD = [reads_through_a_dict, reads_through_get, reads_through_dict_values,
        reads_through_a_dict_key, reads_through_dict_call, reads_through_a_chainmap,
        reads_through_filter_by, reads_through_a_dict_comprehension,
        reads_through_a_list_comprehension, reads_through_a_generator, reads_through_a_stored_item,
        reads_through_a_helper_given_a_dict, reads_through_an_attribute_set_in_init,
        reads_through_an_attribute_set_here, reads_through_a_class_attribute,
        reads_through_a_module_constant, reads_through_a_module_dict,
        reads_through_an_annotated_default, reads_through_a_default, reads_through_either,
        reads_a_literal_column, reads_a_function_made, reads_with_a_suffix, reads_with_a_prefix,
        reads_the_next_value, reads_a_new_sequence, reads_a_writing_cte_column,
        reads_through_a_dataclass, reads_through_a_named_tuple, reads_through_map, reads_a_union]


@pytest.mark.parametrize("fn", HELD, ids=[f.__name__ for f in HELD])
def test_sql_held_on_the_way_is_counted(fn: Callable[..., Any]) -> None:
    """What the SQL held on the way does (advance a sequence, change a setting, notify,
    insert) counts: the query is not found to only read."""
    effects = analyse(fn, name=fn.__name__)
    assert not effects.only_reads, effects.explain()


def changes_through_values(session: Session) -> None:
    session.execute(update(Note).values({"body": text("(SELECT dblink_exec('other', 'x'))")}))


def test_what_values_given_in_a_dict_do_is_carried() -> None:
    """An update whose ``.values()`` dict holds SQL reaching another server reaches outside,
    besides changing the table."""
    effects = analyse(changes_through_values, name="changes_through_values")
    assert effects.external, effects.explain()


def reads_with_plain_parts(session: Session, flag: bool) -> list[Any]:
    parts = {"body": Note.body == "x", "id": [Note.id > 0 for _ in range(2)]}
    harmless = {k: text("note.id > 0") for k in ["a"]}
    sub = select(Note.id).cte()
    return [
        *session.execute(select(Note).where(parts["body"], *parts["id"], harmless["a"])),
        *session.execute(select(Note).where(Note.id.in_(select(sub.c.id)))),
        *session.execute(select(Function("count", Note.id), column("body"), func.lower("A"))),
        *session.execute(select(Note).prefix_with("DISTINCT")),
        *session.execute(select(Note).where(text("1=1") if flag else text("note.id > 1"))),
        *session.execute(select(Note).where(HARMLESS)),
        *session.execute(select(Note).where(Note.id == Filter(where=1).where)),
    ]


HARMLESS = text("note.id > 0")


def test_plain_parts_still_only_read() -> None:
    """Expressions, harmless text and reading functions held in dicts, comprehensions, a
    module constant, a reading CTE, ``Function("count")``: the query still only reads."""
    effects = analyse(reads_with_plain_parts, name="reads_with_plain_parts")
    assert effects.only_reads, effects.explain()
