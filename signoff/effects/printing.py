"""What ``print`` runs of the app's code, exactly, so that printing a value claims no more.

``print(*values, sep=..., end=..., file=..., flush=...)`` makes each value text (``str(v)``:
its class's ``__str__``, or ``__repr__`` by ``object.__str__``), writes the text and `sep`
and `end` by the stream's ``write``, and, if `flush` is true (its ``__bool__``), calls the
stream's ``flush``. `sep` and `end` must be text or None: one of another class is refused
before any of its code runs, and text is made text again by ``str`` (a subclass's own
``__str__`` alone; ``str.__str__`` calls no ``__repr__``). Python takes none of them as a number,
a path or a length: nothing else of their classes runs.
"""

from __future__ import annotations

import ast
from dataclasses import replace

from signoff.effects import calls, special
from signoff.effects.scope import Scope
from signoff.effects.values import Args, Val

__all__ = ["STANDARD_STREAMS", "printed"]

STANDARD_STREAMS = frozenset({"sys.stdout", "sys.stderr", "sys.__stdout__", "sys.__stderr__"})
"""The process's own output streams, where `print` writes by default: the app's log stream."""


def printed(frame: Scope, args: Args, node: ast.AST | None) -> None:
    """Follow what ``print`` called with `args` runs of the app's code: each value's text, the
    text of `sep` and `end` of a subclass of ``str``, the truth of `flush` and, when it may be
    true, the stream's ``flush`` (its ``write`` is followed with the calls that write)."""
    values = [*args.pos, *([frame.iterate(args.star)] if args.star is not None else [])]
    for value in values:
        as_text(frame, value, node)
    for name in ("sep", "end"):
        if name in args.kw:
            _text_given(frame, args.kw[name], node)
    flush = args.kw.get("flush")
    if flush is None or (flush.objs and all(o is False or o is None for o in flush.objs)):
        return
    special.special(frame, flush, ("__bool__", "__len__"), [], node)
    stream = args.kw.get("file")  # (None, or none given: the process's own output)
    if (
        stream is not None
        and (stream.types or stream.objs)
        and not (stream.objs and all(o is None for o in stream.objs))
        and (stream.qual not in STANDARD_STREAMS)
    ):
        calls.call_args(frame, frame.attribute(stream, "flush", None), Args([], {}), node)


def as_text(frame: Scope, value: Val, node: ast.AST | None) -> None:
    """``str(value)`` as ``print`` runs it: ``__str__`` of its class, or ``__repr__`` by
    ``object.__str__``; of a subclass of ``str``, its own ``__str__`` alone."""
    _text_given(frame, value, node)
    others = frozenset(k for k in value.types or () if not _text(k))
    if others or value.types is None:
        shown = replace(value, types=others) if value.types is not None else value
        special.special(frame, shown, ("__str__", "__repr__"), [], node)


def _text_given(frame: Scope, value: Val, node: ast.AST | None) -> None:
    """A `sep` or `end`: only text (or None) is taken, made text by its class's ``__str__``."""
    texts = frozenset(k for k in value.types or () if _text(k))
    if texts:
        special.special(frame, replace(value, types=texts), ("__str__",), [], node)


def _text(kind: object) -> bool:
    return isinstance(kind, type) and issubclass(kind, str)
