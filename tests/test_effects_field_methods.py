"""The special methods a dataclass or a named tuple has written from its fields compare, hash
and show each field by the field's own class: ``Entry(a) == Entry(b)`` runs ``a.__eq__``,
``repr(Entry(x))`` runs ``x.__repr__``, a frozen one's hash runs the fields' ``__hash__``, an
ordered one's ``<`` their ``__lt__``. Each action below looked as if it only read, and ran
alone with no person asked."""

from __future__ import annotations

import dataclasses
import functools
import subprocess
from collections.abc import Callable
from typing import Any, NamedTuple

import pytest

from signoff.effects import analyse


def launch(*_: Any) -> int:
    """Reach outside: start a program."""
    return subprocess.run(["true"], check=False).returncode


class Code:
    """Compared and hashed, after reaching outside."""

    def __eq__(self, other: object) -> bool:
        launch()
        return True

    def __hash__(self) -> int:
        launch()
        return 1

    def __lt__(self, other: object) -> bool:
        launch()
        return True


class Shown:
    """Shown by its repr, after reaching outside."""

    def __repr__(self) -> str:
        launch()
        return "shown"


@dataclasses.dataclass
class Entry:
    """A dataclass whose field compares itself by reaching outside."""

    code: Code


@dataclasses.dataclass
class Note:
    """A dataclass whose field shows itself by reaching outside."""

    shown: Shown


@dataclasses.dataclass(frozen=True)
class Frozen:
    """A frozen dataclass: hashed by its field."""

    code: Code


@dataclasses.dataclass(order=True)
class Ranked:
    """An ordered dataclass: ordered by its field."""

    code: Code


@dataclasses.dataclass
class Node:
    """A dataclass that holds one of its own kind (followed once)."""

    code: Code
    parent: Node | None = None


class Pair(NamedTuple):
    """A named tuple whose field compares and hashes itself by reaching outside."""

    code: Code


class Label(NamedTuple):
    """A named tuple whose field shows itself by reaching outside."""

    shown: Shown


def entries_compared(n: int) -> bool:
    return Entry(Code()) == Entry(Code())


def entry_searched(n: int) -> bool:
    return Entry(Code()) in [Entry(Code())]


def note_shown(n: int) -> str:
    return repr(Note(Shown()))


def note_printed(n: int) -> None:
    print(Note(Shown()))


def note_formatted(n: int) -> str:
    return f"{Note(Shown())}"


def frozen_hashed(n: int) -> set[Frozen]:
    return {Frozen(Code())}


def frozen_as_a_key(n: int) -> dict[Frozen, int]:
    return {Frozen(Code()): n}


def ranked_compared(n: int) -> bool:
    return Ranked(Code()) < Ranked(Code())


def ranked_sorted(n: int) -> list[Ranked]:
    return sorted([Ranked(Code()), Ranked(Code())])


def nodes_compared(n: int) -> bool:
    return Node(Code()) == Node(Code(), Node(Code()))


def pairs_compared(n: int) -> bool:
    return Pair(Code()) == Pair(Code())


def pair_hashed(n: int) -> int:
    return hash(Pair(Code()))


def label_shown(n: int) -> str:
    return repr(Label(Shown()))


EVADING = [
    entries_compared,
    entry_searched,
    note_shown,
    note_printed,
    note_formatted,
    frozen_hashed,
    frozen_as_a_key,
    ranked_compared,
    ranked_sorted,
    nodes_compared,
    pairs_compared,
    pair_hashed,
    label_shown,
]


@pytest.mark.parametrize("fn", EVADING, ids=[f.__name__ for f in EVADING])
def test_what_methods_written_from_fields_run_counts(fn: Callable[..., Any]) -> None:
    """The fields' own code, run by a dataclass's or a named tuple's written methods, counts:
    the action is not taken to only read."""
    effects = analyse(fn, name=fn.__name__)
    assert effects.external, effects.explain()
    assert not effects.only_reads


@dataclasses.dataclass(frozen=True, order=True)
class Point:
    """A dataclass of plain fields."""

    x: int
    label: str


class Span(NamedTuple):
    """A named tuple of plain fields."""

    start: int
    end: int


def points_compared_shown_hashed(n: int) -> tuple[bool, str, int]:
    a, b = Point(n, "a"), Point(n + 1, "b")
    return a < b, repr(a), hash(b)


def spans_compared_shown(n: int) -> tuple[bool, str]:
    return Span(0, n) == Span(0, n), repr(Span(0, n))


HARMLESS = [points_compared_shown_hashed, spans_compared_shown]


@pytest.mark.parametrize("fn", HARMLESS, ids=[f.__name__ for f in HARMLESS])
def test_written_methods_of_plain_fields_only_read(fn: Callable[..., Any]) -> None:
    """A dataclass or a named tuple of Python's own values compares, hashes and shows itself
    without any code of the app's: the action only reads."""
    effects = analyse(fn, name=fn.__name__)
    assert effects.only_reads, effects.explain()


@functools.total_ordering
class Version:
    """Ordered by ``<`` alone (``total_ordering`` writes the rest), after reaching outside."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Version)

    def __lt__(self, other: object) -> bool:
        launch()
        return True

    __hash__ = object.__hash__


def at_least(n: int) -> bool:
    return Version() >= Version()


def at_most(n: int) -> bool:
    return Version() <= Version()


@pytest.mark.parametrize("fn", [at_least, at_most], ids=["at_least", "at_most"])
def test_what_total_ordering_wrote_runs_the_classs_own(fn: Callable[..., Any]) -> None:
    """A comparison ``functools.total_ordering`` wrote runs the class's own ``__lt__``: it
    counts (it was taken for the standard library's own code, which only computes)."""
    effects = analyse(fn, name=fn.__name__)
    assert effects.external, effects.explain()
