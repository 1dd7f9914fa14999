"""What Python's ``statistics`` functions run of the classes of the numbers they are given, as
CPython's ``statistics.py`` (3.11) calls them — no more:

- an exact sum (``mean``, ``variance``, ``pvariance``, ``stdev``, ``pstdev``, ``harmonic_mean``:
  its ``_sum`` and ``_ss``) asks each value ``x.as_integer_ratio()``, else reads
  ``x.numerator`` and ``x.denominator``, and, of one that is not finite, ``x.is_finite()`` or
  ``math.isfinite(x)`` (``__float__``, else ``__index__``); it hashes the denominators the
  ratios give and adds their numerators. Given a centre (``variance(xs, xbar)``), it sums
  ``(x - c) * (x - c)`` instead. ``mean``, ``variance``, ``pvariance`` and ``harmonic_mean``
  then make the result of the values' class (``T(value)``: its ``__new__``, ``__init__``);
- ``fmean``, ``geometric_mean`` and the two-sample functions (``covariance``, ``correlation``,
  ``linear_regression``) take each value as a float (``__float__``, else ``__index__``), and
  subtract and multiply as their code says;
- the medians and ``quantiles`` sort the values (``__lt__``, its truth); ``median`` adds the two
  middle ones and halves the sum, ``median_grouped`` finds the middle one's place (``bisect``)
  and takes it as a float, ``quantiles`` weighs, adds and divides;
- ``mode`` and ``multimode`` count the values (``__hash__``, ``__eq__``).

What the values hold, as the function goes through them (a list's items), is what each runs on.
"""

from __future__ import annotations

import ast
import inspect
from dataclasses import replace
from typing import TypeGuard

from signoff.effects import calls, comparing, special
from signoff.effects.naming import of_builtins
from signoff.effects.scope import Scope
from signoff.effects.values import Args, Val, fresh_of, join_all

__all__ = ["averaged"]

_FUNCTIONS = frozenset({
    "mean", "fmean", "geometric_mean", "harmonic_mean", "median", "median_low", "median_high",
    "median_grouped", "mode", "multimode", "quantiles", "variance", "pvariance", "stdev",
    "pstdev", "covariance", "correlation", "linear_regression"})
"""The functions of ``statistics`` whose calls are followed here (its ``NormalDist`` is not)."""

_FLOAT = ("__float__", "__index__")
"""How Python's C code takes a value as a float (``PyFloat_AsDouble``)."""


def averaged(frame: Scope, q: str, args: Args, node: ast.AST | None) -> None:
    """Follow what the ``statistics`` function `q` runs of the classes of the values in what it
    is given (`args`)."""
    name = q.removeprefix("statistics.")
    data = args.pos[0] if args.pos else args.kw.get("data")
    if data is None or name not in _FUNCTIONS:
        return
    x = special.iterated(frame, data, node)
    with frame.repeated():
        _run(frame, name, x, args, node)


def _run(frame: Scope, name: str, x: Val, args: Args, node: ast.AST | None) -> None:
    """What `name` runs of each value `x`."""
    centre = args.pos[1] if len(args.pos) > 1 else args.kw.get("xbar", args.kw.get("mu"))
    if name in ("mean", "variance", "pvariance", "stdev", "pstdev"):
        squared = name != "mean"  # (``_ss``: the numerators squared too)
        if name != "mean" and _given(centre):
            apart = _operated(frame, x, "__sub__", "__rsub__", centre, node)
            x, squared = _operated(frame, apart, "__mul__", "__rmul__", apart, node), False
        _exactly_summed(frame, x, node, squared=squared)
        if name in ("mean", "variance", "pvariance"):
            _made_again(frame, x, node)
    elif name in ("fmean", "geometric_mean"):
        special.special(frame, x, _FLOAT, [], node)
        weights = args.pos[1] if len(args.pos) > 1 else args.kw.get("weights")
        if name == "fmean" and _given(weights):
            w = special.iterated(frame, weights, node)
            special.special(frame, _operated(frame, x, "__mul__", "__rmul__", w, node), _FLOAT, [],
                            node)
            special.special(frame, w, _FLOAT, [], node)
    elif name == "harmonic_mean":
        _harmonic(frame, x, args, node)
    elif name in ("median", "median_low", "median_high", "median_grouped", "quantiles"):
        comparing.ordered(frame, x, ("__lt__", "__gt__"), node)  # (``sorted(data)``)
        if name == "median":
            both = _operated(frame, x, "__add__", "__radd__", x, node)
            special.special(frame, both, ("__truediv__",), [fresh_of(int)], node)
        elif name == "median_grouped":  # (``bisect`` finds its place; taken as a float, as
            interval = args.pos[1] if len(args.pos) > 1 else args.kw.get("interval")  # is the
            for value in (x, *([interval] if interval is not None else [])):  # interval)
                special.special(frame, value, _FLOAT, [], node)
        elif name == "quantiles":
            weighed = _operated(frame, x, "__mul__", "__rmul__", fresh_of(int), node)
            summed = _operated(frame, weighed, "__add__", "__radd__", weighed, node)
            special.special(frame, summed, ("__truediv__",), [fresh_of(int)], node)
    elif name in ("mode", "multimode"):  # (``Counter(iter(data))``)
        special.hashed(frame, x, node)
    elif name in ("covariance", "correlation", "linear_regression") and len(args.pos) > 1:
        _paired(frame, name, x, special.iterated(frame, args.pos[1], node), args, node)


def _paired(frame: Scope, name: str, x: Val, y: Val, args: Args, node: ast.AST | None) -> None:
    """``covariance``, ``correlation``, ``linear_regression``: each sum (``fsum``) of the values,
    of the products of their distances from the means, of their squares, as each asks; of
    ``linear_regression(..., proportional=True)``, of the products and of x's squares."""
    if name == "linear_regression" and _given(args.kw.get("proportional")):
        for other in (y, x):
            product = _operated(frame, x, "__mul__", "__rmul__", other, node)
            special.special(frame, product, _FLOAT, [], node)
        return
    aparts = []
    for value in (x, y):
        special.special(frame, value, _FLOAT, [], node)
        aparts.append(_operated(frame, value, "__sub__", "__rsub__", fresh_of(float), node))
    squared = {"covariance": (), "correlation": (0, 1), "linear_regression": (0,)}[name]
    pairs = [(aparts[0], aparts[1]), *((aparts[i], aparts[i]) for i in squared)]
    for left, right in pairs:
        product = _operated(frame, left, "__mul__", "__rmul__", right, node)
        special.special(frame, product, _FLOAT, [], node)


def _harmonic(frame: Scope, x: Val, args: Args, node: ast.AST | None) -> None:
    """``harmonic_mean``: each value (each weight) compared with 0 (``x < 0``, its truth); of
    one alone, nothing more; else each weight's truth, ``w / x`` (``x.__rtruediv__(w)`` when the
    weight is Python's), and the quotients summed exactly and made of their class."""
    comparing.decided(frame, special.special(frame, x, ("__lt__",), [fresh_of(int)], node), node)
    weights = args.pos[1] if len(args.pos) > 1 else args.kw.get("weights")
    w = fresh_of(int)
    if _given(weights):
        w = special.iterated(frame, weights, node)
        comparing.decided(frame, special.special(frame, w, ("__lt__",), [fresh_of(int)], node),
                          node)
        special.special(frame, w, ("__bool__", "__len__"), [], node)
        _exactly_summed(frame, w, node, squared=False)
    quotient = _operated(frame, w, "__truediv__", "__rtruediv__", x, node)
    _exactly_summed(frame, quotient, node, squared=False)
    _made_again(frame, quotient, node)


def _exactly_summed(frame: Scope, x: Val, node: ast.AST | None, *, squared: bool) -> None:
    """``statistics._sum`` (``_ss``, given `squared`) over values like `x`: of a class that has
    it, ``x.as_integer_ratio()`` — and, where that fails for a value not finite,
    ``x.is_finite()``, else its float (``math.isfinite``) — its denominator hashed, its
    numerator added (and squared); of one that has not, ``x.numerator`` and ``x.denominator``."""
    for kind in x.types or ():
        one = replace(x, types=frozenset({kind}))
        ratio = _method(frame, one, "as_integer_ratio", node)
        if ratio is None:
            for name in ("numerator", "denominator"):
                _read(frame, one, name)
            continue
        if _method(frame, one, "is_finite", node) is None:
            special.special(frame, one, _FLOAT, [], node)
        part = frame.iterate(ratio)
        special.hashed(frame, part, node)
        _operated(frame, part, "__add__", "__radd__", fresh_of(int), node)
        if squared:
            _operated(frame, part, "__mul__", "__rmul__", part, node)


def _made_again(frame: Scope, x: Val, node: ast.AST | None) -> None:
    """``_convert(total, T)``: the result made of the values' class, of the app's, from a
    fraction (``T(value)``)."""
    for kind in x.types or ():
        if isinstance(kind, type) and not special.of_library(frame, kind):
            calls.construct(frame, kind, Args([fresh_of(float)], {}), node)


def _operated(frame: Scope, left: Val, name: str, reflected: str, right: Val,
              node: ast.AST | None) -> Val:
    """``left <op> right`` as Python runs it: ``left.name(right)``, and ``right.reflected(left)``
    (when the left cannot answer). What they gave, or a value of no known class (Python's:
    computes alone)."""
    given = [special.special(frame, left, (name,), [right], node),
             special.special(frame, right, (reflected,), [left], node)]
    found = [g for g in given if g is not None]
    return join_all(found) if found else Val()


def _method(frame: Scope, x: Val, name: str, node: ast.AST | None) -> Val | None:
    """``x.name()`` where a class `x` may be of has it, or looks it up by its own
    ``__getattr__`` (else Python's ``AttributeError``, caught: nothing runs)."""
    given = None
    for kind in x.types or ():
        if _has(kind, name):
            one = replace(x, types=frozenset({kind}))
            given = calls.call_args(frame, frame.attribute(one, name, None), Args([], {}), node)
    return given


def _read(frame: Scope, x: Val, name: str) -> None:
    """``x.name`` where a class `x` may be of has it (a property's code runs), or its own
    ``__getattr__``."""
    for kind in x.types or ():
        if _has(kind, name):
            frame.attribute(replace(x, types=frozenset({kind})), name, None)


def _has(kind: object, name: str) -> bool:
    """Whether `kind`, a class of the app's, has `name`, or its own ``__getattr__``."""
    return isinstance(kind, type) and not of_builtins(kind) and (
        inspect.getattr_static(kind, name, None) is not None or special.defines(kind, "__getattr__"))


def _given(value: Val | None) -> TypeGuard[Val]:
    """Whether an optional argument may be given: passed, and not surely None (or False)."""
    return value is not None and not (value.objs and not value.beyond and all(
        o is None or o is False for o in value.objs))
