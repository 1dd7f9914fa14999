"""What judging a call needs of the walk it happens in, as protocols, so that the walk of a body
(`frame`), the judging of calls (`calls`, `orm`) and the analyser that summarises functions
(`analyser`) depend on one another only through these, in one direction.

The analyser makes frames and hands them itself as an `Interpreter`; a frame hands itself to
the call judges as a `Scope`.
"""

from __future__ import annotations

import ast
from contextlib import AbstractContextManager
from typing import Any, Protocol

from signoff.effects.effect import EffectKind
from signoff.effects.summary import Raised, Summary
from signoff.effects.values import Args, Inline, Super, Val

__all__ = ["Interpreter", "Scope", "call_text"]


class Interpreter(Protocol):
    """The analyser as a walk sees it: members of types and objects, and calls of functions."""

    def attr_of_object(self, frame: Scope, base: Val, obj: Any, attr: str) -> Val:
        """``obj.attr`` for a known object."""
        ...

    def attr_of_type(self, frame: Scope, base: Val, cls: type, attr: str) -> Val:
        """``value.attr`` for a value of static type `cls`."""
        ...

    def attr_of_super(self, target: Super, attr: str) -> Val:
        """``super().attr``."""
        ...

    def node_of(self, func: Any) -> ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | None:
        """The syntax of a Python function (None when its source is not found)."""
        ...

    def is_app_code(self, func: Any) -> bool:
        """Whether `func` is code of the app's own whose source can be read."""
        ...

    def is_app_file(self, filename: str, module: str) -> bool:
        """Whether code in `filename`, of `module`, is the app's own."""
        ...

    def is_standard_library(self, func: Any) -> bool:
        """Whether `func` is code of Python's standard library."""
        ...

    def hints(self, func: Any) -> dict[str, Any]:
        """The annotations of `func`'s parameters and return, resolved."""
        ...

    def call_analysed(
        self, frame: Scope, func: Any, cls: type | None, args: Args, node: ast.AST | None
    ) -> Val:
        """Call a Python function by its summary."""
        ...

    def label(self, func: Any) -> str:
        """How a function reads in a path."""
        ...


class Scope(Protocol):
    """The walk of one function body as a call judge sees it."""

    an: Interpreter
    summary: Summary
    root_name: str
    qualname: str
    prefix: tuple[str, ...]
    raises: list[Raised]
    loops: int
    app_code: bool
    sites: tuple[tuple[str, int, int], ...]
    globals: dict[str, Any]

    def repeated(self) -> AbstractContextManager[None]:
        """While the block walks, the code walked may run more than once (a loop's body)."""
        ...

    def add(
        self, kind: EffectKind, target: str, path: tuple[str, ...], reason: str = "", at: str = "",
        *, in_words: bool = False,
    ) -> None:
        """Record an effect of the function (`in_words`: `target` is words, `Effect.in_words`)."""
        ...

    def grow(self, node: ast.expr, *, item: Val | None = None, value: Val | None = None) -> None:
        """What the container a local name holds now includes `item` or `value`."""
        ...

    def bound(self, namespace: Any, name: str, value: Any, where: str, owner: Any = None,
              kinds: tuple[frozenset[type], frozenset[type]] | None = None) -> None:
        """Keep what a name resolved here was bound to (`signoff.effects.bindings`)."""
        ...

    def mutate_origin(self, origin: frozenset[str], target: str, path: tuple[str, ...]) -> None:
        """Record a change of what comes from `origin`."""
        ...

    def unknown(self, text: str, reason: str, node: ast.AST | None = None) -> Val:
        """Record that something here cannot be seen: it is assumed to do everything but read
        (`signoff.effects.effect.UNSEEN`)."""
        ...

    def mutate(self, val: Val, text: str) -> None:
        """Record that `val` itself is changed."""
        ...

    def expr(self, node: ast.expr) -> Val:
        """The value of an expression, recording what evaluating it does."""
        ...

    def name(self, name: str) -> Val:
        """What a name refers to."""
        ...

    def keep(self, node: ast.expr) -> None:
        """`node`, walked next, leaves the container it gives with its name."""
        ...

    def bind(self, node: ast.expr) -> None:
        """`node`, walked next, gives what a local name is bound to."""
        ...

    def called_at_once(self, node: ast.expr) -> None:
        """`node`, walked next, is called at once (not kept to be called later)."""
        ...

    def let_go(self, name: str, *, inner: bool = False, filled: bool = False) -> None:
        """The container a local name holds is handed on out of the walk's sight."""
        ...

    def released(self, value: Val, *, surely: bool = False) -> None:
        """`value` is handed on: the parameters it may be a container of are released."""
        ...

    def let_go_every(self) -> None:
        """Every local name's container is handed on out of the walk's sight."""
        ...

    def let_go_all(self, names: frozenset[str], *, inner: bool = True,
                   filled: bool = False) -> None:
        """The containers these local names hold are handed on out of the walk's sight."""
        ...

    def attribute(self, base: Val, attr: str, node: ast.expr | None) -> Val:
        """``base.attr``."""
        ...

    def iterate(self, base: Val) -> Val:
        """An item of an iterable."""
        ...

    def item(self, base: Val) -> Val:
        """``base[...]``: an item of a sequence, a value of a mapping."""
        ...

    def call_inline(self, target: Inline, args: Args, node: ast.AST | None) -> Val:
        """Call a lambda or local function: walk its body in place."""
        ...

    def call_defined(self, func: Any, args: Args, node: ast.AST | None) -> Val | None:
        """Call `func`, a function of the app's written elsewhere, by walking its body here as a
        local function's is (what it gives may be a function it defines, walked where it is
        called): None when its source is not found."""
        ...

    def super_(self, node: ast.AST | None) -> Val:
        """``super()`` inside a method."""
        ...


def call_text(frame: Scope, node: ast.AST | None) -> str:
    """How a call reads in a path: ``"httpx.post()"``."""
    if isinstance(node, ast.Call):
        return f"{ast.unparse(node.func)}()"
    if node is not None:
        return ast.unparse(node)
    return frame.root_name or frame.qualname
