"""The parameters of an analysed function, and what each holds for one call (binding).

Read from the function's syntax (so that lambdas and local functions have them too), with the
defaults taken from the function object when there is one.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, replace
from typing import Any

from signoff.effects.values import EMPTY, Args, Val, fresh_of, known

__all__ = ["NO_DEFAULT", "FunctionNode", "Param", "bind", "params_of_node"]

NO_DEFAULT: Any = object()
"""A parameter's default when it has none."""

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
"""The syntax of something callable the analysis walks."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Param:
    """One parameter of an analysed function."""

    name: str
    """Its name."""
    kind: str
    """``"pos"`` (positional-only), ``"arg"``, ``"vararg"``, ``"kwonly"`` or ``"kwarg"``."""
    default: Any = NO_DEFAULT
    """Its default value, if it has one."""
    annotated: bool = False
    """Whether it carries an annotation."""


def params_of_node(node: FunctionNode, func: Any = None) -> tuple[Param, ...]:
    """The parameters a function's syntax declares, with defaults when `func` is known."""
    a = node.args
    defaults: tuple[Any, ...] = getattr(func, "__defaults__", None) or ()
    kwdefaults: dict[str, Any] = getattr(func, "__kwdefaults__", None) or {}
    positional = [(p, "pos") for p in a.posonlyargs] + [(p, "arg") for p in a.args]
    out: list[Param] = []
    first_default = len(positional) - len(defaults)
    for i, (p, kind) in enumerate(positional):
        default = defaults[i - first_default] if i >= first_default and func else NO_DEFAULT
        out.append(Param(name=p.arg, kind=kind, default=default, annotated=p.annotation is not None))
    if a.vararg:
        out.append(Param(name=a.vararg.arg, kind="vararg"))
    for p in a.kwonlyargs:
        out.append(
            Param(
                name=p.arg,
                kind="kwonly",
                default=kwdefaults.get(p.arg, NO_DEFAULT),
                annotated=p.annotation is not None,
            )
        )
    if a.kwarg:
        out.append(Param(name=a.kwarg.arg, kind="kwarg"))
    return tuple(out)


def bind(params: tuple[Param, ...], args: Args, default: Val | None) -> dict[str, Val]:
    """What each parameter holds for a call with `args` (`default` for those not passed)."""
    out: dict[str, Val] = {}
    positional = [p for p in params if p.kind in ("pos", "arg")]
    for i, p in enumerate(positional):
        if i < len(args.pos):
            out[p.name] = args.pos[i]
        elif args.star is not None:  # (one of what it holds: held by those holding it)
            out[p.name] = replace(args.star.derived(), owners=args.star.owners)
    extra: frozenset[str] = EMPTY
    held = args.star.owners if args.star is not None else EMPTY  # (`Val.owners`: what it packs)
    for v in args.pos[len(positional) :]:
        extra |= v.reach
        held |= v.owners
    named = {p.name: p for p in params if p.kind in ("arg", "kwonly")}
    extra_kw: frozenset[str] = EMPTY
    held_kw = args.dstar.owners if args.dstar is not None else EMPTY
    for key, v in args.kw.items():
        if key in named:
            out[key] = v
        else:
            extra_kw |= v.reach
            held_kw |= v.owners
    if args.dstar is not None:
        for name in named:
            out.setdefault(name, replace(args.dstar.derived(), owners=args.dstar.owners))
        extra_kw |= args.dstar.reach
    for p in params:
        if p.kind == "vararg":
            star = args.star.reach if args.star is not None else EMPTY
            out[p.name] = default or replace(fresh_of(tuple, inner=extra | star), owners=held)
        elif p.kind == "kwarg":
            out[p.name] = default or replace(fresh_of(dict, inner=extra_kw), owners=held_kw)
        elif p.name not in out:
            if default is not None:
                out[p.name] = default
            elif p.default is not NO_DEFAULT:
                out[p.name] = known(p.default)  # a default outlives the call: module state
    return out
