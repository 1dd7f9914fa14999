"""JSON Schemas and validation of an action's parameters and result, all from pydantic.

One pydantic model per action validates what a caller gives and describes it, so nothing can
describe an action that the action could disagree with. Enums are given and shown by member
name; records by id (see ``RecordBase``'s pydantic hooks).
"""

from __future__ import annotations

import copy
import dataclasses
import datetime as dt
import enum
import functools
import inspect
import logging
import re
import threading
import types
import typing
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from decimal import Decimal
from functools import cache
from keyword import iskeyword
from typing import (
    Annotated,
    Any,
    ForwardRef,
    NotRequired,
    Required,
    Union,
    get_args,
    get_origin,
    get_type_hints,
)

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    PlainValidator,
    TypeAdapter,
    ValidationError,
    ValidatorFunctionWrapHandler,
    WithJsonSchema,
    WrapSerializer,
    WrapValidator,
    create_model,
)
from pydantic.errors import (
    PydanticSchemaGenerationError,
    PydanticUndefinedAnnotation,
    PydanticUserError,
)
from pydantic.fields import FieldInfo
from pydantic_core import (
    PydanticKnownError,
    PydanticSerializationError,
    PydanticSerializationUnexpectedValue,
    PydanticUndefined,
    to_jsonable_python,
)
from typing_extensions import ReadOnly, TypedDict, is_typeddict

from signoff.actions.numbers import TextDescribed, held_to_plain
from signoff.actions.parameters import Parameter
from signoff.exceptions import UserError

__all__ = [
    "ParametersModel", "as_json", "declares_result", "external", "parameters_model", "result_adapter",
    "result_json",
]

ParametersModel = type[BaseModel]

log = logging.getLogger("signoff.actions")


def external(annotation: Any) -> Any:
    """`annotation` as callers give and read it: every Enum inside it by member name, and every
    number, date and time as its JSON Schema describes it (`_AS_DESCRIBED`)."""
    origin = get_origin(annotation)
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return _enum_by_name(annotation)
    if isinstance(annotation, type) and annotation in _AS_DESCRIBED:
        return _AS_DESCRIBED[annotation]
    if origin is typing.Literal and all(isinstance(a, str) for a in get_args(annotation)):
        return Annotated[annotation, _literal_in_any_case(get_args(annotation))]
    if origin is Annotated:
        inner, *extras = get_args(annotation)
        check = _check_of(inner)
        if check:  # (its check outermost: pydantic describes `Field(ge=0)` as JSON Schema's
            return Annotated[(inner, *extras, *check)]  # "minimum" only when nothing runs before)
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
    if is_typeddict(annotation):
        mirrors: dict[type, Any] = _MIRRORING.__dict__.setdefault("found", {})
        return mirrors.get(annotation) or _typeddict_by_name(annotation, _GIVEN.get())
    if isinstance(annotation, type) and (dataclasses.is_dataclass(annotation)
                                         or issubclass(annotation, BaseModel)):
        being_made: dict[type, Any] = _MIRRORING.__dict__.setdefault("found", {})
        if annotation in being_made:  # (a structure that holds itself: its own mirror, by a
            return being_made[annotation]  # reference resolved once the mirror is made)
        return _structure_by_name(annotation, _GIVEN.get())
    return annotation


def _not_of(refused: tuple[type, ...], error_type: str) -> BeforeValidator:
    """A check refusing a value of the `refused` types, told as pydantic tells a value of
    another type (`error_type`), before pydantic's lax reading turns it into one it takes."""
    def checked(value: Any) -> Any:
        if isinstance(value, refused):
            raise PydanticKnownError(error_type)  # type: ignore[arg-type]  # (a known type)
        return value
    return BeforeValidator(checked)


_NUMBERS = (int, float, Decimal)

_AS_DESCRIBED: dict[type, Any] = {
    int: Annotated[int, _not_of((bool,), "int_type"), held_to_plain(int)],
    float: Annotated[float, _not_of((bool,), "float_type"), held_to_plain(float)],
    Decimal: Annotated[Decimal, _not_of((bool,), "float_type"), held_to_plain(Decimal),
                       TextDescribed()],
    dt.date: Annotated[dt.date, _not_of(_NUMBERS, "date_type")],
    dt.datetime: Annotated[dt.datetime, _not_of(_NUMBERS, "datetime_type")],
    dt.time: Annotated[dt.time, _not_of(_NUMBERS, "time_type")],
    dt.timedelta: Annotated[dt.timedelta, _not_of((bool,), "time_delta_type")],
}
"""Types pydantic's lax reading takes from JSON the schema does not describe, each held to
what it describes: a number is no yes/no (``true`` was read as 1), and a date, a moment or a
time of day is written as text (a number was read as seconds since 1970). A duration is
described as text but told to callers as text or seconds, so it takes a number of seconds.
Digits written as text ("12", "-2.5") are still read as the number they write: the action is
given the number, so nothing is read otherwise than it was meant; text that writes a number
otherwise ("1_000", "١٠٠٠", " 12 ") is refused, saying how to write it (`held_to_plain`)."""


def _field_type(annotation: Any) -> Any:
    """The type of a structure's field as callers give and read it (`external`), but for a
    ``Literal`` field, kept as it is: it may tag the structure in a union (pydantic refuses a
    check that runs before a tag), so its values are matched as written."""
    inner = annotation
    while get_origin(inner) is Annotated:
        inner = get_args(inner)[0]
    members = [a for a in get_args(inner) if a is not type(None)]
    if get_origin(inner) is typing.Literal or (
            get_origin(inner) in (Union, types.UnionType) and len(members) == 1
            and get_origin(members[0]) is typing.Literal):
        return annotation
    return external(annotation)


def _check_of(annotation: Any) -> tuple[Any, ...]:
    """The check `_AS_DESCRIBED` holds `annotation` to (one of its types, or one of them or
    None), as ``Annotated`` metadata; none for any other type."""
    inner = annotation
    if get_origin(inner) in (Union, types.UnionType):
        members = [a for a in get_args(inner) if a is not type(None)]
        inner = members[0] if len(members) == 1 else None
    if isinstance(inner, type) and inner in _AS_DESCRIBED:
        return get_args(_AS_DESCRIBED[inner])[1:]
    return ()


_MIRRORING = threading.local()
"""Structures whose mirror this thread is making (`.found`: each one's reference, for the
structures inside it that hold it; `.made` and `.typed`: the mirrors of models and of
TypedDicts to resolve those references in, `_making`); per thread, so that another thread
registering actions makes its own."""


def _mirrored(annotation: Any, seen: set[type], given: bool) -> bool:
    """Whether an Enum is anywhere inside `annotation` (in the fields of its structures too),
    or, in what a caller gives (`given`), a type held to what its schema describes
    (`_AS_DESCRIBED`: a number, a date, a time): what a structure is given through a mirror
    for."""
    if is_typeddict(annotation):
        if annotation in seen:
            return False
        seen.add(annotation)
        return any(_mirrored(_unqualified(a), seen, given)
                   for a in get_type_hints(annotation, include_extras=True).values())
    if isinstance(annotation, type):
        if issubclass(annotation, enum.Enum) or (given and annotation in _AS_DESCRIBED):
            return True
        if not (dataclasses.is_dataclass(annotation) or issubclass(annotation, BaseModel)):
            return False
        if annotation in seen:
            return False
        seen.add(annotation)
        return any(_mirrored(a, seen, given) for a, _ in _fields_of(annotation).values())
    return any(_mirrored(a, seen, given) for a in get_args(annotation) if a is not ...)


_GIVEN: ContextVar[bool] = ContextVar("signoff_given", default=False)
"""Whether the types `external` describes are given by a caller (an action's parameters, while
`parameters_model` makes them), whose structures' numbers, dates and times are held to what
their schema describes as a parameter's are; else written by signoff (a result), whose
structures are mirrored for their enums alone, their own serializers kept."""


@cache
def _typeddict_by_name(cls: Any, given: bool) -> Any:
    """A TypedDict with an enum, a number, a date or a time somewhere in its fields
    (`_mirrored`), given and shown with every enum by member name and each of the others held
    to what its schema describes, as in a dataclass or a pydantic model (`_structure_by_name`):
    a TypedDict of the same name, keys and required-ness whose fields are `external`. Its value is the dict
    the action takes, so nothing needs making from it. `cls` itself when nothing in it
    changes."""
    if not _mirrored(cls, set(), given):
        return cls
    made_as: Any = TypedDict  # (its name is not known before: mypy wants one written)
    mirror: Any = made_as(cls.__name__, {})  # (its fields filled below)
    mirror.__module__, mirror.__doc__ = cls.__module__, cls.__doc__
    if hasattr(cls, "__pydantic_config__"):  # (unknown members refused as by `cls`)
        mirror.__pydantic_config__ = cls.__pydantic_config__
    with _making(cls, mirror):  # (a TypedDict that holds itself holds its mirror, as it is)
        hints = get_type_hints(cls, include_extras=True)
        required = frozenset(name for name, hint in hints.items()
                             if _required(hint, name in cls.__required_keys__))
        mirror.__annotations__ = {
            name: (Required if name in required else NotRequired)[_field_type(_unqualified(hint))]
            for name, hint in hints.items()}
        mirror.__required_keys__ = required
        mirror.__optional_keys__ = frozenset(mirror.__annotations__) - required
        mirror.__total__ = cls.__total__
        _MIRRORING.typed.append(mirror)
    return mirror


def _required(hint: Any, total: bool) -> bool:
    """Whether a TypedDict's field of type `hint` is required, as pydantic reads it: as its
    ``Required`` or ``NotRequired`` says (which, written as text, its class could not read),
    else as the TypedDict's `total` says."""
    while get_origin(hint) in _QUALIFIERS:
        if get_origin(hint) in (Required, NotRequired):
            return get_origin(hint) is Required
        hint = get_args(hint)[0]
    return total


def _unqualified(hint: Any) -> Any:
    """A TypedDict field's type without ``Required``, ``NotRequired`` or ``ReadOnly``."""
    while get_origin(hint) in _QUALIFIERS:
        hint = get_args(hint)[0]
    return hint


_QUALIFIERS = {get_origin(q[int]) for q in (Required, NotRequired, ReadOnly)}


@cache
def _structure_by_name(cls: type, given: bool) -> Any:
    """A dataclass or pydantic model with an enum, a number, a date or a time somewhere in its
    fields (`_mirrored`), given and shown with every enum by member name and each of the others
    held to what its schema describes, as a parameter of that type is ("1_000" is no number in
    a structure either): validated through a mirror model whose
    fields are `external`, then made into `cls` (so the action gets its own type, and a pydantic
    model's own validators still run); written out through the mirror. `cls` itself when nothing
    in it changes."""
    if not _mirrored(cls, set(), given):
        return cls
    reference = f"{cls.__name__}_by_name_{id(cls):x}"
    with _making(cls, ForwardRef(reference)):
        return _mirror(cls, reference, _MIRRORING.made)


@contextmanager
def _making(cls: type, reference: Any) -> Iterator[None]:
    """While the mirror of `cls` is made: `reference` stands for it in the structures inside it
    that hold it. When it is the outermost being made (a structure holding others, which may
    hold it), once all are made, each is completed with the ones it holds: a TypedDict's
    references to a model's mirror are resolved, then each model's mirror is built again
    (one made while a TypedDict inside it had no fields yet took it as empty)."""
    being_made: dict[type, Any] = _MIRRORING.__dict__.setdefault("found", {})
    made: list[tuple[str, type[BaseModel], Any]] = _MIRRORING.__dict__.setdefault("made", [])
    typed: list[Any] = _MIRRORING.__dict__.setdefault("typed", [])
    outermost = not being_made
    being_made[cls] = reference
    try:
        yield
        if outermost:
            names = {name: by_name for name, _, by_name in made}
            for mirror in typed:
                mirror.__annotations__ = get_type_hints(mirror, localns=names,
                                                        include_extras=True)
            for _, model, _ in made:  # (the innermost first: each built on those it holds)
                model.model_rebuild(force=True, _types_namespace=names)
    finally:
        del being_made[cls]
        if outermost:
            made.clear()
            typed.clear()


def _mirror(cls: type, reference: str, made: list[tuple[str, type[BaseModel], Any]]) -> Any:
    """The mirror of `cls` (see `_structure_by_name`), noted in `made` under `reference`."""
    fields = _fields_of(cls)
    mirrored = {}
    for name, (annotation, info) in fields.items():
        if info.metadata and _check_of(annotation):  # (its rules written before its check, as
            annotation = Annotated[(annotation, *info.metadata)]  # `external` writes them)
            info = copy.copy(info)
            info.metadata = []
        mirrored[name] = (_field_type(annotation),
                          _default_by_name(_field_type(annotation), info))
    # From a `cls` already made (read by attribute: by field name), or from a caller's JSON
    # (by the aliases `cls` declares).
    config = ConfigDict(from_attributes=True, title=cls.__name__, validate_by_name=True,
                        validate_by_alias=True)
    if issubclass(cls, BaseModel) and "extra" in cls.model_config:
        config["extra"] = cls.model_config["extra"]  # unknown members refused as by `cls`
    elif dataclasses.is_dataclass(cls):  # (pydantic refuses them: unexpected arguments)
        config["extra"] = getattr(cls, "__pydantic_config__", {}).get("extra", "forbid")
    mirror: type[BaseModel] = create_model(  # type: ignore[call-overload]
        cls.__name__, __config__=config, __doc__=cls.__doc__, **mirrored,
        __module__=cls.__module__)  # (the app's model, as `cls` is: not one of signoff's own)
    names = tuple(fields)

    def into_cls(given: BaseModel) -> Any:  # (a function, not a partial: its code is followed
        return _made(cls, names, given)     # where the effect analysis meets a mirror)

    by_name = Annotated[
        mirror,
        AfterValidator(into_cls),
        WrapValidator(functools.partial(_kept, cls)),
        WrapSerializer(lambda value, write: write(mirror.model_validate(value))),
    ]
    made.append((reference, mirror, by_name))
    return by_name


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
            found = _in_any_case(value, names)
            if found is not None:
                return cls[found]
        raise ValueError(f"not one of {', '.join(names)}")

    def written(member: Any) -> str:
        if isinstance(member, cls):
            return member.name
        # (not a member: told as a value of another type is, so that a union tries its next
        # member, and a result that is not what it declares is told as such, `result_json`)
        raise PydanticSerializationUnexpectedValue(
            f"Expected `{cls.__name__}` - serialized value may not be as expected "
            f"[input_value={member!r}, input_type={type(member).__name__}]")

    return Annotated[
        cls,
        PlainValidator(by_name),
        PlainSerializer(written, return_type=str),
        WithJsonSchema({"type": "string", "enum": names, "title": cls.__name__}),
    ]


def _in_any_case(value: str, choices: Sequence[str]) -> str | None:
    """The one of `choices` that `value` writes in another case, or None when none does or
    more than one does (``Ab`` and ``AB`` for "ab": which was meant cannot be told)."""
    matched = [c for c in choices if c.casefold() == value.casefold()]
    return matched[0] if len(matched) == 1 else None


def _literal_in_any_case(choices: tuple[str, ...]) -> BeforeValidator:
    """A check taking a value of a ``Literal`` of `choices` written in another case as the one
    it writes, as an Enum's member is taken by its name in any case (`_enum_by_name`)."""
    def matched(value: Any) -> Any:
        if isinstance(value, str) and value not in choices:
            return _in_any_case(value, choices) or value
        return value
    return BeforeValidator(matched)


def parameters_model(action_name: str, parameters: list[Parameter], *, module: str = __name__
                     ) -> ParametersModel:
    """The pydantic model of the parameters a caller gives (context parameters left out)."""
    try:
        given = _GIVEN.set(True)
        try:
            fields: dict[str, Any] = {p.name: _field_of(action_name, p) for p in parameters
                                      if p.provided is None}
        finally:
            _GIVEN.reset(given)
        with warnings.catch_warnings():  # (a parameter named `json` or `copy` is no mistake:
            warnings.filterwarnings(  # its value is read by name, never by the attribute)
                "ignore", message=r"Field name .* shadows an attribute in parent", category=UserWarning)
            model: ParametersModel = create_model(
                _model_name(action_name),
                __config__=ConfigDict(extra="forbid", arbitrary_types_allowed=False,
                                      allow_inf_nan=False),
                **fields, __module__=module,  # (the app's, as its action is: not signoff's)
            )
        model.model_json_schema()  # (a type named but never defined is found here)
    except _CANNOT_DESCRIBE as error:
        raise UserError(f"Action {action_name}: its parameters cannot be described: {error}") from error
    for name, info in model.model_fields.items():
        alias = info.alias or info.validation_alias or info.serialization_alias
        if isinstance(alias, str) and alias != name and iskeyword(alias):
            raise UserError(
                f"Action {action_name}, parameter {name}: a value is given by its parameter's "
                f"name, so it cannot be given by an alias ({alias!r}), and {alias!r} is a Python "
                f"keyword, which no parameter can be named: take the alias out of its Field, and "
                f"say how it reads with a label: `{name}: Annotated[..., "
                f"Label({alias.capitalize()!r})]`.")
        if alias is not None and alias != name:
            raise UserError(
                f"Action {action_name}, parameter {name}: a value is given by its parameter's "
                f"name, so it cannot be given by an alias ({alias!r}): take the alias out of its "
                f"Field, or name the parameter {alias if isinstance(alias, str) else 'so'}.")
    return model


def _field_of(action_name: str, p: Parameter) -> tuple[Any, FieldInfo]:
    """The field of the parameters model that gives `p`."""
    if p.name.startswith("model_") and hasattr(BaseModel, p.name):
        raise UserError(
            f"Action {action_name}, parameter {p.name}: the name is one pydantic's models keep "
            f"for themselves (BaseModel.{p.name}), and a call's values are checked by one: "
            "name the parameter otherwise.")
    if p.declared is not None:  # (with its `Field(ge=0)` and validators, where written)
        annotation = external(p.declared)
    else:
        annotation = external(p.annotation)
        if p.nullable:
            annotation = annotation | None
    if not p.optional:
        return annotation, Field(..., title=p.label)
    if not _written_as_json(p.default):
        # A default no JSON writes (a sentinel of the app's: `NOT_GIVEN = object()`): given to
        # the action itself when the value is left out; the schema shows no default.
        default = p.default
        return annotation, Field(default_factory=lambda: default, title=p.label)
    if p.default is not None and p.takes_plain_data:
        _refuse_unfit_default(action_name, p)
    return annotation, _default_by_name(annotation, Field(p.default, title=p.label))


def _written_as_json(value: Any) -> bool:
    """Whether pydantic can write `value` as JSON (in a schema, as a default)."""
    try:
        to_jsonable_python(value)
    except (PydanticSerializationError, ValueError, TypeError):
        return False
    return True


def _refuse_unfit_default(action_name: str, p: Parameter) -> None:
    """A `UserError` when `p`'s default is not a value of its type: the schema would offer a
    caller a default the parameter refuses from them, and the action would be given it."""
    annotation = external(p.annotation)
    try:
        taken = TypeAdapter(annotation | None if p.nullable else annotation).validate_python(
            p.default)
        if isinstance(p.default, str | bool) and not (type(taken) is type(p.default)
                                                      and taken == p.default):
            raise ValueError(taken)  # ("5" for an int: read as 5, yet given to the action as "5")
    except (ValidationError, ValueError):
        raise UserError(
            f"Action {action_name}, parameter {p.name}: its default {p.default!r} is not "
            f"{_article(p.kind.value)}, which the parameter takes: the schema would offer it to "
            f"a caller who may not give it. Make the default a value it takes (or None, "
            f"with `| None`).") from None


def _article(kind: str) -> str:
    return f"an {kind}" if kind[:1] in "aeiou" else f"a {kind}"


_CANNOT_DESCRIBE = (PydanticSchemaGenerationError, PydanticUserError, PydanticUndefinedAnnotation,
                    NameError, TypeError, ValueError)
"""What pydantic raises for a type it cannot check or describe."""


def declares_result(annotation: Any) -> bool:
    """Whether a return annotation says what the action returns (a result schema describes
    it): not none, ``None`` or ``Any``."""
    return annotation not in (None, type(None), typing.Any, inspect.Signature.empty)


def result_adapter(action_name: str, annotation: Any) -> TypeAdapter[Any] | None:
    """How to turn what the action returns into JSON: by its declared type, or, when it declares
    none (or ``Any``), by the type of each value it returns (`as_json`), so that nothing it
    returns is lost. Bytes are written in base64."""
    if not declares_result(annotation):
        return _UNDECLARED
    try:
        adapter = _adapter(external(annotation))
        adapter.json_schema(mode="serialization")  # (a type named but never defined is found here)
        return adapter
    except _CANNOT_DESCRIBE as error:
        # (pydantic's own message runs to paragraphs of its internals, and advice for pydantic
        # models: its first sentence is kept)
        said = (str(error).strip().splitlines() or [type(error).__name__])[0]
        said = said.split(". ")[0].rstrip(".") + "."
        raise UserError(f"Action {action_name}: its result cannot be described: {said} Return "
                        "a type signoff can describe as JSON (a pydantic model, a dataclass, a "
                        "TypedDict, str, int, list[str], …), or declare none.") from error


def _adapter(annotation: Any) -> TypeAdapter[Any]:
    """A `TypeAdapter` of `annotation` writing bytes in base64 (as UTF-8 text, bytes that are
    not would fail), unless it is a type with a config of its own (a model, a dataclass)."""
    try:
        return TypeAdapter(annotation, config=_RESULT_CONFIG)
    except PydanticUserError:  # ("cannot use config": it has its own)
        return TypeAdapter(annotation)


_RESULT_CONFIG = ConfigDict(ser_json_bytes="base64", ser_json_inf_nan="strings")
"""(A float that is no number is kept as it is, not as null: the model is told it as its text,
`signoff.agents.calling.answer_of`.)"""

_MOST_DEEP = 100
"""How deep `as_json` follows containers inside containers (one that holds itself: no end)."""


def as_json(value: Any, depth: int = 0) -> Any:
    """The JSON of a value of no declared type: containers member by member, anything else by
    its own type as a declared one would be (an enum by name, a record as its id and values, a
    Decimal or a date as text, bytes in base64); what no type describes, as its text."""
    if value is None or type(value) in (str, int, float, bool):
        return value
    if depth > _MOST_DEEP:
        return str(value)
    if isinstance(value, Mapping):
        return {_key(k): as_json(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [as_json(v, depth + 1) for v in value]
    of: type = value.__class__
    adapter = _adapter_of(of)
    if adapter is not None:
        try:
            return adapter.dump_python(value, mode="json")
        except (PydanticSerializationError, ValueError, TypeError):
            pass
    return str(value)


def _key(key: Any) -> str:
    return key.name if isinstance(key, enum.Enum) else str(key)


@functools.lru_cache(maxsize=256)
def _adapter_of(cls: type) -> TypeAdapter[Any] | None:
    """How a value of `cls` is written, or None when pydantic describes no such type."""
    try:
        return _adapter(external(cls))
    except (PydanticSchemaGenerationError, PydanticUserError, TypeError):
        return None


_UNDECLARED: TypeAdapter[Any] = TypeAdapter(Annotated[Any, PlainSerializer(as_json)],
                                             config=_RESULT_CONFIG)


def result_json(action_name: str, adapter: TypeAdapter[Any], returned: Any,
                function: Callable[..., Any]) -> Any:
    """The JSON of what action `action_name` (`function`) returned, by `adapter` (its
    `result_adapter`); when what it returned is not of the type it declares, by its own type
    (`as_json`), so that the caller is told what it truly returned, and the log tells the app's
    developer that it broke its declaration (the run did its work: it is Done all the same).
    A serializer of the app's own that fails raises, as the action would have."""
    try:
        return adapter.dump_python(returned, mode="json", warnings="error")
    except PydanticSerializationError as error:
        if _UNEXPECTED not in str(error):  # (a serializer of the app's own failed: a failure)
            raise
        log.warning(
            "Action %s returned %s, which is not what its return annotation (-> %s) declares: "
            "it was told to its caller as what it returned. Return what the annotation says, "
            "or change the annotation.%s", action_name, _shown(returned),
            _declared_return(function), _where_unexpected(error))
        return as_json(returned)


_UNEXPECTED = "PydanticSerializationUnexpectedValue"
"""What pydantic's words say when a value is not of the type it is written as (a warning,
raised as an error when asked to be)."""

_EXPECTED = re.compile(r"Expected `(.+?)`.*?\[input_value=(.*), input_type=(\w+)\]")
"""Where in those words pydantic names the type it expected, and the value and type it found."""


def _shown(value: Any) -> str:
    """`value` for a line of the log: its type and the start of its repr."""
    try:
        text = repr(value)
    except Exception:  # (the app's own __repr__, which may fail)
        text = "?"
    return f"{type(value).__name__} {text[:80]}{'…' if len(text) > 80 else ''}"


def _declared_return(function: Callable[..., Any]) -> str:
    """The return annotation of `function`, as written."""
    declared = inspect.signature(function).return_annotation
    return declared if isinstance(declared, str) else inspect.formatannotation(declared)


def _where_unexpected(error: Exception) -> str:
    """What pydantic found first where it wrote the value, in a sentence (" Where it expected
    int, it found 'x' (str).")."""
    found = _EXPECTED.search(str(error))
    if found is None:
        return ""
    expected, value, of = found.groups()
    return f" Where it expected {expected}, it found {value[:80]} ({of})."


def _model_name(action_name: str) -> str:
    return "".join(part.capitalize() for part in action_name.split("_")) or "Action"
