"""The source of the functions the analysis walks: each file parsed once, a function's syntax
found by its file and first line, its parameters, and its and its classes' resolved annotations.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import linecache
import tokenize
import types
import typing
from collections.abc import Callable
from typing import Any

from signoff.effects.signature import FunctionNode, Param, params_of_node

__all__ = ["SourceIndex"]



class SourceIndex:
    """Parsed files, parameters and type hints, each found once."""

    def __init__(self) -> None:
        self.files: dict[str, dict[int, list[FunctionNode]] | None] = {}
        self.params: dict[Any, tuple[Param, ...] | None] = {}
        self.hints_cache: dict[Any, dict[str, Any]] = {}
        self.set_cache: dict[type, dict[str, list[Any]]] = {}

    def index(self, filename: str, module_globals: dict[str, Any]) -> dict[int, list[FunctionNode]] | None:
        """The functions of a source file by the line their code starts on (parsed once)."""
        if filename in self.files:
            return self.files[filename]
        # The file as it is on disk, where there is one: what linecache holds for it may be
        # anything (a library can put text there of its own), and is read only for code that
        # has no file (a notebook's cells, code a loader gives).
        lines = _read(filename) or linecache.getlines(filename, module_globals)
        found: dict[int, list[FunctionNode]] | None = None
        if lines:
            try:
                tree = ast.parse("".join(lines), filename)
            except (SyntaxError, ValueError):
                tree = None
            if tree is not None:
                found = {}
                for node in ast.walk(tree):
                    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                        first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                        found.setdefault(first, []).append(node)
                    elif isinstance(node, ast.Lambda):
                        found.setdefault(node.lineno, []).append(node)
        self.files[filename] = found
        return found

    def node_of(self, func: types.FunctionType) -> FunctionNode | None:
        """The syntax of a function, found by its file and first line."""
        code = func.__code__
        index = self.index(code.co_filename, func.__globals__)
        if index is None:
            return None
        candidates = index.get(code.co_firstlineno, [])
        matching: list[FunctionNode]
        if code.co_name == "<lambda>":
            matching = [n for n in candidates if isinstance(n, ast.Lambda)]
        else:
            matching = [n for n in candidates if not isinstance(n, ast.Lambda) and n.name == code.co_name]
        if len(matching) == 1:
            return matching[0]
        for line, _end, col, _end_col in code.co_positions():
            if col is None or line is None:
                continue
            for n in matching:  # several lambdas on one line: the one holding the code
                body = n.body if isinstance(n, ast.Lambda) else n
                if isinstance(body, ast.expr | ast.stmt) and (body.lineno, body.col_offset) <= (
                    line,
                    col,
                ) <= (body.end_lineno or line, body.end_col_offset or col):
                    return n
        return None

    def params_of(self, func: types.FunctionType) -> tuple[Param, ...] | None:
        """The parameters of a function (None when its source is not found)."""
        if func in self.params:
            return self.params[func]
        node = self.node_of(func)
        found = None
        if node is not None:
            found = params_of_node(node, func)
        self.params[func] = found
        return found

    def resolved(self, func: Any, localns: dict[str, Any]) -> None:
        """Take `func`'s annotations as they resolve with the names local to where it was
        declared (`localns`): an action declared inside a function whose parameters are typed
        by classes declared there too. (Unchanged when they do not all resolve.)"""
        try:
            self.hints_cache[func] = typing.get_type_hints(func, localns=localns,
                                                           include_extras=True)
        except Exception:  # some do not: they are taken one by one, as `hints` does
            return

    def hints(self, func: Any) -> dict[str, Any]:
        """A function's resolved annotations (those that resolve)."""
        cached = self.hints_cache.get(func)
        if cached is not None:
            return cached
        try:
            hints = typing.get_type_hints(func, include_extras=True)
        except Exception:  # an annotation that does not resolve: take the others one by one
            hints = {}
            namespace = getattr(func, "__globals__", {})
            for key, value in (getattr(func, "__annotations__", None) or {}).items():
                try:
                    hints[key] = eval(value, namespace) if isinstance(value, str) else value
                except Exception:  # unresolvable: the parameter's type is unknown
                    continue
        self.hints_cache[func] = hints
        return hints

    def class_hints(self, cls: type) -> dict[str, Any]:
        """A class's resolved annotations, bases included."""
        cached = self.hints_cache.get(cls)
        if cached is not None:
            return cached
        try:
            hints = typing.get_type_hints(cls, include_extras=True)
        except Exception:  # unresolvable annotations: attribute types stay unknown
            hints = {}
        self.hints_cache[cls] = hints
        return hints

    def set_on_self(self, cls: type, app_code: Callable[[Any], bool]) -> dict[str, list[Any]]:
        """What the methods of `cls` (and of its bases, those that are `app_code`) set its
        objects' attributes to (``self.inner = Inner()``, ``self.inner: Inner = …``,
        ``self.inner = inner`` of a parameter ``inner: Inner``), by attribute: each a class or
        an annotation, where the code says one."""
        cached = self.set_cache.get(cls)
        if cached is not None:
            return cached
        found: dict[str, list[Any]] = {}
        for klass in cls.__mro__:
            for member in vars(klass).values():
                func = getattr(member, "__func__", member)
                if isinstance(func, types.FunctionType) and app_code(func):
                    for attr, said in self._set_by(func):
                        found.setdefault(attr, []).append(said)
        self.set_cache[cls] = found
        return found

    def _set_by(self, func: types.FunctionType) -> list[tuple[str, Any]]:
        """The attributes of its first parameter `func` sets, each with the class or
        annotation the code says it is set to (`set_on_self`)."""
        node = self.node_of(func)
        if node is None or isinstance(node, ast.Lambda) or not node.args.args:
            return []
        me, hints = node.args.args[0].arg, self.hints(func)
        found: list[tuple[str, Any]] = []
        for each in ast.walk(node):
            targets: list[ast.expr]
            said: list[Any]
            if isinstance(each, ast.AnnAssign):
                declared = _annotation(each.annotation, func.__globals__)
                targets, said = [each.target], [] if declared is None else [declared]
            elif isinstance(each, ast.Assign):
                targets, said = each.targets, _made_by(each.value, func.__globals__, hints)
            else:
                continue
            for target in targets:
                if (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                        and target.value.id == me):
                    found += [(target.attr, one) for one in said]
        return found

    # --- records and SQLAlchemy ------------------------------------------------------------


def _annotation(node: ast.expr, namespace: dict[str, Any]) -> Any:
    """What an annotation says, made without running the app's code (``Inner``,
    ``models.Inner``, ``list[str]``, ``Inner | None``: names looked up, and only Python's and
    typing's generics subscripted); None where it cannot be made so."""
    if isinstance(node, ast.Constant):
        return type(None) if node.value is None else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        left, right = _annotation(node.left, namespace), _annotation(node.right, namespace)
        # (``|`` of two classes may run a metaclass's ``__or__`` of the app's: Union runs none)
        return None if left is None or right is None else typing.Union[left, right]  # noqa: UP007
    if isinstance(node, ast.Subscript):
        origin = _named(node.value, namespace)
        if getattr(origin, "__module__", None) not in _GENERICS:
            return origin if isinstance(origin, type) else None
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        given = [... if isinstance(p, ast.Constant) and p.value is ... else _annotation(p, namespace)
                 for p in parts]
        if any(g is None for g in given):
            return origin if isinstance(origin, type) else None
        try:
            return origin[tuple(given) if len(given) > 1 else given[0]]
        except Exception:  # (not a generic of that many: as written, it says nothing)
            return None
    return _named(node, namespace)


_GENERICS = ("builtins", "typing", "typing_extensions", "collections.abc", "collections")
"""Where the generics an annotation may subscript live (their subscripts run no app code)."""


def _named(node: ast.expr, namespace: dict[str, Any]) -> Any:
    """What a name or a dotted name of modules and classes is (None where it is not one)."""
    if isinstance(node, ast.Name):
        return namespace.get(node.id, getattr(builtins, node.id, None))
    if isinstance(node, ast.Attribute):
        base = _named(node.value, namespace)
        if isinstance(base, types.ModuleType):
            return base.__dict__.get(node.attr)
        if isinstance(base, type):
            return inspect.getattr_static(base, node.attr, None)
    return None


def _made_by(value: ast.expr, namespace: dict[str, Any], hints: dict[str, Any]) -> list[Any]:
    """The class of what `value` makes (``Inner()``), or the annotation of the parameter it
    is (``inner``), where the code says."""
    if isinstance(value, ast.Call):
        made = _named(value.func, namespace)
        return [made] if isinstance(made, type) else []
    if isinstance(value, ast.Name) and value.id in hints:
        return [hints[value.id]]
    return []


def _read(filename: str) -> list[str]:
    """The lines of the source file `filename` as it is on disk (none when there is no such
    file, or it cannot be read as Python source)."""
    try:
        with tokenize.open(filename) as source:
            return source.readlines()
    except (OSError, SyntaxError, UnicodeDecodeError):
        return []
