"""Python's containers in the effect analysis: what a list, dict or set holds, and for how long
that is known.

What a container made in the function holds is known while it stays with its name: read,
iterated, counted, handed to what keeps nothing (`keeps_nothing`), or filled by its own methods
where the walk sees it (`GROWING`). Handed on where it may be filled out of sight — a function
that keeps it (a function of the app's says which it keeps: `followed`), a lazy iterator,
another container — it is let go (`signoff.effects.frame.Frame.let_go`: what it holds may then
be of any class besides those known), and so is what the containers holding it hold
(`Val.owners`). The methods' results are typed by what it holds.
"""

from __future__ import annotations

import ast
import collections
import collections.abc
import csv
import functools
import heapq
import inspect
import io
import itertools
import json
import types
import typing
from dataclasses import replace
from typing import Any

import pydantic

from signoff.effects import pydantic_models
from signoff.effects.naming import of_builtins
from signoff.effects.scope import Scope
from signoff.effects.tables import (
    CONTAINER_METHODS,
    CONTAINER_READERS,
    CONTAINER_VIEWS,
    KEEPS_NOTHING,
    KEEPS_NOTHING_METHODS,
    KEEPS_WHILE_CALLED,
    KEPT_BY_METHODS,
    MUTATING_METHODS,
    PYTHON_CONTAINERS,
    is_pure_name,
)
from signoff.effects.values import (
    HOLDERS,
    UNTYPED,
    Args,
    BuiltinMethod,
    Inline,
    Method,
    Typed,
    Val,
    fresh_of,
    grown,
    holder,
    join,
    join_all,
    merged,
    only_plain,
)

__all__ = [
    "GROWING",
    "SHAPED_RESULTS",
    "filled_elsewhere",
    "followed",
    "given_together",
    "grow_within",
    "grown_by",
    "grown_within",
    "hands_items_on",
    "holding_given",
    "keep_displayed",
    "keep_reader",
    "keeps_keyword",
    "keeps_nothing",
    "keeps_starred",
    "kept_receiver",
    "made_iterable",
    "method_result",
    "named_by",
    "of_python",
    "only_reads",
    "shares",
    "sharing",
    "takes_plain",
]


_TEXT = Typed(types=frozenset({str}))
_TEXTS = Typed(types=frozenset({list}), item=_TEXT)

SHAPED_RESULTS: dict[str, Typed] = {
    "_csv.reader": Typed(types=frozenset({type(csv.reader(()))}), item=_TEXTS),
    "_csv.writer": Typed(types=frozenset({type(csv.writer(io.StringIO()))})),
    **{f"textwrap.{made}": _TEXT for made in ("fill", "indent", "shorten")},
    "textwrap.wrap": _TEXTS,
    "shlex.split": _TEXTS,
    "shlex.join": _TEXT,
}
"""What allow-listed calls give that holds what they say: a csv reader's rows are lists of
text; a csv writer writes to the stream it was given, whose ``write`` was followed as it was
made (`special.runs_unnamed`); new text, and lists of it, by the functions of Python's that
make them anew (``textwrap.wrap``; not those that may give back what they were given, a ``str``
of the app's class: ``shlex.quote``, ``html.escape``, ``textwrap.dedent``)."""


def kept_receiver(frame: Scope, func: ast.expr, used_up: bool) -> str:
    """The method of Python's containers a call of `func` is (``xs.append``; a live view,
    ``xs.items``, only where what it gives is `used_up` at once), its receiver kept with its
    name (`Scope.keep`); "" when it is none."""
    if not isinstance(func, ast.Attribute) or not (
            func.attr in CONTAINER_METHODS or (used_up and func.attr in CONTAINER_VIEWS)):
        return ""
    receiver = func.value
    if not isinstance(receiver, ast.Name) or of_python(held := frame.name(receiver.id)) or (
            held.plain_container):  # (what allow-listed code gave: ``json.loads(s)``)
        frame.keep(receiver)
    return func.attr


GROWING = frozenset({"append", "add", "insert", "extend", "update", "setdefault", "appendleft",
                     "extendleft", "symmetric_difference_update"})
"""The methods by which Python's containers take in what they are given."""


def shaped_result(q: str, args: Args) -> Val:
    """What the allow-listed call `q` of `SHAPED_RESULTS` gives: what that says — but for
    text it was given that may not be text (``html.unescape(x)`` gives x back, the methods of
    its class run on it): of no known type."""
    given = args.pos[0] if args.pos else None
    if given is not None and q == "shlex.join":  # (its text: what the list holds)
        given = (given.contents().item or UNTYPED).on(Val(pure=given.pure))
    if q.startswith("_csv.") or given is None or given.pure or (
            given.types is not None and given.types <= {str}):
        return SHAPED_RESULTS[q].on(Val(pure=True))
    return Val(origin=given.reach, inner=given.reach)


def given_together(frame: Scope, fv: Val, given: list[Val], func: ast.expr) -> None:
    """What allow-listed code gave, handed with the others of `given` to what may put them
    into it (``list.append(g, x)``, ``heapq.heappush(g, x)``), or filled by its own method
    `fv` (``g.__init__(xs)``; ``add(x)``, a method kept): unless each of them only computes
    too, it holds the app's objects now (`Val.let_go`, `filled`). A copy filled (`Val.anew`)
    is let go by its growing alone."""
    fills = fv.qual.rsplit(".", 1)[-1] in _INSERTING or fv.qual in _FILLING
    plain = [v for v in given if v.plain_container] if fills else []
    method = func.attr if isinstance(func, ast.Attribute) else ""
    copied = isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and (
        frame.name(func.value.id).anew) and method in GROWING  # (grown by its name: `grow`)
    if not fv.calls and fv.types is None and (method in _INSERTING or not method) and not copied:
        plain.append(fv)  # (a method of it, or of one it holds; one kept, not named here)
    if plain and not only_plain(*(v for v in given if not _python_class(v))):
        for value in plain:
            frame.let_go_all(value.owners, filled=True)
            frame.released(value)  # (a caller's, filled: `Summary.releases`)


_INSERTING = GROWING | {"__setitem__", "__init__", "__iadd__", "__ior__", "__ixor__",
                        "__iand__", "__isub__", "__imul__", "__iconcat__", "setitem", "iadd",
                        "ior", "iconcat"}
"""The methods (and operator's functions) that may put what they are given into a container."""

_FILLING = frozenset({"heapq.heappush", "heapq.heappushpop", "heapq.heapreplace", "bisect.insort",
                      "bisect.insort_left", "bisect.insort_right", "_bisect.insort",
                      "_bisect.insort_left", "_bisect.insort_right", "_heapq.heappush",
                      "_heapq.heappushpop", "_heapq.heapreplace"})
"""Allow-listed functions that put what they are given into the container given first."""


def holding_given(made: Val, given: list[Val]) -> Val:
    """What allow-listed code gave back, of what allow-listed code gave it (`given`): it may
    be one of them, hold them, or be a method of one (``copy.copy(g)``, ``getattr(g, "x")``):
    held by what holds them (`Val.owners`)."""
    if not made.plain_container:
        return made
    owners = frozenset().union(*(v.owners for v in given if v.plain_container))
    return replace(made, owners=made.owners | owners) if owners else made


def takes_plain(fv: Val) -> bool:
    """Whether what allow-listed code gave, handed to `fv`, stays with its names
    (`Scope.bind`): `fv` is allow-listed, or a local function walked where it is called (what
    it puts in it is seen there; `given_together` for the rest)."""
    return fv.pure or is_pure_name(fv.qual) or any(isinstance(t, Inline) for t in fv.calls)


def _python_class(value: Val) -> bool:
    """Whether `value` is one of Python's own classes (``isinstance(g, dict)``)."""
    return bool(value.objs) and all(isinstance(o, type) and of_builtins(o)
                                    for o in value.objs)


def filled_elsewhere(frame: Scope, fv: Val, name: str, *, filled: bool) -> None:
    """``rows[0].append(x)``: a container taken out of others is filled, or is not one of
    Python's (whose method may do anything with it): those holding it are let go. A method
    of what allow-listed code gave (text a function of Python's made) is let go only where
    it is given the app's objects (`given_together`)."""
    if not fv.calls and fv.types is None and name in MUTATING_METHODS:
        frame.released(fv)  # (a caller's, filled: `Summary.releases`)
    for target in fv.calls:
        held = target.self_val if isinstance(target, BuiltinMethod | Method) else None
        if held is None:
            continue
        python = isinstance(target, BuiltinMethod) and (of_python(held) or held.pure)
        if not python or name in MUTATING_METHODS:
            frame.let_go_all(held.owners, filled=filled or not python)  # (`filled`: by
            # what it is given that is not plain, or by a method not of Python's)
            frame.released(held)  # (a caller's, in a copy of its list: `Summary.releases`)


def of_python(value: Val) -> bool:
    """Whether `value` is one of Python's own containers (their methods: `CONTAINER_METHODS`)."""
    return value.types is not None and bool(value.types) and value.types <= PYTHON_CONTAINERS


def keeps_nothing(fv: Val, node: ast.Call, used_up: bool) -> bool:
    """Whether calling `fv` keeps none of the containers it is given, nor gives one back (a
    container handed to it stays with its name: `Scope.keep`): a builtin that keeps nothing,
    one that iterates lazily where what it gives is `used_up` at once, a method of Python's
    containers that takes in only what its argument holds (``xs.extend(ys)``)."""
    if fv.objs and not fv.calls and all(_plain_model(o) for o in fv.objs):
        return True  # (pydantic makes its fields' lists and dicts anew, of the same items)
    if fv.objs and not fv.calls:
        if len(node.args) > 1 and any(o in (max, min) for o in fv.objs):
            return False  # (``max(xs, ys)`` gives one of them back)
        if len(node.args) > 1 and any(o is sum for o in fv.objs) and not _a_number(node.args[1]):
            return False  # (``sum(xss, [])`` gives their items back, in one list)
        return all(_among(o, KEEPS_NOTHING) or (used_up and _among(o, KEEPS_WHILE_CALLED))
                   for o in fv.objs)
    return bool(fv.calls) and not fv.objs and all(
        isinstance(c, BuiltinMethod) and (c.qual.startswith("builtins.")
                                          or c.qual == "collections.deque.copy"
                                          or c.qual in KEEPS_NOTHING_METHODS)
        and c.name not in KEPT_BY_METHODS for c in fv.calls)


_HANDS_ITEMS_ON = frozenset({sorted, min, max, map, filter, heapq.nlargest, heapq.nsmallest,
                             itertools.groupby,
                             itertools.filterfalse, itertools.takewhile, itertools.dropwhile,
                             itertools.accumulate, itertools.starmap, functools.reduce})
"""Builtins that hand the items they are given to a function they are given."""


def hands_items_on(frame: Scope, fv: Val, node: ast.Call) -> bool:
    """Whether the call hands the items of what it is given to a function it is given
    (``map(f, rows)``, ``sorted(rows, key=f)``) whose code is not walked with them here (a
    lambda written there is: what it does with them is seen), nor keeps nothing
    (``sorted(rows, key=len)``)."""
    callback = _callback(fv, node)
    if isinstance(callback, ast.Lambda):
        return False
    if isinstance(callback, ast.Name):
        given = frame.name(callback.id)
        if given.objs and not given.calls and all(_among(o, KEEPS_NOTHING) for o in given.objs):
            return False
    return bool(node.args or node.keywords) and any(
        _among(o, _HANDS_ITEMS_ON) for o in fv.objs) and (
        fv.objs[0] in (map, itertools.starmap, functools.reduce) or len(node.args) > 1
        or any(k.arg == "key" for k in node.keywords))


_CALLBACK_FIRST = (map, filter, itertools.starmap, functools.reduce, itertools.filterfalse,
                   itertools.takewhile, itertools.dropwhile)
"""Builtins of `_HANDS_ITEMS_ON` given their function first."""


def keep_reader(frame: Scope, node: ast.expr) -> None:
    """``sorted(index, key=index.get)``: a method of a container of Python's that only reads
    it, handed to what keeps nothing, leaves the container with its name (`Scope.keep`) — but
    for one holding containers whose contents are known (``rows.get`` gives one to fill)."""
    if (isinstance(node, ast.Attribute) and node.attr in CONTAINER_READERS
            and isinstance(node.value, ast.Name)):
        held = frame.name(node.value.id)
        if of_python(held) and not held.shares_known:
            frame.keep(node.value)


def _callback(fv: Val, node: ast.Call) -> ast.expr | None:
    """The function a builtin of `_HANDS_ITEMS_ON` is handed, as written; None when none."""
    if len(fv.objs) != 1 or not _among(fv.objs[0], _HANDS_ITEMS_ON):
        return None
    named = {k.arg: k.value for k in node.keywords}
    if fv.objs[0] in _CALLBACK_FIRST:
        return node.args[0] if node.args else named.get("function")
    if fv.objs[0] in (itertools.accumulate, itertools.groupby) and len(node.args) > 1:
        return node.args[1]
    if fv.objs[0] in (heapq.nlargest, heapq.nsmallest) and len(node.args) > 2:
        return node.args[2]
    return named.get("key", named.get("func"))


def shares(frame: Scope, node: ast.expr) -> bool:
    """Whether `node` names a container whose items are containers of known contents (a list of
    lists), or a parameter's whose items are not known (they may be the caller's lists): a
    function handed its items may fill them."""
    if not isinstance(node, ast.Name):
        return False
    named = frame.name(node.id)
    return named.shares_known or (not named.holds_known and any(
        t[:2] == "p:" for t in named.reach))


def named_by(node: ast.expr, *, top: bool = False) -> list[str]:
    """The local names whose very container `node` may give (not an item of one): a walrus's,
    a ``BoolOp``'s values, an ``IfExp``'s branches (at the `top`, not its names: `grown_by`
    grows those)."""
    if isinstance(node, ast.Name):
        return [] if top else [node.id]
    if isinstance(node, ast.IfExp):
        return [name for branch in (node.body, node.orelse)
                if not (top and isinstance(branch, ast.Name)) for name in named_by(branch)]
    if isinstance(node, ast.BoolOp):
        return [name for value in node.values for name in named_by(value)]
    if isinstance(node, ast.NamedExpr):
        return [node.target.id, *named_by(node.value)] if isinstance(
            node.target, ast.Name) else named_by(node.value)
    return []


_ONLY_READ = frozenset({len, print, repr, str, format, ascii, bool, hash, id, isinstance,
                        json.dumps, json.dump})
"""Calls that only read what they are given — give none of it back, hand none of it on — so
what the displays they are given are made of stays with its names (`keep_displayed`)."""


def only_reads(fv: Val) -> bool:
    """Whether calling `fv` only reads what it is given (`_ONLY_READ`, a log's method)."""
    if fv.objs and not fv.calls:
        return all(_among(o, _ONLY_READ) for o in fv.objs)
    return bool(fv.calls) and all(
        isinstance(c, BuiltinMethod) and c.qual.startswith("logging.Logger.") for c in fv.calls)


def keep_displayed(frame: Scope, node: ast.expr) -> None:
    """The names a display handed to a call that `only_reads` is made of, at any depth (a dict
    of lists), stay with their containers."""
    parts: list[ast.expr | None] = []
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        parts = list(node.elts)
    elif isinstance(node, ast.Dict):
        parts = [*node.keys, *node.values]
    for part in parts:
        if part is not None and not isinstance(part, ast.Starred):
            frame.keep(part)
            keep_displayed(frame, part)


def followed(frame: Scope, fv: Val) -> bool:
    """Whether the call is of functions of the app's the analysis follows by their summaries,
    which say which of the containers they are given they hand on or fill
    (`Summary.releases`): those are let go after the call, the others stay with their names."""
    functions = [*fv.objs, *(c.func for c in fv.calls if isinstance(c, Method))]
    return bool(functions) and len(functions) == len(fv.objs) + len(fv.calls) and all(
        isinstance(f, types.FunctionType) and "__wrapped__" not in f.__dict__
        and frame.an.is_app_code(f) for f in functions)


def keeps_starred(fv: Val, keeps: bool) -> bool:
    """Whether the items of a container handed on starred (``f(*xs)``) stay with it: only for a
    call that `keeps_nothing` and gives none of them back (not ``max(*xs)``)."""
    return keeps and not any(o in (max, min) for o in fv.objs)


def keeps_keyword(fv: Val, keyword: str | None, keeps: bool) -> bool:
    """Whether a container handed on by keyword (``**d`` when `keyword` is None) stays with
    its name: only for a builtin function that `keeps_nothing` — not ``dict(a=xs)``, which holds
    it, nor ``max(xs, default=ys)``, which may give it back, nor a method (``d.update(a=xs)``)."""
    if keyword is None:
        return True
    return keeps and bool(fv.objs) and not any(o in (dict, max, min) for o in fv.objs)


def sharing(made: Val, given: list[Val]) -> Val:
    """What a call that keeps nothing gave back (`keeps_nothing`), held by the containers it
    was given: a copy of a list of lists holds the same lists (``sorted(rows)``), so filling
    one of them through it lets those go too (`Val.owners`)."""
    owners = frozenset().union(*(v.owners for v in given))
    if not owners or not (made.shares_known or any(v.shares_known for v in given)):
        return made  # (items that cannot be filled are not shared)
    return replace(made, owners=made.owners | owners)


def _plain_model(obj: Any) -> bool:
    """Whether `obj` is a pydantic model that keeps nothing it is made of: its making runs no
    code of the app's (its own ``__init__``, a validator: one given the caller's very list may
    fill it), and each field is rebuilt by pydantic all the way down (a ``list[str]``, a
    ``dict[str, int]``, a model of such) — not kept as given (``Any``, ``object``, a
    ``Sequence``, ``SkipValidation``, ``InstanceOf``) nor holding what it was given's own lists
    (``list[list[str]]`` copies the outer list alone)."""
    if not (isinstance(obj, type) and pydantic_models.is_model(obj)) or (
            inspect.getattr_static(obj, "__init__") is not pydantic.BaseModel.__init__):
        return False
    models = pydantic_models.models_in(obj)
    return not any(pydantic_models.hooks(model, serializing=False) for model in models) and all(
        not info.metadata and _rebuilt(info.annotation)
        for model in models for info in (getattr(model, "__pydantic_fields__", None) or {}).values())


def _rebuilt(annotation: Any, depth: int = 0) -> bool:
    """Whether pydantic makes a value of `annotation` anew from what it is given, sharing no
    container of it: an object that is no container (a scalar, a model — `_plain_model` checks
    its fields — an object of the app's), or a list, set, tuple or dict of those."""
    if isinstance(annotation, type):  # (an object of a class that holds no container of its
        return annotation not in (object, typing.Any) and not issubclass(  # own: kept)
            annotation, HOLDERS)
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        return all(_rebuilt(arg, depth) for arg in args)
    if origin in (list, set, frozenset, tuple, dict) and depth == 0 and args:
        return all(arg is Ellipsis or _rebuilt(arg, depth + 1) for arg in args)
    return False


def _a_number(node: ast.expr) -> bool:
    """Whether `node` plainly makes a number (``0``, ``Decimal(0)``, ``Decimal("0.00")``)."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, int | float | complex)
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name | ast.Attribute)
            and (node.func.id if isinstance(node.func, ast.Name) else node.func.attr) in (
                "Decimal", "Fraction", "int", "float", "timedelta"))


def _among(obj: Any, known: frozenset[Any]) -> bool:
    try:
        return obj in known
    except TypeError:  # (an object that cannot be hashed is none of them)
        return False


def grown_by(frame: Scope, called: ast.Attribute, pos: list[Val], kw: dict[str, Val]) -> None:
    """What a local container holds after one of `GROWING` took `pos` (and a dict's `kw`) in
    (either of two, for ``(a if c else b).append(x)``)."""
    receiver = called.value
    names = [receiver] if isinstance(receiver, ast.Name) else [
        r for r in (receiver.body, receiver.orelse) if isinstance(r, ast.Name)
    ] if isinstance(receiver, ast.IfExp) else []
    for held in names:
        _grown(frame, held, frame.name(held.id), called.attr, pos, kw)


_TAKING_ONE = frozenset({"append", "add", "insert", "appendleft"})
_TAKING = _TAKING_ONE | {"extend", "extendleft", "update"}
_FILLED_WITHIN = frozenset({list, set, collections.deque})


def grown_within(frame: Scope, func: ast.expr) -> ast.Name | None:
    """``groups.setdefault(k, []).append(x)``, ``groups[k].append(x)``: a list (a set, a
    deque) that a local dict or list of Python's holds, filled where it is held — the name of
    that dict or list, where what it holds is known (its list is then grown where it is held,
    `grow_within`, its own kept with its name); None for any other call."""
    if not isinstance(func, ast.Attribute) or func.attr not in _TAKING:
        return None
    held_by = func.value
    taking = isinstance(held_by, ast.Call) and isinstance(held_by.func, ast.Attribute) and (
        held_by.func.attr in ("setdefault", "get"))
    if isinstance(held_by, ast.Subscript) and not isinstance(held_by.slice, ast.Slice):
        outer = held_by.value
    elif taking and isinstance(held_by, ast.Call) and isinstance(held_by.func, ast.Attribute):
        outer = held_by.func.value
    else:
        return None
    base = frame.name(outer.id) if isinstance(outer, ast.Name) else None
    if base is None or not (of_python(base) and base.holds_known):
        return None
    mapping = all(issubclass(t, dict) for t in base.types or ())
    if not mapping and (taking or not (base.types or set()) <= {list}):
        return None
    held = base.contents().value if mapping else base.contents().item
    stored = taking and isinstance(held_by, ast.Call) and isinstance(held_by.func, ast.Attribute) \
        and held_by.func.attr == "setdefault"  # (into a dict holding nothing yet: its default)
    if held is None or held.types is None or not held.types <= _FILLED_WITHIN or (
            not held.types and not stored):
        return None
    frame.keep(held_by)
    return outer if isinstance(outer, ast.Name) else None


def grow_within(frame: Scope, outer: ast.Name, func: ast.Attribute, pos: list[Val]) -> None:
    """What `grown_within` found filled, grown where it is held: the list a dict's values
    (a list's items) are holds what it was given now, and the containers holding that dict or
    list, which may be the very list, are let go."""
    if not pos:
        return
    base = frame.name(outer.id)
    mapping = all(issubclass(t, dict) for t in base.types or ())
    inside = base.contents().value if mapping else base.contents().item
    if inside is None or not inside.types or not inside.types <= _FILLED_WITHIN:
        frame.let_go(outer.id, inner=True, filled=not only_plain(*pos))  # (a default not a
        return                                                         # list: what it holds)
    held = base.taken(inside)
    frame.released(held)  # (a caller's list, held here: `Summary.releases`)
    added = pos[-1] if func.attr in _TAKING_ONE else join_all([frame.iterate(p) for p in pos])
    if mapping:
        frame.grow(outer, value=grown(held, item=added))
    else:
        frame.grow(outer, item=grown(held, item=added))
    frame.let_go_all(base.owners - {outer.id}, inner=False)


def _grown(frame: Scope, receiver: ast.Name, base: Val, name: str, pos: list[Val],
           kw: dict[str, Val]) -> None:
    if base.types is None and base.pure:  # (what allow-listed code gave: ``json.loads(s)``)
        taken_in = ("extend", "extendleft", "update", "symmetric_difference_update")
        items = [v for p in pos for v in (_entries(frame, p) if name == "update" else (
            frame.iterate(p),))] if name in taken_in else pos  # (a dict's keys and values)
        for given in [*items, *kw.values()]:
            frame.grow(receiver, item=given)
        frame.released(base)  # (a caller's, filled: `Summary.releases`)
        return
    if not base.types:
        return
    if all(issubclass(t, dict) for t in base.types):
        if name == "setdefault" and len(pos) > 1:
            frame.grow(receiver, item=pos[0], value=pos[1])
        elif name == "update":
            for given in pos[:1]:
                key, value = _entries(frame, given)
                frame.grow(receiver, item=key, value=value)
            for value in kw.values():  # (``d.update(name=x)``)
                frame.grow(receiver, item=fresh_of(str), value=value)
    elif not pos:
        return
    elif base.types <= {list, set, bytearray, collections.deque}:
        added = pos[-1] if name in ("append", "add", "insert", "appendleft") else join_all(
            [frame.iterate(p) for p in pos])  # (``s.update(a, b)``: either's)
        frame.grow(receiver, item=added)


def _any_of(values: list[Val]) -> Typed | None:
    """What any of `values` is (`merged`)."""
    return _any_typed([value.contents() for value in values])


def _any_typed(typed: list[Typed]) -> Typed | None:
    """What is of any of `typed` (`merged`)."""
    held: Typed | None = typed[0]
    for each in typed[1:]:
        held = merged(held, each)
    return held


def _entries(frame: Scope, given: Val) -> tuple[Val, Val]:
    """A key and a value of what a dict is updated with: a mapping, or an iterable of pairs
    (``d.items()``); the containers among them held by `given`'s names (`Val.owners`)."""
    held = given.contents()
    if given.types and all(issubclass(t, dict) for t in given.types):
        return given.taken(held.item), given.taken(held.value)
    pair = frame.iterate(given)
    parts = pair.contents().parts
    if parts is not None and len(parts) == 2:
        return pair.taken(parts[0]), pair.taken(parts[1])
    return frame.item(pair), frame.item(pair)


def method_result(base: Val, name: str, args: Args | None = None) -> Val:
    """What a method of a list, dict or set gives back, typed by what the container holds (a
    dict's ``get``, ``pop`` and ``setdefault``: that, or the default given)."""
    rec = base.rec
    held = base.contents()
    default = args.pos[1] if args is not None and len(args.pos) > 1 else None
    if base.types and all(issubclass(t, dict) for t in base.types):
        # (a view holds what the dict holds: the containers among them are its names' own)
        if name == "values":
            return sharing(fresh_of(list, inner=base.reach, shape=Typed(item=held.value)), [base])
        if name == "keys":
            return sharing(fresh_of(list, inner=base.reach, shape=Typed(item=held.item)), [base])
        if name == "items":
            pair = Typed(types=frozenset({tuple}), parts=(held.item or UNTYPED, held.value or UNTYPED))
            return sharing(fresh_of(list, inner=base.reach, shape=Typed(item=pair)), [base])
        if name == "most_common" and all(issubclass(t, collections.Counter) for t in base.types):
            pair = Typed(types=frozenset({tuple}), parts=(held.item or UNTYPED,
                                                          held.value or UNTYPED))
            return sharing(fresh_of(list, inner=base.reach, shape=Typed(item=pair)), [base])
        if name in ("get", "pop", "setdefault", "__getitem__"):  # (or the default given:
            found = base.taken(held.value, rec=rec)                # ``setdefault`` keeps it)
            if name == "setdefault" and default is not None:
                default = replace(default, owners=default.owners | base.owners)
            return join(found, default) if default is not None else found
    if base.types and base.types <= {list, tuple, set, frozenset, collections.deque}:
        if name in ("pop", "popleft", "__getitem__"):
            return base.taken(held.item, rec=rec)
        if name in ("index", "count"):
            return fresh_of(int)
    return base.derived()


_SOME_OF = {filter: 1, itertools.islice: 0, itertools.takewhile: 1, itertools.dropwhile: 1,
            itertools.filterfalse: 1, itertools.cycle: 0, itertools.compress: 0}
"""Python's iterators over some of an iterable's items (by position): what they give is those."""


def made_iterable(frame: Scope, cls: type, args: Args, made: Val) -> Val:
    """A builtin iterable or collection made from others, typed by what it holds (a query's
    result: its rows)."""
    pos = args.pos
    items = [(frame.iterate(p).contents() if p.sql is not None else p.contents().item) or UNTYPED
             for p in pos]
    shape: Typed | None = None
    if cls is enumerate and pos:
        shape = Typed(item=Typed(types=frozenset({tuple}), parts=(Typed(types=frozenset({int})), items[0])))
    elif cls is zip and pos:
        shape = Typed(item=Typed(types=frozenset({tuple}), parts=tuple(items)))
    elif cls is zip and args.star is not None:  # (``zip(*rows)``: tuples of a row's items)
        across = frame.iterate(frame.iterate(args.star)).contents()
        shape = Typed(item=Typed(types=frozenset({tuple}), item=across))
    elif cls in _SOME_OF and len(pos) > _SOME_OF[cls]:  # (some of an iterable's items)
        shape = Typed(item=items[_SOME_OF[cls]])
    elif cls is map:
        return made
    elif issubclass(cls, collections.Counter) and len(pos) == 1 and not args.kw and (
            args.star is None and args.dstar is None):  # (what it counts, and how many)
        counted = frame.iterate(pos[0]).contents()  # (a mapping's keys, an iterable's items;
        kinds = pos[0].types                        # a mapping's values, as they were)
        mapping = kinds is None or any(issubclass(k, collections.abc.Mapping) for k in kinds)
        counts = pos[0].contents().value if mapping else Typed(types=frozenset({int}))
        shape = Typed(item=counted or UNTYPED, value=counts or UNTYPED)
    elif issubclass(cls, dict) and not issubclass(cls, collections.defaultdict) and (
            pos or args.kw) and args.star is None and args.dstar is None:
        keys, values = [], list(args.kw.values())  # (``dict(pairs, name=x)``: either)
        if args.kw:
            keys.append(fresh_of(str))
        if pos:
            key, value = _entries(frame, pos[0])
            keys.append(key)
            values.append(value)
        shape = Typed(item=_any_of(keys), value=_any_of(values))
    elif issubclass(cls, collections.defaultdict):
        factory = pos[0].objs[0] if pos and len(pos[0].objs) == 1 else None
        kinds = frozenset({factory}) if isinstance(factory, type) else None
        # the factory itself is not held: only what is passed after it, and what it makes here
        held = Args(pos[1:], args.kw, args.star, args.dstar).reach()
        nothing = Typed(types=frozenset())
        if len(pos) == 1 and not args.kw and factory in _FILLED_WITHIN:  # (made empty: what
            return Typed(types=made.types, item=nothing, value=Typed(  # it makes too)
                types=kinds, item=nothing)).on(replace(made, inner=held))
        return Typed(types=made.types, value=Typed(types=kinds)).on(replace(made, inner=held))
    elif cls is collections.ChainMap and pos and args.star is None:  # (any map's keys, values)
        entries = [_entries(frame, given) for given in pos]
        shape = Typed(item=_any_of([k for k, _ in entries]), value=_any_of([v for _, v in entries]))
    elif cls is itertools.chain:  # (the items of each)
        if args.star is not None:
            items.append(frame.iterate(frame.iterate(args.star)).contents())
        shape = Typed(item=_any_typed(items)) if items else None
    elif cls in (itertools.product, itertools.zip_longest) and pos and args.star is None:
        filler = args.kw.get("fillvalue")  # (one part of each, or what fills a short one)
        fill = filler.contents() if filler is not None else Typed(types=frozenset({type(None)}))
        shape = Typed(item=Typed(types=frozenset({tuple}), parts=tuple(
            (merged(item, fill) or UNTYPED) if cls is itertools.zip_longest else item
            for item in items)))
    elif pos and (len(pos) == 1 or issubclass(cls, collections.deque)):
        shape = Typed(item=items[0])
    elif pos:
        shape = None  # (of several, the items of which is not known here)
    elif not args.kw and args.star is None and args.dstar is None and holder(made.types):
        nothing = Typed(types=frozenset())  # (made empty: ``OrderedDict()``, ``deque()``)
        shape = Typed(item=nothing, value=nothing if issubclass(cls, dict) else None)
    if shape is None:
        return made
    return Typed(types=made.types, item=shape.item, value=shape.value).on(made)
