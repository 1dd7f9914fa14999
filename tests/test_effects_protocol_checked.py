"""``isinstance(x, P)`` of a runtime-checkable protocol reads each of ``P``'s members on ``x``
(``hasattr``): a property of ``x``'s class, or its ``__getattr__``, runs. An action that only
checked a value's shape so, and reached outside by it, was taken to only read."""

from __future__ import annotations

import subprocess
from typing import Any, Protocol, runtime_checkable

from signoff.effects import analyse


def launch(*_: Any) -> int:
    """Reach outside: start a program."""
    return subprocess.run(["true"], check=False).returncode


@runtime_checkable
class Sized(Protocol):
    """Anything with a size."""

    size: int


@runtime_checkable
class Named(Protocol):
    """Anything with a name."""

    def name(self) -> str: ...


class Parcel:
    """A size worked out by reaching outside."""

    @property
    def size(self) -> int:
        launch()
        return 1


class Anything:
    """Every attribute worked out by reaching outside."""

    def __getattr__(self, name: str) -> Any:
        launch()
        return None


def checked_for_a_size(n: int) -> bool:
    return isinstance(Parcel(), Sized)


def checked_for_a_name(n: int) -> bool:
    return isinstance(Anything(), Named)


def test_a_runtime_protocol_check_reads_the_members() -> None:
    """The member read by a protocol's check runs the class's property: it counts."""
    effects = analyse(checked_for_a_size, name="checked_for_a_size")
    assert effects.external, effects.explain()


def test_a_runtime_protocol_check_reaches_getattr() -> None:
    """A method a protocol asks for, missing, runs the class's ``__getattr__``: it counts."""
    effects = analyse(checked_for_a_name, name="checked_for_a_name")
    assert effects.external, effects.explain()


def test_a_plain_isinstance_only_reads() -> None:
    """``isinstance`` of a plain class, or a protocol of plain members, runs nothing of the app's."""

    def checked(n: int) -> bool:
        return isinstance(n, int) and not isinstance(n, Sized)

    effects = analyse(checked, name="checked")
    assert effects.only_reads, effects.explain()
