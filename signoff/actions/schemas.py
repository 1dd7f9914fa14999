"""JSON Schemas and validation of an action's parameters and result, all from pydantic.

One pydantic model per action validates what a caller gives and describes it, so nothing can
describe an action that the action could disagree with. Enums are given and shown by member
name; records by id (see ``RecordBase``'s pydantic hooks).
"""

from __future__ import annotations

import enum
import inspect
import types
import typing
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    PlainValidator,
    TypeAdapter,
    WithJsonSchema,
    create_model,
)
from pydantic.errors import PydanticSchemaGenerationError, PydanticUserError

from signoff.actions.parameters import Parameter
from signoff.exceptions import UserError

__all__ = ["ParametersModel", "external", "parameters_model", "result_adapter"]

ParametersModel = type[BaseModel]


def external(annotation: Any) -> Any:
    """`annotation` as callers give and read it: every Enum inside it by member name."""
    origin = get_origin(annotation)
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return _enum_by_name(annotation)
    if origin is Annotated:
        inner, *extras = get_args(annotation)
        return Annotated[(external(inner), *extras)]
    if origin in (Union, types.UnionType):
        return Union[tuple(external(a) for a in get_args(annotation))]  # noqa: UP007
    if origin in (list, set, frozenset, Sequence):
        (item,) = get_args(annotation)
        return origin[external(item)]
    if origin is tuple:
        items = tuple(external(a) if a is not ... else a for a in get_args(annotation))
        return tuple.__class_getitem__(items)
    if origin in (dict, Mapping):
        key, value = get_args(annotation)
        return dict.__class_getitem__((key, external(value)))
    return annotation


@cache
def _enum_by_name(cls: type[enum.Enum]) -> Any:
    names = [member.name for member in cls]

    def by_name(value: Any) -> enum.Enum:
        if isinstance(value, cls):
            return value
        if isinstance(value, str):
            if value in cls.__members__:
                return cls[value]
            folded = {name.casefold(): name for name in names}
            if value.casefold() in folded:
                return cls[folded[value.casefold()]]
        raise ValueError(f"not one of {', '.join(names)}")

    return Annotated[
        cls,
        PlainValidator(by_name),
        PlainSerializer(lambda member: member.name, return_type=str),
        WithJsonSchema({"type": "string", "enum": names, "title": cls.__name__}),
    ]


def parameters_model(action_name: str, parameters: list[Parameter]) -> ParametersModel:
    """The pydantic model of the parameters a caller gives (context parameters left out)."""
    fields: dict[str, Any] = {}
    for p in parameters:
        if p.provided is not None:
            continue
        annotation = external(p.annotation)
        if p.nullable:
            annotation = annotation | None
        default = p.default if p.optional else ...
        fields[p.name] = (annotation, Field(default, title=p.label))
    try:
        return create_model(
            _model_name(action_name),
            __config__=ConfigDict(extra="forbid", arbitrary_types_allowed=False),
            **fields,
        )
    except (PydanticSchemaGenerationError, PydanticUserError, TypeError) as error:
        raise UserError(f"Action {action_name}: its parameters cannot be described: {error}") from error


def result_adapter(action_name: str, annotation: Any) -> TypeAdapter[Any] | None:
    """How to turn what the action returns into JSON (None when it declares no return type)."""
    if annotation in (None, type(None), typing.Any, inspect.Signature.empty):
        return None
    try:
        return TypeAdapter(external(annotation))
    except (PydanticSchemaGenerationError, PydanticUserError, TypeError) as error:
        raise UserError(f"Action {action_name}: its result cannot be described: {error}") from error


def _model_name(action_name: str) -> str:
    return "".join(part.capitalize() for part in action_name.split("_")) or "Action"
