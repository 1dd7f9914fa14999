"""Code that Python runs without its being called by name: the special methods of an app's own
class (``str(x)`` runs ``x.__str__``), a descriptor's, a class's own ``__setattr__``, what an
allow-listed library calls of what it is given (an encoder's ``default``, a stream's ``write``,
a ``MutableMapping``'s ``__setitem__`` from its ``update``), a decorator made of a class.
Each function here reaches outside (``os.system``) only through such code, or changes the
process's shared state (logging's configuration), and looks as if it only reads."""

from __future__ import annotations

import copy
import csv
import dataclasses
import enum
import functools
import heapq
import json
import logging
import math
import operator
import os
import typing
from collections.abc import Iterator, MutableMapping
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    Field,
    PlainSerializer,
    TypeAdapter,
    computed_field,
    field_serializer,
    field_validator,
    validate_call,
)
from pydantic_core import core_schema
from typing_extensions import TypedDict


class Loud:
    """Every special method it has reaches outside."""

    def __str__(self) -> str:
        os.system("echo str")
        return "loud"

    def __repr__(self) -> str:
        os.system("echo repr")
        return "Loud()"

    def __format__(self, spec: str) -> str:
        os.system("echo format")
        return "loud"

    def __len__(self) -> int:
        os.system("echo len")
        return 1

    def __bool__(self) -> bool:
        os.system("echo bool")
        return True

    def __hash__(self) -> int:
        os.system("echo hash")
        return 1

    def __iter__(self) -> Iterator[int]:
        os.system("echo iter")
        return iter([1])

    def __neg__(self) -> int:
        os.system("echo neg")
        return -1

    def __radd__(self, other: int) -> int:
        os.system("echo radd")
        return other

    def __abs__(self) -> int:
        os.system("echo abs")
        return 1

    def __int__(self) -> int:
        os.system("echo int")
        return 1

    def __index__(self) -> int:
        os.system("echo index")
        return 0

    def __floor__(self) -> int:
        os.system("echo floor")
        return 0

    def __copy__(self) -> Loud:
        os.system("echo copy")
        return self

    def __eq__(self, other: object) -> bool:
        os.system("echo eq")
        return True

    def __lt__(self, other: object) -> bool:
        os.system("echo lt")
        return True


class LoudAttribute:
    """A descriptor whose reading and writing reach outside."""

    def __get__(self, obj: object, owner: type | None = None) -> int:
        os.system("echo get")
        return 1

    def __set__(self, obj: object, value: int) -> None:
        os.system("echo set")


class Shelf:
    size = LoudAttribute()


class Watched:
    def __setattr__(self, name: str, value: Any) -> None:
        os.system("echo setattr")
        object.__setattr__(self, name, value)


class LoudEncoder(json.JSONEncoder):
    def default(self, o: Any) -> Any:
        os.system("echo default")
        return str(id(o))


class LoudFields(MutableMapping[str, str]):
    """A mapping of the app's whose writing reaches outside."""

    def __init__(self) -> None:
        self._data: dict[str, str] = {}

    def __getitem__(self, key: str) -> str:
        return self._data[key]

    def __setitem__(self, key: str, value: str) -> None:
        os.system("echo setitem")
        self._data[key] = value

    def __delitem__(self, key: str) -> None:
        del self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)


class Audited:
    """A decorator made of a class: its ``__call__`` runs, whatever ``__wrapped__`` says."""

    def __init__(self, fn: Any) -> None:
        self.__wrapped__ = fn

    def __call__(self, *args: Any) -> Any:
        os.system("echo audited")
        return self.__wrapped__(*args)


def _title(text: str) -> str:
    return text.title()


audited_title = Audited(_title)


def hinted(x: "os.system('echo hints') or str") -> None:  # noqa: UP037
    """Its annotation, written as text, runs when the hints are read."""


def by_str() -> str:
    return str(Loud())


def by_repr() -> str:
    return repr(Loud())


def by_format() -> str:
    return format(Loud())


def by_str_format() -> str:
    return "{}".format(Loud())  # noqa: UP032


def by_percent() -> str:
    return "%s" % (Loud(),)  # noqa: UP031


def by_len() -> int:
    return len(Loud())


def by_if() -> str:
    return "yes" if Loud() else "no"


def by_not() -> bool:
    return not Loud()


def by_and() -> object:
    return Loud() and 1


def by_dict_key() -> int:
    return len({Loud(): 1})


def by_set() -> int:
    return len({Loud()})


def by_list() -> list[int]:
    return list(Loud())


def by_sorted() -> int:
    return len(sorted([Loud(), Loud()]))


def by_neg() -> int:
    return -Loud()


def by_abs() -> int:
    return abs(Loud())


def by_int() -> int:
    return int(Loud())


def by_index() -> int:
    return [1, 2][Loud()]


def by_floor() -> int:
    return math.floor(Loud())  # type: ignore[call-overload]


def by_copy() -> object:
    return copy.copy(Loud())


def by_reflected_eq() -> bool:
    return 1 == Loud()  # noqa: SIM300


def by_in() -> bool:
    return Loud() in [1]


def by_encoder() -> str:
    return json.dumps(object(), cls=LoudEncoder)


def by_descriptor_get() -> int:
    return Shelf().size


def by_descriptor_set() -> None:
    Shelf().size = 2


def by_setattr() -> None:
    watched = Watched()
    watched.seen = True


def by_mapping_update() -> int:
    fields = LoudFields()
    fields.update({"title": "new"})
    return len(fields)


def by_class_decorator() -> str:
    return str(audited_title("a title"))


def by_type_hints() -> int:
    return len(typing.get_type_hints(hinted))


STREAM = open(os.devnull, "w")  # noqa: SIM115 (opened once, as an app opens its log)


def by_print() -> None:
    print(Loud())


def by_print_file() -> None:
    print("a line", file=STREAM)


def by_json_dump() -> None:
    json.dump({"a": 1}, STREAM)


def by_environ_update() -> None:
    os.environ.update({"HTTPS_PROXY": "http://proxy.example"})


def by_logging_filter() -> None:
    logging.getLogger().addFilter(logging.Filter("x"))


def by_logging_disable() -> None:
    logging.disable(logging.CRITICAL)


NAMES: list[str] = []


def _each(function, items):  # type: ignore[no-untyped-def]  # (unannotated, as often)
    for item in items:
        function(item)


def by_a_method_handed_on() -> None:
    _each(NAMES.append, ["a name"])


LOG = logging.getLogger(__name__)


class Gone:
    """Going (its object collected) reaches outside."""

    def __del__(self) -> None:
        os.system("echo del")


class Making(type):
    """A metaclass whose own making of objects reaches outside."""

    def __call__(cls, *args: Any) -> Any:
        os.system("echo made")
        return super().__call__(*args)

    def __instancecheck__(cls, instance: object) -> bool:
        os.system("echo instancecheck")
        return True


class Made(metaclass=Making):
    pass


class Defaults(dict[str, int]):
    def __missing__(self, key: str) -> int:
        os.system("echo missing")
        return 0


class Growing:
    def __iadd__(self, other: int) -> Growing:
        os.system("echo iadd")
        return self

    def __fspath__(self) -> str:
        os.system("echo fspath")
        return "/tmp"

    def __bytes__(self) -> bytes:
        os.system("echo bytes")
        return b""

    def __class_getitem__(cls, item: Any) -> Any:
        os.system("echo class_getitem")
        return cls

    def __init_subclass__(cls) -> None:
        os.system("echo init_subclass")


@functools.lru_cache
def _cached(key: Any) -> int:
    return 1


def by_logged_value() -> None:
    LOG.info("value %s", Loud())


def by_going() -> None:
    Gone()


def by_metaclass() -> None:
    Made()


def by_instancecheck() -> bool:
    return isinstance(1, Made)


def by_missing() -> int:
    return Defaults()["absent"]


def by_iadd() -> None:
    grown = Growing()
    grown += 1


def by_unpacking() -> int:
    first, *_rest = Loud()
    return first


def by_heap() -> None:
    heap: list[Loud] = []
    heapq.heappush(heap, Loud())


def by_sort() -> None:
    items = [Loud(), Loud()]
    items.sort()


def by_path_join() -> str:
    return os.path.join(Growing(), "x")  # type: ignore[call-overload]


def by_bytes() -> bytes:
    return bytes(Growing())  # type: ignore[call-overload]


def by_class_getitem() -> object:
    return Growing[int]  # type: ignore[misc]


def by_cache() -> int:
    return _cached(Loud())


def by_subclassing() -> None:
    class Grown(Growing):
        pass


class Shipped(BaseModel):
    """A model whose serializer and validator reach outside."""

    to: str

    @field_serializer("to")
    def _shown(self, to: str) -> str:
        os.system("echo serialized")
        return to

    @field_validator("to")
    @classmethod
    def _checked(cls, to: str) -> str:
        os.system("echo validated")
        return to


class Parcel(BaseModel):
    """A model holding one whose serializer reaches outside."""

    shipped: Shipped


def by_model_dump(parcel: Parcel) -> dict[str, Any]:
    return parcel.model_dump()


def by_model_dump_json(shipped: Shipped) -> str:
    return shipped.model_dump_json()


def by_model_validate(data: dict[str, str]) -> str:
    return Shipped.model_validate(data).to


def by_csv_writer() -> None:
    csv.writer(STREAM).writerow(["a", "b"])


def by_csv_dict_writer() -> None:
    csv.DictWriter(STREAM, ["a"]).writerow({"a": 1})


def by_csv_row() -> None:
    import io

    csv.writer(io.StringIO()).writerow([Loud()])


def by_reflected_add_in_place() -> int:
    total = 0
    total += Loud()  # (int's own + gives up: Loud's __radd__ runs)
    return total


class Named:
    """A descriptor told its name as the class holding it is made."""

    def __set_name__(self, owner: type, name: str) -> None:
        os.system("echo set_name")


class Forming(type):
    """A metaclass whose code makes each class of it."""

    def __new__(mcs, name: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> Forming:
        if name != "Formed":  # (not as this module is imported)
            os.system("echo new")
        return super().__new__(mcs, name, bases, namespace)


class Formed(metaclass=Forming):
    pass


def by_set_name() -> None:
    class Holding:
        named = Named()


def by_metaclass_making() -> None:
    class Made(metaclass=Forming):
        pass


def by_metaclass_inherited() -> None:
    class Made(Formed):
        pass


class Level(enum.Enum):
    """An enum whose members not found by value are looked for by its own code."""

    LOW = "low"

    @classmethod
    def _missing_(cls, value: object) -> Level:
        os.system("echo missing")
        return cls.LOW


def by_enum_missing(value: str) -> str:
    return Level(value).name


class LoudDialect(csv.excel):
    """A dialect whose delimiter is worked out by its own code."""

    @property
    def delimiter(self) -> str:  # type: ignore[override]
        os.system("echo delimiter")
        return ","


class LoudRow(dict[str, str]):
    """A row whose ``get`` is its own."""

    def get(self, key: str, default: object = None) -> object:  # type: ignore[override]
        os.system("echo get")
        return super().get(key, default)


class LoudText(str):
    """Text whose ``split`` is its own."""

    __slots__ = ()

    def split(self, sep: str | None = None, maxsplit: int = -1) -> list[str]:  # type: ignore[override]
        os.system("echo split")
        return str.split(self, sep, maxsplit)


def by_csv_dialect() -> None:
    import io

    csv.writer(io.StringIO(), dialect=LoudDialect()).writerow(["a"])


def by_csv_row_iterated() -> None:
    import io

    csv.writer(io.StringIO()).writerow(Loud())


def by_csv_dict_row() -> None:
    import io

    csv.DictWriter(io.StringIO(), ["a"]).writerow(LoudRow(a="1"))


def by_csv_lines_read() -> list[list[str]]:
    return list(csv.reader(Loud()))


def by_builtin_overridden() -> bool:
    return csv.Sniffer().has_header(LoudText("a,b\n1,2"))


class Tricky:
    """Adds to a number by giving back an object of its own."""

    def __radd__(self, other: int) -> Loud:
        return Loud()


def by_what_radd_gave() -> int:
    total = 0
    total += Tricky()  # type: ignore[assignment]
    return len(total)  # (Loud's __len__)


def _loud(value: Any) -> Any:
    os.system("echo hook")
    return value


def _loud_stamp() -> int:
    os.system("echo factory")
    return 0


class HoldsAny(BaseModel):
    """A model whose field may hold any model: dumped by the model it holds."""

    payload: Any = None


class Computed(BaseModel):
    """A model whose computed field reaches outside."""

    x: int = 0

    @computed_field  # type: ignore[prop-decorator]
    @property
    def side(self) -> int:
        os.system("echo computed")
        return 1


class AnnotatedHooks(BaseModel):
    """A model whose fields' annotations carry a validator and a serializer."""

    x: Annotated[int, PlainSerializer(_loud)] = 0
    y: list[Annotated[str, AfterValidator(_loud)]] = []


class Stamped(BaseModel):
    """A model whose field's default is made by a factory that reaches outside."""

    stamp: int = Field(default_factory=_loud_stamp)


class StampedByLambda(BaseModel):
    """The same, the factory a lambda."""

    stamp: int = Field(default_factory=lambda: os.system("echo lambda"))


class PostInit(BaseModel):
    """A model whose post-init reaches outside."""

    x: int = 0

    def model_post_init(self, context: Any) -> None:
        os.system("echo post_init")


class OwnSchema:
    """A type that tells pydantic its own schema (what runs is not followed)."""

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        return core_schema.no_info_plain_validator_function(_loud)


class HoldsOwn(BaseModel):
    """A model with a field of a type that has its own schema."""

    model_config = {"arbitrary_types_allowed": True}
    own: OwnSchema | None = None


def by_any_field_dump(shipped: Shipped) -> dict[str, Any]:
    return HoldsAny(payload=shipped).model_dump()


def by_type_adapter_dump(shipped: Shipped) -> Any:
    return TypeAdapter(Shipped).dump_python(shipped)


def by_computed_field(computed: Computed) -> dict[str, Any]:
    return computed.model_dump()


def by_annotated_serializer(model: AnnotatedHooks) -> str:
    return model.model_dump_json()


def by_annotated_validator(data: dict[str, Any]) -> int:
    return AnnotatedHooks.model_validate(data).x


def by_default_factory(data: dict[str, Any]) -> int:
    return Stamped.model_validate(data).stamp


def by_default_factory_lambda() -> int:
    return StampedByLambda().stamp


def by_post_init() -> int:
    return PostInit(x=1).x


def by_own_schema(data: dict[str, Any]) -> bool:
    return HoldsOwn.model_validate(data).own is None


def by_result_computed(n: int) -> Computed:
    return Computed(x=n)


def checked_parameter_annotated(model: AnnotatedHooks) -> int:
    return model.x



def by_appended_later() -> list[str]:
    items: list[object] = [1, 2]
    items.append(Loud())
    return [str(item) for item in items]


class Shown:
    """Plain as text; its repr reaches outside."""

    def __str__(self) -> str:
        return "shown"

    def __repr__(self) -> str:
        os.system("echo repr")
        return "Shown()"


def by_percent_repr() -> str:
    return "%r" % (Shown(),)  # noqa: UP031 (the %-form is the case)


def by_format_repr() -> str:
    return "{!r}".format(Shown())  # noqa: UP032 (str.format is the case)


def by_log_repr() -> None:
    logging.getLogger("t").warning("%r", Shown())


def by_csv_restval() -> None:
    import io

    csv.DictWriter(io.StringIO(), ["a", "b"], restval=Loud()).writerow({"a": 1})


class _Checker:
    """A validator that is an object, not a function."""

    def __call__(self, value: str) -> str:
        os.system("echo checker")
        return value


class _Token:
    """A default factory that is a class of the app's."""

    def __init__(self) -> None:
        os.system("echo token")


class ObjectHooks(BaseModel):
    """A model whose validator and default factory are objects of the app's."""

    model_config = {"arbitrary_types_allowed": True}
    text: Annotated[str, AfterValidator(_Checker())] = ""
    token: _Token = Field(default_factory=_Token)


def by_object_hooks(data: dict[str, Any]) -> str:
    return ObjectHooks.model_validate(data).text


class Hued(BaseModel):
    """A model with a field of an enum whose own lookup reaches outside."""

    level: Level = Level.LOW


def by_enum_missing_validated(data: dict[str, Any]) -> str:
    return Hued.model_validate(data).level.name


def by_type_made() -> None:
    type("Grown", (Growing,), {})


class Looked:
    """Every attribute read of it runs its own ``__getattribute__``; a deletion its own
    ``__delattr__``; ``+`` its ``__add__``; a deep copy its ``__deepcopy__``."""

    size = 1

    def __getattribute__(self, name: str) -> Any:
        os.system("echo getattribute")
        return object.__getattribute__(self, name)


class Forgets:
    size = 1

    def __delattr__(self, name: str) -> None:
        os.system("echo delattr")


class Sums:
    def __add__(self, other: object) -> Sums:
        os.system("echo add")
        return self


class Copied:
    def __deepcopy__(self, memo: dict[int, object]) -> Copied:
        os.system("echo deepcopy")
        return self


@dataclasses.dataclass
class Holds:
    """A dataclass whose field ``dataclasses.asdict`` copies deeply."""

    inner: Copied
    many: list[Copied]


def by_getattribute() -> int:
    return Looked().size


def by_delattr() -> None:
    gone = Forgets()
    del gone.size


def by_operator_function() -> Sums:
    return operator.add(Sums(), Sums())


def by_reduce_with_an_operator() -> Sums:
    return functools.reduce(operator.add, [Sums(), Sums()])


def by_dataclass_as_dict(held: Holds) -> dict[str, Any]:
    return dataclasses.asdict(held)


class Measured:
    """A class whose property, and whose item, reach outside as they are read."""

    @property
    def weight(self) -> int:
        os.system("echo weight")
        return 1

    def __getitem__(self, key: int) -> int:
        os.system("echo getitem")
        return key


def by_attrgetter_key() -> list[Measured]:
    return sorted([Measured(), Measured()], key=operator.attrgetter("weight"))


def by_itemgetter_key() -> list[Measured]:
    return sorted([Measured(), Measured()], key=operator.itemgetter(0))


class Packet(TypedDict):
    """A dict whose field's annotation carries a validator."""

    weight: Annotated[int, AfterValidator(_loud)]


@dataclasses.dataclass
class Crate:
    """A dataclass whose field's annotation carries a validator."""

    weight: Annotated[int, AfterValidator(_loud)]


@dataclasses.dataclass
class Labelled:
    """A dataclass whose ``__post_init__`` reaches outside (pydantic makes it as it validates)."""

    weight: int

    def __post_init__(self) -> None:
        os.system("echo post_init")


class Shipment(BaseModel):
    """A model whose field is a ``TypedDict`` whose field carries a validator."""

    packet: Packet


def checked_annotated(weight: Annotated[int, AfterValidator(_loud)]) -> int:
    return weight


def checked_typed_dict(packet: Packet) -> int:
    return 1


def checked_dataclass(crate: Crate) -> int:
    return 1


def checked_post_init(stamped: Labelled) -> int:
    return 1


def checked_model_of_typed_dict(shipment: Shipment) -> int:
    return 1


@validate_call
def _validated(shipment: Shipment) -> int:
    return 1


def by_validate_call(data: dict[str, Any]) -> int:
    return _validated(data)  # type: ignore[arg-type]


class Settable:
    """A class whose property's setter and deleter, and own ``__delattr__``, reach outside."""

    @property
    def level(self) -> int:
        return 1

    @level.setter
    def level(self, value: int) -> None:
        os.system("echo setter")

    @level.deleter
    def level(self) -> None:
        os.system("echo deleter")


class Hashed:
    def __hash__(self) -> int:
        os.system("echo hash")
        return 1


def by_setattr_builtin() -> None:
    Settable().level = 2


def by_delattr_builtin() -> None:
    delattr(Settable(), "level")


def by_setattr_of_a_name_not_known(name: str) -> None:
    setattr(Settable(), name, 2)


def by_hasattr() -> bool:
    return hasattr(Looked(), "size")


def by_set_comprehension() -> set[Hashed]:
    return {item for item in [Hashed()]}


def by_a_lambda_kept_in_a_list() -> None:
    kept = [lambda: os.system("echo kept")]
    kept[0]()


@dataclasses.dataclass
class Deep:
    """Nested four dataclasses deep, then a set of objects copied by their own code."""

    inner: Holds | None
    copies: frozenset[Copied] = frozenset()


def by_dataclass_as_dict_of_a_set(held: Deep) -> dict[str, Any]:
    return dataclasses.asdict(held)


class Counted:
    def __index__(self) -> int:
        os.system("echo index")
        return 2


def by_range_of_an_index() -> list[int]:
    return list(range(Counted()))  # type: ignore[call-overload]
