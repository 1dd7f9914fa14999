"""Steps: an action called on a record with fixed values, like ``lambda t: tag(t, "urgent")``.

A step is read by calling it once on a probe that stands for the record: the action call is
captured instead of run, and any attempt to read the probe is refused, so that a step's values
never depend on the record.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from signoff.actions.declare import ActionFunction, StepCall, capturing_calls
from signoff.exceptions import UserError

__all__ = ["read_step"]

_SHAPE = "A step is a single action call on the record, like `lambda t: tag_ticket(t, \"urgent\")`"


class _Touched(Exception):
    pass


class _RecordProbe:
    """Stands for the record while a step is read; reading it is refused."""

    def __getattribute__(self, name: str) -> Any:
        raise _Touched(name)

    def __setattr__(self, name: str, value: Any) -> None:
        raise _Touched(name)

    def __bool__(self) -> bool:
        raise _Touched("__bool__")

    def __eq__(self, other: object) -> bool:
        raise _Touched("__eq__")

    def __hash__(self) -> int:
        raise _Touched("__hash__")

    def __str__(self) -> str:
        raise _Touched("__str__")

    def __iter__(self) -> Any:
        raise _Touched("__iter__")

    def __len__(self) -> int:
        raise _Touched("__len__")


def read_step(fn: Callable[[Any], Any]) -> tuple[ActionFunction[..., Any], dict[str, Any]]:
    """The action a step calls and the values it gives (the record left out)."""
    probe = _RecordProbe()
    with capturing_calls() as calls:
        try:
            returned = fn(probe)
        except _Touched as touched:
            raise UserError(
                f"{_SHAPE}: this step's values read the record ({touched.args[0]}). A step's "
                "values are fixed when it is declared."
            ) from None
        except Exception as error:
            raise UserError(f"{_SHAPE}: reading this step failed with {error!r}.") from error
    if len(calls) != 1 or not isinstance(returned, StepCall):
        found = "no action call" if not calls else f"{len(calls)} calls" if len(calls) > 1 else (
            "more than the call"
        )
        raise UserError(f"{_SHAPE}; this one makes {found}.")
    function, args, kwargs = calls[0]
    try:
        bound = inspect.signature(function.__wrapped__).bind(*args, **kwargs)
    except TypeError as error:
        raise UserError(f"{_SHAPE}: {error}.") from None
    names = list(bound.arguments)
    if not names or bound.arguments[names[0]] is not probe:
        raise UserError(f"{_SHAPE}: the record must be the action's first argument.")
    values = {name: bound.arguments[name] for name in names[1:]}
    if any(_holds(value, probe) for value in values.values()):
        raise UserError(f"{_SHAPE}: the record may be given only as the first argument.")
    return function, values


def _holds(value: Any, probe: _RecordProbe) -> bool:
    if value is probe:
        return True
    if isinstance(value, list | tuple | set | frozenset):
        return any(_holds(v, probe) for v in value)
    if isinstance(value, dict):
        return any(_holds(v, probe) for v in value.values())
    return False
