"""Code near the shapes the honest bookshop's readers take, that does more than read: what the
analysis must still find after learning that those only read (the process's environment read,
statements built in helpers, `dataclasses.asdict` of plain fields, an enum's members iterated).
`tests/test_effects_honest.py` expects each to be found to do more than read."""

from __future__ import annotations

import dataclasses
import enum
import os
import subprocess
from collections.abc import Iterator, Mapping
from typing import Annotated, Any

from sqlalchemy import Select, select, text, update
from sqlalchemy.orm import Session

from signoff import Provided
from tests.effects_corpus.bookshop import Book

Db = Annotated[Session, Provided("session")]

# --- the process's environment ------------------------------------------------------------------


def environ_set() -> None:
    """Sets a variable."""
    os.environ["BOOKSHOP_VAT"] = "0.21"


def environ_setdefault() -> str:
    """Sets a variable where there is none."""
    return os.environ.setdefault("BOOKSHOP_VAT", "0.21")


def environ_pop() -> str:
    """Removes a variable."""
    return os.environ.pop("BOOKSHOP_VAT", "")


def environ_update() -> None:
    """Sets variables."""
    os.environ.update({"BOOKSHOP_VAT": "0.21"})


def environ_delete() -> None:
    """Removes a variable."""
    del os.environ["BOOKSHOP_VAT"]


def environ_clear() -> None:
    """Removes every variable."""
    os.environ.clear()


class Settings(Mapping[str, str]):
    """A mapping of the app's whose look-up starts a process."""

    def __getitem__(self, key: str) -> str:
        return subprocess.run(["printenv", key], capture_output=True, text=True,
                              check=False).stdout

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0


def settings_get(settings: Settings) -> str:
    """``Mapping.get`` runs the class's own ``__getitem__``."""
    return settings.get("BOOKSHOP_VAT") or ""


def settings_contains(settings: Settings) -> bool:
    """``in`` runs the class's own ``__getitem__`` (``Mapping.__contains__``)."""
    return "BOOKSHOP_VAT" in settings


# --- statements built in helpers ----------------------------------------------------------------


def run_statement(session: Session, stmt: Select[tuple[Book]]) -> int:
    """Runs whatever statement it is given, whatever its annotation says."""
    return len(session.execute(stmt).all())


def limited(query: Select[tuple[Book]], n: int) -> Select[tuple[Book]]:
    """A statement, limited."""
    return query.limit(n)


def update_through_helper(session: Db) -> int:
    """An UPDATE handed to a helper typed for a SELECT."""
    return run_statement(session, update(Book).values(stock=0))  # type: ignore[arg-type]


def text_through_helper(session: Db) -> int:
    """SQL text the analysis cannot read, handed to a helper."""
    return run_statement(session, text("SELECT archive_books()"))  # type: ignore[arg-type]


def select_with_writing_function(session: Db) -> int:
    """A SELECT of a function the database may write in, limited by a helper."""
    from sqlalchemy import func

    return len(session.execute(limited(select(func.archive_books()), 3)).all())  # type: ignore[arg-type]


# --- dataclasses.asdict -------------------------------------------------------------------------


class Loud:
    """Text-like, but its ``upper`` starts a process."""

    def upper(self) -> str:
        return subprocess.run(["true"], check=False).stdout or ""


@dataclasses.dataclass
class Labelled:
    """A dataclass with a field of the app's class."""

    name: str
    loud: Loud


@dataclasses.dataclass
class Plain:
    """A dataclass of text alone."""

    name: str


@dataclasses.dataclass
class Derived(Plain):
    """A dataclass deriving another, with a field more."""

    loud: Loud = dataclasses.field(default_factory=Loud)


@dataclasses.dataclass
class Untyped:
    """A dataclass whose field may hold anything."""

    name: Any


def asdict_app_field(item: Labelled) -> str:
    """A field of the app's class, taken out of asdict."""
    return str(dataclasses.asdict(item)["loud"].upper())


def asdict_derived(item: Plain) -> str:
    """What asdict gives of a dataclass a class derives holds its fields too."""
    return str(dataclasses.asdict(item)["loud"].upper())


def asdict_any(item: Untyped) -> str:
    """A field that may hold anything."""
    return str(dataclasses.asdict(item)["name"].upper())


def asdict_factory(item: Labelled) -> str:
    """asdict with a factory of its own."""
    return str(dataclasses.asdict(item, dict_factory=dict)["loud"].upper())


# --- an enum's members iterated -----------------------------------------------------------------


class Counting(enum.EnumType):
    """A metaclass whose iteration starts a process."""

    def __iter__(cls) -> Iterator[Any]:
        subprocess.run(["true"], check=False)
        return super().__iter__()


class Shelf(enum.Enum, metaclass=Counting):
    """An enum iterated by its metaclass's own code."""

    TOP = "top"


class Task(enum.Enum):
    """An enum whose members do things."""

    ARCHIVE = "archive"

    def run(self) -> None:
        subprocess.run(["true"], check=False)


class Holder(enum.Enum):
    """An enum whose member's value is of the app's class."""

    LOUD = Loud()


def iterate_metaclass() -> list[str]:
    """Iterating an enum whose metaclass iterates by its own code."""
    return [str(member.value).upper() for member in Shelf]


def iterate_and_run() -> None:
    """A method of each member that starts a process."""
    for task in Task:
        task.run()


def iterate_values() -> list[str]:
    """A member's value of the app's class."""
    return [member.value.upper() for member in Holder]
