"""Code of the app's that Python's own code runs as it takes a value whole: a list or a tuple
made of an iterable asks its length first (``list(x)``, ``[*x]``, ``f(*x)``, ``xs += x``); a
mapping merged into a dict is asked its ``keys()`` and each value (``dict(m)``,
``d.update(m)``, ``{**m}``, ``d |= m``); ``itertools.groupby`` compares each item with the one
before. Each action below looked as if it only read, and ran alone with no person asked."""

from __future__ import annotations

import itertools
import subprocess
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from signoff.effects import analyse


def launch(*_: Any) -> int:
    """Reach outside: start a program."""
    return subprocess.run(["true"], check=False).returncode


class Sized:
    """Iterated harmlessly; its length reaches outside."""

    def __len__(self) -> int:
        launch()
        return 0

    def __iter__(self) -> Iterator[int]:
        return iter([])


class Hinted:
    """Iterated harmlessly; the length it hints reaches outside."""

    def __length_hint__(self) -> int:
        launch()
        return 0

    def __iter__(self) -> Iterator[int]:
        return iter([])


class Walked:
    """Iterated, after reaching outside."""

    def __iter__(self) -> Iterator[tuple[str, int]]:
        launch()
        return iter([])


class Keyed:
    """A mapping whose ``keys`` reaches outside."""

    def keys(self) -> list[str]:
        launch()
        return ["a"]

    def __getitem__(self, key: str) -> int:
        return 1


class Valued:
    """A mapping whose ``__getitem__`` reaches outside."""

    def keys(self) -> list[str]:
        return ["a"]

    def __getitem__(self, key: str) -> int:
        launch()
        return 1


class Same:
    """Compared, after reaching outside."""

    __hash__ = object.__hash__

    def __eq__(self, other: object) -> bool:
        launch()
        return True


def listed(n: int) -> list[int]:
    return list(Sized())


def made_a_tuple(n: int) -> tuple[int, ...]:
    return tuple(Hinted())


def sorted_hinted(n: int) -> list[int]:
    return sorted(Hinted())


def made_bytes(n: int) -> bytes:
    return bytes(Sized())


def extended(n: int) -> list[int]:
    items: list[int] = []
    items.extend(Sized())
    return items


def unpacked_into_a_list(n: int) -> list[int]:
    return [*Sized()]


def unpacked_into_a_tuple(n: int) -> tuple[int, ...]:
    return (*Hinted(),)


def counted(*items: int) -> int:
    """Only counts what it is given."""
    return len(items)


def unpacked_into_a_call(n: int) -> int:
    return counted(*Sized())


def added_to_a_list(n: int) -> list[tuple[str, int]]:
    items = [("a", n)]
    items += Walked()
    return items


def added_to_a_list_sized(n: int) -> list[int]:
    items: list[int] = []
    items += Sized()
    return items


def made_a_dict(n: int) -> dict[str, int]:
    return dict(Keyed())


def updated_a_dict(n: int) -> dict[str, int]:
    found: dict[str, int] = {}
    found.update(Keyed())
    return found


def merged_in_a_display(n: int) -> dict[str, int]:
    return {**Valued()}


def merged_in_place(n: int) -> dict[str, int]:
    found: dict[str, int] = {}
    found |= Keyed()  # type: ignore[arg-type]
    return found


def merged_pairs_in_place(n: int) -> dict[str, int]:
    found: dict[str, int] = {}
    found |= Walked()  # type: ignore[arg-type]
    return found


def grouped(n: int) -> list[Any]:
    return [key for key, _ in itertools.groupby([Same(), Same()])]


EVADING = [
    listed,
    made_a_tuple,
    sorted_hinted,
    made_bytes,
    extended,
    unpacked_into_a_list,
    unpacked_into_a_tuple,
    unpacked_into_a_call,
    added_to_a_list,
    added_to_a_list_sized,
    made_a_dict,
    updated_a_dict,
    merged_in_a_display,
    merged_in_place,
    merged_pairs_in_place,
    grouped,
]


@pytest.mark.parametrize("fn", EVADING, ids=[f.__name__ for f in EVADING])
def test_code_python_runs_on_a_value_taken_whole_counts(fn: Callable[..., Any]) -> None:
    """The app's code run to size, merge or group a value counts: the action is not taken to
    only read."""
    effects = analyse(fn, name=fn.__name__)
    assert effects.external, effects.explain()
    assert not effects.only_reads


def unpacked_into_a_set(n: int) -> set[int]:
    return {*Sized()}


def listed_numbers(n: int) -> list[int]:
    return [*range(n), *list(range(n))]


def merged_plain_dicts(n: int) -> dict[str, int]:
    found = {"a": n}
    found |= {"b": n}
    return {**found, **dict(found)}


HARMLESS = [unpacked_into_a_set, listed_numbers, merged_plain_dicts]


@pytest.mark.parametrize("fn", HARMLESS, ids=[f.__name__ for f in HARMLESS])
def test_what_python_takes_whole_without_asking_only_reads(fn: Callable[..., Any]) -> None:
    """A set made of an iterable asks no length, and Python's own containers run nothing of the
    app's: such an action only reads."""
    effects = analyse(fn, name=fn.__name__)
    assert effects.only_reads, effects.explain()
