"""JSON Schemas and validation of an action's parameters and result, all from pydantic.

One pydantic model per action validates what a caller gives and describes it, so nothing can
describe an action that the action could disagree with. Enums are given and shown by member
name; records by id (see ``RecordBase``'s pydantic hooks).
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import inspect
import threading
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import Annotated, Any, Union, get_args, get_origin, get_type_hints

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    PlainValidator,
    TypeAdapter,
    ValidatorFunctionWrapHandler,
    WithJsonSchema,
    WrapSerializer,
    WrapValidator,
    create_model,
)
from pydantic.errors import PydanticSchemaGenerationError, PydanticUserError
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

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
    if isinstance(annotation, type) and (dataclasses.is_dataclass(annotation)
                                         or issubclass(annotation, BaseModel)):
        return _structure_by_name(annotation)
    return annotation


_MIRRORING = threading.local()
"""Structures whose mirror this thread is making (`.found`: a structure that holds itself is
left as it is); per thread, so that another thread registering actions makes its own."""


@cache
def _structure_by_name(cls: type) -> Any:
    """A dataclass or pydantic model with an enum somewhere in its fields, given and shown with
    every enum by member name, as a top-level enum is: validated through a mirror model whose
    fields are `external`, then made into `cls` (so the action gets its own type, and a pydantic
    model's own validators still run); written out through the mirror. `cls` itself when nothing
    in it changes."""
    mirroring: set[type] = _MIRRORING.__dict__.setdefault("found", set())
    if cls in mirroring:
        return cls
    mirroring.add(cls)
    try:
        fields = _fields_of(cls)
        mirrored = {name: (external(annotation), _default_by_name(external(annotation), info))
                    for name, (annotation, info) in fields.items()}
    finally:
        mirroring.discard(cls)
    if all(mirrored[name][0] == annotation for name, (annotation, _) in fields.items()):
        return cls
    # From a `cls` already made (read by attribute: by field name), or from a caller's JSON
    # (by the aliases `cls` declares).
    config = ConfigDict(from_attributes=True, title=cls.__name__, validate_by_name=True,
                        validate_by_alias=True)
    if issubclass(cls, BaseModel) and "extra" in cls.model_config:
        config["extra"] = cls.model_config["extra"]  # unknown members refused as by `cls`
    mirror: type[BaseModel] = create_model(  # type: ignore[call-overload]
        cls.__name__, __config__=config, __doc__=cls.__doc__, **mirrored)
    made: Callable[[BaseModel], Any] = functools.partial(_made, cls, tuple(fields))
    return Annotated[
        mirror,
        AfterValidator(made),
        WrapValidator(functools.partial(_kept, cls)),
        WrapSerializer(lambda value, write: write(mirror.model_validate(value))),
    ]


def _kept(cls: type, value: Any, validate: ValidatorFunctionWrapHandler) -> Any:
    """A pydantic model of `cls` already made (and so validated) as it is, with every member it
    holds; anything else validated through the mirror."""
    if isinstance(value, BaseModel) and isinstance(value, cls):
        return value
    return validate(value)


def _made(cls: type, names: tuple[str, ...], given: BaseModel) -> Any:
    """`cls` made from what its mirror validated: a pydantic model by its fields' names (their
    aliases are the caller's to write), with the extra members it allows; a dataclass by its
    fields."""
    values = {name: getattr(given, name) for name in names}
    if issubclass(cls, BaseModel):
        return cls.model_validate({**values, **(given.model_extra or {})}, by_name=True)
    return cls(**values)


def _default_by_name(annotation: Any, info: FieldInfo) -> FieldInfo:
    """`info`, its default shown in the JSON Schema as a caller writes it (an enum by name)."""
    if info.default is PydanticUndefined or not isinstance(info.default, enum.Enum):
        return info
    shown = TypeAdapter(annotation).dump_python(info.default, mode="json")
    return FieldInfo.merge_field_infos(info, json_schema_extra={"default": shown})


def _fields_of(cls: type) -> dict[str, tuple[Any, FieldInfo]]:
    """A dataclass's or pydantic model's fields: each one's annotation and default."""
    if issubclass(cls, BaseModel):
        return {name: (info.annotation, info) for name, info in cls.model_fields.items()}
    hints = get_type_hints(cls, include_extras=True)
    found: dict[str, tuple[Any, FieldInfo]] = {}
    for field in dataclasses.fields(cls):  # type: ignore[arg-type]  # checked by the caller
        if not field.init:
            continue
        if field.default is not dataclasses.MISSING:
            info = Field(default=field.default)
        elif field.default_factory is not dataclasses.MISSING:
            info = Field(default_factory=field.default_factory)
        else:
            info = Field()
        found[field.name] = (hints[field.name], info)
    return found


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
        fields[p.name] = (annotation, _default_by_name(annotation, Field(default, title=p.label)))
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
