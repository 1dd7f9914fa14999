"""The bookshop's helpers, in a module of their own as an app keeps them: money, dates,
paging, settings read from the environment, queries built once and used by several actions,
and a small class the actions use. All of them only read or compute, except where said."""

from __future__ import annotations

import functools
import logging
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from zoneinfo import ZoneInfo

from sqlalchemy import Select, func, or_, select
from sqlalchemy.orm import Session, selectinload

from tests.effects_corpus.bookshop import Book, BookCard, BookFilter, Order, OrderLine, Page

log = logging.getLogger("bookshop")

CENT = Decimal("0.01")
SHOP_ZONE = ZoneInfo("Europe/Amsterdam")
ISBN = re.compile(r"^(97[89])?\d{9}[\dX]$")


@functools.lru_cache(maxsize=1)
def vat_rate() -> Decimal:
    """The VAT rate, from the environment (BOOKSHOP_VAT, 0.09 by default)."""
    return Decimal(os.environ.get("BOOKSHOP_VAT", "0.09"))


def page_size_limit() -> int:
    """The largest page a caller may ask for."""
    return int(os.getenv("BOOKSHOP_MAX_PAGE", "100"))


def money(amount: Decimal) -> str:
    """An amount as euros, to the cent."""
    return f"€{amount.quantize(CENT, rounding=ROUND_HALF_UP):,}"


def local_day(moment: datetime) -> date:
    """The shop's calendar day of a moment."""
    return moment.astimezone(SHOP_ZONE).date()


def day_bounds(day: date) -> tuple[datetime, datetime]:
    """The start and end of a day in the shop's zone."""
    start = datetime(day.year, day.month, day.day, tzinfo=SHOP_ZONE)
    return start, start + timedelta(days=1)


def clean_isbn(raw: str) -> str:
    """An ISBN without its dashes and spaces, or "" when it is not one."""
    digits = re.sub(r"[\s-]", "", raw).upper()
    return digits if ISBN.match(digits) else ""


def book_query(wanted: BookFilter) -> Select[tuple[Book]]:
    """The SELECT of the books a filter admits."""
    query = select(Book).options(selectinload(Book.author))
    if wanted.text:
        like = f"%{wanted.text}%"
        query = query.where(or_(Book.title.ilike(like), Book.isbn == wanted.text))
    if wanted.genre is not None:
        query = query.where(Book.genre == wanted.genre)
    if wanted.max_price is not None:
        query = query.where(Book.price <= wanted.max_price)
    if wanted.in_stock_only:
        query = query.where(Book.stock > 0)
    return query.order_by(Book.title)


def paginate(query: Select[tuple[Book]], page: Page) -> Select[tuple[Book]]:
    """One page of a query."""
    size = min(page.size, page_size_limit())
    return query.limit(size).offset(page.offset)


def card(book: Book) -> BookCard:
    """A book as a search shows it."""
    return BookCard(id=str(book.id), title=book.title,
                    author=book.author.name if book.author else None,
                    price=book.price, genre=book.genre)


def revenue(orders: Iterable[Order]) -> Decimal:
    """What the orders brought in."""
    return sum((o.total for o in orders), Decimal("0.00"))


def count_rows(session: Session, query: Select[tuple[Book]]) -> int:
    """How many rows a query gives."""
    return session.scalar(select(func.count()).select_from(query.subquery())) or 0


def best_sellers(session: Session, limit: int = 10) -> list[tuple[str, int]]:
    """The titles sold most, with how many copies."""
    rows = session.execute(
        select(Book.title, func.sum(OrderLine.quantity).label("sold"))
        .join(OrderLine, OrderLine.book_id == Book.id)
        .group_by(Book.title)
        .order_by(func.sum(OrderLine.quantity).desc())
        .limit(limit)
    )
    return [(title, int(sold)) for title, sold in rows]


@dataclass(frozen=True, kw_only=True)
class Shelf:
    """The books of a shelf, and what the shop says about them."""

    books: Sequence[Book]

    def total_value(self) -> Decimal:
        """What the shelf is worth at shop prices."""
        return sum((b.price * b.stock for b in self.books), Decimal(0))

    def titles(self) -> list[str]:
        """The titles, sorted."""
        return sorted(b.title for b in self.books)

    def describe(self) -> str:
        """The shelf in a line."""
        log.debug("describing a shelf of %d books", len(self.books))
        return f"{len(self.books)} books worth {money(self.total_value())}"


class Stocktake:
    """Counts what is on the shelves (the app's own class, holding a session)."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def low(self, below: int) -> list[Book]:
        """The books with fewer than `below` copies."""
        return list(self.session.scalars(select(Book).where(Book.stock < below)))

    def value(self) -> Decimal:
        """What all the stock is worth."""
        return Shelf(books=self.low(10**9)).total_value()

    def write_off(self, book: Book) -> None:
        """Take a book off the shelves (a change)."""
        book.stock = 0
