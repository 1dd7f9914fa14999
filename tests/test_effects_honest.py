"""An honest app's actions, from the side of its author: what only reads is found to only read
(so nobody is asked about it), and what changes, sends or reaches outside is found to.

The bookshop of `tests/effects_corpus/bookshop*.py` is written as a working developer writes
one: SQLAlchemy queries built in helpers, pydantic models and dataclasses, enums, settings read
from the environment, money in `Decimal`. `bookshop_guards` holds code near each shape the
analysis learnt only reads, that does more: it must still be found."""

from __future__ import annotations

import inspect
import types
from collections.abc import Callable
from typing import Any

import pytest

from signoff import App
from signoff.effects import EffectKind, analyse
from tests.effects_corpus import bookshop_guards as guards
from tests.effects_corpus import bookshop_readers as readers
from tests.effects_corpus import bookshop_reports as reports
from tests.effects_corpus import bookshop_writers as writers


def _functions(module: types.ModuleType) -> list[Callable[..., Any]]:
    return [f for f in vars(module).values()
            if inspect.isfunction(f) and f.__module__ == module.__name__]


SELF_UNANNOTATED = {"low_stock", "stock_value"}
"""Readers through `Stocktake`, whose ``self.session`` its class does not declare: code
elsewhere may set it to anything, so its methods are of no known code (the docs say so, and
the caution says to annotate it)."""

READERS = [f for f in _functions(readers) + _functions(reports)
           if f.__name__ not in SELF_UNANNOTATED]
WRITERS = _functions(writers)
GUARDS = [f for f in _functions(guards) if f.__name__ not in ("run_statement", "limited")]


def test_the_corpus_is_large_enough() -> None:
    """At least 40 honest readers and 20 honest writers are measured."""
    assert len(READERS) >= 40
    assert len(WRITERS) >= 20


@pytest.mark.parametrize("fn", READERS, ids=lambda f: f.__name__)
def test_an_honest_reader_only_reads(fn: Callable[..., Any]) -> None:
    """Each honest reader is found to only read: nothing in it is put to a person."""
    found = analyse(fn, name=fn.__name__)
    assert found.only_reads, [(e.kind.name, e.target, e.path, e.reason) for e in found.effects
                              if e.kind is not EffectKind.READS]


@pytest.mark.parametrize("fn", WRITERS, ids=lambda f: f.__name__)
def test_an_honest_writer_does_more_than_read(fn: Callable[..., Any]) -> None:
    """Each honest writer is found to change, create, delete or reach outside."""
    assert not analyse(fn, name=fn.__name__).only_reads


@pytest.mark.parametrize("fn", GUARDS, ids=lambda f: f.__name__)
def test_near_an_honest_reader_what_does_more_is_found(fn: Callable[..., Any]) -> None:
    """What sets the environment, runs a statement that writes through a helper, or calls code
    of the app's out of `asdict` or an enum's members, is still found to do more than read."""
    assert not analyse(fn, name=fn.__name__).only_reads


@pytest.mark.parametrize("name", sorted(SELF_UNANNOTATED))
def test_an_undeclared_attribute_of_self_says_to_annotate_it(name: str) -> None:
    """A session kept on ``self`` that its class does not declare is of no known type: the
    caution names it and where, so that its author can annotate it."""
    found = analyse(getattr(readers, name), name=name)
    assert not found.only_reads
    assert any("`self.session` is not known; annotate it" in c for c in found.cautions())


@pytest.mark.parametrize(("name", "expected"), [
    ("set_price", {(EffectKind.CHANGES, "Book")}),
    ("add_book", {(EffectKind.CREATES, "Book")}),
    ("delete_book", {(EffectKind.DELETES, "Book")}),
    ("discount_genre", {(EffectKind.CHANGES, "Book")}),
    ("purge_cancelled", {(EffectKind.DELETES, "Order")}),
    ("cancel_order", {(EffectKind.CHANGES, "Order")}),
    ("place_order", {(EffectKind.CREATES, "Order"), (EffectKind.CREATES, "OrderLine"),
                     (EffectKind.CHANGES, "Book")}),
])
def test_an_honest_writer_is_told_by_what_it_writes(name: str, expected: set[Any]) -> None:
    """What an honest writer changes is named by its record type."""
    found = analyse(getattr(writers, name), name=name)
    assert expected <= {(e.kind, e.target) for e in found.effects}


@pytest.mark.parametrize("name", ["email_receipt", "publish_price", "lookup_cover",
                                  "export_catalogue"])
def test_an_honest_call_outside_reaches_outside(name: str) -> None:
    """Mail sent, a web API called (a GET too) and a file written reach outside."""
    assert analyse(getattr(writers, name), name=name).external


def test_an_update_handed_to_a_helper_is_told_as_the_change_it_is() -> None:
    """A statement handed to a helper is walked there as the one given: an UPDATE of books is
    a change of Book, whatever the helper's annotation says."""
    found = analyse(guards.update_through_helper, name="update_through_helper")
    assert (EffectKind.CHANGES, "Book") in {(e.kind, e.target) for e in found.effects}


@pytest.mark.parametrize("name", ["book_price_with_vat", "shop_settings", "search_books",
                                  "quote_basket", "shipping_label"])
def test_an_honest_reader_registers_as_a_query(name: str) -> None:
    """Declared ``query=True``, an honest reader that reads the environment, pages a query
    built in a helper or reads `asdict` of a dataclass is registered, not refused."""
    app = App("bookshop", database="sqlite://")
    registered = app.add_action(getattr(readers, name), query=True)
    info = {i.name: i for i in app.actions.catalog()}[registered.action_name]
    assert info.effects.only_reads
    assert info.query


def test_an_enums_members_iterated_register_as_a_query() -> None:
    """Grouping by an enum's members (``{s.value: [] for s in OrderStatus}``) only reads."""
    app = App("bookshop", database="sqlite://")
    app.add_action(reports.open_orders_by_status, query=True)
    info = {i.name: i for i in app.actions.catalog()}["open_orders_by_status"]
    assert info.effects.only_reads
    assert info.query
