"""What Python runs without its being called by name: the special methods of a value's class
that builtins, operators and allow-listed calls run (``str(x)`` runs ``x.__str__``, ``sorted``
compares the items, ``MutableMapping.update`` runs the class's ``__setitem__``, ``chr(n)`` and
``xs[a:b]`` take a value as an integer, ``d[k] = v`` hashes it), followed where the class
defines them in Python, so that their effects count as the caller's.
"""

from __future__ import annotations

import abc
import ast
import collections
import dataclasses
import datetime
import decimal
import fractions
import inspect
import io
import itertools
import re
import string
import sys
import types
import uuid
from contextvars import ContextVar
from dataclasses import replace
from typing import Any

from signoff.effects import (
    calls,
    comparing,
    field_methods,
    printing,
    pydantic_models,
    shown_exceptions,
    taken_whole,
)
from signoff.effects.effect import EffectKind
from signoff.effects.naming import defines, dispatched, generated, of_builtins, qualified_name, written_in
from signoff.effects.scope import Scope, call_text
from signoff.effects.tables import (
    ABC_MIXIN_CALLS,
    ABC_MIXIN_CALLS_OF,
    ITERATES_ARGUMENTS,
    LOGS,
    MUTATING_METHODS,
    OPERATOR_METHODS,
    SPECIAL_METHODS_CALLED,
    WRITES_TO_STREAM,
    listed,
)
from signoff.effects.values import (
    GLOBAL,
    UNKNOWN,
    Args,
    Inline,
    Typed,
    Val,
    const,
    fresh_of,
    join_all,
    known,
    only_plain,
)

__all__ = [
    "advanced",
    "advances",
    "as_index",
    "attribute_written",
    "converted",
    "defines",
    "dispatched",
    "each",
    "fields_copied",
    "getter",
    "hashed",
    "iterated",
    "metaclass_read",
    "mixin_runs",
    "model_shown",
    "of_library",
    "runs_unnamed",
    "shown",
    "special",
]


def special(frame: Scope, value: Val, names: tuple[str, ...], args: list[Val],
            node: ast.AST | None) -> Val | None:
    """Follow the special method code of Python's calls on `value` where there is no expression
    of it to call it by (``len(x)`` calls ``x.__len__``, sorting compares the items): for each
    class it may be, the first of `names` that class defines in Python. What it returns (None
    when no class defines one)."""
    model_shown(frame, value, names, node)
    called = []
    if not value.types and value.maybe:  # (of no known class: those the code seen gives it)
        value = replace(value, types=value.maybe)
    for kind in value.types or ():
        if names and names[0] in _SHOWING and isinstance(kind, type):  # (an exception's
            shown_exceptions.shown(frame, value, kind, names, node)  # arguments)
        name = next((n for n in names if defines(kind, n)), None)
        if name is not None:
            method = frame.an.attr_of_type(frame, value, kind, name)
            called.append(calls.call_args(frame, method, Args(list(args), {}), node))
        else:  # (a dataclass's, a named tuple's: its fields', by their classes' code)
            field_methods.by_fields(frame, value, kind, names, node)
    return join_all(called) if called else None


_CONVERSIONS = (("__index__",), ("__int__",), ("__float__",), ("__complex__",),
                ("__bool__", "__len__"), ("__fspath__",))
"""What Python's code may take a value as, by the first of each its class defines: an integer
(``chr(n)``, ``xs.insert(i, x)``), a number (``math.sqrt(x)``), a truth, a path."""


def _of_the_app(frame: Scope, value: Val) -> bool:  # (maybe of a class of the app's: not
    return bool(value.types) and not all(  # a library's, ``os.environ`` taking itself by its
        isinstance(k, type) and (of_builtins(k) or of_library(frame, k))  # own ``__len__``)
        for k in value.types or ())


def converted(frame: Scope, q: str, args: Args, node: ast.AST | None) -> None:
    """The allow-listed call `q` takes its arguments as numbers, truths or paths where it needs
    them: what each's class of the app's defines of `_CONVERSIONS` runs, but for those `q` is
    said to take by methods named for it (``str(x)``, ``sorted(xs)``, ``operator.add(a, b)``).
    One that hashes the items it goes through hashes a tuple's parts too (``dict(pairs)``)."""
    at, item_names = ITERATES_ARGUMENTS.get(q, (0, ()))
    named = (args.pos if q in OPERATOR_METHODS or at is None else args.pos[at:at + 1]
             if q in SPECIAL_METHODS_CALLED or q in ITERATES_ARGUMENTS else [])
    for value in args.every():
        if _of_the_app(frame, value) and not any(v is value for v in named):
            for names in _CONVERSIONS:
                special(frame, value, names, [], node)
    for value in named if "__hash__" in item_names else ():
        hashed(frame, frame.iterate(value), node)


def as_index(frame: Scope, value: Val, node: ast.AST | None) -> None:
    """A value taken as an integer (a slice's bound, a list's place): its ``__index__``."""
    if _of_the_app(frame, value):
        special(frame, value, ("__index__",), [], node)


def hashed(frame: Scope, value: Val, node: ast.AST | None) -> None:
    """A value hashed (a dict's key, a cached function's argument): its class's ``__hash__``,
    and ``__eq__`` (a key of the same hash met), and a tuple's parts', which make the tuple's."""
    if _of_the_app(frame, value):
        special(frame, value, ("__hash__",), [], node)
        comparing.decided(frame, special(frame, value, ("__eq__",), [value], node), node)
    for part in value.contents().parts or ():
        hashed(frame, value.taken(part), node)


_SHOWING = frozenset({"__str__", "__repr__", "__format__"})


def model_shown(frame: Scope, value: Val, names: tuple[str, ...], node: ast.AST | None) -> None:
    """What showing a pydantic model runs of the app's code where its class's ``__repr__`` (or
    ``__str__``, ``__format__``: `names`) is pydantic's own: its computed fields are read, and
    the values of its fields (and of the models they hold) are shown by their classes' own
    ``__repr__``. Taken to be its serializers run, which is more than that (never less)."""
    if not _SHOWING.intersection(names):
        return
    models = [k for k in value.types or () if isinstance(k, type) and pydantic_models.is_model(k)]
    if models:
        calls.pydantic_hooks(frame, models, serializing=True, node=node)
        for kind in pydantic_models.shown_types(models):
            special(frame, Val(types=frozenset({kind})), ("__repr__",), [], node)
    _items_shown(frame, value, node)


_SHOWN_BY_ITEMS = (list, tuple, dict, set, frozenset, collections.deque)
_SHOWN_DEPTH = 6
"""How deep containers in containers are followed as they are shown (a list of dicts of …)."""
_shown_depth: ContextVar[int] = ContextVar("signoff_shown_depth", default=0)


def _items_shown(frame: Scope, value: Val, node: ast.AST | None) -> None:
    """What showing `value`, one of Python's containers, runs: each item's own ``__repr__``
    (``str([x])``, ``f"{[x]}"``, a log's ``"%s"`` of a list: Python shows the items by their
    classes' code), a dict's keys' and values' both, and so on for the containers they are."""
    kinds = value.types or frozenset()
    depth = _shown_depth.get()
    if depth >= _SHOWN_DEPTH or not any(isinstance(k, type) and issubclass(k, _SHOWN_BY_ITEMS)
                                        for k in kinds):
        return
    parts = value.contents().parts or ()  # (a tuple's each, as it was made: ``(1, [x])``)
    items = [*(value.reached(p) for p in parts), frame.iterate(value), *(
        [frame.item(value)] if any(isinstance(k, type) and issubclass(k, dict) for k in kinds)
        else [])]
    token = _shown_depth.set(depth + 1)
    try:
        with frame.repeated():
            for item in items:
                _own_repr(frame, item, node)
                _items_shown(frame, item, node)
    finally:
        _shown_depth.reset(token)


def _own_repr(frame: Scope, value: Val, node: ast.AST | None) -> None:
    """The ``__repr__`` of `value`'s classes, where one is the app's own code. (A pydantic
    model's, pydantic's own, is not taken here for its serializers, as `model_shown` takes it
    for a model shown itself: a container of values of no known class would count every
    model's.)"""
    for kind in value.types or ():
        if isinstance(kind, type) and defines(kind, "__repr__"):
            method = frame.an.attr_of_type(frame, value, kind, "__repr__")
            calls.call_args(frame, method, Args([], {}), node)


def getter(frame: Scope, q: str, args: Args, node: ast.AST | None) -> Val:
    """``operator.attrgetter("a.b")`` (``itemgetter(k)``): followed where it is called, as the
    lambda it stands for (``lambda o: o.a.b``), so that what reading the attribute runs of the
    object's class (a property, ``__getattr__``) counts."""
    reading = ast.Name(id="signoff_read", ctx=ast.Load())
    parts: list[ast.expr] = []
    for given in args.pos:
        if q == "operator.itemgetter":  # (the key itself is not known here: its item is read)
            parts.append(ast.Subscript(value=reading, slice=ast.Constant(value=None), ctx=ast.Load()))
            continue
        names = [o for o in given.objs if isinstance(o, str)]
        if len(names) != 1 or len(given.objs) != 1:
            return frame.unknown(call_text(frame, node), "reads an attribute whose name is not known here")
        read: ast.expr = reading
        for attr in names[0].split("."):
            read = ast.Attribute(value=read, attr=attr, ctx=ast.Load())
        parts.append(read)
    body = parts[0] if len(parts) == 1 else ast.Tuple(elts=parts, ctx=ast.Load())
    made = ast.Lambda(args=ast.arguments(posonlyargs=[], args=[ast.arg(arg="signoff_read")],
                                         kwonlyargs=[], kw_defaults=[], defaults=[]), body=body)
    if node is not None:
        ast.copy_location(made, node)
    ast.fix_missing_locations(made)
    return Val(types=frozenset(), pure=True, calls=(Inline(node=made, frame=frame),))


_FIELD = re.compile(r"([^.\[]*)(.*)", re.DOTALL)
"""A format field's name: what it names first (an argument), then its attributes and items."""
_PARTS = re.compile(r"\.([^.\[]+)|\[([^\]]*)\]")
"""A format field's attributes (``.name``) and items (``[key]``), in turn."""


def format_fields(frame: Scope, texts: tuple[Any, ...], args: Args, node: ast.AST | None, *,
                  mapped: bool) -> None:
    """What the format strings `texts` read of the values ``str.format`` is given (of the
    mapping ``format_map`` is, given `mapped`): each field's attributes (``"{0.name}"``, a
    property's code) and items (``"{0[k]}"``, a ``__getitem__``'s)."""
    for text in texts:
        try:
            fields = [f for _, f, _, _ in string.Formatter().parse(text)
                      if f is not None] if isinstance(text, str) else []
        except ValueError:  # (not a format string Python reads: it fails as it runs)
            continue
        numbered = 0  # (``{}`` and ``{.name}`` take the arguments in turn)
        for field in fields:
            first, rest = _FIELD.match(field).group(1, 2)  # type: ignore[union-attr]
            if mapped:
                value = looked_up(frame, args.pos[0], node) if args.pos else Val()
            elif first.isdigit() or first == "":
                index = int(first) if first else numbered
                numbered += not first
                value = args.pos[index] if index < len(args.pos) else (
                    frame.iterate(args.star) if args.star is not None else Val())
            else:
                value = args.kw.get(first) or (
                    looked_up(frame, args.dstar, node) if args.dstar is not None else Val())
            for attribute, key in _PARTS.findall(rest):
                value = frame.attribute(value, attribute, None) if attribute else (
                    special(frame, value, ("__getitem__",), [const(key)], node) or
                    frame.item(value))


def looked_up(frame: Scope, mapping: Val, node: ast.AST | None) -> Val:
    """A value looked up by its key in `mapping` by Python's own code (``format_map``, ``"%(a)s"
    % m``, ``Template.substitute(m)``): its class's own ``__getitem__`` runs, and a dict's
    ``__missing__`` for a key it lacks."""
    found = [special(frame, mapping, (name,), [Val()], node) for name in ("__getitem__",
                                                                          "__missing__")]
    return join_all([frame.item(mapping), *(f for f in found if f is not None)])


def each(frame: Scope, value: Val, names: tuple[str, ...], args: list[Val],
         node: ast.AST | None) -> Val | None:
    """Follow every one of `names` that the classes of `value` define (where which one runs
    depends on what the code asks: ``"%r"`` its ``__repr__``, ``"%s"`` its ``__str__``). What
    they return (None when no class defines one)."""
    given = [special(frame, value, (name,), args, node) for name in names]
    found = [v for v in given if v is not None]
    return join_all(found) if found else None


def shown(made: Val, *given: Val | None) -> Val:
    """Text `made` of values whose classes' own ``__str__``, ``__repr__`` or ``__format__``
    gave `given`: Python gives back what such a method gave, as it is, when the text is that
    one value (``str(x)``, ``f"{x}"``, ``"%s" % x``) — a ``str`` of the app's class, whose
    methods it overrides, if that is what it gave. (What is of no known class is taken for
    text: Python refuses anything else from them.)"""
    other = [v for v in given if v is not None and v.types and not v.types <= {str}]
    return join_all([made, *other]) if other else made


def iterated(frame: Scope, value: Val, node: ast.AST | None) -> Val:
    """What iterating over `value` runs of its class's code, where there is no expression of it
    (``list(x)``, ``sorted(x)``): ``__iter__`` once, then the iterator's ``__next__`` once an
    item (`Frame.repeated`). An item."""
    iterator = special(frame, value, ("__iter__", "__getitem__"), [], node)
    if iterator is None or not iterator.types:
        iterator = value
    with frame.repeated():
        special(frame, iterator, ("__next__",), [], node)
    return frame.iterate(value)


_ITERATED: tuple[Any, ...] = ([], (), "", b"", {}, set(), range(0), {}.keys(), {}.values(),
                             {}.items())
_PLAIN_ITERATORS = frozenset({itertools.count, *(type(iter(made)) for made in _ITERATED)})
"""Iterators of Python's over its own containers, or counting: advancing one runs no code."""
_ADVANCING = frozenset({"send", "throw", "close", "__next__", "asend", "athrow", "aclose", "__anext__"})


_RUNS_CODE = (types.GeneratorType, types.CoroutineType, types.AsyncGeneratorType, map, filter)
"""Iterators and coroutines whose own code (or the function they were given) runs as they are
advanced or awaited."""


def advances(obj: Any) -> bool:
    """Whether `obj` is an iterator or a coroutine of Python's, changed as it is advanced (not
    a class, nor a stream; an iterator class's ``__next__`` in Python is followed instead)."""
    kind = type(obj)
    return not isinstance(obj, type | io.IOBase) and (isinstance(obj, _RUNS_CODE) or any(
        hasattr(kind, name) and not defines(kind, name) for name in ("__next__", "__anext__")))


def advanced(frame: Scope, *values: Val, attr: str = "__next__") -> None:
    """Iterating over an iterator that outlives the call (a module, a closure or a default
    holds it: a generator made at import, ``iter(xs)``, ``itertools.count()``, ``map(f, xs)``),
    awaiting such a coroutine, handing it to code that may (``islice(it, 1)``, a helper), or
    calling its method `attr` (``gen.send(x)``), advances it: a change of state that outlives
    the call; a generator's own code, or the function a ``map`` calls, runs as it does, and is
    not followed."""
    if attr not in _ADVANCING:
        return
    for value in values:
        kinds = [k for k in value.types or () if isinstance(k, type)]
        if not value.objs and value.origin & {GLOBAL, UNKNOWN} and any(
                issubclass(k, _RUNS_CODE) for k in kinds):  # (``GENERATORS[0]``: one of them)
            frame.unknown("next(generator)", "advances a generator that outlives the call, "
                          "running code the analysis does not follow")
        for obj in (obj for obj in value.objs if advances(obj)):
            what = f"next({type(obj).__name__})"
            if type(obj) in _PLAIN_ITERATORS:
                frame.add(EffectKind.CHANGES, "", (what,), "advances an iterator that outlives the call")
            else:
                frame.unknown(what, f"advances what outlives the call ({type(obj).__name__}), "
                              "running code the analysis does not follow")


def metaclass_read(frame: Scope, base: Val, cls: type, attr: str) -> Val | None:
    """``cls.attr`` where what is read is the code of `cls`'s metaclass: its property's getter,
    or, the class having no such attribute, its ``__getattr__`` — followed, never run to see
    (None: neither)."""
    meta = type(cls)
    if meta is type or any(attr in k.__dict__ for k in cls.__mro__):
        return None
    found = inspect.getattr_static(meta, attr, None)
    if isinstance(found, property) and found.fget is not None:
        return calls.call_function(frame, found.fget, [base], {}, None, cls=meta)
    getter = inspect.getattr_static(meta, "__getattr__", None)
    if found is not None or getter is None:
        return None
    if isinstance(getter, types.FunctionType):
        return calls.call_function(frame, getter, [base, const(attr)], {}, None, cls=meta)
    return frame.unknown(f"{cls.__name__}.{attr}", f"reads {attr} by {meta.__name__}'s __getattr__")


_RECORDS_MADE = frozenset({"logging.LogRecord", "logging.makeLogRecord"})


def _record_shown(frame: Scope, q: str, args: Args, node: ast.AST | None) -> None:
    """What a log record made by hand (``LogRecord(…, msg, args, …)``, ``makeLogRecord(d)``)
    runs as a handler takes it: its message and each of its arguments made text by their
    classes' own code (``"%s"``, ``"%r"``, ``"%(key)s"``)."""
    if q == "logging.makeLogRecord":
        given = [frame.item(args.pos[0])] if args.pos else []  # (the dict's values: all of them)
    else:
        given = [*args.pos[4:6], *(args.kw[k] for k in ("msg", "args") if k in args.kw)]
    for value in given:
        for shown in (value, frame.iterate(value), looked_up(frame, value, node)):
            each(frame, shown, ("__str__", "__repr__"), [], node)


def runs_unnamed(frame: Scope, q: str, args: Args, node: ast.AST | None) -> Val | None:
    """The special methods of its arguments' classes that the allow-listed call `q` runs:
    ``str(x)`` runs ``x.__str__``, ``sorted(xs)`` iterates ``xs`` and compares its items.
    What the call may give back of what they gave, besides what it makes (`shown`)."""
    given: list[Val | None] = []
    advanced(frame, *args.every())  # (``islice(gen, 1)``, ``zip(gen)``: it may be advanced)
    names = SPECIAL_METHODS_CALLED.get(q)
    if names and args.pos:
        given.append(special(frame, args.pos[0], names, [], node))
    operated = OPERATOR_METHODS.get(q)
    if operated is not None and args.pos:  # ``operator.add(a, b)``: a.__add__(b), b.__radd__(a)
        first, second = operated
        special(frame, args.pos[0], first, args.pos[1:2], node)
        if second and len(args.pos) > 1:
            special(frame, args.pos[1], second, args.pos[:1], node)
    if q in ("string.Template.substitute", "string.Template.safe_substitute"):
        shown = [looked_up(frame, args.pos[1], node)] if len(args.pos) > 1 else []
        for value in [*shown, *args.kw.values()]:  # (the mapping's values looked up, and
            special(frame, value, ("__str__", "__repr__"), [], node)  # each made text)
    if q == "string.Formatter.format" and args.pos:  # (``str.format``'s fields, and values)
        format_fields(frame, args.pos[0].objs, Args(args.pos[1:], args.kw, args.star, args.dstar),
                      node, mapped=False)
        for value in [*args.pos[1:], *args.kw.values()]:
            each(frame, value, ("__format__", "__str__", "__repr__"), [const("")], node)
    if q.startswith("datetime."):  # a time zone of the app's: its code runs as times are used
        for zone in (v for v in args.every() if v.types and any(
                issubclass(k, datetime.tzinfo) for k in v.types)):
            each(frame, zone, ("utcoffset", "dst", "tzname", "fromutc"), [Val()], node)
    if q in ("builtins.str.format", "builtins.str.format_map"):  # each value is formatted
        for value in args.every() if q.endswith("format") else map(frame.item, args.pos):
            given.append(each(frame, value, ("__format__", "__str__", "__repr__"), [const("")],
                              node))
    if q.startswith(_TAKES_TEXT):  # (it may give back what it was given: ``html.unescape``)
        given += [v for v in args.pos[:1] if v.types and not all(
            of_library(frame, k) for k in v.types)]
    gives = [v for v in given if v is not None] if q in _SHOWN or q.startswith(_TAKES_TEXT) else []
    shown_too = join_all(gives) if gives else None
    logs = listed(LOGS, q)  # (a RootLogger's, or a subclass's: Logger's own, inherited)
    if q in _RECORDS_MADE:  # a record made to be handled: its message and arguments shown
        _record_shown(frame, q, args, node)
    if q == "builtins.print":  # each value made text, and no more (`printing`)
        printing.printed(frame, args, node)
    taken_whole.runs_on_whole(frame, q, args, node)  # (``list(x)`` asks its length first)
    for value in [*args.pos, *([frame.iterate(args.star)] if args.star is not None else [])
                  ] if logs else ():  # ("%s" its text, "%r" its repr, "%d" its number)
        each(frame, value, ("__str__", "__repr__"), [], node)
        special(frame, value, ("__index__", "__int__", "__float__"), [], node)
    if q != "builtins.print" and not q.startswith("statistics."):  # (`printing`, `averages`)
        overridden(frame, q, args, node)
        converted(frame, q, args, node)  # (``chr(n)``: taken as numbers, truths, paths)
    if q in _ROWS_WRITTEN and args.pos:  # each row iterated (a dict's asked for its values),
        rows = args.pos[0]  # each value made text, by their classes' own code
        for _ in range(_ROWS_WRITTEN[q]):
            rows = iterated(frame, rows, node)
        if q.startswith("csv.DictWriter."):
            special(frame, rows, ("keys",), [], node)
            special(frame, rows, ("get",), [Val(), Val()], node)
            values = frame.item(rows)
        else:
            values = iterated(frame, rows, node)
        special(frame, values, ("__str__", "__repr__"), [], node)
    if q == "builtins.sum" and args.pos:  # (the items added to where it starts: its own)
        start = args.kw.get("start") or (args.pos[1] if len(args.pos) > 1 else None)
        if start is not None:
            special(frame, start, ("__add__",), [frame.iterate(args.pos[0])], node)
    if q == "dataclasses.replace" and args.pos:  # an object of its class made anew
        _made_again(frame, args.pos[0], args, node)
    if q in ("dataclasses.asdict", "dataclasses.astuple") and args.pos:
        _copied_deeply(frame, args.pos[0], node, depth=8)
        for factory in ("dict_factory", "tuple_factory"):
            if factory in args.kw:  # (called with the fields' pairs, or values)
                calls.call_args(frame, args.kw[factory], Args([fresh_of(list)], {}), node)
    if q == "csv.DictWriter":  # what it writes for a key a row lacks: made text as it is
        missing = args.kw.get("restval") or (args.pos[2] if len(args.pos) > 2 else None)
        if missing is not None:
            special(frame, missing, ("__str__", "__repr__"), [], node)
    if q in _CSV_READS and args.pos:  # the lines it reads are iterated
        iterated(frame, args.pos[0], node)
    if q in _CSV_DIALECTS:
        _dialect_read(frame, args, node)
    if q.startswith(("heapq.heap", "bisect.")):  # a heap's (a sorted list's) items compared
        for value in args.pos:
            for item in (value, frame.iterate(value)):
                comparing.ordered(frame, item, ("__lt__", "__gt__"), node)
    if q.startswith(("posixpath.", "ntpath.", "genericpath.", "os.path.")):  # paths' own code
        for value in args.pos:  # (and the methods of the text it gives, where they are its)
            path = special(frame, value, ("__fspath__",), [], node)
            if path is not None:
                overridden(frame, "", Args([path], {}), node)
    if q in ("builtins.isinstance", "builtins.issubclass") and len(args.pos) == 2:
        check = "__instancecheck__" if q == "builtins.isinstance" else "__subclasscheck__"
        for cls in args.pos[1].objs:  # a metaclass's own check runs
            if isinstance(cls, type) and defines(type(cls), check):
                special(frame, known(cls), (check,), [args.pos[0]], node)
            if isinstance(cls, type) and q == "builtins.isinstance":  # (a runtime protocol
                _protocol_read(frame, cls, args.pos[0])  # reads its members on it)
            if isinstance(cls, abc.ABCMeta) and _own_hook(frame, cls):  # (an ABC's own hook)
                calls.call_args(frame, frame.attribute(known(cls), "__subclasshook__", None),
                                Args([Val()], {}), node)
    stream = WRITES_TO_STREAM.get(q)
    if stream is not None:  # print(..., file=f) and json.dump(o, f) call f.write
        keyword, at = stream
        written = args.kw.get(keyword) or (
            args.pos[at] if at is not None and len(args.pos) > at else None)
        if written is not None and not (written.objs and all(o is None for o in written.objs)
                                        ) and written.qual not in printing.STANDARD_STREAMS:
            if written.types or written.objs:
                calls.call_args(frame, frame.attribute(written, "write", None),
                          Args([fresh_of(str)], {}), node)
            else:
                frame.unknown(call_text(frame, node),
                              f"{q.removeprefix('builtins.')} writes to a stream that cannot be "
                              "known from here")
    if q.startswith("json.") and "cls" in args.kw:  # an encoder (decoder) made: its own code
        made = calls.call_args(frame, args.kw["cls"], Args([], {}, None, Val()), node)  # runs
        for name in ("default", "encode", "iterencode", "decode", "raw_decode"):
            special(frame, made, (name,), [Val()], node)
    iterating = ITERATES_ARGUMENTS.get(q)
    if iterating is None:
        return shown_too
    at, item_names = iterating
    if at is None and len(args.pos) > 1 and q in ("builtins.min", "builtins.max"):
        items = list(args.pos)
    else:
        chosen = args.pos if at is None else args.pos[at:at + 1]
        items = [iterated(frame, v, node) for v in chosen]
    if item_names:
        with frame.repeated():
            for item in items:  # (a tuple's parts too, where they are ordered: `comparing`)
                comparing.ordered(frame, item, item_names, node)
    return shown_too


def _own_hook(frame: Scope, cls: type) -> bool:
    """Whether `cls`, an ABC, has a ``__subclasshook__`` not of Python's (``abc``'s and
    ``collections.abc``'s only look for methods by name): ``isinstance`` runs it."""
    hook = next((k.__dict__["__subclasshook__"] for k in cls.__mro__
                 if "__subclasshook__" in k.__dict__), None)
    func = getattr(hook, "__func__", None)
    return inspect.isfunction(func) and not frame.an.is_standard_library(func)


def _protocol_read(frame: Scope, cls: type, value: Val) -> None:
    """``isinstance(value, P)`` of a runtime-checkable protocol `P` reads each of its members on
    `value` (``hasattr``): a property of `value`'s class, or its ``__getattr__``, runs."""
    if not (getattr(cls, "_is_protocol", False) and getattr(cls, "_is_runtime_protocol", False)):
        return
    members = {name for klass in cls.__mro__ if klass.__module__ not in ("typing", "builtins")
               for name in (*vars(klass), *getattr(klass, "__annotations__", {}))
               if not name.startswith("_")}
    for name in sorted(members):
        frame.attribute(value, name, None)


_SHOWN = frozenset({"builtins.str", "builtins.repr", "builtins.ascii", "builtins.format",
                    "builtins.str.format", "builtins.str.format_map", "os.fspath"})
"""Python's calls that give back what the special method they run gave, when it is text of
the app's class (`shown`)."""


def _copied_deeply(frame: Scope, value: Val, node: ast.AST | None, *, depth: int) -> None:
    """What ``dataclasses.asdict`` runs of the classes of what it copies: a dataclass's fields
    in turn, the items of lists, tuples and dicts, and ``copy.deepcopy`` of anything else (its
    class's ``__deepcopy__``, or ``__reduce_ex__``)."""
    if depth == 0:  # (deeper than followed: what copying it runs is not known)
        frame.unknown(call_text(frame, node), "copies deeply what is nested deeper than followed")
        return
    for kind in value.types or ():
        if dataclasses.is_dataclass(kind):
            for field in dataclasses.fields(kind):
                _copied_deeply(frame, frame.attribute(value, field.name, None), node,
                               depth=depth - 1)
        elif issubclass(kind, list | tuple | dict | set | frozenset):
            held = frame.iterate(value)
            _copied_deeply(frame, held, node, depth=depth - 1)
            if issubclass(kind, dict):
                _copied_deeply(frame, frame.item(value), node, depth=depth - 1)
        else:
            special(frame, value, ("__deepcopy__", "__reduce_ex__", "__reduce__"), [Val()], node)
            if not value.exact and _copied_by_the_app(kind):  # (``name: str`` holding the
                frame.unknown(call_text(frame, node), (  # app's ``class Sneaky(str)``)
                    f"copies deeply a value of {kind.__name__}, which a class of the app's with "
                    "its own way of being copied may be"))


_COPIED_AS_THEY_ARE = frozenset({str, bytes, int, float, complex, bool, type(None), decimal.Decimal,
                                 fractions.Fraction, datetime.date, datetime.datetime,
                                 datetime.time, datetime.timedelta, datetime.timezone, uuid.UUID})
"""Python's types a deep copy gives back of the same type (itself, or its equal)."""


_COPY_HOOKS = ("__deepcopy__", "__copy__", "__reduce_ex__", "__reduce__", "__getstate__",
               "__setstate__")


def _copied_by_the_app(kind: type) -> bool:
    """Whether a copy of a value of `kind` may run the app's code: a class of the app's derives
    it (``class Sneaky(str)``), or — a date and time's — its time zone (``tzinfo``), with a way
    of its own to be copied, which a field said to be of `kind` may hold."""
    pending = [kind, *([datetime.tzinfo] if kind in (datetime.datetime, datetime.time) else [])]
    while pending:
        cls = pending.pop()
        if written_in(cls) is not None and any(hook in vars(cls) for hook in _COPY_HOOKS):
            return True
        pending.extend(type.__subclasses__(cls))
    return False


def fields_copied(frame: Scope, q: str, args: Args) -> Val | None:
    """What ``dataclasses.asdict(x)`` gives, where each field of each dataclass `x` may be holds
    a value of `_COPIED_AS_THEY_ARE` (text, numbers, dates): a new dict of text to those (None
    otherwise: a nested dataclass, a list, a class of the app's — of no known type there — or
    a dataclass a class derives, whose fields may be more)."""
    value = args.pos[0] if q == "dataclasses.asdict" and len(args.pos) == 1 else None
    if value is None or args.kw or not value.types or not all(
            isinstance(k, type) and dataclasses.is_dataclass(k)
            and (value.exact or not type.__subclasses__(k)) for k in value.types):
        return None
    held: list[frozenset[type]] = []
    for kind in value.types:
        for field in dataclasses.fields(kind):
            types = frame.attribute(value, field.name, None).types
            if not types or not types <= _COPIED_AS_THEY_ARE or any(map(_copied_by_the_app, types)):
                return None
            held.append(types)
    pairs = Typed(types=frozenset({dict}), item=Typed(types=frozenset({str})),
                  value=Typed(types=frozenset().union(*held)))
    return replace(fresh_of(dict, shape=pairs), pure=True)


def attribute_written(frame: Scope, base: Val, attr: str | None, value: Val | None,
                      node: ast.AST | None) -> None:
    """Assigning to a property runs its setter, to a descriptor of the app's its ``__set__``,
    and on an object whose class of the app's has its own ``__setattr__``, that: follow them.
    With no `value`, the attribute is deleted: its deleter, ``__delete__``, ``__delattr__``.
    With no `attr` (``setattr(o, name, v)``, the name not known here): any of them."""
    given = [value] if value is not None else []
    for cls in base.types or ():
        if of_builtins(cls):
            continue
        names = [attr] if attr is not None else [
            name for klass in cls.__mro__ for name in vars(klass)]
        for name in dict.fromkeys(names):
            prop = inspect.getattr_static(cls, name, None)
            accessor = (prop.fset if given else prop.fdel) if isinstance(prop, property) else None
            if accessor is not None:
                calls.call_function(frame, accessor, [base, *given], {}, node, cls=cls)
            setter = inspect.getattr_static(type(prop), "__set__" if given else "__delete__", None)
            if isinstance(setter, types.FunctionType) and frame.an.is_app_code(setter):
                calls.call_function(frame, setter, [known(prop), base, *given], {}, node,
                                    cls=type(prop))
        own = inspect.getattr_static(cls, "__setattr__" if given else "__delattr__", None)
        if isinstance(own, types.FunctionType) and frame.an.is_app_code(own):
            calls.call_function(frame, own, [base, const(attr or ""), *given], {}, node, cls=cls)


def mixin_runs(frame: Scope, func: Any, receiver: Val, node: ast.AST | None) -> None:
    """A method collections.abc gives a class (`func`: ``MutableMapping.update``, ``pop``…),
    called on `receiver`: it runs the class's own methods on it (its ``__setitem__``…), and may
    change it."""
    for name in ABC_MIXIN_CALLS_OF.get(qualified_name(func), ABC_MIXIN_CALLS):
        if any(_own_method(kind, name) for kind in receiver.types or ()):
            special(frame, receiver, (name,), [Val(), Val()][:_ARITY.get(name, 0)], node)
    if func.__name__ in MUTATING_METHODS or func.__name__.startswith("__i"):
        frame.mutate(receiver, call_text(frame, node))


def _own_method(cls: type, name: str) -> bool:
    """Whether `cls` has method `name` of its own, not one collections.abc gives it."""
    for klass in cls.__mro__:
        if name in klass.__dict__:
            return klass.__module__ not in ("collections.abc", "_collections_abc", "builtins")
    return False


_ARITY = {"__getitem__": 1, "__setitem__": 2, "__delitem__": 1, "__contains__": 1, "insert": 2,
          "add": 1, "discard": 1}
"""How many arguments each of `ABC_MIXIN_CALLS` is called with."""


def overridden(frame: Scope, q: str, args: Args, node: ast.AST | None) -> None:
    """Allow-listed code `q` takes what it is given for the builtin type it derives from, and
    may call any of that type's methods on it: where a class of the app's deriving one has its
    own (a dict whose ``get`` is its own, a str whose ``split`` is), that code runs. A method of
    a library's class, run on an object of an app's class deriving it, runs the methods that
    class overrides (the ``wrap`` a ``TextWrapper``'s ``fill`` calls); and Python's text
    functions written in Python call text's methods on the text they are given, whatever it
    is: those an object of the app's has of its own run."""
    first = args.pos[0] if args.pos else None
    others = [v for v in args.every() if v is not first]  # (what a hook of the receiver is
    handed = Val(pure=True) if only_plain(*others) else Val()  # handed: made of these)
    listed = [frame.iterate(v) for v in args.every()  # (and what a list it is given holds)
              if v.types and v.types <= {list, tuple, set, frozenset}]
    for value in [*args.every(), *listed]:
        for kind in value.types or ():
            receiver = value is first and _library_method(frame, q, kind)
            text = value is first and q.startswith(_TAKES_TEXT)
            given = handed if receiver else Val()
            for name, member in _own_overrides(frame, kind, receiver=receiver, text=text):
                if frame.an.is_app_code(member):
                    method = frame.an.attr_of_type(frame, value, kind, name)
                    calls.call_args(frame, method, Args([], {}, given), node)


def _library_method(frame: Scope, q: str, kind: type) -> bool:
    """Whether `q` is a method of a library's class that `kind`, a class of the app's, derives."""
    return any(q.startswith(f"{qualified_name(base)}.") for base in kind.__mro__[1:]
               if base is not object and of_library(frame, base))


def _own_overrides(frame: Scope, kind: type, *, receiver: bool, text: bool
                   ) -> list[tuple[str, Any]]:
    """The methods `kind`, a class of the app's, has its own of those of the builtin type it
    derives (given `receiver`, of the library's class it derives; given `text`, of a class
    deriving none, those text has, and a stream's ``read``), each with its function."""
    if of_library(frame, kind):
        return []
    mro = kind.__mro__
    base = next((b for b in mro[1:] if of_builtins(b) and b is not object), None)
    if receiver:
        base = next((b for b in mro[1:] if b is not object and of_library(frame, b)), base)
    names = None
    if base is None and text:
        names = _TEXT_METHODS
    elif base is None:
        return []
    own = mro[:mro.index(base)] if base is not None else mro[:-1]
    return [(name, member) for klass in own for name, member in vars(klass).items()
            if inspect.isfunction(member) and name != "__init__" and (
                hasattr(base, name) if names is None else name in names)
            and not generated(klass, member)]


def of_library(frame: Scope, cls: type) -> bool:
    """Whether `cls` is Python's, a library's or signoff's own, not the app's (as the files
    its own methods are written in say, where it has any: not as its ``__module__`` says)."""
    if written_in(cls) is not None:  # (signoff's own, run from its checkout, as the app's)
        return False
    module = getattr(cls, "__module__", "")  # (an extension's metaclass's: a descriptor)
    if not isinstance(module, str) or module == "builtins" or module.startswith("signoff."):
        return isinstance(module, str)  # (of a module not known: taken to be the app's)
    filename = getattr(sys.modules.get(module), "__file__", None) or ""
    return bool(filename) and not frame.an.is_app_file(filename, module)


_TAKES_TEXT = ("textwrap.", "shlex.", "html.", "string.capwords", "urllib.parse.",
               "email.utils.")
"""Python's modules written in Python whose functions take text first, and call its methods
(a path's functions call only a path-like object's ``__fspath__``: `runs_unnamed`)."""

_TEXT_METHODS = frozenset(dir(str)) | {"read", "readline"}
"""What a function that takes text may call of what it is given (``shlex`` reads a stream)."""


def _dialect_read(frame: Scope, args: Args, node: ast.AST | None) -> None:
    """What csv reads of a dialect it is given by object or class (not by name): its
    attributes, whose properties are code of the app's."""
    dialect = args.kw.get("dialect") or (args.pos[1] if len(args.pos) > 1 else None)
    if dialect is None or (dialect.types and dialect.types <= {str}):
        return
    if dialect.types is None or any(isinstance(d, type) and type(d) is not type
                                    for d in dialect.objs):
        frame.unknown(call_text(frame, node),
                      "csv reads the attributes of a dialect whose code cannot be followed")
        return
    for name in _DIALECT_ATTRIBUTES:
        frame.attribute(dialect, name, None)


_DIALECT_ATTRIBUTES = ("delimiter", "quotechar", "escapechar", "doublequote", "skipinitialspace",
                       "lineterminator", "quoting", "strict")
"""What csv reads of a dialect."""

_CSV_DIALECTS = frozenset({"_csv.writer", "_csv.reader", "csv.DictWriter", "csv.DictReader"})
"""csv's calls that take a dialect."""

_CSV_READS = frozenset({"_csv.reader", "csv.DictReader"})
"""csv's calls that iterate the lines they are given."""

_ROWS_WRITTEN = {"_csv.writer.writerow": 0, "_csv.writer.writerows": 1,
                 "csv.DictWriter.writerow": 0, "csv.DictWriter.writerows": 1}
"""csv's calls that write rows (how deep in their argument a row is): each value is made text."""


def dataclass_made(frame: Scope, cls: type, made: Val, node: ast.AST | None) -> None:
    """What the ``__init__`` a dataclass wrote runs of the app's as `made` is made: each field's
    ``default_factory`` (taken to run, given a value or not), then ``__post_init__``."""
    for field in dataclasses.fields(cls):
        if field.default_factory is not dataclasses.MISSING:
            calls.call_args(frame, known(field.default_factory), Args([], {}), node)
    post_init = inspect.getattr_static(cls, "__post_init__", None)
    if isinstance(post_init, types.FunctionType):
        calls.call_function(frame, post_init, [made], {}, node, cls=cls)


def _made_again(frame: Scope, original: Val, args: Args, node: ast.AST | None) -> None:
    """``dataclasses.replace(x, …)``: an object of x's class made, by its own code."""
    kinds: list[type] = list(original.types or ())
    for kind in kinds:  # (or of a subclass of it, not made here)
        subclasses: list[type] = [] if original.exact else kind.__subclasses__()
        kinds += [sub for sub in subclasses if sub not in kinds]
        if dataclasses.is_dataclass(kind):
            calls.construct(frame, kind, Args([], args.kw), node)
    if not original.types:
        frame.unknown(call_text(frame, node), "makes an object of the class of what it is "
                      "given, which is not known")
