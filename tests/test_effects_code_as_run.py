"""What an action runs is what is analysed: code whose text is not the code that runs (a
function given another's code), code that runs only in a corner of a statement (an
``assert``'s message), and the app's code the standard library runs, is not taken to only read.

An action found to only read runs alone, with no person asked: what the analysis does not see
there runs on its word, and the run's guard does not refuse all of it (a thread it starts, a
file or connection opened before the run)."""

from __future__ import annotations

import datetime
import os
import string
import threading
from collections.abc import Callable
from typing import Any

import pytest

from signoff.effects import EffectKind, analyse


def _starts_a_thread() -> None:
    threading.Thread(target=os.getpid).start()


def _only_reads() -> int:
    return os.getpid()


def _also_only_reads() -> int:
    return os.getpid()


# Given another function's code, dressed with this one's line and name: its text is the other's.
_only_reads.__code__ = _starts_a_thread.__code__.replace(
    co_firstlineno=_only_reads.__code__.co_firstlineno, co_name="_only_reads",
    co_qualname="_only_reads")


def calls_a_function_given_other_code(count: int) -> int:
    return _only_reads() + count


def calls_its_own_code(count: int) -> int:
    return _also_only_reads() + count


def says_in_an_assert_message(count: int) -> int:
    assert count >= 0, _starts_a_thread()
    return count


def asserts_only(count: int) -> int:
    assert count >= 0, f"{count} is negative"
    return count


def test_a_function_given_other_code_is_not_read_as_its_text() -> None:
    """A function whose code was replaced by another's, named and placed as it was, is of no
    known source: it is taken to do anything, where its text only reads."""
    found = analyse(calls_a_function_given_other_code, name="a")
    assert not found.only_reads
    assert any("_only_reads" in (e.reason or "") for e in found.effects
               if e.kind is not EffectKind.READS)
    assert analyse(calls_its_own_code, name="b").only_reads


def test_an_assert_message_is_analysed() -> None:
    """An ``assert``'s message runs when its test fails: what it calls is found."""
    assert not analyse(says_in_an_assert_message, name="c").only_reads
    assert analyse(asserts_only, name="d").only_reads


class Ranked:
    """Ranked by code of the app's that starts a thread as it compares."""

    def __lt__(self, other: Ranked) -> bool:
        _starts_a_thread()
        return id(self) < id(other)


class Shown:
    """A value whose attribute is a property of the app's that starts a thread."""

    @property
    def title(self) -> str:
        _starts_a_thread()
        return "title"


class Zone(datetime.tzinfo):
    """A time zone of the app's whose offset starts a thread."""

    def utcoffset(self, dt: datetime.datetime | None) -> datetime.timedelta:
        _starts_a_thread()
        return datetime.timedelta(0)


def formats_an_attribute(count: int) -> str:
    return string.Formatter().format("{0.title} {1}", Shown(), count)


def formats_numbers(count: int) -> str:
    return string.Formatter().format("{0:>4} {n}", count, n=count)


def shows_a_time(count: int) -> str:
    return datetime.datetime(2026, 1, count, tzinfo=Zone()).isoformat()


def shows_a_time_in_utc(count: int) -> str:
    return datetime.datetime(2026, 1, count, tzinfo=datetime.UTC).isoformat()


def made_without_init(count: int) -> bool:
    return Ranked.__new__(Ranked) < object.__new__(Ranked)


def shown_made_without_init(count: int) -> str:
    return string.Formatter().format("{0.title}", object.__new__(Shown))


@pytest.mark.parametrize("fn", [formats_an_attribute, shows_a_time, made_without_init,
                                shown_made_without_init], ids=lambda f: f.__name__)
def test_code_of_the_app_an_allowed_function_runs_is_analysed(fn: Callable[..., Any]) -> None:
    """What the standard library runs of the app's code it is given is found: a format's
    fields read (``{0.title}``), a time zone's offset worked out; and an object made by
    ``__new__`` alone is of its class (its ``__lt__`` runs as it is compared)."""
    assert not analyse(fn, name=fn.__name__).only_reads


@pytest.mark.parametrize("fn", [formats_numbers, shows_a_time_in_utc],
                         ids=lambda f: f.__name__)
def test_the_same_calls_on_plain_values_only_read(fn: Callable[..., Any]) -> None:
    """The same calls with numbers, text and the standard library's time zones only read."""
    assert analyse(fn, name=fn.__name__).only_reads
