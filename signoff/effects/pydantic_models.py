"""What the analysis knows of pydantic: the validators a model runs when made, its fields' types.

A model's fields are not class attributes (pydantic keeps them per instance), so their types are
read from the model's own field table rather than from the class.
"""

from __future__ import annotations

import types
import typing
from dataclasses import dataclass
from typing import Any

import pydantic

from signoff.effects.annotations import annotation_types
from signoff.effects.values import Val, fresh_of, known

__all__ = ["DUMPS", "NOT_A_FIELD", "VALIDATES", "Hook", "field_annotation", "hook_arguments",
           "hooks", "is_model", "models_in", "validators"]

DUMPS: dict[str, type] = {
    "pydantic.main.BaseModel.model_dump": dict,
    "pydantic.main.BaseModel.model_dump_json": str,
    "pydantic.main.BaseModel.dict": dict,
    "pydantic.main.BaseModel.json": str,
}
"""A model's methods that turn it into data (what each gives): its serializers run, and those
of the models its fields hold."""

VALIDATES = frozenset({
    "pydantic.main.BaseModel.model_validate",
    "pydantic.main.BaseModel.model_validate_json",
    "pydantic.main.BaseModel.model_validate_strings",
    "pydantic.main.BaseModel.parse_obj",
    "pydantic.main.BaseModel.parse_raw",
})
"""A model's class methods that make one from data: its validators run, and those of the models
its fields hold."""

NOT_A_FIELD: Any = object()
"""What `field_annotation` gives for a name that is not one of the model's fields."""


def is_model(cls: type) -> bool:
    """Whether `cls` is a pydantic model."""
    return issubclass(cls, pydantic.BaseModel)


def validators(cls: type) -> list[types.FunctionType]:
    """The validator functions a pydantic model runs when made."""
    return _decorated(cls, ("validators", "field_validators", "root_validators",
                            "model_validators"))


@dataclass(frozen=True, kw_only=True)
class Hook:
    """A function of a model's that pydantic calls: a validator, or a serializer."""

    func: types.FunctionType
    """The function."""
    on_instance: bool
    """Whether it is called on the model's instance (a serializer, a validator run after the
    model is made), else on its class."""
    field: Any
    """The annotation of the field whose value it is given, `NOT_A_FIELD` when it is given
    none (it has the instance), and None when it is given the data as it came."""
    wraps: bool
    """Whether it is given a handler to call (mode "wrap")."""


def hooks(cls: type, *, serializing: bool) -> list[Hook]:
    """The functions pydantic calls of model `cls` as it validates a value into one (or, when
    `serializing`, as it turns one into data)."""
    decorators = getattr(cls, "__pydantic_decorators__", None)
    groups = (("field_serializers", "model_serializers") if serializing
              else ("field_validators", "model_validators"))
    found = []
    for group in groups:
        for dec in getattr(decorators, group, {}).values():
            func = getattr(dec.func, "__func__", dec.func)
            if not isinstance(func, types.FunctionType):
                continue
            mode = getattr(dec.info, "mode", "")
            fields = getattr(dec.info, "fields", ())
            on_instance = serializing or (mode == "after" and group == "model_validators")
            if fields:
                field = field_annotation(cls, fields[0]) if len(fields) == 1 else NOT_A_FIELD
                field = Any if field is NOT_A_FIELD else field
            else:
                field = NOT_A_FIELD if on_instance else None
            found.append(Hook(func=func, on_instance=on_instance, field=field,
                              wraps=mode == "wrap"))
    return found


def hook_arguments(model: type, hook: Hook) -> list[Val]:
    """What pydantic calls a validator or serializer of `model` with: the instance or the
    class, the value (typed by its field's annotation; the data as it came is a dict), the
    handler of a "wrap" one and the validation's (serialization's) info, both pydantic's own
    code that only computes; as many as the function takes."""
    given = [Val(types=frozenset({model})) if hook.on_instance else known(model)]
    if hook.field is None:
        given.append(fresh_of(dict))
    elif hook.field is not NOT_A_FIELD:
        given.append(Val().reached(annotation_types(hook.field)))
    if hook.wraps:
        given.append(Val(pure=True))
    given.append(Val(pure=True))
    return given[:hook.func.__code__.co_argcount]


def models_in(annotation: Any, seen: set[type] | None = None) -> list[type]:
    """The pydantic models an annotation names (``list[Tally] | None``), and those their fields
    name, each once: what validating a value of it makes, and so whose validators run."""
    seen = set() if seen is None else seen
    if isinstance(annotation, type) and is_model(annotation):
        if annotation in seen:
            return []
        seen.add(annotation)
        found = [annotation]
        fields: dict[str, Any] = getattr(annotation, "__pydantic_fields__", None) or {}
        for info in fields.values():
            found += models_in(info.annotation, seen)
        return found
    return [model for arg in typing.get_args(annotation) for model in models_in(arg, seen)]


def _decorated(cls: type, groups: tuple[str, ...]) -> list[types.FunctionType]:
    decorators = getattr(cls, "__pydantic_decorators__", None)
    found = []
    for group in groups:
        for dec in getattr(decorators, group, {}).values():
            func = getattr(dec.func, "__func__", dec.func)
            if isinstance(func, types.FunctionType):
                found.append(func)
    return found


def field_annotation(cls: type, name: str) -> Any:
    """The annotation of field `name` of model `cls` as pydantic resolved it, or `NOT_A_FIELD`."""
    if not is_model(cls):
        return NOT_A_FIELD
    fields: dict[str, Any] = getattr(cls, "__pydantic_fields__", None) or {}
    info = fields.get(name)
    if info is None:
        return NOT_A_FIELD
    return info.annotation
