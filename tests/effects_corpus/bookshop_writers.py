"""The bookshop's actions that change, create or delete records, or reach outside, written as
a working developer writes them. `tests/test_effects_honest.py` expects each to be found to do
more than read (`WRITERS`)."""

from __future__ import annotations

import datetime
import logging
import smtplib
import uuid
from decimal import Decimal
from email.message import EmailMessage
from pathlib import Path
from typing import Annotated

import httpx
from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from signoff import Provided
from signoff.exceptions import Conflict, Invalid, NotFound
from tests.effects_corpus import bookshop_support as support
from tests.effects_corpus.bookshop import (
    Author,
    Book,
    Customer,
    Genre,
    Order,
    OrderLine,
    OrderStatus,
)
from tests.effects_corpus.bookshop_support import Stocktake

log = logging.getLogger(__name__)

Db = Annotated[Session, Provided("session")]


def set_price(book: Book, price: Decimal) -> str:
    """Set a book's price."""
    if price < 0:
        raise Invalid("A price is not negative.")
    book.price = price.quantize(support.CENT)
    return f"{book.title} now costs {support.money(book.price)}."


def restock(book: Book, copies: int) -> str:
    """Put copies on the shelf."""
    book.restock(copies)
    return f"{book.stock} of {book.title}."


def rename_author(author: Author, name: str) -> None:
    """Correct an author's name."""
    author.name = " ".join(name.split())


def add_book(session: Db, title: str, isbn: str, price: Decimal, genre: Genre) -> str:
    """Add a title to the catalogue."""
    clean = support.clean_isbn(isbn)
    if not clean:
        raise Invalid(f"{isbn!r} is not an ISBN.")
    book = Book(title=title, isbn=clean, price=price, genre=genre)
    session.add(book)
    return str(book.id)


def add_author(session: Db, name: str, born: int | None = None) -> uuid.UUID:
    """Add an author."""
    author = Author(name=name, born=born)
    session.add(author)
    session.flush()
    return author.id


def cancel_order(order: Order, why: str) -> str:
    """Cancel an open order."""
    if order.status is not OrderStatus.OPEN:
        raise Conflict(f"The order is {order.status.value}, not open.")
    order.cancel(why)
    return "Cancelled."


def mark_shipped(order: Order) -> None:
    """Say an order went out."""
    order.status = OrderStatus.SHIPPED
    log.info("order %s shipped", order.id)


def place_order(session: Db, customer: Customer, isbns: list[str]) -> str:
    """Order books for a customer."""
    order = Order(customer=customer)
    session.add(order)
    for isbn in isbns:
        book = session.scalars(select(Book).where(Book.isbn == isbn)).first()
        if book is None:
            raise NotFound(f"No book has ISBN {isbn}.")
        session.add(OrderLine(order=order, book=book, quantity=1, unit_price=book.price))
        book.stock -= 1
    return str(order.id)


def delete_book(session: Db, book: Book) -> None:
    """Take a title out of the catalogue."""
    session.delete(book)


def discount_genre(session: Db, genre: Genre, percent: int) -> int:
    """Lower every price of a genre."""
    factor = Decimal(100 - percent) / 100
    result = session.execute(update(Book).where(Book.genre == genre)
                             .values(price=Book.price * factor))
    return result.rowcount


def purge_cancelled(session: Db, before: datetime.date) -> None:
    """Delete cancelled orders placed before a day."""
    session.execute(delete(Order).where(Order.status == OrderStatus.CANCELLED,
                                        Order.placed < support.day_bounds(before)[0]))


def make_vip(customer: Customer) -> str:
    """Make a customer a VIP."""
    customer.vip = True
    return f"{customer.name} is a VIP."


def write_off_low(session: Db) -> int:
    """Write off every book down to one copy."""
    take = Stocktake(session)
    low = take.low(2)
    for book in low:
        take.write_off(book)
    return len(low)


def note_on_orders(session: Db, customer: Customer, note: str) -> None:
    """Write a note on each of a customer's orders."""
    for order in session.scalars(select(Order).where(Order.customer_id == customer.id)):
        order.note = note


def email_receipt(order: Order) -> None:
    """Send a receipt."""
    message = EmailMessage()
    message["To"] = order.customer.email
    message["Subject"] = "Your order"
    message.set_content(f"Total {support.money(order.total)}")
    with smtplib.SMTP("localhost") as smtp:
        smtp.send_message(message)


def publish_price(book: Book) -> int:
    """Tell the price site a new price."""
    response = httpx.post("https://prices.example/books",
                          json={"isbn": book.isbn, "price": str(book.price)})
    return response.status_code


def lookup_cover(book: Book) -> str:
    """The cover's address from the open library (a GET: it reaches outside)."""
    response = httpx.get(f"https://covers.example/isbn/{book.isbn}.json", timeout=5)
    response.raise_for_status()
    return str(response.json().get("url", ""))


def export_catalogue(session: Db, where: str) -> str:
    """Write the catalogue to a file."""
    lines = [f"{b.isbn};{b.title}" for b in session.scalars(select(Book))]
    Path(where).write_text("\n".join(lines), encoding="utf-8")
    return where


def merge_authors(session: Db, keep: Author, drop: Author) -> None:
    """Move a duplicate author's books to another, and remove the duplicate."""
    for book in list(drop.books):
        book.author = keep
    session.delete(drop)


def fill_order_line(line: OrderLine, quantity: int) -> None:
    """Change how many copies a line orders."""
    line.quantity = quantity
    line.unit_price = line.book.price
