"""Evaluating expressions: the value an expression gives a frame (`Val`), and what evaluating it
does, including the special methods operators call on the app's own classes.

Each function takes the `Frame` walked; calls are judged in `calls`.
"""

from __future__ import annotations

import ast
import inspect
from contextlib import ExitStack
from dataclasses import replace
from typing import TYPE_CHECKING

from signoff.effects import calls, orm, special
from signoff.effects.tables import IMMUTABLE_TYPES
from signoff.effects.values import (
    EMPTY,
    UNKNOWN,
    Args,
    Inline,
    Typed,
    Unseen,
    Val,
    const,
    fresh_of,
    join,
    join_all,
    known,
)

if TYPE_CHECKING:
    from signoff.effects.frame import Frame

__all__ = ["dunder", "evaluate", "tested", "truth"]


def evaluate(frame: Frame, node: ast.expr) -> Val:
    """The value of an expression, recording what evaluating it does. A container that can
    change, whose items are known, handed on where it is not kept (`Frame.keep`) is let go:
    what it holds, and what the containers holding it hold, is no longer known."""
    kept = frame.kept_here(node)
    value = _evaluate(frame, node, kept)
    if kept:
        return value
    frame.released(value)
    for target in value.calls:  # a local function handed on: it may run anywhere, any time
        if isinstance(target, Inline):
            target.frame.let_go_inside(target.node)
    if not value.owners:  # (a container made here and not named yet is its own)
        return value
    if isinstance(node, ast.Name):  # (its own container: `Frame.name`)
        frame.let_go(node.id)
    frame.let_go_all(value.owners - {node.id} if isinstance(node, ast.Name) else value.owners)
    return replace(value.let_go(), owners=EMPTY)


def _evaluate(frame: Frame, node: ast.expr, kept: bool) -> Val:
    if isinstance(node, ast.Name):
        return frame.name(node.id)
    if isinstance(node, ast.Constant):
        return const(node.value)
    if isinstance(node, ast.Attribute):
        return frame.attribute(evaluate(frame, node.value), node.attr, node)
    if isinstance(node, ast.Call):
        return calls.evaluate_call(frame, node, used_up=kept)
    if isinstance(node, ast.Subscript):
        frame.keep(node.value)
        base = evaluate(frame, node.value)
        index = evaluate(frame, node.slice)
        dunder(frame, node.value, base, ("__getitem__",), [node.slice])
        dunder(frame, node.value, base, ("__missing__",), [node.slice])  # (a dict's, when absent)
        for cls in base.objs:  # C[x] on a class runs its __class_getitem__
            got = inspect.getattr_static(cls, "__class_getitem__", None) if isinstance(
                cls, type) else None
            got = getattr(got, "__func__", got)
            if inspect.isfunction(got) and frame.an.is_app_code(got):
                calls.call_function(frame, got, [known(cls), index], {}, node, cls=cls)
        # a sequence of Python's takes the index's __index__, a dict hashes the key
        dunder(frame, node.slice, index, ("__index__",), [])
        dunder(frame, node.slice, index, ("__hash__",), [])
        placed = base.contents().parts  # a tuple's part, by its place
        at = index.objs[0] if len(index.objs) == 1 and type(index.objs[0]) is int else None
        if placed and at is not None and -len(placed) <= at < len(placed):
            return base.taken(placed[at])
        return frame.item(base)
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        kind = {ast.List: list, ast.Tuple: tuple, ast.Set: set}[type(node)]
        _keep_parts(frame, node.elts)
        parts = [evaluate(frame, e) for e in node.elts]
        if kind is set:  # each item is hashed, by its class's own code
            for e, item in zip(node.elts, parts, strict=True):
                dunder(frame, e, item, ("__hash__",), [])
        shape = Typed(parts=tuple(p.contents() for p in parts)) if kind is tuple else None
        return fresh_of(kind, inner=_reach(parts), elem=_elem(parts), shape=shape)
    if isinstance(node, ast.Dict):
        _keep_parts(frame, [ast.Starred(value=v) for k, v in zip(node.keys, node.values,
                                                                 strict=True) if k is None])
        keys = [(e, evaluate(frame, e)) for e in node.keys if e is not None]
        for e, key in keys:  # each key is hashed, by its class's own code
            dunder(frame, e, key, ("__hash__",), [])
        parts = [key for _, key in keys] + [evaluate(frame, e) for e in node.values]
        # (what it holds is not taken from what it was made of: another name for it, or a
        # function it is handed, may put anything in it)
        return fresh_of(dict, inner=_reach(parts))
    if isinstance(node, ast.BinOp):
        left, right = evaluate(frame, node.left), evaluate(frame, node.right)
        name = _BINARY.get(type(node.op))
        given: list[Val | None] = []  # what the operands' own methods give, when they have them
        if name is not None:
            given += [dunder(frame, node.left, left, (f"__{name}__",), [node.right]),
                      dunder(frame, node.right, right, (f"__r{name}__",), [node.left])]
        if name == "mod" and left.types and left.types <= {str, bytes}:
            # "%s" % x formats x (and each item of a tuple) by its class's own code
            shapes = right.contents().parts
            formatted = [right.reached(p) for p in shapes] if shapes else [frame.iterate(right)]
            for value in (right, *formatted):
                special.each(frame, value, ("__str__", "__repr__"), [], node)  # (%s, %r)
                special.special(frame, value, ("__index__", "__int__", "__float__"), [], node)
        kinds = left.types if left.types and left.types <= IMMUTABLE_TYPES else None
        if kinds is None and left.types and left.types <= {list, dict, set}:
            kinds = left.types
        if any(orm.is_sql_expression(v) for v in (left, right)):  # ``func.count(x) * 100``
            return Val(types=frozenset({orm.BINARY_EXPRESSION}), pure=True)
        plain = all(v.pure or (v.types and v.types <= IMMUTABLE_TYPES) for v in (left, right))
        made = Val(types=kinds, inner=left.reach | right.reach, exact=kinds is not None, pure=plain)
        return join_all([made, *(v for v in given if v is not None)])
    if isinstance(node, ast.BoolOp):
        if kept:  # (only tested: `tested`)
            for each in node.values:
                tested(frame, each)
        values = [evaluate(frame, each) for each in node.values]
        for each, value in zip(node.values[:-1], values, strict=False):  # all but the last
            truth(frame, each, value)
        return join_all(values)
    if isinstance(node, ast.UnaryOp):
        if isinstance(node.op, ast.Not):
            tested(frame, node.operand)
        operand = evaluate(frame, node.operand)
        if isinstance(node.op, ast.Not):
            truth(frame, node.operand, operand)
            return const(True)
        dunder(frame, node.operand, operand, (_UNARY[type(node.op)],), [])
        return operand.derived(
            types=operand.types if operand.types and operand.types <= IMMUTABLE_TYPES else None
        )
    if isinstance(node, ast.Compare):
        for compared in (node.left, *node.comparators):
            frame.keep(compared)
        left_node, left = node.left, evaluate(frame, node.left)
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            right = evaluate(frame, right_node)
            if isinstance(op, ast.In | ast.NotIn):
                dunder(frame, right_node, right, ("__contains__",), [left_node])
                # a container of Python's compares its items with the value, and a set or a
                # dict hashes it first: the value's class's own code runs
                dunder(frame, left_node, left, ("__eq__",), [left_node])
                dunder(frame, left_node, left, ("__hash__",), [])
            elif type(op) in _COMPARE:
                dunder(frame, left_node, left, (_COMPARE[type(op)],), [right_node])
                # (Python asks the right side too, reflected, when the left cannot answer)
                dunder(frame, right_node, right, (_REFLECTED[type(op)],), [left_node])
            left_node, left = right_node, right
        return fresh_of(bool)
    if isinstance(node, ast.IfExp):
        if kept:  # (it gives one of them, where it is kept: ``(a if c else b).append(x)``)
            for branch in (node.body, node.orelse):
                if isinstance(branch, ast.Name):  # (`containers.grown_by` grows them)
                    frame.keep(branch)
        tested(frame, node.test)
        truth(frame, node.test, evaluate(frame, node.test))
        return join(evaluate(frame, node.body), evaluate(frame, node.orelse))
    if isinstance(node, ast.JoinedStr):
        for v in node.values:
            evaluate(frame, v)
        return fresh_of(str)
    if isinstance(node, ast.FormattedValue):
        frame.keep(node.value)
        value = evaluate(frame, node.value)
        if node.format_spec is not None:
            evaluate(frame, node.format_spec)
        # Formatting calls the value's own __format__ (object's calls __str__), or __repr__
        # with !r: code of the value's class that runs here.
        if node.conversion == ord("r"):
            dunder(frame, node.value, value, ("__repr__",), [])
        else:
            dunder(frame, node.value, value, ("__format__", "__str__"), [ast.Constant(value="")])
        return fresh_of(str)
    if isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
        return comprehension(frame, node, now=kept)
    if isinstance(node, ast.Lambda):
        for d in node.args.defaults + [d for d in node.args.kw_defaults if d is not None]:
            evaluate(frame, d)
        return Val(types=frozenset(), calls=(Inline(node=node, frame=frame),))
    if isinstance(node, ast.NamedExpr):
        value = evaluate(frame, node.value)
        frame.assign(node.target, value, node.value, ":=")
        return value
    if isinstance(node, ast.YieldFrom):
        frame.yields.append(frame.iterate(evaluate(frame, node.value)))
        return Val(origin=frozenset({UNKNOWN}), inner=frozenset({UNKNOWN}))
    if isinstance(node, ast.Await):
        return evaluate(frame, node.value)
    if isinstance(node, ast.Yield):
        frame.yields.append(evaluate(frame, node.value) if node.value is not None else const(None))
        return Val(origin=frozenset({UNKNOWN}), inner=frozenset({UNKNOWN}), pure=True)
    if isinstance(node, ast.Starred):
        return evaluate(frame, node.value)
    if isinstance(node, ast.Slice):
        for part in (node.lower, node.upper, node.step):
            if part is not None:
                evaluate(frame, part)
        return fresh_of(slice)
    return Val(origin=frozenset({UNKNOWN}))


def dunder(frame: Frame, node: ast.expr, value: Val, names: tuple[str, ...],
           args: list[ast.expr]) -> Val | None:
    """Follow the special method an operator calls on `value` (``f"{x}"`` calls
    ``x.__format__``), when its class defines it in Python: code that runs, so its effects
    count. The first of `names` the class defines is the one called; what it returns (None
    when none is defined)."""
    if not value.types:
        return None
    if Unseen in value.types:  # (the known classes' own: as for a value of no known class)
        return special.special(frame, value, names, [evaluate(frame, a) for a in args], node)
    for name in names:
        if any(special.defines(t, name) for t in value.types):
            call = ast.Call(func=ast.Attribute(value=node, attr=name, ctx=ast.Load()),
                            args=list(args), keywords=[])
            ast.copy_location(call, node)
            ast.fix_missing_locations(call)
            return calls.evaluate_call(frame, call)
    return None


def _keep_parts(frame: Frame, parts: list[ast.expr]) -> None:
    """The containers a display is made of starred (``[*xs]``, a copy of what they hold) stay
    with their names, unless what they hold are containers (the copy holds them too)."""
    for part in parts:
        if isinstance(part, ast.Starred) and not (
                isinstance(part.value, ast.Name) and frame.name(part.value.id).shares_known):
            frame.keep(part.value)


def tested(frame: Frame, node: ast.expr) -> None:
    """`node`, walked next, is only tested for truth (``if xs:``, ``xs and ys`` in a test): the
    containers it names stay with their names (`Frame.keep`)."""
    frame.keep(node)


def truth(frame: Frame, node: ast.expr, value: Val) -> None:
    """What testing `value` for truth runs of its class's code (``if x:``, ``not x``, ``x and
    y``): ``__bool__``, else ``__len__``."""
    dunder(frame, node, value, ("__bool__", "__len__"), [])


def iterated_by(frame: Frame, node: ast.expr, value: Val) -> None:
    """What a loop over `value` runs of its class's code: ``__iter__`` once, then the
    iterator's ``__next__`` once an item (`Frame.repeated`)."""
    iterator = dunder(frame, node, value, ("__iter__", "__aiter__"), [])
    if iterator is None or not iterator.types:
        iterator = value
    with frame.repeated():
        for kind in iterator.types or ():
            if any(special.defines(kind, name) for name in ("__next__", "__anext__")):
                method = "__next__" if special.defines(kind, "__next__") else "__anext__"
                calls.call_args(frame, frame.an.attr_of_type(frame, iterator, kind, method),
                                Args([], {}), node)


def comprehension(frame: Frame, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp,
                  *, now: bool = False) -> Val:
    """A comprehension: a fresh container of what its element expression yields. All but its
    first iterable is evaluated once an item (`Frame.repeated`). Walked again when a container
    it iterates was filled as it ran (``[x for x in xs if not xs.append(y)]``). A generator
    expression runs as it is used: the containers it iterates stay with their names only where
    it is used up at once (``sum(x.n for x in xs)``: `Frame.keep`)."""
    now = now or not isinstance(node, ast.GeneratorExp)
    for walk in range(4):
        reshaped, before = frame.reshaped, frame.held_now()
        made = _comprehended(frame, node, now)
        if frame.reshaped == reshaped or (walk and frame.held_now() == before):
            return made
    frame.let_go_every()  # (a chain of containers filling each other: `statements.looped`)
    return _comprehended(frame, node, now)


def _comprehended(frame: Frame, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp,
                  now: bool) -> Val:
    """One walk of a comprehension (`comprehension`; `now`: it runs as it is made)."""
    with ExitStack() as repeated:
        for gen in node.generators:
            if now:
                frame.keep(gen.iter)
            iterated = evaluate(frame, gen.iter)
            iterated_by(frame, gen.iter, iterated)
            repeated.enter_context(frame.repeated())
            frame.assign(gen.target, frame.iterate(iterated), None, "=")
            for cond in gen.ifs:
                tested(frame, cond)
                truth(frame, cond, evaluate(frame, cond))
        if isinstance(node, ast.DictComp):
            key, value = evaluate(frame, node.key), evaluate(frame, node.value)
            dunder(frame, node.key, key, ("__hash__",), [])  # (each key hashed, as it is put)
            return fresh_of(dict, inner=_reach([key, value]))  # (as a dict literal: above)
        part = evaluate(frame, node.elt)
        if isinstance(node, ast.SetComp):  # (each item hashed, by its class's own code)
            dunder(frame, node.elt, part, ("__hash__",), [])
    kind = {ast.ListComp: list, ast.SetComp: set}.get(type(node))
    if kind is None:
        return Val(inner=part.reach, pure=True, elem=part.types, shape=Typed(item=part.contents()))
    return fresh_of(kind, inner=part.reach, elem=part.types, shape=Typed(item=part.contents()))


def _reach(parts: list[Val]) -> frozenset[str]:
    """Where what a container is made of may come from (text and numbers aside: what holds
    them cannot change them)."""
    out: frozenset[str] = EMPTY
    for p in parts:
        if not (p.types and p.types <= _SCALARS):
            out |= p.reach
    return out


_SCALARS = IMMUTABLE_TYPES - {tuple, frozenset}
"""Values that hold nothing that could be changed."""


def _elem(parts: list[Val]) -> frozenset[type] | None:
    kinds: set[type] = set()
    for p in parts:
        if p.types is None:
            return None
        kinds |= p.types
    return frozenset(kinds)


_BINARY: dict[type, str] = {
    ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv", ast.FloorDiv: "floordiv",
    ast.Mod: "mod", ast.Pow: "pow", ast.MatMult: "matmul", ast.LShift: "lshift",
    ast.RShift: "rshift", ast.BitOr: "or", ast.BitAnd: "and", ast.BitXor: "xor",
}
"""The special methods binary operators call (``__add__``, and ``__radd__`` on the right)."""


_COMPARE: dict[type, str] = {
    ast.Eq: "__eq__", ast.NotEq: "__ne__", ast.Lt: "__lt__", ast.LtE: "__le__", ast.Gt: "__gt__",
    ast.GtE: "__ge__",
}
"""The special methods comparisons call."""

_REFLECTED: dict[type, str] = {
    ast.Eq: "__eq__", ast.NotEq: "__ne__", ast.Lt: "__gt__", ast.LtE: "__ge__", ast.Gt: "__lt__",
    ast.GtE: "__le__",
}
"""The special methods comparisons call on the right side, when the left cannot answer."""

_UNARY: dict[type, str] = {ast.USub: "__neg__", ast.UAdd: "__pos__", ast.Invert: "__invert__"}
"""The special methods unary operators call (``not`` tests truth: `truth`)."""
