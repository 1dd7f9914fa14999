"""What showing an exception runs of the app's code where its class shows it as Python's own
``BaseException`` does: ``str(e)`` is its one argument's ``str`` (of several, their tuple's
``repr``: each one's ``__repr__``), ``repr(e)`` each argument's ``__repr__``, and ``format(e)``
and ``f"{e}"`` are ``str(e)``. So an exception is made holding what it was given
(`holding`), and showing it follows those arguments' classes' code (`shown`).

What an exception holds is known where it was made here: what it was given, where its making
is Python's own, or an ``__init__`` (``__new__``) of its class's hands on only what it was
given, text or constants (``super().__init__(f"no {name}")``), or its class is a library's or
signoff's (``Invalid(message)``; a library's exception is taken to hold what it was given).
One whose own code may hand on something else holds what is not followed: showing it is taken
to do anything. One caught (raised elsewhere) holds what is not known here, as any value of no
known class: its own ``__str__`` alone is followed.
"""

from __future__ import annotations

import ast
import functools
import inspect
import textwrap
import types

from signoff.effects import special
from signoff.effects.scope import Scope, call_text
from signoff.effects.values import Args, Typed, Val, merged

__all__ = ["holding", "shown"]

_SHOWING = frozenset({"__str__", "__repr__", "__format__"})


def holding(frame: Scope, made: Val, cls: type, args: Args) -> Val:
    """`made`, an exception of `cls` made with `args`, holding them as its arguments: what
    they are known to be, or nothing known where code of the app's makes it and may hand
    ``BaseException`` something else (`shown` then takes showing it as code not followed)."""
    if not issubclass(cls, BaseException) or made.types != frozenset({cls}):
        return made
    if not (special.of_library(frame, cls) or all(map(_passes_on, _own_makers(cls)))):
        return Typed(types=made.types, item=Typed(types=None)).on(made)  # (what its own made)
    given = Typed(types=frozenset())  # (none: ``AppError()`` shows nothing of the app's)
    unpacked = [frame.iterate(args.star)] if args.star is not None else []
    for value in [*args.pos, *args.kw.values(), *unpacked]:
        if value.types is not None:  # (one of no known class: as anywhere, its code unseen)
            given = merged(given, value.contents()) or given
    return Typed(types=made.types, item=given).on(made)


def _own_makers(cls: type) -> list[types.FunctionType]:
    """The ``__init__`` and ``__new__`` in Python that make an exception of `cls`."""
    found = []
    for klass in cls.__mro__:
        if klass is BaseException:
            break
        for name in ("__init__", "__new__"):
            method = klass.__dict__.get(name)
            if isinstance(method, staticmethod | classmethod):
                method = method.__func__
            if isinstance(method, types.FunctionType):  # (not Python's own, C's: ``Exception``)
                found.append(method)
    return found


@functools.lru_cache(maxsize=512)
def _passes_on(init: types.FunctionType) -> bool:
    """Whether `init`, an exception's own ``__init__`` (``__new__``), hands the ``__init__``
    (``__new__``) it calls only what it was given, text it makes, or constants, and sets no
    ``self.args``: the exception's arguments are then among what it was made with (signoff's
    ``Refusal``: ``super().__init__(message)``)."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(init)))
        given = set(inspect.signature(init).parameters)  # (``*args`` among them)
    except (OSError, TypeError, SyntaxError, ValueError):
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "args" and isinstance(
                node.ctx, ast.Store | ast.Del):
            return False
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and (
                node.func.attr in ("__init__", "__new__")):
            handed = [*node.args, *(k.value for k in node.keywords)]
            if not all(_plain_or_given(a, given) for a in handed):
                return False
    return True


def _plain_or_given(node: ast.expr, given: set[str]) -> bool:
    """Whether `node` is a name the function was given, a constant, or new text Python's own
    code makes (``f"no {name}"``, ``"no %s" % name``, ``"no {}".format(name)``): what making the
    text ran was followed where it ran, and showing it runs nothing of the app's. (``str(x)``
    and ``f"{x}"`` alone may give a ``str`` of the app's class, as ``x`` gave it: not taken.)"""
    if isinstance(node, ast.Starred):
        node = node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        return isinstance(node.left, ast.Constant) and isinstance(node.left.value, str)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        made_by = node.func.value  # (a constant's ``format``, ``join``)
        return node.func.attr in ("format", "join") and isinstance(made_by, ast.Constant) and (
            isinstance(made_by.value, str))
    if isinstance(node, ast.JoinedStr):
        return any(isinstance(part, ast.Constant) for part in node.values)
    return (isinstance(node, ast.Name) and node.id in given) or isinstance(node, ast.Constant)


def shown(frame: Scope, value: Val, kind: type, names: tuple[str, ...],
          node: ast.AST | None) -> None:
    """Showing `value`, an exception of `kind` that shows itself as ``BaseException`` does
    (`names`: what is asked, ``__str__``, ``__repr__`` or ``__format__``): its arguments shown,
    each by its class's own ``__str__`` or ``__repr__``."""
    if not names or names[0] not in _SHOWING or not issubclass(kind, BaseException):
        return
    asked = "__str__" if names[0] == "__format__" and not special.defines(
        kind, "__format__") else names[0]  # (``object.__format__`` is ``str(e)``)
    if special.defines(kind, asked):  # (its own, followed as any class's)
        return
    held = value.contents().item if value.shape is not None else None
    if held is None:  # (caught, or joined with another: what it holds is not known here)
        return
    if held.types is None:
        frame.unknown(call_text(frame, node), (
            f"shows a {kind.__name__}, whose arguments its own __init__ gave, which is not "
            "followed"))
        return
    arguments = value.taken(held)  # (one alone by its ``str``, several by their ``repr``)
    special.each(frame, arguments, ("__repr__",) if asked == "__repr__" else ("__str__",
                                                                              "__repr__"), [], node)
