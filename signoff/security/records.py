"""App records: SQLAlchemy 2 declarative classes with a UUID ``id`` and record rules.

``class Repair(app.Record)`` gives the class a table named after it (``repair``), an ``id``
given at construction, and ``__security__``: the rules the library enforces on every load and
flush of a session acting as someone.
"""

from __future__ import annotations

import enum
import math
import re
import uuid
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, localcontext
from typing import Any, ClassVar

from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler, TypeAdapter
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import core_schema
from sqlalchemy import (
    BigInteger,
    Float,
    Integer,
    Numeric,
    Select,
    SmallInteger,
    String,
    Table,
    Uuid,
    bindparam,
    event,
    inspect,
    select,
)
from sqlalchemy.orm import (
    DeclarativeBase,
    Mapped,
    Session,
    declared_attr,
    has_inherited_table,
    mapped_column,
)

from signoff.exceptions import Invalid, NotAuthorized, NotFound, UserError
from signoff.security.rules import Rule
from signoff.store import points

__all__ = [
    "KEPT_IN",
    "LOCKS_RECORDS",
    "RecordBase",
    "load_record",
    "make_record_base",
    "record_label",
    "record_tables",
    "record_type_name",
    "record_values",
]


class RecordBase:
    """What every app record has, whatever app it belongs to."""

    __security__: ClassVar[list[Rule]] = []
    """The record rules of this type: nothing is allowed unless a rule allows it."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        rules = cls.__dict__.get("__security__")
        if rules is not None and (not isinstance(rules, list | tuple) or not all(
                isinstance(rule, Rule) for rule in rules)):
            raise UserError(f"{cls.__name__}.__security__ is a list of rules ([allow(\"read\"), "
                            f"deny(\"update\", \"price\", when=...)]), not {rules!r}.")

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    """The record's id, given when the record is made."""

    @declared_attr.directive
    @classmethod
    def __tablename__(cls) -> str | None:
        if has_inherited_table(cls):  # a subtype shares its base's table unless it says not
            return None
        return re.sub(r"(?<!^)(?=[A-Z])", "_", cls.__name__).lower()

    def __str__(self) -> str:
        return record_label(self)

    # A record, wherever it stands in a parameter, is described and given as its id, and looked
    # up as whoever the action runs as (the session in the validation context); in a result it is
    # its id and its values.
    @classmethod
    def __get_pydantic_core_schema__(
        cls, _source: Any, _handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        load = core_schema.with_info_plain_validator_function(
            lambda value, info: _load(cls, value, info.context)
        )
        return core_schema.json_or_python_schema(
            json_schema=core_schema.chain_schema([core_schema.uuid_schema(), load]),
            python_schema=load,
            serialization=core_schema.plain_serializer_function_ser_schema(
                _record_or_id, when_used="always"
            ),
        )

    @classmethod
    def __get_pydantic_json_schema__(
        cls, _core: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        if handler.mode == "validation":
            return {"type": "string", "format": "uuid", "description": f"The id of {_a(cls.__name__)}"}
        properties: dict[str, Any] = {}
        for column in inspect(cls).columns:
            try:
                python_type = column.type.python_type
            except NotImplementedError:
                python_type = str
            if isinstance(python_type, type) and issubclass(python_type, enum.Enum):
                # Given by member name, as `record_values` gives it.
                names = [member.name for member in python_type]
                schema = {"type": "string", "enum": names, "title": python_type.__name__}
            else:
                schema = TypeAdapter(python_type).json_schema(mode="serialization")
            properties[column.key] = {"format": "uuid", "type": "string"} if column.key == "id" else schema
        return {"type": "object", "title": cls.__name__, "properties": properties,
                "required": ["id"]}

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.id}>"


def _a(noun: str) -> str:
    """`noun` with its indefinite article: "a Shelf", "an Order"."""
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"


_BASES: weakref.WeakSet[type[DeclarativeBase]] = weakref.WeakSet()
"""The declarative base of each app's records (`make_record_base`)."""


KEPT_IN = "signoff_kept_in"
"""Set in a session's ``info``: the metadata of the tables its database keeps (one app's)."""


def record_tables(kept_in: Sequence[Any] | None = None) -> list[tuple[Table, type[RecordBase]]]:
    """Every record type there is, with its table (read anew: apps make theirs as they are
    made): of the apps whose metadata is `kept_in`, when given, else of every app."""
    return [(mapper.local_table, mapper.class_) for base in list(_BASES)
            if kept_in is None or any(base.metadata is m for m in kept_in)
            for mapper in base.registry.mappers
            if isinstance(mapper.local_table, Table) and issubclass(mapper.class_, RecordBase)]


def make_record_base() -> type[RecordBase]:
    """A fresh declarative base for one app's records (each app has its own metadata)."""

    class Record(RecordBase, DeclarativeBase):
        """The base of this app's records."""

    _BASES.add(Record)
    return Record


@dataclass(frozen=True, slots=True)
class _ColumnLimits:
    """What a record type's columns keep, worked out once per type: its text columns with a
    declared length (attribute, length), its decimal columns with a declared precision
    (attribute, digits, digits after the point) and its whole-number columns (attribute, the
    type's name, the bits PostgreSQL keeps it in)."""

    lengths: tuple[tuple[str, int], ...]
    digits: tuple[tuple[str, int, int], ...]
    whole: tuple[tuple[str, str, int], ...]
    texts: tuple[str, ...]


_LIMITS: weakref.WeakKeyDictionary[Any, _ColumnLimits] = weakref.WeakKeyDictionary()


def _limits_of(mapper: Any) -> _ColumnLimits:
    found = _LIMITS.get(mapper)
    if found is None:
        types = [(attr.key, column.type) for attr in mapper.column_attrs
                 for column in attr.columns[:1]]
        found = _LIMITS[mapper] = _ColumnLimits(
            lengths=tuple((key, kind.length) for key, kind in types
                          if isinstance(kind, String) and kind.length is not None),
            digits=tuple((key, kind.precision, kind.scale or 0) for key, kind in types
                         if isinstance(kind, Numeric) and not isinstance(kind, Float)
                         and kind.precision is not None),
            whole=tuple((key, type(kind).__name__, 64 if isinstance(kind, BigInteger)
                         else 16 if isinstance(kind, SmallInteger) else 32)
                        for key, kind in types if isinstance(kind, Integer)),
            texts=tuple(key for key, kind in types if isinstance(kind, String)))
    return found


def _check_fits(mapper: Any, _connection: Any, target: RecordBase) -> None:
    """`Invalid` for a value a record's column cannot keep, among those given to it (all of a
    new record's; a changed record's changed ones): text longer than its column's length, as
    PostgreSQL refuses it (SQLite would keep it whole, and an app tried there would fail on
    PostgreSQL), or holding a NUL character, which PostgreSQL refuses in any text; a number
    that is not finite, or that has more digits before the point than its decimal column keeps
    once rounded to its scale, as PostgreSQL rounds it (which refuses such a value; SQLite
    would keep a float instead, even infinity, and the record would not say what was given); a
    whole number outside what its column's type keeps on PostgreSQL (an `Integer` keeps 32
    bits there, 64 on SQLite, which refuses more with a raw OverflowError)."""
    state, limits = inspect(target), _limits_of(mapper)
    for key, kind, bits in limits.whole:
        if state.has_identity and not state.attrs[key].history.has_changes():
            continue  # not given now: kept as it was
        number = target.__dict__.get(key)
        if isinstance(number, int) and not isinstance(number, bool) and not (
                -(1 << (bits - 1)) <= number < 1 << (bits - 1)):
            wider = "; BigInteger keeps larger ones" if bits < 64 else ""
            raise Invalid(f"{type(target).__name__}'s {key} keeps whole numbers from "
                          f"{-(1 << (bits - 1)):,} to {(1 << (bits - 1)) - 1:,} (its column "
                          f"is {kind}{wider}); the value given is {_shown_number(number)}.")
    for key, length in limits.lengths:
        if state.has_identity and not state.attrs[key].history.has_changes():
            continue  # not given now: kept as it was
        text = target.__dict__.get(key)
        if isinstance(text, str) and len(text) > length:
            raise Invalid(f"{type(target).__name__}'s {key} keeps at most {length} characters; "
                          f"the text given has {len(text)}.")
    for key in limits.texts:
        if state.has_identity and not state.attrs[key].history.has_changes():
            continue  # not given now: kept as it was
        text = target.__dict__.get(key)
        if isinstance(text, str) and "\x00" in text:  # (PostgreSQL refuses the statement)
            raise Invalid(f"{type(target).__name__}'s {key} cannot keep a NUL character "
                          "(U+0000), which the app's database refuses: give the text without "
                          "one.")
    for key, precision, scale in limits.digits:
        if state.has_identity and not state.attrs[key].history.has_changes():
            continue  # not given now: kept as it was
        value = target.__dict__.get(key)
        if value is None or isinstance(value, bool) or not isinstance(value, Decimal | int | float):
            continue
        number = value if isinstance(value, Decimal) else Decimal(value)
        label = f"{type(target).__name__}'s {key}"
        if not number.is_finite():
            raise Invalid(f"{label} must be a finite number, not {value}.")
        allowed = precision - scale
        digits = _before_point(number)
        if digits <= allowed:  # it may still round up, at its scale, past what the column keeps
            with localcontext() as exact:
                exact.prec = precision + 2
                digits = _before_point(number.quantize(Decimal(1).scaleb(-scale),
                                                       rounding=ROUND_HALF_UP))
        if digits > allowed:
            raise Invalid(f"{label} keeps at most {allowed} digits before the point (rounded to "
                          f"{scale} after it); the value given has {digits}.")


def _shown_number(number: int) -> str:
    """A whole number as a sentence can hold it: in full, or by its size when it is long (and
    without writing it out: Python refuses to write one of over 4,300 digits)."""
    if number.bit_length() <= 80:
        return f"{number:,}"
    return f"a number of about {int(math.log10(abs(number))) + 1:,} digits"


def _before_point(number: Decimal) -> int:
    """How many digits a finite `number` has before its point (none for a zero, or less than
    one)."""
    return max(number.adjusted() + 1, 0) if number else 0


def _give_id(target: RecordBase, _args: Any, kwargs: dict[str, Any]) -> None:
    if kwargs.get("id") is None:
        kwargs["id"] = uuid.uuid4()


# Set once, on what every app's records share: a listener set on each app's own base (a class
# not mapped yet) is held by SQLAlchemy for the life of the process, and the base with it — its
# metadata, its tables — long after the app is gone.
event.listen(RecordBase, "init", _give_id, propagate=True)
event.listen(RecordBase, "before_insert", _check_fits, propagate=True)
event.listen(RecordBase, "before_update", _check_fits, propagate=True)


_BY_ID: weakref.WeakKeyDictionary[type[RecordBase], tuple[Select[Any], Select[Any]]] = (
    weakref.WeakKeyDictionary())


LOCKS_RECORDS = "signoff_locks_records"
"""Set in a session's ``info``: the records given to a run are locked as they load (``FOR
UPDATE``), those within a structure too (a run that cannot be run again on a conflict)."""


def _by_id(cls: type[RecordBase], *, locked: bool = False) -> Select[Any]:
    """The record of `cls` with a given id, built once per class (a run's hot path: a prebuilt
    statement loads a record in two thirds of the time ``session.get`` takes); `locked`, its
    row locked for the rest of the transaction (``FOR UPDATE``)."""
    found = _BY_ID.get(cls)
    if found is None:
        plain = select(cls).where(cls.id == bindparam("signoff_id"))
        found = _BY_ID[cls] = (plain, plain.with_for_update())
    return found[locked]


def _load(cls: type[RecordBase], value: Any, context: Any) -> Any:
    """`value` (a record or an id) as a record of `cls` read through the session in `context`,
    or — with no session to read through — its id. In a session whose `LOCKS_RECORDS` is set,
    its row is locked as it loads, until the session's transaction ends."""
    if isinstance(value, cls):
        ident = value.id
    elif isinstance(value, uuid.UUID):
        ident = value
    elif isinstance(value, str):
        try:
            ident = uuid.UUID(value)
        except ValueError:
            raise ValueError(f"not the id of {_a(cls.__name__)}") from None
    else:
        raise ValueError(f"not the id of {_a(cls.__name__)}")
    session = context.get("session") if isinstance(context, dict) else None
    if not isinstance(session, Session):
        return ident
    locked = bool(session.info.get(LOCKS_RECORDS))
    try:
        found = session.scalars(_by_id(cls, locked=locked), {"signoff_id": ident}).one_or_none()
    except NotAuthorized:
        found = None
    if locked:
        points.reached("run.record_locked", record=cls.__name__)
    if found is None:
        raise NotFound(
            f"No {cls.__name__} with id {ident}: it does not exist, or whoever this runs as "
            "cannot read it."
        )
    return found


def load_record(cls: type[RecordBase], value: Any, session: Session) -> Any:
    """`value` (a record or its id) as a record of `cls` read through `session`, as a record
    given as a parameter is; `NotFound`, in the same words, when it is not there for the
    session's principals to read."""
    return _load(cls, value, {"session": session})


def _record_or_id(value: Any) -> Any:
    return record_values(value) if isinstance(value, RecordBase) else str(value)


def record_values(record: Any) -> dict[str, Any]:
    """A record as JSON-ready values: its id and each column's value."""
    values: dict[str, Any] = {}
    for column in inspect(type(record)).columns:
        value = getattr(record, column.key)
        if isinstance(value, enum.Enum):
            values[column.key] = value.name
            continue
        values[column.key] = TypeAdapter(type(value)).dump_python(value, mode="json")
    return values


def record_type_name(cls: type) -> str:
    """The name of a record type as a person reads it ("Repair")."""
    return cls.__name__


def record_label(record: Any) -> str:
    """How a record reads to a person: its type and its first unique text column ("Repair T-7"),
    or its type and id."""
    cls = type(record)
    try:
        columns = inspect(cls).columns
    except Exception:  # not mapped: not a record
        return str(record)
    for column in columns:
        if column.unique and isinstance(column.type, String):
            value = getattr(record, column.key, None)
            if value:
                return f"{cls.__name__} {value}"
    return f"{cls.__name__} {getattr(record, 'id', '?')}"
