"""What Python's calls give keeps what is known of the objects in it, so that the app's code
Python runs on them later still counts: the items of ``map(f, xs)`` are what ``f`` gave, a
shallow copy holds the same items, ``islice``/``takewhile``/``cycle`` give some of their
iterable's, a ``ChainMap`` gives its maps' values and ``dict.fromkeys`` the value it is given;
and an attribute the class's own methods set (``self.item = Loud()``) is shown by that class's
code. Each action below looked as if it only read, and ran alone with no person asked."""

from __future__ import annotations

import collections
import copy
import itertools
import subprocess
from collections.abc import Callable
from typing import Any

import pytest

from signoff.effects import analyse


def launch(*_: Any) -> int:
    """Reach outside: start a program."""
    return subprocess.run(["true"], check=False).returncode


class Loud:
    """Shown as text, after reaching outside."""

    def __str__(self) -> str:
        launch()
        return "loud"


class Holder:
    """Holds a `Loud` its own ``__init__`` made (no annotation says so)."""

    def __init__(self) -> None:
        self.item = Loud()


def shown_from_a_holder(n: int) -> str:
    return str(Holder().item)


def shown_from_a_holder_by_name(n: int) -> str:
    return str(getattr(Holder(), "item"))  # noqa: B009 (read by name, as the case is)


def mapped_by_a_lambda(n: int) -> str:
    return str(list(map(lambda x: x, [Loud()]))[-1])


def mapped_unpacked(n: int) -> str:
    return str([*map(lambda x: x, [Loud()])][-1])


def made_by_map(n: int) -> str:
    return str(list(map(lambda _: Loud(), [n]))[-1])


def copied(n: int) -> str:
    return str(copy.copy([Loud()])[0])


def sliced_lazily(n: int) -> str:
    return str(list(itertools.islice([Loud()], 1))[-1])


def looked_up_in_a_chain(n: int) -> str:
    return str(collections.ChainMap({"a": Loud()})["a"])


def valued_from_keys(n: int) -> str:
    return str(dict.fromkeys(["a"], Loud())["a"])


def taken_while(n: int) -> str:
    return str(next(itertools.takewhile(bool, [Loud()])))


EVADING = [
    shown_from_a_holder,
    shown_from_a_holder_by_name,
    mapped_by_a_lambda,
    mapped_unpacked,
    made_by_map,
    copied,
    sliced_lazily,
    taken_while,
    looked_up_in_a_chain,
    valued_from_keys,
]


@pytest.mark.parametrize("fn", EVADING, ids=[f.__name__ for f in EVADING])
def test_what_is_known_of_items_is_kept_through_pythons_calls(fn: Callable[..., Any]) -> None:
    """An object of the app's carried through ``map``, a copy or a lazy slice is still shown by
    its class's own code: the action is not taken to only read."""
    effects = analyse(fn, name=fn.__name__)
    assert effects.external, effects.explain()
    assert not effects.only_reads


def mapped_numbers(n: int) -> list[str]:
    return [str(x) for x in map(lambda k: k * 2, range(n))] + list(map(str, [n]))


def copied_numbers(n: int) -> str:
    return str(copy.copy([n])[0]) + str(list(itertools.islice(range(n), 2)))


def words_of_plain_text(n: int, text: str) -> list[str]:
    return [w.upper() for w in dict.fromkeys(text.split()) if w.isascii()] + [
        w.upper() for w in copy.copy(text.split())
    ]


HARMLESS = [mapped_numbers, copied_numbers, words_of_plain_text]


@pytest.mark.parametrize("fn", HARMLESS, ids=[f.__name__ for f in HARMLESS])
def test_plain_items_carried_only_read(fn: Callable[..., Any]) -> None:
    """Numbers carried through ``map``, a copy or a slice run nothing of the app's."""
    effects = analyse(fn, name=fn.__name__)
    assert effects.only_reads, effects.explain()
