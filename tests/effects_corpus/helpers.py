"""Helpers the corpus actions call: pure ones, writing ones, and ones that reach outside."""

from __future__ import annotations

import contextlib
import functools
import tempfile
import types
from collections.abc import Callable, Iterator
from typing import Any

from signoff.effects import sends, spends
from tests.effects_corpus.records import Repair

# Stand-ins named like the HTTP client packages (which are not installed for the tests): the
# analysis judges a call by its qualified name, so ``httpx.post`` is a sink whatever the module is.
httpx = types.ModuleType("httpx")
requests = types.ModuleType("requests")

SETTINGS: dict[str, Any] = {"mode": "test"}
ENABLED = True


def post_it(message: str) -> None:
    """Reach outside: an HTTP post."""
    httpx.post("https://hooks.example.org", json={"text": message})


def describe(repair: Repair) -> str:
    """Read a repair."""
    return f"{repair.title}: {repair.price}"


def shout(word: str) -> str:
    """Pure."""
    return word.upper() + "!"


def rename(repair: Repair, title: str) -> None:
    """Change a repair."""
    repair.title = title


def touch(thing):  # type: ignore[no-untyped-def]
    """Change whatever it is given (unannotated)."""
    thing.title = "touched"


def fill(items: list[str]) -> None:
    """Change the list it is given."""
    items.append("filled")
    items.extend(["more"])


@sends
def sms(number: str, body: str) -> None:
    """Declared to send a message."""
    _ = (number, body)


@spends(cost=0.5)
def charge(amount: int) -> int:
    """Declared to spend money."""
    return amount


@contextlib.contextmanager
def temp_dir() -> Iterator[str]:
    """Make a temporary directory (reaches the file system)."""
    yield tempfile.mkdtemp()


def logged(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A decorator that keeps the function behind ``__wrapped__``."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    return wrapper


@logged
def decorated_post(message: str) -> None:
    """A decorated helper that reaches outside."""
    post_it(message)


class Notifier:
    """Something an action is handed, annotated."""

    def notify(self, repair: Repair) -> None:
        """Reach outside about a repair."""
        post_it(repair.title)

    def quiet(self, repair: Repair) -> str:
        """Only read."""
        return self.format(repair)

    def format(self, repair: Repair) -> str:
        """Pure formatting of a repair."""
        return repair.title.strip()


class Shape:
    """A base class whose method one subclass overrides with an outside reach."""

    def area(self) -> float:
        """Pure here."""
        return 0.0


class Square(Shape):
    """A pure override."""

    side: float = 1.0

    def area(self) -> float:
        """Pure."""
        return self.side * self.side


class LoudShape(Shape):
    """An override that reaches outside."""

    def area(self) -> float:
        """Posts before answering."""
        post_it("area asked")
        return 1.0


class AuditFile:
    """A constructor that opens a file for appending."""

    def __init__(self, path: str) -> None:
        self.handle = open(path, "a")  # noqa: SIM115 - the point is the open itself


class OutOfStock(Exception):
    """Not derived from a refusal type: `signoff lint` would report it."""


def check_stock(count: int) -> None:
    """Raise when nothing is left."""
    if count <= 0:
        raise OutOfStock(f"only {count} left")
