"""A callable called through its ``__call__`` (``helper.__call__(x)``, ``Maker.__call__()``,
a module's ``MAKE = Maker.__call__``) runs what calling it runs: the function's code, the
class's ``__init__``."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from typing import Any

import pytest

from signoff.effects import analyse


def _remove(*_: Any) -> int:
    os.remove("/nonexistent/signoff-test")
    return 1


class Maker:
    def __init__(self) -> None:
        _remove()


MAKE = Maker.__call__


def calls_a_function_by_dunder_call() -> int:
    return _remove.__call__()


def calls_a_lambda_by_dunder_call() -> int:
    return (lambda: _remove()).__call__()


def calls_a_partial_by_dunder_call() -> int:
    return functools.partial(_remove, 1).__call__()


def makes_by_dunder_call() -> Any:
    return Maker.__call__()


def makes_by_a_dunder_call_held() -> Any:
    return MAKE()


CALLED = [calls_a_function_by_dunder_call, calls_a_lambda_by_dunder_call,
          calls_a_partial_by_dunder_call, makes_by_dunder_call, makes_by_a_dunder_call_held]


@pytest.mark.parametrize("fn", CALLED, ids=[f.__name__ for f in CALLED])
def test_what_dunder_call_calls_runs(fn: Callable[..., Any]) -> None:
    """The code called (here, removing a file) counts."""
    effects = analyse(fn, name=fn.__name__)
    assert effects.external, effects.explain()


def measures(items: list[int]) -> int:
    return len.__call__(items) + int.__call__("1") + sorted.__call__(items)[0]


def test_a_builtin_called_by_dunder_call_only_computes() -> None:
    """``len.__call__(xs)``: only read."""
    effects = analyse(measures, name="measures")
    assert effects.only_reads, effects.explain()
