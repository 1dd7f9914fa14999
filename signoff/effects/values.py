"""The abstract values the effect analysis computes with.

A value (`Val`) says where an object may come from (`origin`: a parameter of the function being
analysed, ``"global"`` state, the database, or ``"unknown"``), where what it holds may come from
(`inner`), what static types it may have, and which objects or callables it is known to be. An
empty origin means a fresh object made inside the function: changing it is no effect.
"""

from __future__ import annotations

import ast
import types
import typing
from dataclasses import dataclass, replace
from typing import Any

from signoff.effects.effect import EffectKind
from signoff.effects.tables import IMMUTABLE_TYPES

EMPTY: frozenset[str] = frozenset()
GLOBAL = "global"
"""Origin token: module state, closures, defaults — anything that outlives a call."""
DB = "db"
"""Origin token: records loaded from the database."""
UNKNOWN = "unknown"
"""Origin token: anything the analysis could not follow."""


def param_token(name: str) -> str:
    """The token for "is the object passed as parameter `name`"."""
    return f"p:{name}"


def inner_token(name: str) -> str:
    """The token for "is reachable from the object passed as parameter `name`"."""
    return f"p:{name}*"


@dataclass(frozen=True, slots=True, kw_only=True)
class Sql:
    """A SQL statement, ORM query, or database result being built or read."""

    effects: tuple[tuple[EffectKind, str], ...] = ()
    """What running it does, each with the record type (or table) it is about ("" unknown)."""
    reason: str = ""
    """Why its effects are assumed, when its text cannot be seen."""
    row: type | None = None
    """The record class of its rows, when known."""
    query: bool = False
    """Whether it is a legacy ``session.query(...)`` (whose ``update``/``delete`` write)."""
    result: bool = False
    """Whether it is the result of running a statement (rows to read)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Inline:
    """A lambda or a function defined inside the function being analysed."""

    node: ast.Lambda | ast.FunctionDef | ast.AsyncFunctionDef
    """Its syntax."""
    frame: Any
    """The frame it was defined in (for its closure)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Method:
    """A Python function bound to a value (``obj.method``)."""

    func: Any
    """The function."""
    self_val: Val | None
    """What it is bound to (None when taken from the class: the first argument is ``self``)."""
    cls: type | None
    """The class it was looked up on (resolves ``self`` and ``super()`` inside it)."""
    qual: str
    """Its qualified name, for the sink table and the path."""


@dataclass(frozen=True, slots=True, kw_only=True)
class BuiltinMethod:
    """A method of a builtin or allow-listed type (``items.append``)."""

    name: str
    """The method's name."""
    self_val: Val
    """What it is called on."""
    qual: str
    """Its qualified name (``"builtins.list.append"``)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Partial:
    """``functools.partial(fn, *args)``."""

    fn: Val
    """The function it calls."""
    args: tuple[Val, ...]
    """The arguments bound first."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Super:
    """``super()`` inside a method."""

    owner: type
    """The class whose method calls ``super()``."""
    self_cls: type
    """The class of ``self``."""
    self_val: Val
    """``self``."""


Target = Inline | Method | BuiltinMethod | Partial | Super


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class Val:
    """One abstract value."""

    origin: frozenset[str] = EMPTY
    """Where the object itself may come from; empty when made inside the function."""
    inner: frozenset[str] = EMPTY
    """Where what it holds may come from."""
    types: frozenset[type] | None = None
    """Its possible static types; None when unknown."""
    exact: bool = False
    """Whether `types` are exact (made here), so no subclass may override a method."""
    elem: frozenset[type] | None = None
    """The types of its items, when known (``list[Repair]`` → Repair)."""
    rec: str = ""
    """The record type it is reachable from, if any."""
    objs: tuple[Any, ...] = ()
    """The objects it is known to be (a module, a function, a class, a constant)."""
    qual: str = ""
    """Its qualified name by access path (``"os.system"``), when it has one."""
    calls: tuple[Target, ...] = ()
    """The callables it is known to be, other than `objs`."""
    pure: bool = False
    """Whether it came from allow-listed code or a sink: its methods only compute."""
    sql: Sql | None = None
    """The SQL statement or result it is, if any."""

    @property
    def reach(self) -> frozenset[str]:
        """Where anything reachable from it may come from."""
        return self.origin | self.inner

    def derived(self, **changes: Any) -> Val:
        """A value reached from this one (an attribute, an item, a call's result)."""
        reach = self.reach
        fields: dict[str, Any] = {"rec": self.rec, "pure": self.pure, **changes}
        return Val(origin=reach, inner=reach, **fields)


@dataclass(slots=True)
class Args:
    """The arguments of one call."""

    pos: list[Val]
    """Positional arguments."""
    kw: dict[str, Val]
    """Keyword arguments."""
    star: Val | None = None
    """What ``*args`` at the call site hold."""
    dstar: Val | None = None
    """What ``**kwargs`` at the call site hold."""

    def every(self) -> list[Val]:
        """Every argument value."""
        out = [*self.pos, *self.kw.values()]
        return out + [v for v in (self.star, self.dstar) if v is not None]

    def reach(self) -> frozenset[str]:
        """Where anything passed may come from."""
        out: frozenset[str] = EMPTY
        for v in self.every():
            out |= v.reach
        return out

    def prepend(self, *vals: Val) -> Args:
        """These arguments with `vals` first."""
        return Args([*vals, *self.pos], self.kw, self.star, self.dstar)


FRESH = Val(types=frozenset())
"""A fresh object of no particular type."""


def known(obj: Any, *, qual: str = "", origin: frozenset[str] = frozenset({GLOBAL})) -> Val:
    """The value of a known object (a global, a builtin, a constant)."""
    return Val(origin=origin, inner=origin, types=frozenset({type(obj)}), exact=True, objs=(obj,), qual=qual)


def const(value: Any) -> Val:
    """The value of a literal."""
    return Val(types=frozenset({type(value)}), exact=True, objs=(value,))


def fresh_of(cls: type, *, inner: frozenset[str] = EMPTY, elem: frozenset[type] | None = None) -> Val:
    """A fresh object of exactly `cls`."""
    return Val(types=frozenset({cls}), exact=True, inner=inner, elem=elem)


def join(a: Val | None, b: Val) -> Val:
    """What a name holds when it may hold either value."""
    if a is None:
        return b
    return Val(
        origin=a.origin | b.origin,
        inner=a.inner | b.inner,
        types=None if a.types is None or b.types is None else a.types | b.types,
        exact=a.exact and b.exact,
        elem=None if a.elem is None or b.elem is None else a.elem | b.elem,
        rec=a.rec or b.rec,
        objs=_unique(a.objs + b.objs),
        qual=a.qual if a.qual == b.qual else "",
        calls=a.calls + tuple(c for c in b.calls if c not in a.calls),
        pure=_plain(a) and _plain(b),
        sql=a.sql if a.sql == b.sql else (a.sql or b.sql),
    )


def _plain(v: Val) -> bool:
    """Whether methods of `v` only compute: it came from allow-listed code, or is a str, an int…"""
    if v.pure:
        return True
    return bool(v.types) and v.types is not None and v.types <= IMMUTABLE_TYPES - {tuple, frozenset}


def join_all(vals: list[Val]) -> Val:
    """The join of several values (fresh when there are none)."""
    out: Val | None = None
    for v in vals:
        out = join(out, v)
    return out if out is not None else FRESH


def _unique(objs: tuple[Any, ...]) -> tuple[Any, ...]:
    seen: set[int] = set()
    out = []
    for o in objs:
        if id(o) not in seen:
            seen.add(id(o))
            out.append(o)
    return tuple(out)


def with_types(val: Val, found: tuple[frozenset[type] | None, frozenset[type] | None]) -> Val:
    """`val` with the types (and item types) of an annotation."""
    kinds, elem = found
    return replace(val, types=kinds, elem=elem)


_CONTAINERS: dict[Any, type] = {}


def _container_origin(origin: Any) -> type | None:
    if not _CONTAINERS:
        import collections.abc as cabc

        for name in (
            "Sequence",
            "MutableSequence",
            "Iterable",
            "Iterator",
            "Collection",
            "Generator",
            "Reversible",
        ):
            _CONTAINERS[getattr(cabc, name)] = list
        for name in ("Set", "MutableSet"):
            _CONTAINERS[getattr(cabc, name)] = set
        for name in ("Mapping", "MutableMapping"):
            _CONTAINERS[getattr(cabc, name)] = dict
    if isinstance(origin, type) and origin in (list, set, frozenset, dict, tuple):
        return origin
    return _CONTAINERS.get(origin)


def annotation_types(hint: Any) -> tuple[frozenset[type] | None, frozenset[type] | None]:
    """The static types an annotation allows, and their item types; None where unknown.

    ``Annotated[X, ...]`` is X; ``X | None`` is X; ``Mapped[X]`` is X; ``list[Repair]`` is a list
    of Repair; ``Any``, type variables, callables and protocols are unknown.
    """
    if hint is None or hint is type(None):
        return frozenset({type(None)}), None
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin is typing.Annotated:
        return annotation_types(args[0])
    if origin is typing.Union or origin is types.UnionType:
        kinds: set[type] = set()
        elems: set[type] | None = set()
        for arg in args:
            if arg is type(None):
                continue
            k, e = annotation_types(arg)
            if k is None:
                return None, None
            kinds |= k
            elems = None if elems is None or e is None else elems | e
        return frozenset(kinds), (frozenset(elems) if elems is not None else None)
    if origin is not None and getattr(origin, "__name__", "") == "Mapped" and args:
        return annotation_types(args[0])
    if origin is not None:
        container = _container_origin(origin)
        if container is None:
            return (frozenset({origin}) if isinstance(origin, type) and _concrete(origin) else None), None
        item = args[0] if args else None
        if item is None or item is Ellipsis:
            return frozenset({container}), None
        return frozenset({container}), annotation_types(item)[0]
    if isinstance(hint, type):
        if hint is object or not _concrete(hint):
            return None, None
        return frozenset({hint}), None
    return None, None


def _concrete(cls: type) -> bool:
    """Whether a class says what its objects do (a Protocol or a callable type does not)."""
    if getattr(cls, "_is_protocol", False):
        return False
    import collections.abc as cabc

    return cls not in (cabc.Callable, typing.Any)


__all__ = [
    "DB",
    "EMPTY",
    "FRESH",
    "GLOBAL",
    "UNKNOWN",
    "Args",
    "BuiltinMethod",
    "Inline",
    "Method",
    "Partial",
    "Sql",
    "Super",
    "Target",
    "Val",
    "annotation_types",
    "const",
    "fresh_of",
    "inner_token",
    "join",
    "join_all",
    "known",
    "param_token",
    "with_types",
]
