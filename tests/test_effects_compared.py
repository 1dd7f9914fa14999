"""Code of the app's that Python's own code runs as it orders, multiplies or looks up values:
a sort (``sorted``, ``min``, ``max``, ``list.sort``, a heap, ``bisect``) of tuples compares
their parts (``(priority, job)``: the jobs' ``__lt__`` when two priorities are the same), and an
item with no ``__gt__`` is asked the other way round (``a > b`` runs ``b.__lt__(a)``);
``sum(xs, start)`` adds each item to ``start`` (its ``__add__``); ``math.prod`` multiplies from 1
(an item's ``__rmul__``); ``math.fsum`` takes each item as a number; ``str.translate`` looks each
character up in the table it is given. Each action below
looked as if it only read, and ran alone with no person asked."""

from __future__ import annotations

import bisect
import heapq
import math
import subprocess
from collections.abc import Callable
from typing import Any

import pytest

from signoff.effects import analyse


def launch(*_: Any) -> int:
    """Reach outside: start a program."""
    return subprocess.run(["true"], check=False).returncode


class Job:
    """Ordered, after reaching outside."""

    def __lt__(self, other: object) -> bool:
        launch()
        return True

    def __gt__(self, other: object) -> bool:
        launch()
        return True


class Ranked:
    """Ordered by ``<`` alone, after reaching outside."""

    def __lt__(self, other: object) -> bool:
        launch()
        return True


class Total:
    """Where a sum starts: adding to it reaches outside."""

    def __add__(self, other: object) -> Total:
        launch()
        return self


class Amount:
    """Multiplied, or taken as a number, after reaching outside."""

    def __rmul__(self, other: object) -> int:
        launch()
        return 1

    def __float__(self) -> float:
        launch()
        return 1.0


class Table:
    """A translation table whose look-up reaches outside."""

    def __getitem__(self, code: int) -> int:
        launch()
        return code


def sorted_pairs(n: int) -> list[tuple[int, Job]]:
    return sorted([(n, Job()), (n, Job())])


def least_pair(n: int) -> tuple[int, Job]:
    return min([(n, Job()), (n, Job())])


def greatest_of_two(n: int) -> tuple[int, Job]:
    return max((n, Job()), (n, Job()))


def sorted_in_place(n: int) -> list[tuple[int, Job]]:
    jobs = [(n, Job()), (n, Job())]
    jobs.sort()
    return jobs


def heap_pushed(n: int) -> list[tuple[int, Job]]:
    heap: list[tuple[int, Job]] = []
    heapq.heappush(heap, (n, Job()))
    heapq.heappush(heap, (n, Job()))
    return heap


def placed_in_order(n: int) -> list[tuple[int, Job]]:
    jobs = [(n, Job())]
    bisect.insort(jobs, (n, Job()))
    return jobs


def greatest_asked_the_other_way(n: int) -> Ranked | None:
    return max([Ranked(), Ranked()], default=None)


def sorted_by_name_then_rank(n: int) -> list[tuple[str, Ranked]]:
    return sorted({"a": Ranked(), "b": Ranked()}.items())


def summed_from_a_start(n: int) -> Total:
    return sum([n], Total())  # type: ignore[arg-type]


def multiplied(n: int) -> float:
    return math.prod([Amount()])


def summed_exactly(n: int) -> float:
    return math.fsum([Amount()])  # type: ignore[list-item]


def translated(n: int) -> str:
    return "abc".translate(Table())


EVADING = [
    sorted_pairs,
    least_pair,
    greatest_of_two,
    sorted_in_place,
    heap_pushed,
    placed_in_order,
    greatest_asked_the_other_way,
    sorted_by_name_then_rank,
    summed_from_a_start,
    multiplied,
    summed_exactly,
    translated,
]


@pytest.mark.parametrize("fn", EVADING, ids=[f.__name__ for f in EVADING])
def test_code_python_runs_as_it_orders_or_looks_up_counts(fn: Callable[..., Any]) -> None:
    """The app's code run to order a tuple's parts, multiply, add up or translate counts: the
    action is not taken to only read."""
    effects = analyse(fn, name=fn.__name__)
    assert effects.external, effects.explain()
    assert not effects.only_reads


def sorted_plain_pairs(n: int) -> list[tuple[int, str]]:
    return sorted([(n, "b"), (n, "a")])


def plain_product(n: int) -> float:
    return math.prod([n, 2]) + math.fsum([0.5, n])


def translated_by_a_dict(n: int) -> str:
    return "abc".translate({97: "b"})


HARMLESS = [sorted_plain_pairs, plain_product, translated_by_a_dict]


@pytest.mark.parametrize("fn", HARMLESS, ids=[f.__name__ for f in HARMLESS])
def test_ordering_plain_values_only_reads(fn: Callable[..., Any]) -> None:
    """Ordering, multiplying and translating Python's own values run nothing of the app's."""
    effects = analyse(fn, name=fn.__name__)
    assert effects.only_reads, effects.explain()
