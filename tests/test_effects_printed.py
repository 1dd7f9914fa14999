"""What ``print`` runs of the app's code, exactly: each value made text (``__str__``, or
``__repr__`` by ``object.__str__``); `sep` and `end` made text only when they are text (one of
another class is refused before its code runs, and ``str.__str__`` calls no ``__repr__``); the
truth of `flush`, and the stream's ``flush`` when it may be true. Nothing is taken as a number,
a length or a path, so an action that prints claims no more than that."""

from __future__ import annotations

import io
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest

from signoff.effects import analyse

SEPARATOR = " | "


def launch(*_: Any) -> int:
    """Reach outside: start a program."""
    return subprocess.run(["true"], check=False).returncode


class Quiet:
    """Shown harmlessly; taken as a truth, a number or a length, it would reach outside."""

    def __str__(self) -> str:
        return "quiet"

    def __bool__(self) -> bool:
        launch()
        return True

    def __index__(self) -> int:
        launch()
        return 1

    def __len__(self) -> int:
        launch()
        return 1


class Plain(str):
    """Text whose repr, truth and methods would reach outside: none runs as it is printed."""

    def __repr__(self) -> str:
        launch()
        return "plain"

    def __bool__(self) -> bool:
        launch()
        return True

    def split(self, *_: Any, **__: Any) -> list[str]:  # type: ignore[override]
        launch()
        return []


class Loud(str):
    """Text whose own ``__str__`` reaches outside."""

    def __str__(self) -> str:
        launch()
        return "loud"


class Log(io.StringIO):
    """A stream whose ``flush`` reaches outside."""

    def flush(self) -> None:
        launch()


def spaced(n: int) -> None:
    print(n, n + 1, sep=" ")


def spaced_by_a_name(n: int, sep: str) -> None:
    print(n, sep=sep, end=sep)


def spaced_by_a_constant(n: int) -> None:
    separator = SEPARATOR
    print(n, n, sep=separator, end="\n", flush=True)


def shown_quietly(n: int) -> None:
    print(Quiet())


def separated_by_another_class(n: int) -> None:
    print(n, n, sep=Quiet())  # type: ignore[arg-type]


def ended_by_another_class(n: int) -> None:
    print(n, end=Quiet())  # type: ignore[arg-type]


def separated_by_plain_text(n: int) -> None:
    print(n, n, sep=Plain("-"), end=Plain("\n"))


def printed_plain_text(n: int) -> None:
    print(Plain("a"))


def flushed_to_the_standard_stream(n: int) -> None:
    print(n, file=sys.stderr, flush=True)


ONLY_READING = [
    spaced,
    spaced_by_a_name,
    spaced_by_a_constant,
    shown_quietly,
    separated_by_another_class,
    ended_by_another_class,
    separated_by_plain_text,
    printed_plain_text,
    flushed_to_the_standard_stream,
]


@pytest.mark.parametrize("fn", ONLY_READING, ids=[f.__name__ for f in ONLY_READING])
def test_printing_claims_only_what_print_runs(fn: Callable[..., Any]) -> None:
    """An action that prints, with whatever `sep` and `end`, runs none of the app's code that
    print never calls: it only reads."""
    effects = analyse(fn, name=fn.__name__)
    assert effects.only_reads, effects.explain()


def separated_by_loud_text(n: int) -> None:
    print(n, n, sep=Loud("-"))


def ended_by_loud_text(n: int) -> None:
    print(n, end=Loud("\n"))


def printed_loud_text(n: int) -> None:
    print(Loud("a"))


def flushed_by_a_truth(n: int) -> None:
    print(n, flush=Quiet())  # type: ignore[arg-type]


def flushed_to_a_stream(n: int, log: Log) -> None:
    print(n, file=log, flush=True)


def maybe_flushed_to_a_stream(n: int, log: Log, now: bool) -> None:
    print(n, file=log, flush=now)


REACHING = [
    separated_by_loud_text,
    ended_by_loud_text,
    printed_loud_text,
    flushed_by_a_truth,
    flushed_to_a_stream,
    maybe_flushed_to_a_stream,
]


@pytest.mark.parametrize("fn", REACHING, ids=[f.__name__ for f in REACHING])
def test_what_print_runs_of_the_apps_counts(fn: Callable[..., Any]) -> None:
    """Text's own ``__str__`` (a value's, a `sep`'s, an `end`'s), `flush`'s truth and the
    stream's ``flush`` run as print runs: each counts."""
    effects = analyse(fn, name=fn.__name__)
    assert effects.external, effects.explain()


def test_a_flush_said_false_is_not_called() -> None:
    """``flush=False`` calls no stream's ``flush``: printing to a stream whose ``write`` only
    fills it changes the stream, and reaches nothing outside."""

    def unflushed(n: int, log: Log) -> None:
        print(n, file=log, flush=False)

    effects = analyse(unflushed, name="unflushed")
    assert effects.changes, effects.explain()
    assert not effects.external, effects.explain()
