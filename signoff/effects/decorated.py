"""Functions decorated inside the function analysed: what calling one by its name runs.

``@d`` over ``def f`` binds ``f`` to what ``d(f)`` gives, not to the function written. A
decorator of the app's may give a wrapper whose code runs at every call (a log written, a
message sent), so a name bound so is what the decorator gave, as far as that is known: one of
the app's own written in Python (``def logged(fn): ... return wrapper``) is walked here with
the function, as a local one is, and gives the function or a wrapper it defines; anything else
it gives is of no known code. The few
of Python's own decorators that give back the very function, or a cache of it, keep the
function itself: a cache (``functools.cache``, ``functools.lru_cache(...)``) hashes what it is
given first, which runs the app's ``__hash__`` (and ``__eq__`` when two hashes meet).
"""

from __future__ import annotations

import abc
import ast
import functools
import inspect
import typing
from dataclasses import replace
from typing import Any

from signoff.effects import calls, special
from signoff.effects.scope import Scope
from signoff.effects.values import Args, Inline, Val

__all__ = ["decorated", "hashed_arguments"]

_CACHES: tuple[Any, ...] = (functools.cache, functools.lru_cache)
"""Python's decorators that give a cache of the function: each call hashes its arguments."""

_CACHE_MAKERS: tuple[Any, ...] = (functools.lru_cache,)
"""Python's calls that give such a decorator (``functools.lru_cache(maxsize=8)``)."""

_THE_SAME: tuple[Any, ...] = (
    staticmethod,
    classmethod,
    abc.abstractmethod,
    typing.no_type_check,
    typing.final,
    typing.overload,
)
"""Python's decorators that give back the function, or something that calls nothing more of the
app's than it (``typing.overload``'s stand-in only raises)."""

_SAME_MAKERS: tuple[Any, ...] = (functools.wraps,)
"""Python's calls that give a decorator that gives back the function (``functools.wraps(g)``:
it only copies names onto it)."""


def decorated(
    frame: Scope, node: ast.FunctionDef | ast.AsyncFunctionDef, decorators: list[Val], local: Val
) -> Val:
    """What the name of the function `node` (`local`) is bound to, once each of its
    `decorators` (evaluated) is called with it, bottom up: the function (a cache of it, whose
    calls hash their arguments) for Python's own decorators that give it back, else what the
    decorator gave (a wrapper, or what cannot be known: calling it is then unknown)."""
    made = local
    for decorator, deco in zip(reversed(decorators), reversed(node.decorator_list), strict=True):
        followed = _followed(frame, decorator, made, deco)
        if followed is not None:  # (the app's own, walked here: what it gave, as far as known)
            made = followed
            continue
        given = calls.call_args(frame, decorator, Args([made], {}), deco)
        kind = _kind(frame, decorator, deco)
        if kind == "cache":
            made = replace(
                made, calls=tuple(replace(t, hashes=True) if isinstance(t, Inline) else t for t in made.calls)
            )
        elif kind != "same":  # (allow-listed code's, of no known code: not taken to compute)
            made = given if given.objs or given.calls else replace(given, pure=False)
    return made


_NOT_RUN_AT_ONCE = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR
"""A function whose call gives an object its code runs in later, not what its code returns."""


def _followed(frame: Scope, decorator: Val, made: Val, deco: ast.expr) -> Val | None:
    """What a decorator of the app's own written in Python gave, walked here with the function
    `made` (None for any other: a library's, one of no known code, one made by a call): the
    function itself, or a function the decorator defines (a wrapper, whose code runs at each
    call, the function it was given known inside it). What it gave, if anything else, or not
    only such functions (a class, ``functools.update_wrapper(...)``'s, None on one way), is of
    no known code: calling it may do anything."""
    objs = decorator.objs
    if (len(objs) != 1 or decorator.beyond or decorator.calls or not inspect.isfunction(objs[0])
            or "__wrapped__" in objs[0].__dict__ or not frame.an.is_app_code(objs[0])
            or objs[0].__code__.co_flags & _NOT_RUN_AT_ONCE):  # (a generator's, a coroutine's)
        return None
    gave = frame.call_defined(objs[0], Args([made], {}), deco)
    if gave is None:
        return None
    if gave.calls and not gave.objs and not gave.beyond and gave.types == frozenset() and all(
            isinstance(target, Inline) for target in gave.calls):
        return gave
    return Val()  # (of no known code: `calls.call_args` takes calling it to do anything)


def hashed_arguments(frame: Scope, args: Args, node: ast.AST | None) -> None:
    """What a cache hashes as it is called with `args`: each argument, and each item of
    ``*args`` and each value of ``**kwargs`` (``cached(*keys)``)."""
    unpacked = [frame.iterate(args.star)] if args.star is not None else []
    unpacked += [frame.item(args.dstar)] if args.dstar is not None else []
    for value in [*args.pos, *args.kw.values(), *unpacked]:
        special.hashed(frame, value, node)


def _kind(frame: Scope, decorator: Val, deco: ast.expr) -> str:
    """Whether `decorator` is a cache's (``"cache"``), gives the function back (``"same"``), or
    is another (``""``): by what it is, or by what was called to make it."""
    made_by = _resolved(frame, deco.func) if isinstance(deco, ast.Call) else ()
    objs = decorator.objs if decorator.objs and not decorator.beyond else ()
    if _all_among(objs, _CACHES) or _all_among(made_by, _CACHE_MAKERS):
        return "cache"
    if _all_among(objs, _THE_SAME) or _all_among(made_by, _SAME_MAKERS):
        return "same"
    return ""


def _all_among(objs: tuple[Any, ...], known: tuple[Any, ...]) -> bool:
    """Whether there are `objs` and each is one of `known`."""
    return bool(objs) and all(any(o is k for k in known) for o in objs)


def _resolved(frame: Scope, node: ast.expr) -> tuple[Any, ...]:
    """The objects a name, or a module's attribute (``functools.lru_cache``), is known to be,
    found without running anything; none for any other expression."""
    if isinstance(node, ast.Name):
        found = frame.name(node.id)
    elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        base = frame.name(node.value.id)
        if not base.objs or not all(isinstance(o, type(abc)) for o in base.objs):
            return ()
        found = frame.attribute(base, node.attr, None)
    else:
        return ()
    return found.objs if not found.beyond else ()
