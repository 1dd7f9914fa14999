"""The source of the functions the analysis walks: each file parsed once, a function's syntax
found by its file and first line, its parameters, and its and its classes' resolved annotations;
and what the analysis keeps of what it found, for how long (`Cache`, `lasting`).

Nothing that names an app's objects outlives the analysis that found it. A summary (of a
function, for the class of ``self`` and the arguments it is called with), the parameters and type
hints of a function, are found once and looked up at every call after. Those of library code
alone — the standard library's, an installed package's, signoff's, each a function or class its
module defines under its own name — are kept for the process's life: every app calls them, and
they hold nothing of any app's. The others (the app's code, library code called with the app's
classes or functions, a closure a library made for one app) are kept until the analysis that
found them ends (`Cache.forget_own`): an app's functions hold its module, and through it the app,
so a process-wide cache of them kept every app it had analysed alive — a test suite that builds
an app per test grew without bound. (A file's syntax names nothing of an app's: it is kept.)
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import dataclasses
import enum
import functools
import inspect
import linecache
import os
import sys
import threading
import tokenize
import types
import typing
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Generic, TypeVar, cast

from signoff.effects.signature import FunctionNode, Param, params_of_node
from signoff.effects.tables import LIBRARIES

__all__ = ["Cache", "SourceIndex", "lasting", "one_at_a_time"]


class SourceIndex:
    """Parsed files, parameters and type hints, each found once."""

    def __init__(self, lasting: Callable[[Any], bool] = lambda _: False) -> None:
        # (a file's syntax names nothing of the app's: kept, read once; what is found of a
        # function or class is kept while the analysis runs, or for good when `lasting`)
        self.files: dict[str, dict[int, list[FunctionNode]] | None] = {}
        self.spelt: dict[FunctionNode, frozenset[str]] = {}  # (kept as its file's syntax is)
        self.params: Cache[Any, tuple[Param, ...] | None] = Cache(lambda k, _: lasting(k))
        self.hints_cache: Cache[Any, dict[str, Any]] = Cache(lambda k, _: lasting(k))
        self.set_cache: Cache[type, dict[str, list[Any]]] = Cache(lambda k, _: lasting(k))

    def forget_own(self) -> None:
        """Forget what was found of the app's functions and classes (`Cache`)."""
        for cache in (self.params, self.hints_cache, self.set_cache):
            cache.forget_own()

    def keep_lasting(self) -> None:
        """Forget what was kept of code that is no longer taken to be a library's (`Cache`)."""
        for cache in (self.params, self.hints_cache, self.set_cache):
            cache.keep_lasting()

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
        found: FunctionNode | None = matching[0] if len(matching) == 1 else None
        for line, _end, col, _end_col in () if found is not None else code.co_positions():
            if col is None or line is None:
                continue
            for n in matching:  # several lambdas on one line: the one holding the code
                body = n.body if isinstance(n, ast.Lambda) else n
                if isinstance(body, ast.expr | ast.stmt) and (body.lineno, body.col_offset) <= (
                    line,
                    col,
                ) <= (body.end_lineno or line, body.end_col_offset or col):
                    found = n
                    break
            if found is not None:
                break
        # Its text, only if it is the text of the code that runs: a function given another's
        # code (``f.__code__ = g.__code__.replace(co_firstlineno=…, co_name="f")``) names what
        # its text does not.
        return found if found is not None and _written_as(code, found, self.spelt) else None

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


_COMPILER_NAMES = frozenset({"__name__", "__module__", "__qualname__", "__doc__",
                             "__annotations__", "__class__", "__classcell__", "__dict__",
                             "__firstlineno__", "__static_attributes__", "__type_params__"})
"""Names the compiler itself has code look up, that its text need not spell (a class body's)."""


def _written_as(code: types.CodeType, node: FunctionNode,
                spelt_by: dict[FunctionNode, frozenset[str]]) -> bool:
    """Whether `code` may be the code `node` was compiled to: its parameters are the node's,
    and every name it looks up (globals, attributes, modules, in it and in the code nested in
    it) is one the node spells (`spelt_by` keeps those of each node)."""
    args = node.args
    own = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    own += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
    if sorted(code.co_varnames[:len(own)]) != sorted(own):
        return False
    spelt = spelt_by.get(node)
    if spelt is None:
        spelt = spelt_by[node] = _spelt(node)
    mangled = tuple(w for w in spelt if w.startswith("__") and not w.endswith("__"))
    codes = [code]
    while codes:
        at = codes.pop()
        codes.extend(c for c in at.co_consts if isinstance(c, types.CodeType))
        rewritten = _REWRITER in at.co_names and sys.modules.get("_pytest.assertion.rewrite")
        for name in at.co_names:
            if not name.isidentifier() or (rewritten and (
                    name in _REWRITER_NAMES or (name.startswith("_") and hasattr(rewritten, name)))):
                continue  # (what pytest's rewriting of asserts looks up)
            if not all(part in spelt or part.endswith(mangled) for part in name.split(".")
                       if part):
                return False
    return True


def _spelt(node: FunctionNode) -> frozenset[str]:
    """Every name `node` spells, as a name, an attribute, a module, a parameter."""
    spelt = set(_COMPILER_NAMES)
    for sub in ast.walk(node):
        for field in ("id", "attr", "name", "asname", "module", "arg", "rest"):
            word = getattr(sub, field, None)
            if isinstance(word, str):
                spelt.update(word.split("."))
        for field in ("names", "kwd_attrs"):
            words = getattr(sub, field, None)
            if isinstance(words, list):
                spelt.update(w for w in words if isinstance(w, str))
    return frozenset(spelt)


_REWRITER = "@pytest_ar"
_REWRITER_NAMES = frozenset({"AssertionError", "locals", "globals"})
"""Names pytest's rewriting of a test module's asserts has their code look up (and its
module's own helpers, ``_saferepr``…), that the text does not spell."""


def _read(filename: str) -> list[str]:
    """The lines of the source file `filename` as it is on disk (none when there is no such
    file, or it cannot be read as Python source)."""
    try:
        with tokenize.open(filename) as source:
            return source.readlines()
    except (OSError, SyntaxError, UnicodeDecodeError):
        return []


# --- what is kept, and for how long -------------------------------------------------------

_K = TypeVar("_K")
_V = TypeVar("_V")
_F = TypeVar("_F", bound=Callable[..., Any])

_SIGNOFF = str(Path(__file__).resolve().parent.parent) + os.sep
"""Where signoff's own code is (installed, or a checkout of it)."""
_DEEPEST = 12
"""How deep a finding is looked into for what it names (deeper: taken to name the app's)."""
_ATOMS = (str, bytes, int, float, complex, bool, type(None), enum.Enum, range)
_HEAP_TYPE = 1 << 9
"""``Py_TPFLAGS_HEAPTYPE``: a class made as the program runs (by a ``class`` statement), not
one of C's."""
_KNOWN: weakref.WeakKeyDictionary[Any, bool] = weakref.WeakKeyDictionary()
"""Whether each function and class met is library code that lasts (`_lasting_code`)."""


def lasting(obj: Any, app_packages: frozenset[str] | set[str] = frozenset(), depth: int = 0
            ) -> bool:
    """Whether `obj` — a cache's key, or a finding — names nothing but what lasts as long as
    the process: text and numbers, and functions, classes and modules of library code, each the
    one its module defines under its own name (not of a package in `app_packages`, the app's
    wherever it is installed), in any of the analysis's own values, tuples and sets of them.
    Any other object (an instance, a closure, a bound method) may be the app's."""
    if isinstance(obj, _ATOMS) or type(obj) is object:  # (a sentinel holds nothing)
        return not isinstance(obj, enum.Enum) or lasting(type(obj), app_packages, depth)
    if depth > _DEEPEST:
        return False
    if isinstance(obj, tuple | frozenset | list):
        return all(lasting(each, app_packages, depth + 1) for each in obj)
    if isinstance(obj, type | types.FunctionType):
        return _lasting_code(obj, app_packages)
    if isinstance(obj, types.ModuleType):
        return _of_library(getattr(obj, "__file__", None) or "", obj.__name__, app_packages)
    if dataclasses.is_dataclass(obj) and type(obj).__module__.startswith("signoff.effects."):
        return all(lasting(getattr(obj, field.name), app_packages, depth + 1)
                   for field in dataclasses.fields(obj))  # (a value, its types, its SQL…)
    return False


def _lasting_code(obj: type | types.FunctionType, app_packages: frozenset[str] | set[str]
                  ) -> bool:
    """Whether a function or class is library code its module defines under its own name
    (so lasting as long as the module)."""
    try:
        known = _KNOWN.get(obj)
    except TypeError:  # (a class that cannot be referred to weakly)
        known = None
    if known is not None:
        return known and _module_name(obj).partition(".")[0] not in (
            app_packages)
    module = sys.modules.get(_module_name(obj))
    if isinstance(obj, type) and not obj.__flags__ & _HEAP_TYPE:
        found = True  # (one of Python's types, or an extension's, written in C: never freed)
    elif isinstance(obj, types.FunctionType):
        found = obj.__closure__ is None and module is not None and _of_library(
            obj.__code__.co_filename, "", set()) and _defined_as(module, obj)
    else:
        found = module is not None and _of_library(
            getattr(module, "__file__", None) or "", module.__name__, set()) and (
            _defined_as(module, obj))
    with contextlib.suppress(TypeError):  # (a class that cannot be referred to weakly)
        _KNOWN[obj] = found
    return found and _module_name(obj).partition(".")[0] not in (
        app_packages)


def _module_name(obj: Any) -> str:
    """The name of the module `obj` says it is of ("" when it says none: a class of an
    extension's metaclass may give its own descriptor)."""
    module = getattr(obj, "__module__", None)
    return module if isinstance(module, str) else ""


def _of_library(filename: str, module: str, app_packages: frozenset[str] | set[str]) -> bool:
    """Whether `filename` (of `module`) is library code: the standard library's, an installed
    package's or signoff's (a built-in module, with no file, is Python's)."""
    if not filename:
        return module in sys.builtin_module_names
    return filename.startswith((*LIBRARIES, _SIGNOFF)) and (
        module.partition(".")[0] not in app_packages)


def _defined_as(module: types.ModuleType, obj: Any) -> bool:
    """Whether `obj` is what its module has under its qualified name (``Session.add``): the
    one it defines, not one made later by code (a closure, a class made per app)."""
    found: Any = module
    for part in getattr(obj, "__qualname__", "<locals>").split("."):
        if part == "<locals>" or not isinstance(found, type | types.ModuleType):
            return False
        found = found.__dict__.get(part)
        found = getattr(found, "__func__", found)  # (a static or class method's function)
        if found is None:
            return False
    return found is obj


class Cache(Generic[_K, _V]):
    """A cache of findings: those `keep` says name library code alone are kept for the
    process's life; the others until `forget_own` (at the end of each analysis)."""

    __slots__ = ("_found", "_keep", "_own")

    def __init__(self, keep: Callable[[_K, _V], bool]) -> None:
        self._found: dict[_K, _V] = {}
        self._own: list[_K] = []
        self._keep = keep

    def get(self, key: _K) -> _V | None:
        return self._found.get(key)

    def __contains__(self, key: object) -> bool:
        return key in self._found

    def __getitem__(self, key: _K) -> _V:
        return self._found[key]

    def __setitem__(self, key: _K, value: _V) -> None:
        if not self._keep(key, value):
            self._own.append(key)
        self._found[key] = value

    def __delitem__(self, key: _K) -> None:
        del self._found[key]

    def __len__(self) -> int:
        return len(self._found)

    def __iter__(self) -> Iterator[_K]:
        return iter(self._found)

    def items(self) -> list[tuple[_K, _V]]:
        return list(self._found.items())

    def clear(self) -> None:
        self._found.clear()
        self._own.clear()

    def forget_own(self) -> None:
        """Forget what names the app's objects (what `keep` did not keep)."""
        for key in self._own:
            self._found.pop(key, None)
        self._own.clear()

    def keep_lasting(self) -> None:
        """Forget what was kept that `keep` keeps no longer (code of a package that has since
        become the app's: it was found as a library's, and is to be found again as the app's)."""
        own = set(self._own)
        for key in [k for k, v in self._found.items() if k not in own and not self._keep(k, v)]:
            del self._found[key]


_WALKING = threading.RLock()
"""One analysis at a time: the analyser's caches are shared, and an action's effects may be
found again on any thread (`signoff.actions.registry.Actions`)."""
_UNDER_WAY: list[Any] = []
"""The analyses under way on the thread walking (one, or one called inside another)."""


def one_at_a_time(forget_own: Callable[[], None]) -> Callable[[_F], _F]:
    """A decorator of the analysis's entries: each runs while no other thread analyses, and
    as the outermost under way ends, `forget_own` forgets what it found of the app's."""

    def decorate(fn: _F) -> _F:
        @functools.wraps(fn)
        def walking(*args: Any, **kwargs: Any) -> Any:
            with _WALKING:
                _UNDER_WAY.append(fn)
                try:
                    return fn(*args, **kwargs)
                finally:
                    _UNDER_WAY.pop()
                    if not _UNDER_WAY:
                        forget_own()

        return cast(_F, walking)

    return decorate
