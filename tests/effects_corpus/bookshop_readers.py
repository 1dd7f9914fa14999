"""The bookshop's actions that only read, written as a working developer writes them.
`tests/test_effects_honest.py` expects each to be found to only read (`READERS`)."""

from __future__ import annotations

import collections
import csv
import datetime
import functools
import io
import itertools
import json
import logging
import os
import statistics
import uuid
from dataclasses import asdict
from decimal import Decimal
from typing import Annotated, Literal
from zoneinfo import ZoneInfo

from pydantic import BaseModel
from sqlalchemy import and_, desc, func, select
from sqlalchemy.orm import Session, joinedload, selectinload

from signoff import Provided
from signoff.exceptions import Invalid, NotFound
from tests.effects_corpus import bookshop_support as support
from tests.effects_corpus.bookshop import (
    Address,
    Author,
    Book,
    BookCard,
    BookFilter,
    Customer,
    Genre,
    Order,
    OrderLine,
    OrderStatus,
    Page,
    SalesFigure,
)
from tests.effects_corpus.bookshop_support import Shelf, Stocktake, money

log = logging.getLogger(__name__)

Db = Annotated[Session, Provided("session")]


# --- one record ---------------------------------------------------------------------------------


def describe_book(book: Book) -> str:
    """A book in a line."""
    return f"{book.display_title()} — {money(book.price)}, {book.stock} in stock"


def book_price_with_vat(book: Book) -> str:
    """The shelf price of a book."""
    return money(book.price_with_vat(support.vat_rate()))


def is_available(book: Book) -> bool:
    """Whether a book can be sold now."""
    return (book.in_stock and book.genre is not Genre.HISTORY) or book.stock > 5


def author_initials(author: Author) -> str:
    """An author's initials."""
    return author.initials


def author_bibliography(author: Author) -> list[str]:
    """An author's books, oldest first."""
    dated = [b for b in author.books if b.published is not None]
    dated.sort(key=lambda b: (b.published, b.title))
    return [f"{b.published:%Y} {b.title}" for b in dated]


def order_summary(order: Order) -> str:
    """An order in a few lines."""
    lines = [f"{line.quantity} × {line.book.title} at {money(line.unit_price)}"
             for line in order.lines]
    header = f"Order for {order.customer.name}, {order.status.value}"
    return "\n".join([header, *lines, f"Total {money(order.total)}"])


def order_is_late(order: Order) -> bool:
    """Whether an order waits too long."""
    return order.is_late(datetime.datetime.now(datetime.UTC))


def order_day(order: Order) -> datetime.date:
    """The shop's day an order was placed on."""
    return support.local_day(order.placed)


def order_as_json(order: Order) -> str:
    """An order as JSON, for a support ticket."""
    body = {
        "id": str(order.id),
        "status": order.status.value,
        "placed": order.placed.isoformat(),
        "lines": [{"isbn": li.book.isbn, "qty": li.quantity, "each": str(li.unit_price)}
                  for li in order.lines],
        "total": str(order.total),
    }
    return json.dumps(body, indent=2, sort_keys=True)


def customer_greeting(customer: Customer) -> str:
    """How a letter to a customer begins."""
    first = customer.name.split(" ", 1)[0].title()
    return f"Dear {first}," if not customer.vip else f"Dear {first}, valued member,"


def customer_since(customer: Customer, zone: str = "Europe/Amsterdam") -> str:
    """When a customer joined, in their zone."""
    return customer.joined.astimezone(ZoneInfo(zone)).strftime("%d %B %Y")


# --- queries ------------------------------------------------------------------------------------


def find_book(session: Db, isbn: str) -> BookCard:
    """The book with an ISBN."""
    wanted = support.clean_isbn(isbn)
    if not wanted:
        raise Invalid(f"{isbn!r} is not an ISBN.")
    book = session.scalars(select(Book).where(Book.isbn == wanted)).one_or_none()
    if book is None:
        raise NotFound(f"No book has ISBN {wanted}.")
    return support.card(book)


def get_book(session: Db, book_id: uuid.UUID) -> str:
    """A book by its id."""
    book = session.get(Book, book_id)
    if book is None:
        raise NotFound("No such book.")
    return book.display_title()


def search_books(session: Db, wanted: BookFilter, page: int = 1) -> list[BookCard]:
    """The books a filter admits, a page at a time."""
    query = support.paginate(support.book_query(wanted), Page(number=page))
    return [support.card(b) for b in session.scalars(query)]


def count_books(session: Db, wanted: BookFilter) -> int:
    """How many books a filter admits."""
    return support.count_rows(session, support.book_query(wanted))


def books_by_genre(session: Db, genre: Genre) -> list[str]:
    """The titles of a genre."""
    stmt = select(Book.title).where(Book.genre == genre).order_by(Book.title)
    return list(session.scalars(stmt))


def books_of_author(session: Db, name: str) -> list[str]:
    """An author's titles, by a join."""
    stmt = (select(Book).join(Book.author).where(Author.name.ilike(f"%{name}%"))
            .options(joinedload(Book.author)).order_by(desc(Book.published)))
    return [b.display_title() for b in session.scalars(stmt).unique()]


def cheapest_books(session: Db, count: int = 5) -> list[tuple[str, str]]:
    """The cheapest books in stock."""
    rows = session.execute(select(Book.title, Book.price).where(Book.stock > 0)
                           .order_by(Book.price).limit(count)).all()
    return [(title, money(price)) for title, price in rows]


def low_stock(session: Db, below: int = 3) -> list[str]:
    """The books to order again."""
    return [f"{b.title}: {b.stock}" for b in Stocktake(session).low(below)]


def stock_value(session: Db) -> str:
    """What the stock is worth."""
    return money(Stocktake(session).value())


def shelf_report(session: Db, genre: Genre) -> str:
    """A genre's shelf in a line."""
    books = session.scalars(select(Book).where(Book.genre == genre)).all()
    return Shelf(books=books).describe()


def genre_counts(session: Db) -> dict[str, int]:
    """How many titles each genre has."""
    rows = session.execute(select(Book.genre, func.count(Book.id)).group_by(Book.genre))
    return {genre.value: count for genre, count in rows}


def top_sellers(session: Db, limit: int = 10) -> list[str]:
    """The best-selling titles."""
    return [f"{title} ({sold})" for title, sold in support.best_sellers(session, limit)]


def orders_of_customer(session: Db, customer: Customer, status: OrderStatus | None = None
                       ) -> list[str]:
    """A customer's orders, newest first."""
    stmt = select(Order).where(Order.customer_id == customer.id)
    if status is not None:
        stmt = stmt.where(Order.status == status)
    stmt = stmt.options(selectinload(Order.lines)).order_by(Order.placed.desc())
    return [f"{o.placed:%Y-%m-%d} {money(o.total)}" for o in session.scalars(stmt)]


def orders_on_day(session: Db, day: datetime.date) -> int:
    """How many orders came in on a day, in the shop's zone."""
    start, end = support.day_bounds(day)
    stmt = select(func.count(Order.id)).where(and_(Order.placed >= start, Order.placed < end))
    return session.scalar(stmt) or 0


def late_orders(session: Db) -> list[str]:
    """The open orders older than a week."""
    now = datetime.datetime.now(datetime.UTC)
    orders = session.scalars(select(Order).where(Order.status == OrderStatus.OPEN))
    return [str(o.id) for o in orders if o.is_late(now)]


def monthly_sales(session: Db, year: int) -> list[SalesFigure]:
    """Sales per month of a year."""
    orders = session.scalars(select(Order).where(Order.status != OrderStatus.CANCELLED)).all()
    by_month: dict[str, list[Order]] = collections.defaultdict(list)
    for order in orders:
        if order.placed.year == year:
            by_month[f"{year}-{order.placed.month:02d}"].append(order)
    return [SalesFigure(period=month, orders=len(group), revenue=support.revenue(group))
            for month, group in sorted(by_month.items())]


def average_order(session: Db) -> str:
    """The mean and median order."""
    totals = [o.total for o in session.scalars(select(Order).options(selectinload(Order.lines)))]
    if not totals:
        return "No orders yet."
    return f"mean {money(statistics.mean(totals))}, median {money(statistics.median(totals))}"


def customers_page(session: Db, page: int = 1, size: int = 20) -> list[dict[str, str]]:
    """A page of customers."""
    paging = Page(number=page, size=min(size, support.page_size_limit()))
    rows = session.scalars(select(Customer).order_by(Customer.name)
                           .limit(paging.size).offset(paging.offset))
    return [{"name": c.name, "email": c.email} for c in rows]


def vip_emails(session: Db) -> str:
    """The VIP customers' addresses, for a mailing list someone else sends."""
    found = session.scalars(select(Customer.email).where(Customer.vip.is_(True)))
    return ", ".join(sorted(found))


def books_as_csv(session: Db, genre: Genre | None = None) -> str:
    """The catalogue as CSV text."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["isbn", "title", "price", "stock"])
    stmt = select(Book).order_by(Book.isbn)
    if genre is not None:
        stmt = stmt.where(Book.genre == genre)
    for book in session.scalars(stmt):
        writer.writerow([book.isbn, book.title, f"{book.price:.2f}", book.stock])
    return out.getvalue()


def title_words(session: Db, top: int = 10) -> list[tuple[str, int]]:
    """The words used most in titles."""
    words = itertools.chain.from_iterable(
        t.lower().split() for t in session.scalars(select(Book.title)))
    return collections.Counter(w for w in words if len(w) > 3).most_common(top)


def grouped_by_author(session: Db) -> dict[str, list[str]]:
    """Titles grouped by author."""
    books = session.scalars(select(Book).options(joinedload(Book.author))).unique().all()
    keyed = sorted(books, key=lambda b: b.author.name if b.author else "")
    return {name: [b.title for b in group]
            for name, group in itertools.groupby(
                keyed, key=lambda b: b.author.name if b.author else "")}


def price_bands(session: Db) -> dict[str, int]:
    """How many books fall in each price band."""
    bands = {"under 10": 0, "10–25": 0, "over 25": 0}
    for price in session.scalars(select(Book.price)):
        if price < 10:
            bands["under 10"] += 1
        elif price <= 25:
            bands["10–25"] += 1
        else:
            bands["over 25"] += 1
    return bands


class Basket(BaseModel):
    """What a customer means to buy."""

    isbns: list[str]
    coupon: str | None = None


def quote_basket(session: Db, basket: Basket) -> str:
    """What a basket would cost, without ordering it."""
    total = Decimal("0.00")
    missing: list[str] = []
    for raw in basket.isbns:
        book = session.scalars(select(Book).where(Book.isbn == support.clean_isbn(raw))).first()
        if book is None:
            missing.append(raw)
            continue
        total += book.price_with_vat(support.vat_rate())
    if basket.coupon and basket.coupon.upper().startswith("TEN"):
        total = total * Decimal("0.9")
    tail = f" ({len(missing)} not found: {', '.join(missing)})" if missing else ""
    return f"{money(total)}{tail}"


def shipping_label(order: Order, address: Address) -> str:
    """The label an order's parcel would carry."""
    parts = asdict(address)
    return "\n".join([order.customer.name, parts["street"],
                      f"{parts['postcode']} {parts['city'].upper()}", parts["country"]])


def order_lines_total(lines: list[OrderLine]) -> Decimal:
    """What some order lines add up to."""
    return functools.reduce(lambda acc, line: acc + line.amount, lines, Decimal(0))


def report_period(start: datetime.date, end: datetime.date,
                  unit: Literal["day", "week"] = "day") -> list[str]:
    """The periods of a report between two dates."""
    if end < start:
        raise Invalid("The end comes before the start.")
    step = datetime.timedelta(days=1 if unit == "day" else 7)
    days = (end - start) // step
    return [(start + i * step).isoformat() for i in range(days + 1)]


def shop_settings() -> dict[str, str]:
    """The settings the shop runs with."""
    return {"vat": str(support.vat_rate()), "page": str(support.page_size_limit()),
            "zone": os.environ.get("TZ", "Europe/Amsterdam")}


def log_and_count(session: Db, genre: Genre) -> int:
    """How many books of a genre, noted in the log."""
    count = session.scalar(select(func.count()).select_from(Book).where(Book.genre == genre))
    log.info("%s books of genre %s", count, genre.name)
    return count or 0


def newest_books(session: Db, days: int = 30) -> list[str]:
    """The books published lately."""
    since = datetime.date.today() - datetime.timedelta(days=days)
    stmt = select(Book).where(Book.published >= since).order_by(Book.published.desc())
    return [f"{b.title} ({b.published:%d %b})" for b in session.scalars(stmt)]


def authors_without_books(session: Db) -> list[str]:
    """The authors no book names."""
    has_books = select(Book.author_id).where(Book.author_id.is_not(None))
    stmt = select(Author.name).where(Author.id.not_in(has_books)).order_by(Author.name)
    return list(session.scalars(stmt))
