"""An iterator or a coroutine that outlives the call (a generator, a ``map``, ``iter(xs)``, a
counter, a coroutine a module, a list or a default holds) advanced or awaited by an action: a
generator's own code, or the function a ``map`` calls, runs as it is advanced, and it is
changed for every later call. None of it only reads."""

from __future__ import annotations

import atexit
import itertools
import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from signoff.effects import analyse


def _remove() -> int:
    os.remove("/nonexistent/signoff-test")
    return 1


def _removing() -> Iterator[int]:
    while True:
        yield _remove()


REMOVING = _removing()
REMOVING_EXPRESSION = (_remove() for _ in range(3))
REMOVING_MAP = map(lambda _: _remove(), range(3))
TICKETS = itertools.count(1)
SLOTS = iter([1, 2, 3])


def next_of_a_generator() -> int:
    return next(REMOVING)


def loops_over_a_generator() -> int:
    for ticket in REMOVING:
        return ticket
    return 0


def slices_a_generator() -> list[int]:
    return list(itertools.islice(REMOVING, 1))


def sends_to_a_generator() -> int:
    return REMOVING.send(None)


def next_of_a_generator_expression() -> int:
    return next(REMOVING_EXPRESSION)


def next_of_a_map() -> int:
    return next(REMOVING_MAP)


def _first(items: Iterator[int]) -> int:
    return next(items)


def hands_a_generator_to_a_helper() -> int:
    return _first(REMOVING)


async def _removing_later() -> int:
    return _remove()


async def _removing_each() -> Any:
    while True:
        yield _remove()


REMOVING_LATER = _removing_later()
atexit.register(REMOVING_LATER.close)  # (never awaited here: closed, with no warning at exit,
# whether or not a test of this module ran)
REMOVING_EACH = _removing_each()
GENERATORS = [_removing()]


async def awaits_a_coroutine() -> int:
    return await REMOVING_LATER


async def loops_over_an_async_generator() -> int:
    async for ticket in REMOVING_EACH:
        return int(ticket)
    return 0


async def sends_to_an_async_generator() -> int:
    return int(await REMOVING_EACH.asend(None))


def next_of_a_generator_in_a_list() -> int:
    return next(GENERATORS[0])


def next_of_a_default(removing: Iterator[int] = _removing()) -> int:  # noqa: B008 (the attack)
    return next(removing)


RUN_CODE = [awaits_a_coroutine, loops_over_an_async_generator, sends_to_an_async_generator,
            next_of_a_generator_in_a_list, next_of_a_default, next_of_a_generator,
            loops_over_a_generator, slices_a_generator, sends_to_a_generator,
            next_of_a_generator_expression, next_of_a_map, hands_a_generator_to_a_helper]


@pytest.mark.parametrize("fn", RUN_CODE, ids=[f.__name__ for f in RUN_CODE])
def test_advancing_a_generator_held_runs_its_code(fn: Callable[..., Any]) -> None:
    """Its code (here, one removing a file) runs, not followed: taken to do everything."""
    effects = analyse(fn, name=fn.__name__)
    assert effects.external, effects.explain()
    assert effects.changes, effects.explain()


def takes_a_ticket() -> int:
    return next(TICKETS)


def takes_a_slot() -> int:
    return next(SLOTS)


@pytest.mark.parametrize("fn", [takes_a_ticket, takes_a_slot], ids=["count", "list_iterator"])
def test_advancing_a_plain_iterator_held_changes_it(fn: Callable[..., Any]) -> None:
    """A counter, or an iterator over a list, a module holds: advanced, changed."""
    effects = analyse(fn, name=fn.__name__)
    assert not effects.only_reads, effects.explain()
    assert not effects.external, effects.explain()


NUMBERS = [3, 1, 2]


def reads_a_list_held(fresh: list[int]) -> list[Any]:
    return [next(iter(NUMBERS)), *NUMBERS, sorted(NUMBERS), max(NUMBERS),
            list(zip(NUMBERS, fresh, strict=False)), next(x for x in NUMBERS if x > 1),
            [n for n in NUMBERS], next(iter(fresh))]


def test_iterating_a_container_held_only_reads() -> None:
    """A list a module holds, iterated (its own iterator, made here, advanced): only read."""
    effects = analyse(reads_a_list_held, name="reads_a_list_held")
    assert effects.only_reads, effects.explain()
