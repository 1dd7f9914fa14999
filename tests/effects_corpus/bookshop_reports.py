"""More of the bookshop's actions that only read: reports and look-ups in the shapes an app's
code takes them (result mappings, subqueries, common table expressions, text SQL with bound
values, named tuples, cached properties, class methods). `tests/test_effects_honest.py` expects
each to be found to only read."""

from __future__ import annotations

import datetime
import functools
import itertools
import json
import logging
import re
import uuid
from collections import Counter, OrderedDict, deque
from decimal import Decimal
from operator import attrgetter
from typing import Annotated, NamedTuple
from zoneinfo import ZoneInfo

from pydantic import BaseModel
from sqlalchemy import case, exists, func, select, text, union_all
from sqlalchemy.orm import Session

from signoff import Provided
from signoff.exceptions import NotFound
from tests.effects_corpus import bookshop_support as support
from tests.effects_corpus.bookshop import (
    Author,
    Book,
    BookCard,
    Customer,
    Genre,
    Order,
    OrderLine,
    OrderStatus,
)

log = logging.getLogger(__name__)

Db = Annotated[Session, Provided("session")]
WORD = re.compile(r"[A-Za-z']+")


class StockLine(NamedTuple):
    """One book's stock in a report."""

    title: str
    stock: int
    value: Decimal


class Report(BaseModel):
    """A report as the app returns it."""

    title: str
    rows: list[dict[str, str]]
    made: datetime.datetime


class Calendar:
    """The shop's opening days (the app's own class, with a cached property)."""

    def __init__(self, zone: str) -> None:
        self.zone_name = zone

    @functools.cached_property
    def zone(self) -> ZoneInfo:
        """The zone."""
        return ZoneInfo(self.zone_name)

    @classmethod
    def shop(cls) -> Calendar:
        """The shop's calendar."""
        return cls("Europe/Amsterdam")

    @staticmethod
    def is_open(day: datetime.date) -> bool:
        """Whether the shop opens on a day."""
        return day.weekday() < 6


def stock_lines(session: Db) -> list[StockLine]:
    """Each book's stock and what it is worth."""
    rows = session.execute(select(Book.title, Book.stock, Book.price).order_by(Book.title))
    return [StockLine(title, stock, price * stock) for title, stock, price in rows]


def stock_mappings(session: Db) -> list[dict[str, object]]:
    """The stock as mappings."""
    rows = session.execute(select(Book.isbn, Book.stock)).mappings().all()
    return [dict(row) for row in rows]


def customers_with_orders(session: Db) -> list[str]:
    """The customers who ordered anything."""
    ordered = exists().where(Order.customer_id == Customer.id)
    return list(session.scalars(select(Customer.name).where(ordered)))


def spend_per_customer(session: Db) -> dict[str, str]:
    """What each customer spent, by a subquery."""
    spent = (select(Order.customer_id, func.sum(OrderLine.unit_price * OrderLine.quantity)
                    .label("spent"))
             .join(OrderLine, OrderLine.order_id == Order.id)
             .group_by(Order.customer_id).subquery())
    rows = session.execute(select(Customer.name, spent.c.spent)
                           .join(spent, spent.c.customer_id == Customer.id))
    return {name: support.money(Decimal(total or 0)) for name, total in rows}


def recent_big_orders(session: Db, above: Decimal = Decimal(100)) -> list[str]:
    """The orders above an amount, by a CTE."""
    totals = (select(OrderLine.order_id, func.sum(OrderLine.unit_price).label("amount"))
              .group_by(OrderLine.order_id).cte("totals"))
    rows = session.execute(select(totals.c.order_id).where(totals.c.amount > above))
    return [str(order_id) for (order_id,) in rows]


def price_labels(session: Db) -> list[tuple[str, str]]:
    """Each title with a price label made in SQL."""
    label = case((Book.price < 10, "cheap"), (Book.price < 25, "fair"), else_="dear")
    return [(t, lab) for t, lab in session.execute(select(Book.title, label))]


def titles_and_names(session: Db) -> list[str]:
    """Titles and author names in one list, by a UNION."""
    both = union_all(select(Book.title.label("name")), select(Author.name.label("name")))
    return sorted(session.scalars(select(both.subquery().c.name)))


def count_by_sql(session: Db, genre: Genre) -> int:
    """How many books a genre has, in SQL text with a bound value."""
    stmt = text("SELECT count(*) FROM book WHERE genre = :genre")
    return int(session.execute(stmt, {"genre": genre.name}).scalar_one())


def books_by_ids(session: Db, ids: list[uuid.UUID]) -> list[str]:
    """The titles of some books."""
    if not ids:
        return []
    return list(session.scalars(select(Book.title).where(Book.id.in_(ids))))


def most_expensive(session: Db) -> str:
    """The dearest book's price."""
    top = session.scalar(select(func.max(Book.price)))
    return support.money(top) if top is not None else "no books"


def first_book(session: Db) -> BookCard:
    """The first book by title."""
    book = session.scalars(select(Book).order_by(Book.title).limit(1)).first()
    if book is None:
        raise NotFound("There are no books.")
    return support.card(book)


def opening_days(start: datetime.date, days: int = 14) -> list[str]:
    """The days the shop opens in a span."""
    calendar = Calendar.shop()
    span = (start + datetime.timedelta(days=i) for i in range(days))
    return [d.isoformat() for d in span if calendar.is_open(d)]


def shop_time_now() -> str:
    """The time in the shop."""
    now = datetime.datetime.now(Calendar.shop().zone)
    return now.strftime("%H:%M %Z")


def word_cloud(session: Db, top: int = 5) -> list[str]:
    """The words used most in titles, by a regular expression."""
    counts: Counter[str] = Counter()
    for title in session.scalars(select(Book.title)):
        counts.update(w.lower() for w in WORD.findall(title))
    return [f"{word} ×{n}" for word, n in counts.most_common(top)]


def last_orders(session: Db, keep: int = 3) -> list[str]:
    """The last few orders, with a bounded deque."""
    recent: deque[str] = deque(maxlen=keep)
    for order in session.scalars(select(Order).order_by(Order.placed)):
        recent.append(f"{order.placed:%Y-%m-%d} {order.status.value}")
    return list(recent)


def ordered_genres(session: Db) -> dict[str, int]:
    """Genres in the order the enum lists them, with their counts."""
    counted = dict(session.execute(select(Book.genre, func.count()).group_by(Book.genre)).all())
    result: OrderedDict[str, int] = OrderedDict()
    for genre in Genre:
        result[genre.value] = counted.get(genre, 0)
    return dict(result)


def sorted_cards(session: Db) -> list[str]:
    """Books sorted by price then title, with attrgetter."""
    books = sorted(session.scalars(select(Book)), key=attrgetter("price", "title"))
    return [b.title for b in itertools.islice(books, 10)]


def report_json(session: Db) -> str:
    """A stock report as JSON."""
    rows = [{"title": b.title, "stock": str(b.stock)} for b in session.scalars(select(Book))]
    report = Report(title="Stock", rows=rows, made=datetime.datetime.now(datetime.UTC))
    return report.model_dump_json()


def report_dict(session: Db) -> dict[str, object]:
    """A report as a dict, by pydantic."""
    report = Report(title="Genres", rows=[{"genre": g.value} for g in Genre],
                    made=datetime.datetime.now(datetime.UTC))
    return report.model_dump(mode="json")


def parse_filter(raw: str) -> str:
    """A search written as JSON, checked and said back."""
    data = json.loads(raw)
    wanted = Report.model_validate({"title": str(data.get("title", "")), "rows": [],
                                    "made": datetime.datetime.now(datetime.UTC)})
    return wanted.title


def open_orders_by_status(session: Db) -> dict[str, list[str]]:
    """Order ids grouped by status."""
    grouped: dict[str, list[str]] = {s.value: [] for s in OrderStatus}
    for order in session.scalars(select(Order)):
        grouped[order.status.value].append(str(order.id))
    return grouped


def log_report(session: Db) -> int:
    """Count the books, and say so in the log with extra fields."""
    total = session.scalar(select(func.count(Book.id))) or 0
    log.info("counted books", extra={"total": total})
    log.debug("counted %(total)d books", {"total": total})
    return total
