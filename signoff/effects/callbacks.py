"""What allow-listed calls give, and the functions they call back (``map(f, xs)`` calls ``f``
with each item; ``sorted(xs, key=f)`` compares what ``f`` gave): each followed as any call is,
and what it gave kept where the result holds it (a ``map``'s items are what ``f`` gave).
"""

from __future__ import annotations

import ast
from dataclasses import replace

from signoff.effects import calls, comparing, containers, orm, special
from signoff.effects.scope import Scope, call_text
from signoff.effects.tables import (
    ACCUMULATING,
    CALLBACK_POSITIONS,
    CALLS_CODE_IT_HOLDS,
    IMMUTABLE_TYPES,
    ITEMS_HANDED_ON,
    RETURN_TYPES,
    gives_fresh,
)
from signoff.effects.values import (
    EMPTY,
    Args,
    Typed,
    Val,
    fresh_of,
    join,
    join_all,
    only_plain,
    process_wide,
)

__all__ = ["pure_result"]


def pure_result(frame: Scope, q: str, args: Args, node: ast.AST | None) -> Val:
    """What the allow-listed call `q` gives, its callbacks followed (`pure_call`)."""
    positions, keywords = CALLBACK_POSITIONS.get(q, ((), ()))
    reach = args.reach()
    fresh = gives_fresh(q)
    item = Val(pure=True) if fresh else Val(origin=reach, inner=reach)
    iterable = ITEMS_HANDED_ON.get(q)
    if iterable is not None and len(args.pos) > iterable:  # the key is given an item
        item = frame.iterate(args.pos[iterable])
        if q in ACCUMULATING:  # (and where it starts: ``reduce(f, xs, start)``, ``initial=``)
            item = join_all([item, *args.pos[iterable + 1 : iterable + 2], *args.kw.values()])
    with frame.repeated():  # what it is handed is called once an item
        gave = [
            _callback(frame, v, item, node, expected=i in positions, where=q) for i, v in enumerate(args.pos)
        ]
        gave += [_callback(frame, v, item, node, expected=k in keywords, where=q) for k, v in args.kw.items()]
    called = any(g is not None for g in gave)
    if q == "functools.reduce" and called:  # (what the function gave back, or an item)
        return join_all([item, *(g for g in gave if g is not None)])
    if q == "builtins.map" and called:  # (its items: what the function gave)
        mapped = join_all([g for g in gave if g is not None])
        return fresh_of(map, inner=reach, shape=Typed(item=mapped.contents()))
    first = args.pos[0] if args.pos else None
    if q == "builtins.dict.fromkeys" and len(args.pos) > 1 and not only_plain(args.pos[1]):
        # each key's value is the one given, of the app's
        keys = frame.iterate(args.pos[0]).contents()
        return fresh_of(dict, inner=reach, shape=Typed(item=keys, value=args.pos[1].contents()))
    if q == "copy.copy" and first is not None and first.types:
        # a copy holds the same items (and may be the very object: a class's own ``__copy__``)
        plain = first.pure or first.types <= IMMUTABLE_TYPES
        copied = Val(origin=first.reach, inner=first.reach, types=first.types, pure=plain)
        return replace(copied, elem=first.elem, shape=first.shape)
    if fresh and (not called or q in ("re.sub", "re.subn")):
        if q in containers.SHAPED_RESULTS:  # (of what it was given, where it is not text)
            return containers.shaped_result(q, args)
        made = RETURN_TYPES.get(q)  # (``decimal.getcontext()``: the thread's, `process_wide`)
        return process_wide(replace(fresh_of(made), pure=True)) if made is not None else Val(pure=True)
    if q in ("operator.getitem", "_operator.getitem") and first is not None:
        return frame.item(first)  # (``operator.getitem(xs, 0)`` is ``xs[0]``)
    if q in ("builtins.max", "builtins.min") and first is not None:
        if len(args.pos) == 1:  # the largest of an iterable: one of its items, or its default
            default = [args.kw["default"]] if "default" in args.kw else []
            return join_all([first.taken(first.contents().item), *default])
        return join_all(args.pos)
    if q in ("heapq.nlargest", "heapq.nsmallest") and len(args.pos) > 1:
        return fresh_of(list, inner=reach, shape=Typed(item=args.pos[1].contents().item))
    if q in containers.SHAPED_RESULTS:
        return containers.shaped_result(q, args)
    made_of = [c for c in first.objs if isinstance(c, type)] if first is not None else []
    if made_of and q.startswith("builtins.") and q.endswith(".__new__"):  # ``P.__new__(P)``: a
        return join_all([fresh_of(c) for c in made_of])  # P, its ``__init__`` not run
    returns = RETURN_TYPES.get(q)
    if returns is not None:
        listed = first is not None and returns in (list, tuple, set, frozenset)
        # (what it holds: the items of what it was made from — a query's rows too)
        shape = Typed(item=frame.iterate(first).contents()) if listed and first is not None else None
        contained = reach if returns not in IMMUTABLE_TYPES or returns in (tuple, frozenset) else EMPTY
        # (a logger is the process's own, not made here: `process_wide`)
        return process_wide(fresh_of(returns, inner=contained, shape=shape))
    if not reach:
        objects = [
            v for v in args.every() if not v.pure and not (v.types is not None and v.types <= IMMUTABLE_TYPES)
        ]
        if not objects:
            return Val(pure=True)
        # What it returns may be an object it was given (copy.copy, typing.cast): of its types.
        return Val(types=join_all(objects).types)
    return Val(origin=reach, inner=reach)


def _callback(
    frame: Scope, v: Val, item: Val, node: ast.AST | None, *, expected: bool, where: str
) -> Val | None:
    """A function handed to allow-listed code is called by it: what it gives (None when there
    is none)."""
    functions = [o for o in v.objs if callable(o) and not isinstance(o, str)]  # (a class: made)
    if v.calls or functions:
        callee = replace(v, objs=tuple(functions))
        given = calls.call_args(frame, callee, Args([item, item], {}), node)
        orm.held(frame, [given], node)  # (``map(text, …)``: what it gives is not followed)
        if where in ACCUMULATING:  # (what it gives back is handed back to it)
            calls.call_args(frame, callee, Args([join(item, given), item], {}), node)
        elif where in ("builtins.sorted", "builtins.min", "builtins.max"):  # (compared, and
            comparing.decided(frame, special.special(  # what that gave taken as a truth)
                frame, given, ("__lt__", "__gt__"), [given], node), node)
        elif where == "itertools.groupby" and expected:  # (each key compared with the last)
            comparing.decided(frame, special.special(frame, given, ("__eq__",), [given], node),
                              node)
        return given
    held = [t for t in v.types or () if t in CALLS_CODE_IT_HOLDS or special.defines(t, "__call__")]
    if expected and held and not v.pure:  # (known by its type alone: a methodcaller, a partial,
        return calls.call_args(frame, replace(v, types=frozenset(held)), Args([item], {}), node)  # …)
    if expected and v.types is None and not v.pure:
        what = call_text(frame, node)
        return frame.unknown(what, f"hands {where} a callable whose code cannot be resolved")
    return None
