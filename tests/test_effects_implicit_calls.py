"""Code Python (or pydantic) runs without its being called by name, written so that an action
looks as if it only reads: each is found to reach outside, and the analysis runs none of it."""

from __future__ import annotations

import functools
import subprocess
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from pydantic import BaseModel, TypeAdapter, computed_field, field_serializer, field_validator
from pydantic_core import to_jsonable_python

from signoff import App, sends, spends
from signoff.effects import analyse

RAN: list[str] = []
"""What code of this module ran while it was only analysed (nothing may)."""


def launch(*_: Any) -> int:
    """Reach outside: start a program."""
    return subprocess.run(["true"], check=False).returncode


class Order(BaseModel):
    """A model whose serializer reaches outside."""

    n: int

    @field_serializer("n")
    def shown(self, value: int) -> int:
        launch()
        return value


class Checked(BaseModel):
    """A model whose validator reaches outside."""

    n: int

    @field_validator("n")
    @classmethod
    def checked(cls, value: int) -> int:
        launch()
        return value


class Totalled(BaseModel):
    """A model whose computed field reaches outside (pydantic's ``__repr__`` reads it)."""

    n: int

    @computed_field  # type: ignore[prop-decorator]
    @property
    def total(self) -> int:
        return launch()


class Loud(Exception):
    """An exception whose words reach outside (the log's traceback tells them)."""

    def __str__(self) -> str:
        launch()
        return "loud"


class Equal:
    """Equal to anything, after reaching outside."""

    def __eq__(self, other: object) -> bool:
        launch()
        return True

    __hash__ = None  # type: ignore[assignment]


class Indexed:
    """Iterated the old way, by ``__getitem__``."""

    def __getitem__(self, index: int) -> int:
        launch()
        raise IndexError(index)


class Point:
    """A class pattern's attributes are read: a property that reaches outside."""

    __match_args__ = ("x",)

    @property
    def x(self) -> int:
        return launch()


class Meta(type):
    """A metaclass whose code runs as its classes are read and matched."""

    def __getattr__(cls, name: str) -> int:
        RAN.append(name)
        return launch()

    def __instancecheck__(cls, instance: object) -> bool:
        launch()
        return True


class Dynamic(metaclass=Meta):
    """A class whose missing attributes its metaclass makes."""


class Anything:
    """An object that answers every attribute read (the analysis must not ask it its name)."""

    def __getattr__(self, name: str) -> Callable[..., int]:
        RAN.append(name)
        return launch

    def __call__(self, *args: Any) -> int:
        return 0


ANYTHING = Anything()


@functools.singledispatch
def described(value: object) -> str:
    """Dispatched by type: the function registered for int reaches outside."""
    return ""


@described.register
def _(value: int) -> str:
    launch()
    return str(value)


def registered(cls: type) -> type:
    """A class decorator that reaches outside."""
    launch()
    return cls


def adapter_dump(n: int) -> str:
    return str(TypeAdapter(Order).dump_python(Order(n=n)))


def adapter_validate(text: str) -> int:
    return TypeAdapter(Checked).validate_json(text).n


def core_jsonable(n: int) -> str:
    return str(to_jsonable_python(Order(n=n)))


def core_serializer(n: int) -> str:
    order = Order(n=n)
    return str(order.__pydantic_serializer__.to_python(order))


def adapter_serializer(n: int) -> str:
    return str(TypeAdapter(Order).serializer.to_python(Order(n=n)))


def core_validator(n: int) -> int:
    return Checked.__pydantic_validator__.validate_python({"n": n}).n  # type: ignore[no-any-return]


def model_repr(n: int) -> str:
    return repr(Totalled(n=n))


def model_formatted(n: int) -> str:
    return f"{Totalled(n=n)}"


def raises_loud(n: int) -> int:
    raise Loud()


def dispatched(n: int) -> str:
    return described(n)


def tuples_compared(n: int) -> bool:
    return (Equal(),) == (n,)


def dicts_compared(n: int) -> bool:
    return {1: Equal()} == {1: n}


def matched_value(n: int) -> int:
    match Equal():
        case 5:
            return 1
    return 0


def matched_class(n: int) -> int:
    match Point():
        case Point(1):
            return 1
    return 0


def matched_metaclass(n: int) -> int:
    match n:
        case Dynamic():
            return 1
    return 0


def unpacked_in_call(n: int) -> int:
    print(*Indexed())
    return n


def unpacked_in_display(n: int) -> list[int]:
    return [*Indexed()]


def looped_by_index(n: int) -> int:
    for _ in Indexed():
        pass
    return n


def read_of_metaclass(n: int) -> int:
    return Dynamic.anything  # type: ignore[attr-defined,no-any-return]


def class_decorated_here(n: int) -> int:
    @registered
    class Local:
        pass
    return n


EVADING = [adapter_dump, adapter_validate, core_jsonable, core_serializer, adapter_serializer,
           core_validator, model_repr, model_formatted, raises_loud, dispatched,
           tuples_compared, dicts_compared, matched_value, matched_class, matched_metaclass,
           unpacked_in_call, unpacked_in_display, looped_by_index, read_of_metaclass,
           class_decorated_here]


@pytest.mark.parametrize("fn", EVADING, ids=[f.__name__ for f in EVADING])
def test_code_run_unnamed_is_found_to_reach_outside(fn: Callable[..., Any]) -> None:
    """Code pydantic or Python runs unnamed counts: the action is not taken to only read."""
    effects = analyse(fn, name=fn.__name__)
    assert effects.external, effects.explain()
    assert not effects.only_reads


def test_the_analysis_runs_none_of_the_code_it_reads() -> None:
    """A metaclass's __getattr__ and an object's __getattr__ are followed, never run."""
    RAN.clear()

    def asks_anything(n: int) -> int:
        return ANYTHING(n)

    analyse(read_of_metaclass, name="read_of_metaclass")
    analyse(asks_anything, name="asks_anything")
    assert RAN == []


def test_a_registered_action_that_raises_loud_is_not_run_alone() -> None:
    """An action that only raises an exception whose words reach outside is not found to only
    read (signoff tells the words in its log, after the action's hold has ended)."""
    app = App("loud", database="sqlite://")
    app.action()(raises_loud)
    info = {i.name: i for i in app.actions.catalog()}["raises_loud"]
    assert not info.effects.only_reads
    assert any("Loud.__str__" in line for line in info.effects.explain())


@sends
@functools.singledispatch
def _tell(to: object) -> None:
    """Sends a message (a mark on a dispatcher whose functions show nothing of it)."""


@_tell.register
def _(to: str) -> None:
    pass


@spends(cost=Decimal("2.50"))
@functools.singledispatch
def _charge(card: object) -> None:
    pass


def test_a_mark_on_a_singledispatch_function_counts() -> None:
    """``@sends`` and ``@spends(cost=…)`` over ``@singledispatch`` add what they declare to the
    functions it dispatches to: following those alone, the marks were lost (the action only
    read, ran alone, and its cost was never reserved)."""

    def tell_customer(to: str) -> str:
        _tell(to)
        return "told"

    def charge_card(card: str) -> str:
        _charge(card)
        return "charged"

    told = analyse(tell_customer, name="tell_customer")
    charged = analyse(charge_card, name="charge_card")
    assert told.sends, told.explain()
    assert charged.spends, charged.explain()
    assert charged.cost_usd == Decimal("2.50")
