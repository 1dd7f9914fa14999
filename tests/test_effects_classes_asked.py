"""What a class itself runs as it is compared, formatted or asked about: a class's operators
are its metaclass's (``Kind == x`` runs ``type(Kind).__eq__``, ``f"{Kind}"`` its ``__str__``),
not the methods its objects have; ``isinstance(x, A)`` and ``issubclass(T, A)`` of an ABC run
its own ``__subclasshook__``. Each action below looked as if it only read, and ran alone with
no person asked."""

from __future__ import annotations

import abc
import subprocess
from collections.abc import Callable
from typing import Any

import pytest

from signoff.effects import analyse


def launch(*_: Any) -> int:
    """Reach outside: start a program."""
    return subprocess.run(["true"], check=False).returncode


class Registered(type):
    """A metaclass whose comparison and text reach outside."""

    def __eq__(cls, other: object) -> bool:
        launch()
        return cls is other

    __hash__ = type.__hash__

    def __str__(cls) -> str:
        launch()
        return cls.__name__


class Kind(metaclass=Registered):
    """A class of that metaclass (its objects compare and show as any)."""


class Checked(abc.ABC):  # noqa: B024 (an ABC by its hook alone is the case analysed)
    """An ABC that decides what counts as one by reaching outside."""

    @classmethod
    def __subclasshook__(cls, other: type) -> bool:
        launch()
        return True


def kind_compared(n: int) -> bool:
    return Kind == n  # type: ignore[comparison-overlap]


def kind_formatted(n: int) -> str:
    return f"{Kind}"


def checked_instance(n: int) -> bool:
    return isinstance(n, Checked)


def checked_subclass(n: int) -> bool:
    return issubclass(int, Checked)


EVADING = [kind_compared, kind_formatted, checked_instance, checked_subclass]


@pytest.mark.parametrize("fn", EVADING, ids=[f.__name__ for f in EVADING])
def test_what_a_class_runs_as_it_is_asked_counts(fn: Callable[..., Any]) -> None:
    """A metaclass's operators and an ABC's own hook run as the class is asked: they count."""
    effects = analyse(fn, name=fn.__name__)
    assert effects.external, effects.explain()


def test_plain_classes_asked_only_read() -> None:
    """Comparing, formatting and asking about classes of Python's metaclass, and ABCs of
    Python's, run nothing of the app's."""

    class Plain:
        pass

    def asked(n: int) -> tuple[bool, str, bool]:
        return Plain == int, f"{Plain}", isinstance(n, abc.ABC)  # noqa: E721 (the case)

    effects = analyse(asked, name="asked")
    assert effects.only_reads, effects.explain()
