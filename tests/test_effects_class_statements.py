"""What a class statement inside an action runs, and the process-wide registries it may fill,
written so that the action looks as if it only reads: each is found to change something."""

from __future__ import annotations

import abc
import calendar
import enum
import typing
from collections.abc import Callable
from typing import Any

import pytest

from signoff.effects import analyse

SEEN: list[str] = []
"""What the hooks below add to: a global, changed."""


class Plugin(abc.ABC):
    """An abstract class: its registry of virtual subclasses is the process's."""

    @abc.abstractmethod
    def go(self) -> None: ...


class Watched(type):
    """A metaclass of the app's whose property changes a global as it is read."""

    @property
    def count(cls) -> int:
        SEEN.append("count")
        return len(SEEN)


def registers_a_virtual_subclass(n: int) -> int:
    Plugin.register(int)  # (from then on, ``isinstance(3, Plugin)`` for every caller)
    return n


def registers_through_the_metaclass(n: int) -> int:
    abc.ABCMeta.register(Plugin, str)
    return n


def clears_the_registry(n: int) -> int:
    Plugin._abc_registry_clear()  # type: ignore[attr-defined]
    return n


def sets_the_first_weekday(n: int) -> int:
    calendar.setfirstweekday(calendar.SUNDAY)
    return n


def clears_the_overloads(n: int) -> int:
    typing.clear_overloads()
    return n


def subclasses_a_local_class(n: int) -> int:
    class Counted:
        def __init_subclass__(cls, **kw: Any) -> None:
            SEEN.append(cls.__name__)

    class Each(Counted):
        pass
    return n


def subclasses_a_subclass_of_a_local_class(n: int) -> int:
    class Counted:
        def __init_subclass__(cls, **kw: Any) -> None:
            SEEN.append(cls.__name__)

    class Middle(Counted):
        pass

    class Last(Middle):
        pass
    return n


def makes_a_class_of_a_local_metaclass(n: int) -> int:
    class Making(type):
        def __new__(mcs, *given: Any) -> Any:
            SEEN.append("made")
            return super().__new__(mcs, *given)

    class Made(metaclass=Making):
        pass
    return n


def reads_a_local_class_of_the_apps_metaclass(n: int) -> int:
    class Counted(metaclass=Watched):
        pass
    return Counted.count + n


def reads_a_local_class_of_a_local_metaclass(n: int) -> int:
    class Anything(type):
        def __getattr__(cls, name: str) -> int:
            SEEN.append(name)
            return 1

    class Asked(metaclass=Anything):
        pass
    return Asked.whatever + n  # type: ignore[attr-defined,no-any-return]


def subscripts_a_local_class(n: int) -> int:
    class Generic:
        def __class_getitem__(cls, item: Any) -> Any:
            SEEN.append("item")
            return cls
    Generic[int]
    return n


def makes_a_class_of_a_base_not_known(base: Any) -> int:
    class Made(base):  # type: ignore[misc,valid-type]
        pass
    return 1


CHANGING = [registers_a_virtual_subclass, registers_through_the_metaclass, clears_the_registry,
            sets_the_first_weekday, clears_the_overloads, subclasses_a_local_class,
            subclasses_a_subclass_of_a_local_class, makes_a_class_of_a_local_metaclass,
            reads_a_local_class_of_the_apps_metaclass, reads_a_local_class_of_a_local_metaclass,
            subscripts_a_local_class, makes_a_class_of_a_base_not_known]


@pytest.mark.parametrize("fn", CHANGING, ids=[f.__name__ for f in CHANGING])
def test_a_class_made_or_registered_in_the_action_changes(fn: Callable[..., Any]) -> None:
    """Each changes state of the process (an ABC's registry, the calendar, a global a hook
    fills): the action is not found to only read, so it never runs without a person's yes."""
    effects = analyse(fn, name=fn.__name__)
    assert not effects.only_reads, effects.explain()
    assert effects.changes, effects.explain()


def test_a_local_init_subclass_is_walked_as_the_apps_code() -> None:
    """The hook of a class made in the action is followed: what it changes is named."""
    effects = analyse(subclasses_a_local_class, name="subclasses_a_local_class")
    assert any("SEEN.append()" in line for line in effects.explain()), effects.explain()


def plain_local_classes(n: int) -> int:
    class Shape:
        sides = 0

    class Square(Shape):
        sides = 4

    class Colour(enum.Enum):
        RED = 1

    class Checked(Plugin):
        def go(self) -> None:
            pass
    return Square.sides + Colour.RED.value + n + isinstance(n, Plugin)


def test_plain_local_classes_still_only_read() -> None:
    """Classes made in an action of classes that run nothing of the app's, an enum, an
    abstract class's subclass, ``isinstance`` against an abstract class: it still only reads."""
    effects = analyse(plain_local_classes, name="plain_local_classes")
    assert effects.only_reads, effects.explain()
