"""Code of the app's that Python's own code runs as it takes a value as a number or a key (a
slice's bounds, ``[0] * n``, ``chr(n)``, ``math.sqrt(x)``, ``d[k] = v``, a tuple's parts
hashed), iterates it (``yield from``, ``itertools.chain``), awaits it, makes an encoder or an
enumeration's members of it, calls it as a key (``methodcaller``), or reads a descriptor kept
on a class (``C.d`` runs ``d.__get__(None, C)``): each action below looked as if it only read,
and ran alone with no person asked."""

from __future__ import annotations

import enum
import itertools
import json
import math
import operator
import subprocess
from collections.abc import Callable, Generator, Iterator
from typing import Any

import pytest

from signoff import sends
from signoff.effects import analyse


def launch(*_: Any) -> int:
    """Reach outside: start a program."""
    return subprocess.run(["true"], check=False).returncode


@sends
def tell(*_: Any) -> None:
    """Send a message (by a queue the app's mailer reads, say: nothing a guard sees)."""


class Count:
    """An integer, after reaching outside."""

    def __index__(self) -> int:
        launch()
        return 1


class Telling:
    """An integer, after sending a message."""

    def __index__(self) -> int:
        tell()
        return 1


class Number:
    """A number, after reaching outside."""

    def __float__(self) -> float:
        launch()
        return 1.0


class Key:
    """A key whose hash reaches outside."""

    def __hash__(self) -> int:
        launch()
        return 1


class Walked:
    """Iterated, after reaching outside."""

    def __iter__(self) -> Iterator[int]:
        launch()
        return iter([1])


class Writer:
    """An object whose ``write`` reaches outside."""

    def write(self) -> int:
        return launch()


class Ready:
    """Awaited, after reaching outside."""

    def __await__(self) -> Generator[None, None, int]:
        launch()
        yield
        return 1


class Looked:
    """A descriptor whose ``__get__`` reaches outside, read on its class too."""

    def __get__(self, obj: object, owner: type | None = None) -> int:
        launch()
        return 1


class Kept:
    """A class that keeps a descriptor of the app's."""

    looked = Looked()


class Planet(enum.Enum):
    """An enumeration whose members, as they are made, reach outside."""

    def __init__(self, *_: Any) -> None:
        launch()


def sliced(n: int) -> list[int]:
    return [1, 2, 3][Count():]


def sliced_by_step(n: int) -> str:
    return "abc"[::Count()]


def repeated(n: int) -> list[int]:
    return [0] * Count()


def made_a_letter(n: int) -> str:
    return chr(Count())


def inserted(n: int) -> list[int]:
    items = [1]
    items.insert(Count(), n)
    return items


def rounded(n: int) -> float:
    return round(1.5, Count())


def rooted(n: int) -> float:
    return math.sqrt(Number())  # type: ignore[arg-type]


def stored_by_key(n: int) -> dict[Key, int]:
    found: dict[Key, int] = {}
    found[Key()] = n
    return found


def stored_by_pair(n: int) -> dict[tuple[Key, int], int]:
    return {(Key(), 1): n}


def made_of_pairs(n: int) -> dict[Key, int]:
    return dict([(Key(), n)])


def made_of_keys(n: int) -> dict[Key, None]:
    return dict.fromkeys([Key()])


def yielded_from(n: int) -> list[int]:
    def walk() -> Iterator[int]:
        yield from Walked()

    return list(walk())


def chained(n: int) -> list[int]:
    return list(itertools.chain(Walked()))


def encoded_by_a_class_made_here(n: int) -> str:
    class Encoder(json.JSONEncoder):
        def default(self, o: Any) -> Any:
            launch()
            return 1

    return json.dumps(object(), cls=Encoder)


def decoded_by_a_class_made_here(n: int) -> Any:
    class Decoder(json.JSONDecoder):
        def __init__(self, **given: Any) -> None:
            launch()
            super().__init__(**given)

    return json.loads("1", cls=Decoder)


async def awaited(n: int) -> int:
    return await Ready()


def sorted_by_a_method_named(n: int) -> list[Writer]:
    return sorted([Writer()], key=operator.methodcaller("write"))


def enumeration_made_here(n: int) -> int:
    class Level(enum.Enum):
        LOW = 1

        def __init__(self, *_: Any) -> None:
            launch()

    return n


def enumeration_of_an_apps(n: int) -> int:
    class Mars(Planet):
        RED = 1

    return n


def read_on_the_class(n: int) -> int:
    return Kept.looked


EVADING = [sliced, sliced_by_step, repeated, made_a_letter, inserted, rounded, rooted,
           stored_by_key, stored_by_pair, made_of_pairs, made_of_keys, yielded_from, chained,
           encoded_by_a_class_made_here, decoded_by_a_class_made_here, awaited, sorted_by_a_method_named,
           enumeration_made_here, enumeration_of_an_apps, read_on_the_class]


@pytest.mark.parametrize("fn", EVADING, ids=[f.__name__ for f in EVADING])
def test_code_python_runs_on_a_value_counts(fn: Callable[..., Any]) -> None:
    """The app's code run to take a value as a number, truth or key, to iterate or await it,
    or to make it, counts: the action is not taken to only read."""
    effects = analyse(fn, name=fn.__name__)
    assert effects.external, effects.explain()
    assert not effects.only_reads


def test_a_mark_reached_by_a_slice_counts() -> None:
    """``@sends`` on what a slice's bound runs adds that the action sends: a send the run's
    guard cannot see, so the analysis is all that keeps it from running alone."""

    def first_ones(n: int) -> list[int]:
        return list(range(n))[:Telling()]

    effects = analyse(first_ones, name="first_ones")
    assert effects.sends, effects.explain()
