"""Evaluating expressions: the value an expression gives a frame (`Val`), and what evaluating it
does, including the special methods operators call on the app's own classes.

Each function takes the `Frame` walked; calls are judged in `calls`.
"""

from __future__ import annotations

import ast
import collections
import copy
import inspect
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import replace
from typing import TYPE_CHECKING

from signoff.effects import (
    calls,
    comparing,
    containers,
    field_methods,
    orm,
    shown_exceptions,
    special,
    taken_whole,
)
from signoff.effects.tables import (
    CONTAINER_VIEWS,
    IMMUTABLE_TYPES,
    MUTATING_METHODS,
    PYTHON_CONTAINERS,
)
from signoff.effects.values import (
    EMPTY,
    UNKNOWN,
    UNTYPED,
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
    merged,
)

if TYPE_CHECKING:
    from signoff.effects.frame import Frame

__all__ = ["dunder", "evaluate", "handed_on", "tested", "truth"]


def evaluate(frame: Frame, node: ast.expr) -> Val:
    """The value of an expression, recording what evaluating it does. A container that can
    change, whose items are known, handed on where it is not kept (`Frame.keep`) is let go:
    what it holds, and what the containers holding it hold, is no longer known."""
    kept = frame.kept_here(node)
    bound = frame.bound_here(node)
    value = _evaluate(frame, node, kept)
    if kept:
        return value
    if bound and (value.plain_container or _of_python(value)) and _made_anew(frame, node):
        _run_anywhere(value)  # (a local name's: a container made here of another's items)
        return replace(value, anew=True)
    if bound and (value.plain_container or _of_plain(frame, value)):  # (what allow-listed
        _run_anywhere(value)  # code gave, or a part of it: `Frame.bind`)
        return value
    return handed_on(frame, node, value)


def _made_anew(frame: Frame, node: ast.expr) -> bool:
    """Whether `node` makes a container of Python's anew, of others' items (a comprehension,
    a display, a slice, ``sorted(xs)``, ``xs.copy()``, ``a + b``): bound to a name, it is none
    of the containers it shares items with (`Val.owners`), so each is let go only where those
    items are changed (`Frame.let_go_parts`)."""
    if isinstance(node, ast.ListComp | ast.SetComp | ast.DictComp | ast.List | ast.Set | ast.Dict):
        return True
    if isinstance(node, ast.Subscript):
        return isinstance(node.slice, ast.Slice)
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "copy" and not node.args:
            return not node.keywords  # (``xs.copy()``)
        if isinstance(func, ast.Name):
            return any(o in _MAKERS for o in frame.name(func.id).objs)
        return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and any(
            inspect.ismodule(m) and getattr(m, func.attr, None) in _MAKERS
            for m in frame.name(func.value.id).objs)  # (``copy.copy(g)``)
    return False


_MAKERS = (sorted, list, tuple, set, frozenset, dict, copy.copy, copy.deepcopy)
"""Python's functions that make a container anew of what they are given."""


def _of_plain(frame: Frame, value: Val) -> bool:
    """Whether `value` is held only by what allow-listed code gave (``g.setdefault(k, [])``)."""
    return bool(value.owners) and all(
        frame.name(name).plain_container for name in value.owners)


def _run_anywhere(value: Val) -> None:
    """A local function `value` may be is handed on: it may run anywhere, any time."""
    for target in value.calls:
        if isinstance(target, Inline):
            target.frame.let_go_inside(target.node)


def handed_on(frame: Frame, node: ast.expr, value: Val, *, release: bool = True,
              filled: bool = False) -> Val:
    """`value`, of `node`, handed on where it is not kept (`evaluate`); `release`: and a
    parameter it may be is released (not for what a lambda gives back, released surely);
    `filled`: where what allow-listed code gave is filled (`Val.let_go`)."""
    if release:
        frame.released(value)
    _run_anywhere(value)
    if isinstance(node, ast.NamedExpr):  # (the container its name was just bound to)
        frame.let_go(node.target.id, filled=filled)
        if not value.owners:
            return value.let_go(filled=filled)
    if not value.owners:  # (a container made here and not named yet is its own)
        return value
    if isinstance(node, ast.Name):  # (its own container: `Frame.name`)
        frame.let_go(node.id, filled=filled)
    frame.let_go_all(value.owners - {node.id} if isinstance(node, ast.Name) else value.owners,
                     filled=filled)
    return replace(value.let_go(filled=filled), owners=EMPTY)


def _evaluate(frame: Frame, node: ast.expr, kept: bool) -> Val:
    if isinstance(node, ast.Name):
        return frame.name(node.id)
    if isinstance(node, ast.Constant):
        return const(node.value)
    if isinstance(node, ast.Attribute):
        called = frame.called_here(node)
        return frame.attribute(_owner(frame, node.value, node.attr, called=called), node.attr,
                               node)
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
        special.hashed(frame, index, node.slice)  # (and a tuple's parts: ``d[a, b]``)
        if isinstance(node.slice, ast.Slice) and base.types and base.types <= {list, tuple}:
            copied = list if list in base.types else tuple  # (a copy, of the same ones: `owners`)
            made = fresh_of(copied, inner=base.reach, shape=Typed(item=base.contents().item))
            return containers.sharing(replace(made, pure=base.pure), [base])
        placed = base.contents().parts  # a tuple's part, by its place
        at = index.objs[0] if len(index.objs) == 1 and type(index.objs[0]) is int else None
        if placed and at is not None and -len(placed) <= at < len(placed):
            return base.taken(placed[at])
        if placed and not isinstance(node.slice, ast.Slice):  # (any of them)
            return join_all([base.taken(part) for part in placed])
        return frame.item(base)
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        kind = {ast.List: list, ast.Tuple: tuple, ast.Set: set}[type(node)]
        _keep_parts(frame, node.elts)
        parts = [_part(frame, e, sizes=kind is not set) for e in node.elts]
        orm.held(frame, parts, node)  # (SQL text held: what it does counts here)
        if kind is set:  # each item is hashed, by its class's own code
            for e, item in zip(node.elts, parts, strict=True):
                dunder(frame, e, item, ("__hash__",), [])
                special.hashed(frame, item, e)  # (and a tuple's parts)
        starred = any(isinstance(e, ast.Starred) for e in node.elts)
        shape = Typed(item=_items(parts)) if kind is not tuple or starred else Typed(
            parts=tuple(p.contents() for p in parts), item=_items(parts))
        return _holding(fresh_of(kind, inner=_reach(parts), elem=_elem(parts), shape=shape), parts)
    if isinstance(node, ast.Dict):
        _keep_parts(frame, [ast.Starred(value=v) for k, v in zip(node.keys, node.values,
                                                                 strict=True) if k is None])
        keys: list[Val] = []
        values: list[Val] = []
        for k, v in zip(node.keys, node.values, strict=True):
            if k is None:  # (``**other``: its keys and values)
                other = _held(frame, v)
                taken_whole.merged(frame, other, v)  # (its own keys() and __getitem__)
                keys.append(frame.iterate(other))
                values.append(other.taken(other.contents().value))
                continue
            key = _held(frame, k)
            dunder(frame, k, key, ("__hash__",), [])  # (each key hashed, by its class's code)
            special.hashed(frame, key, k)  # (and a tuple's parts)
            keys.append(key)
            values.append(_held(frame, v))
        orm.held(frame, keys + values, node)  # (``update(T).values({"c": text(…)})``: counts)
        return _holding(fresh_of(dict, inner=_reach(keys + values),
                                 shape=Typed(item=_items(keys), value=_items(values))),
                        keys + values)
    if isinstance(node, ast.BinOp):
        named = [side for side in (node.left, node.right) if isinstance(side, ast.Name)]
        for side in named:  # (Python's operators only read what they combine)
            frame.keep(side)
        left, right = evaluate(frame, node.left), evaluate(frame, node.right)
        if not (all(_of_python(v) for v in (left, right))  # (another's operator may keep
                or all(v.plain_container for v in (left, right))):  # them: not Python's own,
            # nor what allow-listed code gave, both: ``a + b`` of lists; ``xs + g`` hands xs on)
            left, right = (handed_on(frame, side, value) if side in named else value
                           for side, value in ((node.left, left), (node.right, right)))
        else:
            combined = _combined(node.op, left, right)
            if combined is not None:
                return combined
        name = _BINARY.get(type(node.op))
        given: list[Val | None] = []  # what the operands' own methods give, when they have them
        if name is not None:
            given += [dunder(frame, node.left, left, (f"__{name}__",), [node.right]),
                      dunder(frame, node.right, right, (f"__r{name}__",), [node.left])]
        if name == "mul":  # (a sequence repeated takes the times as an integer: ``[0] * n``)
            for operand, operand_node in ((left, node.left), (right, node.right)):
                special.as_index(frame, operand, operand_node)
        texts: list[Val | None] = []  # (what ``"%s" % x`` may give: what x's __str__ gave)
        if name == "mod" and left.types and left.types <= {str, bytes}:
            # "%s" % x formats x (and each item of a tuple) by its class's own code
            shapes = right.contents().parts
            formatted = [right.reached(p) for p in shapes] if shapes else [frame.iterate(right)]
            if right.types is None or dict in right.types or not right.types <= IMMUTABLE_TYPES:
                formatted.append(special.looked_up(frame, right, node))  # (``"%(a)s" % m``)
            for value in (right, *formatted):
                texts.append(special.each(frame, value, ("__str__", "__repr__"), [], node))
                special.special(frame, value, ("__index__", "__int__", "__float__"), [], node)
        kinds = left.types if left.types and left.types <= IMMUTABLE_TYPES else None
        if kinds is None and left.types and left.types <= {list, dict, set}:
            kinds = left.types
        if any(orm.is_sql_expression(v) for v in (left, right)):  # ``func.count(x) * 100``
            return orm.carried(Val(types=frozenset({orm.BINARY_EXPRESSION}), pure=True),
                               (left, right))
        plain = all(v.pure or (v.types and v.types <= IMMUTABLE_TYPES) for v in (left, right))
        made = Val(types=kinds, inner=left.reach | right.reach, exact=kinds is not None, pure=plain)
        made = special.shown(made, *texts) if kinds == frozenset({str}) else made
        return _holding(join_all([made, *(v for v in given if v is not None)]), [left, right])
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
        return orm.carried(operand.derived(
            types=operand.types if operand.types and operand.types <= IMMUTABLE_TYPES else None
        ), (operand,))
    if isinstance(node, ast.Compare):
        for compared in (node.left, *node.comparators):
            frame.keep(compared)
        left_node, left = node.left, evaluate(frame, node.left)
        sides = [left]  # (``column == text(…)``: what SQL text there does goes on in it)
        gave: list[Val | None] = []  # (what each comparison gave: ``a < b`` is what __lt__ gave)
        for at, (op, right_node) in enumerate(zip(node.ops, node.comparators, strict=True)):
            right = evaluate(frame, right_node)
            sides.append(right)
            if isinstance(op, ast.In | ast.NotIn):  # (what __contains__ gave, taken as a truth)
                comparing.decided(frame, dunder(frame, right_node, right, ("__contains__",),
                                                [left_node]), node)
                # a container of Python's compares its items with the value, and a set or a
                # dict hashes it first: the value's class's own code runs
                comparing.decided(frame, dunder(frame, left_node, left, ("__eq__",), [left_node]),
                                  node)
                dunder(frame, left_node, left, ("__hash__",), [])
                special.hashed(frame, left, left_node)  # (and a tuple's parts)
                if right.types and right.types <= {list, tuple, collections.deque}:
                    comparing.decided(frame, special.special(
                        frame, frame.iterate(right), ("__eq__",), [left], node), node)
            elif type(op) in _COMPARE:
                gave.append(dunder(frame, left_node, left, (_COMPARE[type(op)],), [right_node]))
                # (Python asks the right side too, reflected, when the left cannot answer)
                gave.append(dunder(frame, right_node, right, (_REFLECTED[type(op)],), [left_node]))
                for held in (left, right):  # (a container of Python's compares its items)
                    comparing.items_compared(frame, held, _COMPARE[type(op)], node)
            if at < len(node.ops) - 1:  # (``a < b < c``: ``a < b`` taken as a truth first)
                for decided in gave:
                    comparing.decided(frame, decided, node)
                gave = []
            left_node, left = right_node, right
        truth_of = orm.carried(fresh_of(bool), sides)
        found = [g for g in gave if g is not None and comparing.has_truth(g)]  # (of a class
        return join_all([truth_of, *found]) if found else truth_of  # whose truth is its own)
    if isinstance(node, ast.IfExp):
        if kept:  # (it gives one of them, where it is kept: ``(a if c else b).append(x)``)
            for branch in (node.body, node.orelse):
                if isinstance(branch, ast.Name):  # (`containers.grown_by` grows them)
                    frame.keep(branch)
        tested(frame, node.test)
        truth(frame, node.test, evaluate(frame, node.test))
        return join(evaluate(frame, node.body), evaluate(frame, node.orelse))
    if isinstance(node, ast.JoinedStr):  # (one value alone: what formatting it gave)
        parts = [evaluate(frame, v) for v in node.values]
        return parts[0] if len(parts) == 1 else fresh_of(str)
    if isinstance(node, ast.FormattedValue):
        frame.keep(node.value)
        value = evaluate(frame, node.value)
        if node.format_spec is not None:
            evaluate(frame, node.format_spec)
        # Formatting calls the value's own __format__ (object's calls __str__), or __repr__
        # with !r: code of the value's class that runs here.
        if node.conversion in (ord("r"), ord("s"), ord("a")):  # (then what that gave is
            shown = dunder(frame, node.value, value, ("__str__", "__repr__") if node.conversion == (
                ord("s")) else ("__repr__",), [])  # formatted by its own class's code)
            if shown is not None:
                special.special(frame, shown, ("__format__",), [const("")], node)
            return fresh_of(str)
        spec = node.format_spec or ast.Constant(value="")
        given_text = dunder(frame, node.value, value, ("__format__", "__str__", "__repr__"),
                            [spec])  # (object's __format__ calls __str__, and that __repr__)
        return special.shown(fresh_of(str), given_text) if node.conversion == -1 else fresh_of(str)
    if isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
        return comprehension(frame, node, now=kept)
    if isinstance(node, ast.Lambda):
        for d in node.args.defaults + [d for d in node.args.kw_defaults if d is not None]:
            evaluate(frame, d)
        return Val(types=frozenset(), calls=(Inline(node=node, frame=frame),))
    if isinstance(node, ast.NamedExpr):
        frame.bind(node.value)
        value = evaluate(frame, node.value)
        frame.assign(node.target, value, node.value, ":=")
        if value.plain_container or _of_plain(frame, value):  # (what allow-listed code gave,
            return frame.name(node.target.id)  # filled through the walrus: through its name)
        return value
    if isinstance(node, ast.YieldFrom):
        frame.yields.append(special.iterated(frame, evaluate(frame, node.value), node))
        return Val(origin=frozenset({UNKNOWN}), inner=frozenset({UNKNOWN}))
    if isinstance(node, ast.Await):  # (a coroutine that outlives the call: its code runs)
        awaited = evaluate(frame, node.value)
        special.advanced(frame, awaited)
        special.special(frame, awaited, ("__await__",), [], node)  # (an awaitable of the app's)
        return awaited
    if isinstance(node, ast.Yield):
        frame.yields.append(evaluate(frame, node.value) if node.value is not None else const(None))
        return Val(origin=frozenset({UNKNOWN}), inner=frozenset({UNKNOWN}), pure=True)
    if isinstance(node, ast.Starred):
        return evaluate(frame, node.value)
    if isinstance(node, ast.Slice):  # (each bound taken as an integer: its __index__ runs)
        for part in (node.lower, node.upper, node.step):
            if part is not None:
                special.as_index(frame, evaluate(frame, part), part)
        return fresh_of(slice)
    return Val(origin=frozenset({UNKNOWN}))


def dunder(frame: Frame, node: ast.expr, value: Val, names: tuple[str, ...],
           args: list[ast.expr]) -> Val | None:
    """Follow the special method an operator calls on `value` (``f"{x}"`` calls
    ``x.__format__``), when its class defines it in Python: code that runs, so its effects
    count. The first of `names` the class defines is the one called; what it returns (None
    when none is defined)."""
    special.model_shown(frame, value, names, node)  # (a model's own, pydantic's: its fields')
    if not value.types and value.maybe:  # (of no known class: those the code seen gives it)
        return special.special(frame, replace(value, types=value.maybe), names,
                               [evaluate(frame, a) for a in args], node)
    if not value.types:
        return None
    if Unseen in value.types or (value.objs and not value.beyond and all(
            isinstance(o, type) for o in value.objs)):
        # (the known classes' own, as for a value of no known class; a class's, its
        # metaclass's: ``C == x`` runs ``type(C).__eq__``, not the ``__eq__`` C's objects have)
        return special.special(frame, value, names, [evaluate(frame, a) for a in args], node)
    given, left = [], set(value.types)  # (each class runs the first of them it defines)
    for name in names:
        if any(special.defines(t, name) for t in left):
            left = {t for t in left if not special.defines(t, name)}
            call = ast.Call(func=ast.Attribute(value=node, attr=name, ctx=ast.Load()),
                            args=list(args), keywords=[])
            ast.copy_location(call, node)
            ast.fix_missing_locations(call)
            given.append(calls.evaluate_call(frame, call))
    for kind in left:  # (a dataclass's written ones: its fields', by their classes' code)
        field_methods.by_fields(frame, value, kind, names, node)
        shown_exceptions.shown(frame, value, kind, names, node)  # (an exception's arguments)
    return join_all(given) if given else None


def _keep_parts(frame: Frame, parts: list[ast.expr]) -> None:
    """The containers a display is made of starred (``[*xs]``, a copy of what they hold) stay
    with their names, unless what they hold are containers (the copy holds them too); a
    generator starred there is used up at once. Anything else starred (``[*d.values()]``) is
    handed on."""
    for part in parts:
        if not isinstance(part, ast.Starred):
            continue
        if isinstance(part.value, ast.GeneratorExp) or (  # (used up at once)
                isinstance(part.value, ast.Name) and not frame.name(part.value.id).shares_known):
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
    iterator = dunder(frame, node, value, ("__iter__", "__aiter__", "__getitem__"), [])
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
    """One walk of a comprehension (`comprehension`; `now`: it runs as it is made). The names
    its ``for`` binds are its own: what the function's names of the same hold is put aside
    while it is walked, and back after (``v`` a word in one, a number in the next)."""
    with ExitStack() as repeated:
        for gen in node.generators:
            if now:
                frame.keep(gen.iter)
            iterated = evaluate(frame, gen.iter)
            iterated_by(frame, gen.iter, iterated)
            if gen is node.generators[0]:  # (the first is evaluated where the comprehension is)
                repeated.enter_context(_own_names(frame, node))
            repeated.enter_context(frame.repeated())
            frame.assign(gen.target, frame.iterate(iterated), None, "=")
            for cond in gen.ifs:
                tested(frame, cond)
                truth(frame, cond, evaluate(frame, cond))
        if isinstance(node, ast.DictComp):
            key, value = _held(frame, node.key), _held(frame, node.value)
            orm.held(frame, [key, value], node)  # (SQL text held: what it does counts here)
            dunder(frame, node.key, key, ("__hash__",), [])  # (each key hashed, as it is put)
            special.hashed(frame, key, node.key)
            return _holding(fresh_of(dict, inner=_reach([key, value]),  # (as a dict display)
                                     shape=Typed(item=key.contents(), value=value.contents())),
                            [key, value])
        part = _held(frame, node.elt)
        orm.held(frame, [part], node)  # (SQL text held, or yielded: what it does counts here)
        if isinstance(node, ast.SetComp):  # (each item hashed, by its class's own code)
            dunder(frame, node.elt, part, ("__hash__",), [])
            special.hashed(frame, part, node.elt)
    kind = {ast.ListComp: list, ast.SetComp: set}.get(type(node))
    if kind is None:
        return _holding(Val(inner=part.reach, pure=True, elem=part.types,
                            shape=Typed(item=part.contents())), [part])
    return _holding(fresh_of(kind, inner=part.reach, elem=part.types,
                             shape=Typed(item=part.contents())), [part])


@contextmanager
def _own_names(frame: Frame, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp
               ) -> Iterator[None]:
    """The names a comprehension's ``for`` binds, bound afresh in it and forgotten after it
    (`_comprehended`) — where nothing the walk learns in it could be of the function's name of
    the same: not one holding a container whose items are known (another name for it, or one
    holding what it holds, may be filled in the comprehension), nor where the comprehension
    makes a lambda (one kept runs later, with the name's last value), binds a name (a walrus)
    or names a local function (whose code, called there or handed to ``map``, reads the
    function's name, not the comprehension's)."""
    if any(isinstance(inside, ast.Lambda | ast.NamedExpr) or (
            isinstance(inside, ast.Call) and not isinstance(inside.func, ast.Attribute | ast.Name))
            or (isinstance(inside, ast.Name) and _local_code(frame, inside.id))
            for inside in ast.walk(node)):
        yield
        return
    names = {bound.id for gen in node.generators for bound in ast.walk(gen.target)
             if isinstance(bound, ast.Name)}
    outer = {name: frame.env.pop(name) for name in names if name in frame.env
             and name not in frame.aliases and not frame.env[name].holds_known
             and not frame.env[name].plain_container}
    fresh = names - {name for name in names if name in frame.env}  # (its own, or set aside)
    try:
        yield
    finally:
        for name in fresh:
            frame.env.pop(name, None)
        frame.env.update(outer)


def _local_code(frame: Frame, name: str) -> bool:
    """Whether a frame of the walk binds `name` to code it walks where it is called (a local
    function, a lambda, a method)."""
    scope: Frame | None = frame
    while scope is not None:
        if name in scope.env:
            return bool(scope.env[name].calls)
        scope = scope.parent
    return False


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


def _owner(frame: Frame, node: ast.expr, attr: str, *, called: bool) -> Val:
    """What an attribute is read of: handed on (`handed_on`: its class's code may keep it),
    but for what allow-listed code gave, whose methods only compute (the text a function of
    Python's made, held in a list, stays with that list: ``[w.splitlines() for w in wrapped]``;
    one filling it lets the list go, `containers.filled_elsewhere`)."""
    if id(node) in frame.kept:
        return evaluate(frame, node)
    if not isinstance(node, ast.Name):  # (``it["name"].upper()``: what allow-listed code
        frame.bind(node)                # gave is not handed on to its own method)
        value = evaluate(frame, node)
        return handed_on(frame, node, value, filled=True) if value.plain_container and (
            attr in _LIVE and not called) else value
    frame.keep(node)
    value = evaluate(frame, node)
    return value if value.pure and (attr not in _LIVE or (called and value.plain_container)) else (
        handed_on(frame, node, value, filled=attr in _LIVE))


_LIVE = MUTATING_METHODS | CONTAINER_VIEWS
"""The methods of Python's containers that fill them, or give what sees them filled later (a
dict's ``values()``, an iterator)."""


def _of_python(value: Val) -> bool:
    """Whether `value` is of Python's own types (its operators only read it)."""
    return bool(value.types) and value.types is not None and value.types <= (
        PYTHON_CONTAINERS | IMMUTABLE_TYPES)


_INT = frozenset({int})

_MAPPINGS: frozenset[type] = frozenset({dict})

_COMBINING: tuple[tuple[frozenset[type], tuple[type[ast.operator], ...]], ...] = (
    (frozenset({list}), (ast.Add,)),
    (frozenset({tuple}), (ast.Add,)),
    (frozenset({set, frozenset}), (ast.BitOr, ast.BitAnd, ast.Sub, ast.BitXor)),
    (_MAPPINGS, (ast.BitOr,)),
)
"""Python's containers of a kind, and the operators by which two of them make one of the
items of either (``a + b``, ``a | b``, ``a & b``…): of the left one's type."""


def _combined(op: ast.operator, left: Val, right: Val) -> Val | None:
    """The container two of Python's make with `op` (`_COMBINING`; a list repeated by
    ``xs * 2``), holding what either held, and so the same containers (`Val.owners`); None for
    any other operation."""
    if isinstance(op, ast.Mult):
        repeated = [v for v in (left, right) if v.types and v.types <= {list, tuple}]
        if len(repeated) != 1 or (right if repeated[0] is left else left).types != _INT:
            return None
        kind = list if list in (repeated[0].types or ()) else tuple
        made = fresh_of(kind, inner=repeated[0].reach, shape=Typed(item=repeated[0].contents().item))
        return containers.sharing(made, repeated)
    if left.types is None or right.types is None:
        return None
    for family, ops in _COMBINING:
        if left.types <= family and right.types <= family and isinstance(op, ops):
            held_l, held_r = left.contents(), right.contents()
            mapping = family == _MAPPINGS
            made = fresh_of(next(iter(left.types)), inner=left.reach | right.reach, shape=Typed(
                item=merged(held_l.item, held_r.item),
                value=merged(held_l.value, held_r.value) if mapping else None))
            return containers.sharing(made, [left, right])
    return None


def _part(frame: Frame, node: ast.expr, *, sizes: bool = False) -> Val:
    """An item a list, set or tuple display puts in it: each of a starred one's (`sizes`: a
    list's or a tuple's, which asks its length first)."""
    if isinstance(node, ast.Starred):  # (unpacked: its class's own __iter__ runs)
        return taken_whole.unpacked(frame, _held(frame, node.value), node, sizes=sizes)
    return _held(frame, node)


def _held(frame: Frame, node: ast.expr) -> Val:
    """What a container made here is given to hold (a display's item, a comprehension's):
    the containers it may be, or be part of, stay with their names (`Frame.bind`); the one
    made holds them too (`_holding`)."""
    frame.bind(node)
    return evaluate(frame, node)


def _holding(made: Val, parts: list[Val]) -> Val:
    """`made`, a container holding `parts`: held, too, by the containers holding them, or
    that they are (`Val.owners`: filling what it holds lets those go, changing those lets
    the name it is bound to go)."""
    owners = frozenset().union(*(part.owners for part in parts if part.plain_container))
    return replace(made, owners=made.owners | owners) if owners else made


def _items(parts: list[Val]) -> Typed:
    """What a container made of `parts` holds: any of them (nothing, when none)."""
    if not parts:
        return Typed(types=frozenset())
    held: Typed | None = parts[0].contents()
    for part in parts[1:]:
        held = merged(held, part.contents())
    return held or UNTYPED


def _elem(parts: list[Val]) -> frozenset[type] | None:
    kinds: set[type] = set()
    for p in parts:
        if p.types is None or p.calls:  # (a callable's code is not its type's)
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
