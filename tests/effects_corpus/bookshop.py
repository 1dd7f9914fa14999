"""A small bookshop written the way an app author writes one: records with relationships,
methods and properties, enums, pydantic models and dataclasses the actions take and return.
`tests/effects_corpus/bookshop_readers.py` and `bookshop_writers.py` are its actions."""

from __future__ import annotations

import dataclasses
import datetime
import enum
from decimal import Decimal

from pydantic import BaseModel, Field, field_validator
from sqlalchemy import ForeignKey, Numeric, String
from sqlalchemy.orm import Mapped, mapped_column, relationship

from signoff.security.records import make_record_base

Record = make_record_base()


class Genre(enum.Enum):
    """What a book is."""

    NOVEL = "novel"
    POETRY = "poetry"
    HISTORY = "history"
    SCIENCE = "science"


class OrderStatus(enum.StrEnum):
    """Where an order stands."""

    OPEN = "open"
    PAID = "paid"
    SHIPPED = "shipped"
    CANCELLED = "cancelled"


class Author(Record):
    """Who wrote books."""

    name: Mapped[str] = mapped_column(String(120))
    born: Mapped[int | None] = mapped_column(default=None)
    books: Mapped[list[Book]] = relationship(back_populates="author")

    @property
    def initials(self) -> str:
        """The author's initials."""
        return "".join(part[0] for part in self.name.split() if part)


class Book(Record):
    """A title the shop sells."""

    title: Mapped[str] = mapped_column(String(200))
    isbn: Mapped[str] = mapped_column(String(13), unique=True)
    price: Mapped[Decimal] = mapped_column(Numeric(10, 2), default=Decimal(0))
    stock: Mapped[int] = mapped_column(default=0)
    genre: Mapped[Genre] = mapped_column(default=Genre.NOVEL)
    published: Mapped[datetime.date | None] = mapped_column(default=None)
    author_id: Mapped[str | None] = mapped_column(ForeignKey("author.id"), default=None)
    author: Mapped[Author | None] = relationship(back_populates="books")

    @property
    def in_stock(self) -> bool:
        """Whether any copy is on the shelf."""
        return self.stock > 0

    def display_title(self) -> str:
        """The title with its author."""
        by = f" by {self.author.name}" if self.author is not None else ""
        return f"{self.title}{by}"

    def price_with_vat(self, rate: Decimal) -> Decimal:
        """The price with VAT at `rate`, to the cent."""
        return (self.price * (1 + rate)).quantize(Decimal("0.01"))

    def restock(self, copies: int) -> None:
        """Put copies on the shelf (a change)."""
        self.stock += copies


class Customer(Record):
    """Someone who buys."""

    email: Mapped[str] = mapped_column(String(200), unique=True)
    name: Mapped[str] = mapped_column(String(120))
    joined: Mapped[datetime.datetime] = mapped_column(
        default=lambda: datetime.datetime.now(datetime.UTC))
    vip: Mapped[bool] = mapped_column(default=False)
    orders: Mapped[list[Order]] = relationship(back_populates="customer")


class Order(Record):
    """What a customer bought."""

    customer_id: Mapped[str] = mapped_column(ForeignKey("customer.id"))
    customer: Mapped[Customer] = relationship(back_populates="orders")
    placed: Mapped[datetime.datetime] = mapped_column(
        default=lambda: datetime.datetime.now(datetime.UTC))
    status: Mapped[OrderStatus] = mapped_column(default=OrderStatus.OPEN)
    note: Mapped[str] = mapped_column(String(400), default="")
    lines: Mapped[list[OrderLine]] = relationship(back_populates="order")

    @property
    def total(self) -> Decimal:
        """What the order costs."""
        return sum((line.amount for line in self.lines), Decimal("0.00"))

    def is_late(self, now: datetime.datetime) -> bool:
        """Whether it is open after a week."""
        return self.status is OrderStatus.OPEN and now - self.placed > datetime.timedelta(days=7)

    def cancel(self, why: str) -> None:
        """Cancel the order (a change)."""
        self.status = OrderStatus.CANCELLED
        self.note = why


class OrderLine(Record):
    """One book in an order."""

    order_id: Mapped[str] = mapped_column(ForeignKey("order.id"))
    order: Mapped[Order] = relationship(back_populates="lines")
    book_id: Mapped[str] = mapped_column(ForeignKey("book.id"))
    book: Mapped[Book] = relationship()
    quantity: Mapped[int] = mapped_column(default=1)
    unit_price: Mapped[Decimal] = mapped_column(Numeric(10, 2), default=Decimal(0))

    @property
    def amount(self) -> Decimal:
        """The line's amount."""
        return self.unit_price * self.quantity


class BookFilter(BaseModel):
    """How a caller narrows a book search."""

    text: str = ""
    genre: Genre | None = None
    max_price: Decimal | None = Field(default=None, ge=0)
    in_stock_only: bool = False

    @field_validator("text")
    @classmethod
    def _trimmed(cls, value: str) -> str:
        return value.strip()


class BookCard(BaseModel):
    """A book as a search shows it."""

    id: str
    title: str
    author: str | None
    price: Decimal
    genre: Genre


class SalesFigure(BaseModel):
    """Sales of one period."""

    period: str
    orders: int
    revenue: Decimal


@dataclasses.dataclass(frozen=True, kw_only=True)
class Page:
    """Which slice of a long list."""

    number: int = 1
    size: int = 20

    @property
    def offset(self) -> int:
        """How many rows come before this page."""
        return (max(self.number, 1) - 1) * self.size


@dataclasses.dataclass(kw_only=True)
class Address:
    """Where an order goes."""

    street: str
    city: str
    postcode: str
    country: str = "NL"
