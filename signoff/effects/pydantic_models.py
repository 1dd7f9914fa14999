"""What the analysis knows of pydantic: the validators a model runs when made, its fields' types.

A model's fields are not class attributes (pydantic keeps them per instance), so their types are
read from the model's own field table rather than from the class.
"""

from __future__ import annotations

import dataclasses
import enum
import inspect
import os
import sys
import types
import typing
from typing import Any

import pydantic
import pydantic_core
import typing_extensions
from pydantic import functional_serializers, functional_validators

from signoff.effects.annotations import annotation_types
from signoff.effects.naming import qualified_name
from signoff.effects.tables import LIBRARIES, is_pure_name
from signoff.effects.values import Val, fresh_of, known

__all__ = ["ADAPTER_PARTS", "ADAPTS", "DUMPS", "NOT_A_FIELD", "VALIDATES", "Hook", "carried",
           "every_app_model", "field_annotation", "holds_any", "hook_arguments", "hooks",
           "hooks_run", "is_model", "models_in", "own_schema", "shown_types", "structured_fields",
           "unfollowed"]

DUMPS: dict[str, type] = {
    "pydantic.main.BaseModel.model_dump": dict,
    "pydantic.main.BaseModel.model_dump_json": str,
    "pydantic.main.BaseModel.dict": dict,
    "pydantic.main.BaseModel.json": str,
}
"""A model's methods that turn it into data (what each gives): its serializers run, and those
of the models its fields hold."""

_CORE = "pydantic_core._pydantic_core"
ADAPTS: dict[str, type | None] = {
    "pydantic.type_adapter.TypeAdapter.dump_python": object,
    "pydantic.type_adapter.TypeAdapter.dump_json": bytes,
    "pydantic.type_adapter.TypeAdapter.validate_python": None,
    "pydantic.type_adapter.TypeAdapter.validate_json": None,
    "pydantic.type_adapter.TypeAdapter.validate_strings": None,
    "pydantic.type_adapter.TypeAdapter.get_default_value": None,
    f"{_CORE}.to_json": bytes,
    f"{_CORE}.to_jsonable_python": object,
    f"{_CORE}.SchemaSerializer.to_python": object,
    f"{_CORE}.SchemaSerializer.to_json": bytes,
    **{f"{_CORE}.SchemaValidator.{name}": None for name in (
        "validate_python", "validate_json", "validate_strings", "validate_assignment",
        "get_default_value", "isinstance_python")},
}
"""A type adapter's methods, and pydantic-core's serializers and validators (a model's own
``__pydantic_serializer__``), that run a model's hooks: what a dump gives (None: it validates).
Which type one was made for is not followed: they run the hooks of any model of the app's."""

ADAPTER_PARTS: dict[str, type] = {
    "pydantic.type_adapter.TypeAdapter.serializer": pydantic_core.SchemaSerializer,
    "pydantic.type_adapter.TypeAdapter.validator": pydantic_core.SchemaValidator,
}
"""What a type adapter keeps that serializes and validates by pydantic-core (`ADAPTS`)."""

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


@dataclasses.dataclass(frozen=True, kw_only=True)
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
    receiver: bool = True
    """Whether it is given the instance or the class first (a method of the model's), else
    only the value (a function of an annotation's, a field's default factory)."""
    owner: type | None = None
    """The class it is a method of, when not the model (an enum a field is typed by)."""


def hooks(cls: type, *, serializing: bool) -> list[Hook]:
    """The functions pydantic calls of model `cls` as it validates a value into one (or, when
    `serializing`, as it turns one into data): its decorated validators and serializers, those
    its fields' annotations carry (``Annotated[int, AfterValidator(f)]``), its computed fields,
    its fields' default factories and its ``model_post_init``."""
    decorators = getattr(cls, "__pydantic_decorators__", None)
    groups = (("field_serializers", "model_serializers", "computed_fields") if serializing
              else ("field_validators", "model_validators", "validators", "root_validators"))
    found = [*_decorated_hooks(cls, decorators, groups, serializing), *_field_hooks(cls, serializing)]
    post_init = getattr(cls, "model_post_init", None)
    if not serializing and isinstance(post_init, types.FunctionType) and (
            post_init is not pydantic.BaseModel.model_post_init):
        found.append(Hook(func=post_init, on_instance=True, field=NOT_A_FIELD, wraps=False))
    return found


def _decorated_hooks(cls: type, decorators: Any, groups: tuple[str, ...], serializing: bool
                     ) -> list[Hook]:
    """The hooks of `cls` its decorators declare."""
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


_VALIDATING = (functional_validators.AfterValidator, functional_validators.BeforeValidator,
               functional_validators.WrapValidator, functional_validators.PlainValidator)
_SERIALIZING = (functional_serializers.PlainSerializer, functional_serializers.WrapSerializer)


def _field_hooks(cls: type, serializing: bool) -> list[Hook]:
    """The functions the fields of `cls` carry: those of their annotations' validators or
    serializers (at any depth: ``list[Annotated[int, AfterValidator(f)]]``), and, validating,
    their default factories."""
    found = []
    fields: dict[str, Any] = getattr(cls, "__pydantic_fields__", None) or {}
    kinds = _SERIALIZING if serializing else _VALIDATING
    for info in fields.values():
        for marker in [*info.metadata, *_annotated(info.annotation)]:
            func = getattr(marker, "func", None)
            if isinstance(marker, kinds) and isinstance(func, types.FunctionType):
                wraps = isinstance(marker, functional_validators.WrapValidator |
                                   functional_serializers.WrapSerializer)
                found.append(Hook(func=func, on_instance=False, field=info.annotation,
                                  wraps=wraps, receiver=False))
        factory = info.default_factory
        if not serializing and isinstance(factory, types.FunctionType):
            found.append(Hook(func=factory, on_instance=False, field=None, wraps=False,
                              receiver=False))
    return found


def _annotated(annotation: Any, seen: set[type] | None = None) -> list[Any]:
    """What the ``Annotated[...]`` inside `annotation` carry, at any depth: in the fields of the
    ``TypedDict``s, dataclasses and named tuples it names too, which pydantic validates field by
    field."""
    seen = set() if seen is None else seen
    found = list(getattr(annotation, "__metadata__", ()))
    for arg in typing.get_args(annotation):
        found += _annotated(arg, seen)
    if isinstance(annotation, type) and annotation not in seen:
        seen.add(annotation)
        for field in structured_fields(annotation).values():
            found += _annotated(field, seen)
    return found


def structured_fields(cls: type) -> dict[str, Any]:
    """The annotations of the fields of `cls` when it is a ``TypedDict``, a dataclass or a named
    tuple (not a model: `is_model`), which pydantic validates field by field; else none."""
    if is_model(cls) or not (typing_extensions.is_typeddict(cls) or dataclasses.is_dataclass(cls) or (
            issubclass(cls, tuple) and hasattr(cls, "_fields"))):
        return {}
    try:
        return typing.get_type_hints(cls, include_extras=True)
    except Exception:  # (a name its annotations use that cannot be resolved: their text)
        return dict(getattr(cls, "__annotations__", {}))


def carried(annotation: Any, *, serializing: bool) -> list[Hook]:
    """What pydantic runs of the app's code as it validates a value of `annotation` (or,
    `serializing`, turns one into data) besides the hooks of the models it names
    (`hooks_run`): the validators (serializers) its ``Annotated`` parts carry, at any depth and
    in the fields of the ``TypedDict``s, dataclasses and named tuples it names, and, validating,
    the ``__post_init__`` of those dataclasses."""
    kinds = _SERIALIZING if serializing else _VALIDATING
    found = []
    for marker in _annotated(annotation):
        func = getattr(marker, "func", None)
        if isinstance(marker, kinds) and isinstance(func, types.FunctionType):
            wraps = isinstance(marker, functional_validators.WrapValidator |
                               functional_serializers.WrapSerializer)
            found.append(Hook(func=func, on_instance=False, field=Any, wraps=wraps,
                              receiver=False))
    if not serializing:
        for kind in _types_in(annotation):
            post_init = getattr(kind, "__post_init__", None)
            if dataclasses.is_dataclass(kind) and isinstance(post_init, types.FunctionType) and (
                    not post_init.__code__.co_filename.startswith(LIBRARIES)):
                found.append(Hook(func=post_init, on_instance=True, field=NOT_A_FIELD,
                                  wraps=False, owner=kind))
    return found


def hooks_run(models: list[type], *, serializing: bool, every: bool = False, near: str = ""
              ) -> tuple[list[tuple[type, Hook]], list[str]]:
    """What pydantic runs of the app's code as it validates a value into each of `models` (or,
    `serializing`, turns one into data): the hooks of each and of the models their fields hold,
    and, serializing one whose fields may hold a model they do not name (``Any``) or given
    `every`, those of every model of the app's; each with its model. And what they have pydantic
    run that cannot be followed, each in words (a type of the app's that tells pydantic its own
    schema, a validator that is an object). (`near`: see `every_app_model`.)"""
    found = {m: None for owner in models for m in models_in(owner)}
    if serializing and (every or any(holds_any(m) for m in found)):
        found.update(dict.fromkeys(every_app_model(near)))
    run = [(model, hook) for model in found for hook in hooks(model, serializing=serializing)]
    if not serializing:  # an enum's own lookup of a value it has no member for
        run += [(model, hook) for model in found for hook in _enum_lookups(model)]
    unseen = [f"{own} tells pydantic its own schema, whose code cannot be followed"
              for own in map(own_schema, found) if own]
    unseen += [f"pydantic calls {what}, which is no function whose code can be followed"
               for model in found for what in unfollowed(model, serializing=serializing)]
    return run, unseen


def _enum_lookups(cls: type) -> list[Hook]:
    """The ``_missing_`` of each enum of the app's a field of model `cls` is typed by: run as a
    value is validated into a member."""
    fields: dict[str, Any] = getattr(cls, "__pydantic_fields__", None) or {}
    found = []
    for info in fields.values():
        for kind in _types_in(info.annotation):
            missing = getattr(inspect.getattr_static(kind, "_missing_", None), "__func__", None)
            if issubclass(kind, enum.Enum) and isinstance(missing, types.FunctionType) and (
                    not missing.__code__.co_filename.startswith(LIBRARIES)):
                found.append(Hook(func=missing, on_instance=False, field=None, wraps=False,
                                  receiver=True, owner=kind))
    return found


def every_app_model(near: str = "") -> list[type]:
    """Every pydantic model of the app's own (not of an installed package): what pydantic may
    serialize a value by where a field's type does not say which model it holds. Given `near`,
    the module of the code that has it done, when that is signoff's own (the MCP guard passing
    on what an upstream answered, which holds data from the wire): only the models it could
    have made, of signoff or of a module it reaches by what it imports, so that an app's models
    (a test run loads hundreds of apps) do not count for it. For the app's own code, or a
    library's, every model: an app's model may reach it from code that imports neither."""
    reach = _reached_from(near) if near.partition(".")[0] == "signoff" else None
    found, stack = [], list(type.__subclasses__(pydantic.BaseModel))
    seen: set[type] = set()
    while stack:
        model = stack.pop()
        if model in seen:
            continue
        seen.add(model)
        stack.extend(type.__subclasses__(model))
        source = getattr(sys.modules.get(model.__module__), "__file__", None) or ""
        if source and not source.startswith(LIBRARIES) and (
                reach is None or model.__module__ in reach
                or model.__module__.partition(".")[0] == near.partition(".")[0]):
            found.append(model)
    return found


def _reached_from(module: str) -> frozenset[str]:
    """The app's modules `module` reaches by what it imports (the modules, and the modules of
    the classes and functions, its globals hold; those of installed packages not followed
    further), itself and ``__main__`` included."""
    found = {module, "__main__"}
    stack = [module]
    while stack:
        held = sys.modules.get(stack.pop())
        for value in list(getattr(held, "__dict__", {}).values()):
            name = value.__name__ if isinstance(value, types.ModuleType) else (
                getattr(value, "__module__", None) if isinstance(value, type | types.FunctionType)
                else None)
            if not isinstance(name, str) or name in found:
                continue
            found.add(name)
            source = getattr(sys.modules.get(name), "__file__", None) or ""
            if source and not source.startswith(LIBRARIES):
                stack.append(name)
    return frozenset(found)


def holds_any(cls: type) -> bool:
    """Whether a field of model `cls` may hold a model its type does not name (``Any``,
    ``object``, a type variable, ``SerializeAsAny``): serialized by the model it holds."""
    fields: dict[str, Any] = getattr(cls, "__pydantic_fields__", None) or {}
    return any(_open(info.annotation) or any(
        type(m).__name__ == "SerializeAsAny" for m in info.metadata) for info in fields.values())


def _open(annotation: Any) -> bool:
    if annotation is Any or annotation is object or isinstance(annotation, typing.TypeVar):
        return True
    return any(_open(arg) for arg in typing.get_args(annotation))


def unfollowed(cls: type, *, serializing: bool) -> list[str]:
    """What model `cls` has pydantic call that is not a plain function (a callable object, a
    ``functools.partial``, a class given as a default factory): code the analysis cannot
    follow, by name."""
    found = []
    decorators = getattr(cls, "__pydantic_decorators__", None)
    groups = (("field_serializers", "model_serializers", "computed_fields") if serializing
              else ("field_validators", "model_validators", "validators", "root_validators"))
    for group in groups:
        for dec in getattr(decorators, group, {}).values():
            func = getattr(dec.func, "__func__", dec.func)
            if not isinstance(func, types.FunctionType | property):
                found.append(repr(func))
    fields: dict[str, Any] = getattr(cls, "__pydantic_fields__", None) or {}
    kinds = _SERIALIZING if serializing else _VALIDATING
    for name, info in fields.items():
        for marker in [*info.metadata, *_annotated(info.annotation)]:
            func = getattr(marker, "func", None)
            if isinstance(marker, kinds) and func is not None and not isinstance(
                    func, types.FunctionType):
                found.append(f"{cls.__name__}.{name}'s {type(marker).__name__}")
        factory = info.default_factory
        if not serializing and factory is not None and not isinstance(
                factory, types.FunctionType) and not is_pure_name(qualified_name(factory)):
            found.append(f"{cls.__name__}.{name}'s default factory")  # (list, datetime.now: pure)
    return found


def own_schema(cls: type) -> str:
    """The type of the app's among the fields of model `cls` that tells pydantic its own schema
    (``__get_pydantic_core_schema__``: what it runs cannot be followed), by name; "" when none."""
    fields: dict[str, Any] = getattr(cls, "__pydantic_fields__", None) or {}
    for info in fields.values():
        for kind in _types_in(info.annotation):
            made = inspect.getattr_static(kind, "__get_pydantic_core_schema__", None)
            made = getattr(made, "__func__", made)
            source = getattr(made, "__code__", None)
            if source is not None and not source.co_filename.startswith((*LIBRARIES, _SIGNOFF)):
                return f"{kind.__module__}.{kind.__qualname__}"
    return ""


_SIGNOFF = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
"""Where signoff's own code is. A record's schema is signoff's (`signoff.security.records`): it
loads the record by its id, and gives it as its id and values — read no differently whether
signoff is installed among the libraries or run from its source."""


def _types_in(annotation: Any) -> list[type]:
    found = [annotation] if isinstance(annotation, type) else []
    for arg in typing.get_args(annotation):
        found += _types_in(arg)
    return found


def hook_arguments(model: type, hook: Hook) -> list[Val]:
    """What pydantic calls a validator or serializer of `model` with: the instance or the
    class, the value (typed by its field's annotation; the data as it came is a dict), the
    handler of a "wrap" one and the validation's (serialization's) info, both pydantic's own
    code that only computes; as many as the function takes."""
    model = hook.owner or model
    given = [Val(types=frozenset({model})) if hook.on_instance else known(model)]
    if not hook.receiver:
        given = []
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
    found = [model for arg in typing.get_args(annotation) for model in models_in(arg, seen)]
    if isinstance(annotation, type) and annotation not in seen:  # (a TypedDict's fields…)
        seen.add(annotation)
        for field in structured_fields(annotation).values():
            found += models_in(field, seen)
    return found


def shown_types(models: list[type]) -> list[type]:
    """The classes, not models, that the fields of `models` (and of the models they hold) are
    typed by: shown by their own ``__repr__`` as a model is."""
    found: dict[type, None] = {}
    for model in {m: None for owner in models for m in models_in(owner)}:
        fields: dict[str, Any] = getattr(model, "__pydantic_fields__", None) or {}
        for info in fields.values():
            found.update(dict.fromkeys(t for t in _types_in(info.annotation) if not is_model(t)))
    return list(found)


def field_annotation(cls: type, name: str) -> Any:
    """The annotation of field `name` of model `cls` as pydantic resolved it, or `NOT_A_FIELD`."""
    if not is_model(cls):
        return NOT_A_FIELD
    fields: dict[str, Any] = getattr(cls, "__pydantic_fields__", None) or {}
    info = fields.get(name)
    if info is None:
        return NOT_A_FIELD
    return info.annotation
