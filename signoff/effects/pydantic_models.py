"""What the analysis knows of pydantic: the validators a model runs when made, its fields' types.

A model's fields are not class attributes (pydantic keeps them per instance), so their types are
read from the model's own field table rather than from the class.
"""

from __future__ import annotations

import types
from typing import Any

import pydantic

__all__ = ["NOT_A_FIELD", "field_annotation", "is_model", "validators"]

NOT_A_FIELD: Any = object()
"""What `field_annotation` gives for a name that is not one of the model's fields."""


def is_model(cls: type) -> bool:
    """Whether `cls` is a pydantic model."""
    return issubclass(cls, pydantic.BaseModel)


def validators(cls: type) -> list[types.FunctionType]:
    """The validator functions a pydantic model runs when made."""
    decorators = getattr(cls, "__pydantic_decorators__", None)
    found = []
    for group in ("validators", "field_validators", "root_validators", "model_validators"):
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
