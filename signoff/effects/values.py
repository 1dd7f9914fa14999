"""The abstract values the effect analysis computes with.

A value (`Val`) says where an object may come from (`origin`: a parameter of the function being
analysed, ``"global"`` state, the database, or ``"unknown"``), where what it holds may come from
(`inner`), what static types it may have, and which objects or callables it is known to be. An
empty origin means a fresh object made inside the function: changing it is no effect.
What data read off an object of allow-listed code is (`allowed_data`) is decided here too.
"""

from __future__ import annotations

import ast
import collections
import decimal
import enum
import logging
import pathlib
import types
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from signoff.effects.bindings import held_kinds
from signoff.effects.effect import EffectKind
from signoff.effects.naming import qualified_name
from signoff.effects.tables import CHANGES_GLOBAL_STATE, IMMUTABLE_TYPES, is_sink, listed

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
    parts: tuple[type, ...] = ()
    """The record classes of its rows, in order, when it selects more than one (``select(A,
    B)``: each row a tuple of them; its scalars are the first's)."""
    query: bool = False
    """Whether it is a legacy ``session.query(...)`` (whose ``update``/``delete`` write)."""
    result: bool = False
    """Whether it is the result of running a statement (rows to read)."""
    within: tuple[tuple[EffectKind, str], ...] = ()
    """What it does more than read as a part of another statement, its text read as an
    expression (``select(literal_column("f()"))``, ``select(T).where(text("…"))``)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Inline:
    """A lambda or a function defined inside the function being analysed."""

    node: ast.Lambda | ast.FunctionDef | ast.AsyncFunctionDef
    """Its syntax."""
    frame: Any
    """The frame it was defined in (for its closure)."""
    hashes: bool = False
    """Whether a cache of it is what is called (``@functools.cache``): what it is given is
    hashed first."""


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
    kw: tuple[tuple[str, Val], ...] = ()
    """The keyword arguments bound, by name."""


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
    """The types of its items, when known (``list[Repair]`` → Repair; a mapping's keys)."""
    shape: Typed | None = None
    """What its items, a mapping's values and a tuple's parts are, as deep as known."""
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
    owners: frozenset[str] = EMPTY
    """The local names whose containers hold it (or are it), of a container that can change
    whose items are known: filled, or handed on, it lets them go too (`Frame.let_go`)."""
    beyond: bool = False
    """Whether, besides `objs`, it may be of its `types` some object not known one by one
    (``None``, or maybe a ``Loud()``; a class, or maybe one a registry holds)."""
    anew: bool = False
    """Whether it is a container made anew of others' items, bound to a name (``c =
    sorted(rows)``): none of its `owners` is it, so filling it leaves them as they were."""
    maybe: frozenset[type] = frozenset()
    """Of no known type, the classes the code seen gives it (an attribute its class's methods
    set: ``self.inner = Inner()``): what reading an attribute of it runs of theirs counts (a
    property), though a method of it called by name is still of no known code."""

    @property
    def reach(self) -> frozenset[str]:
        """Where anything reachable from it may come from."""
        return self.origin | self.inner

    def derived(self, **changes: Any) -> Val:
        """A value reached from this one (an attribute, an item, a call's result)."""
        reach = self.reach
        fields: dict[str, Any] = {"rec": self.rec, "pure": self.pure, **changes}
        return Val(origin=reach, inner=reach, **fields)

    def contents(self) -> Typed:
        """What is known of its types and what it holds (of a callable, nothing: what it is
        is its code, which a type does not say)."""
        if self.calls:
            return UNTYPED
        if self.shape is not None and self.shape.types == self.types:
            return self.shape
        return Typed(types=self.types, item=Typed(types=self.elem) if self.elem is not None else None)

    def reached(self, sub: Typed | None, **changes: Any) -> Val:
        """A value held by this one (an item, a value, a part) of what `sub` says, if anything."""
        if sub is None:
            return self.derived(**changes)
        return sub.on(self.derived(**changes))

    def taken(self, sub: Typed | None, **changes: Any) -> Val:
        """An item, a value or a part taken out of this container, of what `sub` says
        (`reached`); a container that can change, taken out, is held by this one's `owners`."""
        made = self.reached(sub, **changes)
        return replace(made, owners=self.owners) if self.owners and holder(made.types) else made

    @property
    def holds_known(self) -> bool:
        """Whether what it holds is known, of a container that can change, or of one that holds
        one (a tuple of lists) (`let_go`)."""
        if self.elem is None and (self.shape is None or not self.shape.holds()):
            return False
        return not _unchanging(self.types) or (self.shape is not None and self.shape.shares())

    @property
    def shares_known(self) -> bool:
        """Whether it holds containers that can change whose contents are known (a list of
        lists): a copy of it holds the same ones."""
        return self.shape is not None and self.shape.shares()

    @property
    def plain_container(self) -> bool:
        """Whether it is what allow-listed code gave, of no known type (``json.loads(s)``): a
        container, maybe, whose items only compute until the app's are put in it."""
        return self.pure and self.types is None

    def let_go(self, *, inner: bool = False, filled: bool = False) -> Val:
        """This container, handed on where it may be filled out of sight (another name, a
        function, another container): what it holds may be of any class besides those known
        (`Unseen` among them, at every depth) — the code of those known still runs (a
        property, ``__str__``), and a method of one named is of no known code. `inner`: what
        it holds was filled out of sight, not it: what that holds, at every depth. `filled`:
        it may have been filled (what allow-listed code gave is then no longer plain)."""
        if not self.holds_known:
            return replace(self, pure=False) if filled and self.plain_container else self
        if inner:  # (and nothing of it is plain now: its items' items, say, of ``json.loads``)
            return replace(self, shape=self.shape.widened_within() if self.shape else None,
                           pure=False)
        shape = self.shape.widened() if self.shape is not None else None
        return replace(self, elem=self.elem | {Unseen} if self.elem is not None else None,
                       shape=shape, pure=False)


class Unseen:
    """The class of an object the analysis does not know: one put into a container out of its
    sight (`Val.let_go`). Nothing of it is known: reading from it, or calling it, may do
    anything."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Typed:
    """What is known of a value's types and of what it holds; None where nothing is."""

    types: frozenset[type] | None = None
    """The value's possible types."""
    item: Typed | None = None
    """Its items (a mapping's keys)."""
    value: Typed | None = None
    """A mapping's values."""
    parts: tuple[Typed, ...] | None = None
    """A tuple's parts, by position."""

    def on(self, val: Val, **more: Any) -> Val:
        """`val` with these types (and `more` changes)."""
        elem = self.item.types if self.item is not None else None
        return replace(val, types=self.types, elem=elem, shape=self, **more)

    def holds(self) -> bool:
        """Whether anything is known of what it holds."""
        return self.item is not None or self.value is not None or self.parts is not None

    def shares(self) -> bool:
        """Whether what it holds, at any depth, is a container that can change whose contents
        are known (a list in a tuple)."""
        return any(held is not None and ((held.holds() and not _unchanging(held.types))
                                         or held.shares())
                   for held in (self.item, self.value, *(self.parts or ())))

    def widened(self) -> Typed:
        """What it holds, at every depth, may also be of a class not known (`Unseen`)."""
        return Typed(types=self.types,
                     item=self.item.also_unseen() if self.item is not None else None,
                     value=self.value.also_unseen() if self.value is not None else None,
                     parts=tuple(p.also_unseen() for p in self.parts) if self.parts else self.parts)

    def widened_within(self) -> Typed:
        """What what it holds holds, at every depth, may also be of a class not known."""
        return Typed(types=self.types,
                     item=self.item.widened() if self.item is not None else None,
                     value=self.value.widened() if self.value is not None else None,
                     parts=tuple(p.widened() for p in self.parts) if self.parts else self.parts)

    def also_unseen(self) -> Typed:
        """Of these types or of one not known (`Unseen`), and so what it holds."""
        return replace(self.widened(),
                       types=self.types | {Unseen} if self.types is not None else None)


HOLDERS = (list, dict, set, tuple, bytearray, collections.deque)
"""Python's containers (and their subclasses): what may hold another's items."""


def holder(kinds: frozenset[type] | None) -> bool:
    """Whether a value of `kinds` may be a container (another's item may be: `Val.taken`)."""
    return kinds is None or any(issubclass(k, HOLDERS) for k in kinds)


def _unchanging(kinds: frozenset[type] | None) -> bool:
    """Whether values of `kinds` never change what they hold (a tuple, a frozenset, an
    exception: its arguments, `shown_exceptions`)."""
    return bool(kinds) and all(issubclass(k, tuple | frozenset | BaseException)
                               for k in kinds or ())


UNTYPED = Typed()
"""Nothing known."""


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


def class_of(value: Val, apps: Callable[[type], bool]) -> Val:
    """``type(x)``: the classes `value` may be of, each a known object, with those of the
    app's (`apps`) deriving them when its types are not exact (a method of the class runs as
    the class says); of no known class, a class whose own members are of no known code (its
    name, what any class has, is text)."""
    kinds = value.types
    unknown = Val(types=frozenset({type}), pure=value.pure, origin=value.reach,
                  inner=value.reach, owners=value.owners)  # (its own members: no known code)
    if not kinds or Unseen in kinds:
        return unknown
    found: set[type] = set(kinds)
    stack: list[type] = []
    for kind in () if value.exact else kinds:
        stack.extend(type.__subclasses__(kind))
    while stack:
        sub = stack.pop()
        if sub not in found and apps(sub):
            found.add(sub)
            stack.extend(type.__subclasses__(sub))
        if len(found) > _MAX_CLASSES:  # (too many to follow: as of no known class)
            return unknown
    return join_all([known(kind) for kind in found])


_MAX_CLASSES = 48
"""The most classes `class_of` gives one by one."""


CARRIED = frozenset({"args", "__cause__", "__context__", "__notes__"})
"""What an exception carries of what it was raised with: anything."""

RELATIVES = frozenset({"mro", "__mro__", "__bases__", "__base__", "__subclasses__",
                        "__getattribute__", "__dict__"})
"""What a class gives of other classes (or of any attribute by its name, or its members
themselves): `relatives`."""


def relatives(attr: str) -> Val:
    """A class's relatives (``__mro__``, ``__bases__``, ``__base__``): classes whose own
    members are of no known code (their names are text); its ``__dict__``, a mapping of names
    to members of no known code; ``mro()``, ``__subclasses__()`` and ``__getattribute__``, of
    no known code."""
    of_classes = Typed(types=frozenset({type}))
    if attr in ("__mro__", "__bases__"):
        return Typed(types=frozenset({tuple}), item=of_classes).on(Val(inner=frozenset({GLOBAL})))
    if attr == "__base__":
        return of_classes.on(Val(origin=frozenset({GLOBAL})))
    if attr == "__dict__":
        return Typed(types=frozenset({dict}), item=Typed(types=frozenset({str})),
                     value=UNTYPED).on(Val(inner=frozenset({GLOBAL})))
    return Val(origin=frozenset({GLOBAL}), inner=frozenset({GLOBAL}))


def enum_member_data(base: Val, cls: type[enum.Enum], attr: str) -> Val:
    """``member.value`` (of the types of the members' values) or ``member.name`` (a str)."""
    if attr in ("name", "_name_"):
        return replace(base.derived(types=frozenset({str})), pure=True)
    if attr in ("value", "_value_"):
        kinds = frozenset(type(m.value) for m in cls)
        plain = bool(kinds) and kinds <= IMMUTABLE_TYPES
        return base.derived(types=kinds or None, pure=plain, objs=())
    return base.derived()


def known_held(obj: Any, *, qual: str = "") -> Val:
    """A known object a module holds (`known`): a container of Python's has its items typed by
    what it holds now (`bindings.held_kinds`; the binding kept of it sees them change)."""
    made = known(obj, qual=qual)
    kinds = held_kinds(obj)
    if kinds is None:
        return made
    items, values = kinds
    return Typed(types=made.types, item=Typed(types=items),
                 value=Typed(types=values) if type(obj) is dict else None).on(made)


def const(value: Any) -> Val:
    """The value of a literal."""
    return Val(types=frozenset({type(value)}), exact=True, objs=(value,))


def fresh_of(cls: type, *, inner: frozenset[str] = EMPTY, elem: frozenset[type] | None = None,
             shape: Typed | None = None) -> Val:
    """A fresh object of exactly `cls` (holding what `shape` says, when given)."""
    made = Val(types=frozenset({cls}), exact=True, inner=inner, elem=elem)
    if shape is None:
        return made
    return Typed(types=made.types, item=shape.item, value=shape.value, parts=shape.parts).on(made)


def grown(base: Val, *, item: Val | None = None, value: Val | None = None) -> Val:
    """A container `base` holds what it held, and now `item` among its items (a mapping's
    keys) or `value` among a mapping's values: what its shape says of them widened to either
    (unknown where either is). Those holding what it is given hold it too (`Val.owners`)."""
    given = frozenset().union(*(v.owners for v in (item, value) if v is not None))
    if given - base.owners:
        base = replace(base, owners=base.owners | given)
    if base.pure and not only_plain(item, value):
        base = replace(base, pure=False)  # (what allow-listed code gave, holding the app's now)
    held = base.shape
    if held is None:  # (what its items are may still be known: a list made of them)
        if base.elem is None or item is None:
            return base
        return replace(base, elem=None if item.types is None else base.elem | item.types)
    return Typed(types=base.types, parts=held.parts,
                 item=held.item if item is None else _either(held.item, item),
                 value=held.value if value is None else _either(held.value, value)).on(base)


def _either(held: Typed | None, added: Val) -> Typed | None:
    return merged(held, added.contents())


def merged(a: Typed | None, b: Typed | None) -> Typed | None:
    """What is known of a value that is either `a` or `b`, at every depth (None: nothing)."""
    if a is None or b is None:
        return None
    if a == b:
        return a
    if a.types is not None and not a.types and not a.holds():  # (nothing yet: the items of
        return b                                                 # an empty container)
    if b.types is not None and not b.types and not b.holds():
        return a
    if a.types is None or b.types is None:
        return None
    parts = None
    if a.parts is not None and b.parts is not None and len(a.parts) == len(b.parts):
        parts = tuple(merged(x, y) or UNTYPED for x, y in zip(a.parts, b.parts, strict=True))
    return Typed(types=a.types | b.types, item=merged(a.item, b.item),
                 value=merged(a.value, b.value), parts=parts)



def _either_statement(a: Sql | None, b: Sql | None) -> Sql | None:
    """What a value that is one statement or another (``select(A) if x else update(A)``) does
    when run, and as a part of another (``text("f()") if x else text("1=1")``): what either
    does (never the first alone, which may be the one that only reads)."""
    if a is None or b is None or a == b:
        return a or b
    return Sql(effects=tuple(dict.fromkeys(a.effects + b.effects)), reason=a.reason or b.reason,
               row=a.row if a.row is b.row else None,
               parts=a.parts if a.parts == b.parts else (), query=a.query or b.query,
               result=a.result and b.result, within=tuple(dict.fromkeys(a.within + b.within)))


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
        shape=a.shape if a.shape == b.shape else _joined_shape(a, b),
        rec=a.rec or b.rec,
        objs=_unique(a.objs + b.objs),
        qual=a.qual if a.qual == b.qual else "",
        calls=a.calls + tuple(c for c in b.calls if c not in a.calls),
        pure=_plain(a) and _plain(b),
        sql=_either_statement(a.sql, b.sql),
        owners=a.owners | b.owners,
        anew=a.anew and b.anew,
        maybe=a.maybe | b.maybe,
        beyond=a.beyond or b.beyond or (bool(a.objs or b.objs) and (_unlisted(a) or _unlisted(b))),
    )


def _unlisted(v: Val) -> bool:
    """Whether `v` may be of a type some object not known one by one (not a function it is
    known to be only by its code, `Val.calls`)."""
    return not v.objs and (v.types is None or bool(v.types))


def _joined_shape(a: Val, b: Val) -> Typed | None:
    """What either of two values holds, where both say (`merged`)."""
    if a.shape is None or b.shape is None or a.types is None or b.types is None:
        return None
    return merged(a.contents(), b.contents())


def only_plain(*given: Val | None) -> bool:
    """Whether each of `given` is of values whose methods only compute, at every depth (what
    allow-listed code gave, text, numbers, containers written out of those)."""
    return all(_all_plain(v.contents()) if v.types is not None else v.pure and (
        v.shape is None or v.shape.item is None or _all_plain(v.shape.item))  # (a generator's)
               for v in given if v is not None)


def _all_plain(held: Typed | None) -> bool:
    """Whether what `held` says is only of values whose methods only compute, at every depth
    (a dict of numbers written out; nothing, in an empty container)."""
    if held is None or held.types is None:
        return False
    if held.types <= IMMUTABLE_TYPES - {tuple, frozenset}:
        return True
    if not held.types <= {list, dict, set, tuple, frozenset}:
        return False
    if held.parts is not None:
        return all(_all_plain(part) for part in held.parts)
    if dict in held.types and not _all_plain(held.value):
        return False
    return _all_plain(held.item)


def _plain(v: Val) -> bool:
    """Whether methods of `v` only compute: it came from allow-listed code, or is a str, an int…"""
    if v.pure:
        return True
    if v.types and not v.owners and _all_plain(v.contents()):  # (``[]``, ``{"n": 1}``: made
        return True                                          # here of text and numbers)
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


__all__ = [
    "CARRIED",
    "DB",
    "EMPTY",
    "FRESH",
    "GLOBAL",
    "RELATIVES",
    "UNKNOWN",
    "UNTYPED",
    "Args",
    "BuiltinMethod",
    "Inline",
    "Method",
    "Partial",
    "Sql",
    "Super",
    "Target",
    "Typed",
    "Val",
    "acts",
    "allowed_data",
    "class_of",
    "const",
    "enum_member_data",
    "fresh_of",
    "grown",
    "inner_token",
    "join",
    "join_all",
    "known",
    "known_held",
    "merged",
    "only_plain",
    "param_token",
    "process_wide",
    "relatives",
]


# --- What data of allow-listed objects is ------------------------------------------------
# What reading data off an object of allow-listed code gives (``path.parent``,
# ``logger.handlers``): a value whose methods only compute — unless the object's class has
# methods that reach outside or change the process's state, whose data may be another such object
# (``Path(p).parent.write_text(…)``, ``logging.getLogger(n).parent.setLevel(…)``), or is one of
# Python's own that holds whatever the app put there (``helper.__globals__["os"]``). Such data is
# of the type this table knows, or of no known type (so that calling a method of it is of no known
# code), never taken to only compute.

_SAME = object()
"""In `_DATA`: of the class of the object it is read off (a path's parent is a path)."""

_TEXT = Typed(types=frozenset({str}))

_DATA: dict[type, dict[str, object]] = {
    pathlib.PurePath: {
        "parent": _SAME, "parents": "sequence", "name": _TEXT, "stem": _TEXT, "suffix": _TEXT,
        "anchor": _TEXT, "drive": _TEXT, "root": _TEXT,
        "suffixes": Typed(types=frozenset({list}), item=_TEXT),
        "parts": Typed(types=frozenset({tuple}), item=_TEXT),
    },
    logging.Logger: {
        "parent": Typed(types=frozenset({logging.Logger})),
        "root": Typed(types=frozenset({logging.RootLogger})),
        "handlers": Typed(types=frozenset({list}), item=Typed(types=frozenset({logging.Handler}))),
        "name": _TEXT, "level": Typed(types=frozenset({int})),
        "propagate": Typed(types=frozenset({bool})), "disabled": Typed(types=frozenset({bool})),
    },
    logging.LoggerAdapter: {"logger": Typed(types=frozenset({logging.Logger}))},
    logging.Handler: {
        "name": _TEXT, "level": Typed(types=frozenset({int})),
        "formatter": Typed(types=frozenset({logging.Formatter})),
    },
}
"""The data of allow-listed classes that act (`acts`) whose type is known, by attribute."""

_PROCESS_WIDE: tuple[type, ...] = (logging.Logger, logging.Handler, decimal.Context)
"""Classes whose objects, as allow-listed code gives them, are the process's own: a logger (one
per name), its handlers, the thread's decimal context (``decimal.getcontext()``: its precision
and rounding are every later calculation's in the thread). Changing one changes the process's
state."""


_HOLDING_ANYTHING: tuple[type, ...] = (
    types.FunctionType, types.MethodType, types.CellType, types.FrameType, types.TracebackType,
    types.GeneratorType, types.CoroutineType, types.AsyncGeneratorType, types.SimpleNamespace,
    types.ModuleType, property, staticmethod, classmethod, super)
"""Python's own classes whose data is whatever the app put there: a function's ``__globals__``
(its module's names: ``os`` among them), ``__closure__``, ``__defaults__``; a bound method's
``__self__``; a frame's ``f_locals``; a cell's ``cell_contents``."""

_DESCRIBING = frozenset({"__name__", "__qualname__", "__doc__", "__module__"})
"""What a callable says of itself, in words."""


def allowed_data(base: Val, cls: type, attr: str) -> Val:
    """``base.attr``, data (an attribute, a property) of `base`, an object of the allow-listed
    class `cls`."""
    if issubclass(cls, _HOLDING_ANYTHING) and attr not in _DESCRIBING:  # (of no known type:
        return replace(base.derived(pure=False), origin=base.reach | {GLOBAL})  # a module's)
    if not acts(cls):
        return replace(base.derived(), pure=True)
    reached = base.derived(pure=False)
    if issubclass(cls, _PROCESS_WIDE):  # (what it holds is the process's too:
        reached = replace(reached, origin=reached.origin | {GLOBAL})  # ``parent.disabled = 1``)
    for owner in cls.__mro__:
        known = _DATA.get(owner, {}).get(attr)
        if known is _SAME:
            return replace(reached, types=frozenset({cls}), pure=base.pure)
        if known == "sequence":
            return Typed(types=frozenset({tuple}), item=Typed(types=frozenset({cls}))).on(
                replace(reached, pure=base.pure))
        if isinstance(known, Typed):
            return process_wide(known.on(replace(reached, pure=True)))
    return reached


@lru_cache(maxsize=512)
def acts(cls: type) -> bool:
    """Whether the allow-listed class `cls` has a method that reaches outside or changes the
    process's state (a path's ``write_text``, a logger's ``setLevel``)."""
    named = qualified_name(cls)
    try:
        members = dir(cls)
    except Exception:  # a class whose members cannot be listed: assume it may
        return True
    return any(is_sink(f"{named}.{member}") or listed(CHANGES_GLOBAL_STATE, f"{named}.{member}")
               for member in members)


def process_wide(made: Val) -> Val:
    """`made`, what allow-listed code gave, as the process's own when it is of a class whose
    objects are (``logging.getLogger(n)``: the logger of that name, shared by all): changing it
    is a change."""
    if made.types and all(issubclass(t, _PROCESS_WIDE) for t in made.types):
        return replace(made, origin=made.origin | {GLOBAL}, exact=False)
    return made
