"""The regular expressions of an upstream tool's input schema, matched in time linear in the
argument: the guard checks a call's arguments against the schema a server gave, and a server
chooses its patterns. jsonschema matches them with Python's ``re``, which backtracks: a pattern
such as ``^(a+)+$`` against ``"aaaa…!"`` takes time exponential in the argument's length, and
(``re`` holding the GIL throughout) stalled the guard's event loop, every session's call with it.

So ``pattern``, ``patternProperties`` and ``additionalProperties`` (which reads
``patternProperties``) are checked with pydantic-core's Rust ``regex`` engine, which never
backtracks — the engine pydantic itself matches ``pattern`` constraints with. It has no
back-references or look-arounds (a backtracking engine is what they need): an argument a pattern
using them would check is refused in words, naming the pattern, and the call is not made — the
guard cannot say whether it fits, and a check it cannot bound is no check it may run.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from jsonschema import Draft202012Validator, validators  # type: ignore[import-untyped]
from jsonschema.exceptions import ValidationError  # type: ignore[import-untyped]
from pydantic_core import SchemaError, SchemaValidator, core_schema
from pydantic_core import ValidationError as PatternMismatch

__all__ = ["LinearValidator", "Unboundable"]


class Unboundable(Exception):
    """A pattern the linear-time engine cannot run (a back-reference, a look-around): the
    message names it and says why."""


@lru_cache(maxsize=512)
def _matcher(pattern: str) -> SchemaValidator:
    """A validator of strings in which `pattern` is found (searched for, as JSON Schema's
    ``pattern`` is: unanchored), or `Unboundable`."""
    try:
        return SchemaValidator(core_schema.str_schema(pattern=pattern, regex_engine="rust-regex"))
    except SchemaError as error:
        why = str(error).strip().splitlines()[-1].removeprefix("error: ")
        raise Unboundable(
            f"the pattern {pattern!r} cannot be matched in bounded time ({why}): the guard "
            "matches a server's patterns without backtracking, so that no argument can hold "
            "it up, and has no back-references or look-arounds") from None


def found(pattern: str, text: str) -> bool:
    """Whether `pattern` is found in `text`, in time linear in `text`; `Unboundable` when the
    pattern cannot be matched so."""
    try:
        _matcher(pattern).validate_python(text)
    except PatternMismatch:
        return False
    return True


def _refused(pattern: str, error: Unboundable) -> ValidationError:
    return ValidationError(f"{error} — so whether the value fits {pattern!r} cannot be checked, "
                           "and the call is not made")


def _pattern(validator: Any, pattern: Any, instance: Any, schema: Any) -> Iterator[Any]:
    if not validator.is_type(instance, "string") or not isinstance(pattern, str):
        return
    try:
        if not found(pattern, instance):
            yield ValidationError(f"{instance!r} does not match {pattern!r}")
    except Unboundable as error:
        yield _refused(pattern, error)


def _pattern_properties(validator: Any, patterns: Any, instance: Any, schema: Any
                        ) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            try:
                matched = found(pattern, key)
            except Unboundable as error:
                yield _refused(pattern, error)
                return
            if matched:
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(validator: Any, allowed: Any, instance: Any, schema: Any
                           ) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    properties = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}))
    extras = []
    for key in instance:
        if key in properties:
            continue
        try:
            if any(found(pattern, key) for pattern in patterns):
                continue
        except Unboundable as error:
            yield ValidationError(f"{error} — so which arguments it allows cannot be checked, "
                                  "and the call is not made")
            return
        extras.append(key)
    if validator.is_type(allowed, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], allowed, path=extra)
    elif not allowed and extras:
        named = ", ".join(repr(each) for each in sorted(extras, key=str))
        verb = "was" if len(extras) == 1 else "were"
        yield ValidationError(f"Additional properties are not allowed ({named} {verb} "
                              "unexpected)")


LinearValidator: Any = validators.extend(Draft202012Validator, {
    "pattern": _pattern, "patternProperties": _pattern_properties,
    "additionalProperties": _additional_properties,
})
"""Draft 2020-12's validator, its patterns matched in linear time (see the module)."""
