"""What a list's search (``remove``, ``index``, ``count``) is given is compared with each item
by its own class's ``__eq__`` too (``1 == x`` falls back to ``x.__eq__(1)``): that code runs."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import pytest

from signoff.effects import analyse


class Loud:
    """Equal to nothing, and removes a file as it says so."""

    def __eq__(self, other: object) -> bool:
        os.remove("/nonexistent/signoff-test")
        return False

    def __hash__(self) -> int:
        return 0


def removes_it(numbers: list[int]) -> list[int]:
    numbers = list(numbers)
    numbers.remove(Loud())  # type: ignore[arg-type]
    return numbers


def counts_it(numbers: list[int]) -> int:
    return list(numbers).count(Loud())  # type: ignore[arg-type]


def finds_it(numbers: tuple[int, ...]) -> int:
    return numbers.index(Loud())  # type: ignore[arg-type]


SEARCHES = [removes_it, counts_it, finds_it]


@pytest.mark.parametrize("fn", SEARCHES, ids=[f.__name__ for f in SEARCHES])
def test_what_is_searched_for_is_compared_by_its_own_code(fn: Callable[..., Any]) -> None:
    """The ``__eq__`` of what is searched for runs: its file removed reaches outside."""
    effects = analyse(fn, name=fn.__name__)
    assert effects.external, effects.explain()
