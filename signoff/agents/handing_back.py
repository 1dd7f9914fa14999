"""The hand-back: the tool a model calls with its task's result, as the model is offered it,
and the result read from the call's arguments (checked against the skill's result type)."""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import Any

from pydantic import TypeAdapter, ValidationError

from signoff.actions.model_json import GivenTwice, escaped_halves, half_character_in, once_each
from signoff.actions.nesting import TOO_DEEP, too_deep
from signoff.actions.problems import cut_short
from signoff.agents.repository import CallRow
from signoff.agents.skills import TaskView, ToolAnswer
from signoff.agents.states import HAND_BACK, CallOutcome
from signoff.models.base import ToolSpec

__all__ = ["Handed", "hand_back_spec", "read_result", "result_of", "task_view"]


@dataclass(frozen=True, kw_only=True)
class Handed:
    """A result read from a hand-back's arguments."""

    result: Any
    """The result, as the skill's result type."""
    value: Any
    """Its JSON."""


def hand_back_spec(result_type: Any) -> ToolSpec:
    """The hand-back tool as a model is offered it: its parameters are the result's fields
    (an object's own; any other type as ``result``, the definitions its references point to
    kept at the top, where ``#/$defs/…`` finds them)."""
    schema = _adapter(result_type).json_schema()
    if not _is_object(result_type):
        inner = dict(schema)
        defs = inner.pop("$defs", None)
        schema = {"type": "object", "properties": {"result": inner}, "required": ["result"]}
        if defs:
            schema["$defs"] = defs
    return ToolSpec(name=HAND_BACK, description="Hand back the finished result.",
                    parameters=schema)


def read_result(result_type: Any, arguments: str) -> Handed | str:
    """The result a hand-back's `arguments` (JSON) give, or what is wrong with them."""
    try:
        raw = json.loads(arguments, object_pairs_hook=once_each)
        if too_deep(raw):
            return f"the result is {TOO_DEEP}"
        if (half := half_character_in(raw)) is not None:
            return (f"the result holds half of a character (a lone surrogate) in "
                    f"“{cut_short(escaped_halves(half))}”, which cannot be written alone: send "
                    "the text whole")
        if not _is_object(result_type):
            raw = raw["result"] if isinstance(raw, dict) and "result" in raw else raw
        adapter = _adapter(result_type)
        result = adapter.validate_python(raw)
        value = adapter.dump_python(result, mode="json")
        if not _finite(value):  # (PostgreSQL keeps no such JSON; SQLite keeps one no reader can)
            return ("the result holds NaN or Infinity, which is no number JSON can keep: "
                    "hand it back with finite numbers")
        return Handed(result=result, value=value)
    except GivenTwice as twice:
        return (f"the result gives “{cut_short(twice.member)}” twice in one object: give each "
                "member once, with the one value meant")
    except RecursionError:
        return f"the result is {TOO_DEEP}"
    except ValidationError as error:
        return _wrong_fields(error)
    except (ValueError, KeyError, TypeError) as error:
        return str(error).splitlines()[0] if str(error) else type(error).__name__


def _finite(value: Any) -> bool:
    """Whether `value` (as JSON reads) can be written as JSON: no NaN nor Infinity in it."""
    try:
        json.dumps(value, allow_nan=False)
    except ValueError:
        return False
    return True


def _wrong_fields(error: ValidationError) -> str:
    """What does not fit in a result, field by field (the first three), as the model is told."""
    problems = error.errors(include_url=False)
    told = [f"{cut_short('.'.join(str(part) for part in p['loc'])) or 'the result'}: {p['msg']}"
            for p in problems[:3]]
    more = len(problems) - len(told)
    return "; ".join(told) + (f"; and {more} more" if more else "")


def task_view(task_id: str, calls: list[CallRow], subject: Any = None) -> TaskView:
    """The calls of task `task_id` that ran and were Done, and its `subject`, for a skill's
    result check."""
    answers = []
    for c in calls:
        if c.tool == HAND_BACK or c.outcome != CallOutcome.DONE:
            continue
        try:
            arguments = json.loads(c.arguments)
        except (ValueError, RecursionError):
            arguments = {}
        answers.append(ToolAnswer(tool=c.tool, arguments=arguments if isinstance(
            arguments, dict) else {}, value=c.value, said=c.said or ""))
    return TaskView(task=task_id, answers=tuple(answers), subject=subject)


def result_of(result_type: Any, value: Any) -> Any:
    """The result a task ended with, as its skill's result type, from its stored JSON."""
    return _adapter(result_type).validate_python(value)


@functools.cache
def _adapter(result_type: Any) -> TypeAdapter[Any]:
    return TypeAdapter(result_type)


@functools.cache
def _is_object(result_type: Any) -> bool:
    schema = _adapter(result_type).json_schema()
    return schema.get("type") == "object" or "properties" in schema
