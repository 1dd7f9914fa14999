"""What making a dataclass runs of the app's besides its ``__init__``: a field's
``default_factory`` (the ``__init__`` the dataclass wrote calls it) and, for
``dataclasses.replace``, the whole of making an object of the class again."""

from __future__ import annotations

import dataclasses
import subprocess
from collections.abc import Callable
from typing import Any

import pytest

from signoff.effects import analyse


def launch() -> list[str]:
    """Reach outside: start a program."""
    subprocess.run(["true"], check=False)
    return []


@dataclasses.dataclass
class Basket:
    """A dataclass whose field's default factory reaches outside."""

    n: int = 0
    items: list[str] = dataclasses.field(default_factory=launch)


@dataclasses.dataclass
class Checked:
    """A dataclass whose ``__post_init__`` reaches outside."""

    n: int

    def __post_init__(self) -> None:
        launch()


@dataclasses.dataclass
class Plain:
    """A dataclass whose factories are Python's own."""

    n: int
    tags: list[str] = dataclasses.field(default_factory=list)


def basket_made(n: int) -> int:
    """Makes a basket: its items' factory runs."""
    return len(Basket(n).items)


def checked_copied(c: Checked) -> int:
    """Copies a checked object with another number: its ``__post_init__`` runs again."""
    return dataclasses.replace(c, n=2).n


def basket_copied(b: Basket) -> int:
    """Copies a basket: the factory of its items runs (``items`` is not given)."""
    return dataclasses.replace(b, n=3).n


def anything_copied(x: Any) -> Any:
    """Copies what it is given, of a class not known: its class's code is not known."""
    return dataclasses.replace(x, n=2)


def plain_made_and_copied(n: int) -> int:
    """Makes a plain dataclass and copies it: only computes."""
    made = Plain(n)
    return dataclasses.replace(made, n=n + 1).n + len(made.tags)


@pytest.mark.parametrize("fn", [basket_made, checked_copied, basket_copied, anything_copied],
                         ids=lambda f: f.__name__)
def test_what_making_a_dataclass_runs_of_the_apps_counts(fn: Callable[..., Any]) -> None:
    """A field's factory, and what ``dataclasses.replace`` makes, are the action's code: an
    action that reaches outside only through them is not found to only read."""
    found = analyse(fn, name=fn.__name__)
    assert not found.only_reads
    assert found.external


def test_a_plain_dataclass_made_and_copied_only_computes() -> None:
    """A dataclass whose factories are Python's own, made and copied, only computes."""
    assert analyse(plain_made_and_copied, name="plain_made_and_copied").only_reads
