"""A mapped class's column (``Repair.price``) builds SQL with its operators and expression
methods; its descriptor's ``__set__``/``__delete__`` and its members that are the ORM's own
machinery (``impl``, ``comparator``, ``parent``…) reach past it. Each ``by_`` function changes a
record, or may run any code, only that way (it was taken to only read, the column's type being a
SQL expression builder's); each ``kept_`` function only builds SQL, and reads."""

from __future__ import annotations

from sqlalchemy import select

from tests.effects_corpus.records import Repair


def by_a_columns_descriptor_set(repair: Repair) -> None:
    Repair.price.__set__(repair, 12)


def by_a_columns_descriptor_delete(repair: Repair) -> None:
    Repair.price.__delete__(repair)


def by_the_class_of_a_columns_parent(repair: Repair) -> None:
    Repair.price.parent.class_.title.__set__(repair, "renamed")


def by_a_columns_impl(repair: Repair) -> None:
    Repair.price.impl.set(repair.__dict__, None, 9, None)


def by_what_a_columns_comparator_reaches() -> None:
    Repair.price.comparator.__class__.__init__.__globals__["util"].warn("x")


def by_the_class_of_a_column() -> None:
    Repair.price.__class__.__init__.__globals__["util"].warn("x")


def kept_a_column_ordered_and_filtered() -> object:
    return select(Repair).where(Repair.title.in_(["a", "b"]), Repair.price >= 3).order_by(
        Repair.price.desc())


def kept_a_column_labelled_and_added() -> object:
    return select((Repair.price + 1).label("next"), Repair.title.like("%x%"),
                  -Repair.price, Repair.status == "open")
