"""The effect analysis: what a function does, found in its code and in everything it calls.

`analyse_effects(fn, name=...)` reads the source of `fn` (``inspect``/``ast``; each file parsed
once), walks its body (`_analysis_frame`), judges each call (`_analysis_calls`) against the tables
(`_analysis_tables`), and follows every Python function it can resolve: module functions, imported
helpers, methods of ``self`` and of annotated parameters (and of any subclass that overrides them),
constructors, third-party pure-Python code. Each function is summarised once per class of ``self``
and per argument types of its unannotated parameters, in terms of its own parameters; recursion is
iterated until its summary settles. What cannot be resolved is assumed to change anything and to
reach outside, with the reason kept: nothing is ever described as safer than it is.
"""

from __future__ import annotations

import ast
import functools
import inspect
import linecache
import types
import typing
from dataclasses import replace
from typing import Any

from signoff.actions._analysis_calls import Args, call_args, sink
from signoff.actions._analysis_frame import Frame, Param, Summary
from signoff.actions._analysis_tables import (
    IMMUTABLE_TYPES,
    is_pure_name,
    is_sink,
    qualified_name,
)
from signoff.actions._analysis_values import (
    DB,
    EMPTY,
    GLOBAL,
    UNKNOWN,
    BuiltinMethod,
    Method,
    Sql,
    Super,
    Val,
    annotation_types,
    const,
    fresh_of,
    inner_token,
    join_all,
    known,
    param_token,
)
from signoff.actions.effects import _SENDS, _SPENDS, Effect, EffectKind, Effects, RaiseSite

_MISSING = object()
_ROOT_TOKEN = "argument"
_MAX_SUBCLASSES = 48
_MAX_WALKS = 4000
"""Function bodies one analysis may walk before it gives up (and assumes the worst)."""


class _TooLarge(Exception):
    """The code reached is too large to analyse: assume it does everything."""


_FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda

Hint = tuple[tuple[str, frozenset[type] | None, bool], ...]
"""What the arguments of unannotated parameters are known to be: (name, types, pure)."""
SummaryKey = tuple[Any, type | None, Hint]


class Analyser:
    """Caches (parsed files, summaries, type hints) and the look-ups the walk needs."""

    def __init__(self) -> None:
        self.files: dict[str, dict[int, list[_FunctionNode]] | None] = {}
        self.summaries: dict[SummaryKey, Summary] = {}
        self.active: dict[SummaryKey, Summary] = {}
        self.hits: set[SummaryKey] = set()
        self.generation: dict[SummaryKey, int] = {}
        self.tentative: dict[SummaryKey, tuple[Summary, frozenset[tuple[SummaryKey, int]]]] = {}
        self.walks = 0
        self.deps: list[set[SummaryKey]] = []
        self.params: dict[Any, tuple[Param, ...] | None] = {}
        self.hints_cache: dict[Any, dict[str, Any]] = {}
        self._sessions: tuple[type, ...] | None = None
        self._connections: tuple[type, ...] = ()
        self._statements: dict[int, str] | None = None
        self._record_base: type | None = None

    # --- source ----------------------------------------------------------------------------

    def index(self, filename: str, module_globals: dict[str, Any]) -> dict[int, list[_FunctionNode]] | None:
        """The functions of a source file by the line their code starts on (parsed once)."""
        if filename in self.files:
            return self.files[filename]
        lines = linecache.getlines(filename, module_globals)
        found: dict[int, list[_FunctionNode]] | None = None
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

    def node_of(self, func: types.FunctionType) -> _FunctionNode | None:
        """The syntax of a function, found by its file and first line."""
        code = func.__code__
        index = self.index(code.co_filename, func.__globals__)
        if index is None:
            return None
        candidates = index.get(code.co_firstlineno, [])
        matching: list[_FunctionNode]
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
            found = self.params_of_node(node, func)
        self.params[func] = found
        return found

    def params_of_node(self, node: _FunctionNode, func: Any = None) -> tuple[Param, ...]:
        """The parameters a function's syntax declares, with defaults when `func` is known."""
        a = node.args
        defaults: tuple[Any, ...] = getattr(func, "__defaults__", None) or ()
        kwdefaults: dict[str, Any] = getattr(func, "__kwdefaults__", None) or {}
        positional = [(p, "pos") for p in a.posonlyargs] + [(p, "arg") for p in a.args]
        out: list[Param] = []
        first_default = len(positional) - len(defaults)
        for i, (p, kind) in enumerate(positional):
            default = defaults[i - first_default] if i >= first_default and func else _MISSING
            out.append(Param(name=p.arg, kind=kind, default=default, annotated=p.annotation is not None))
        if a.vararg:
            out.append(Param(name=a.vararg.arg, kind="vararg"))
        for p in a.kwonlyargs:
            out.append(
                Param(
                    name=p.arg,
                    kind="kwonly",
                    default=kwdefaults.get(p.arg, _MISSING),
                    annotated=p.annotation is not None,
                )
            )
        if a.kwarg:
            out.append(Param(name=a.kwarg.arg, kind="kwarg"))
        return tuple(out)

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

    # --- records and SQLAlchemy ------------------------------------------------------------

    def record_base(self) -> type:
        """``RecordBase``, imported when first needed."""
        if self._record_base is None:
            from signoff.security.records import RecordBase

            self._record_base = RecordBase
        return self._record_base

    def is_record(self, cls: Any) -> bool:
        """Whether `cls` is an app record type."""
        return isinstance(cls, type) and issubclass(cls, self.record_base()) and hasattr(cls, "__table__")

    def record_name(self, val: Val) -> str:
        """The record type of a value, if it is one."""
        for cls in val.types or ():
            if self.is_record(cls):
                return cls.__name__
        return ""

    def record_targets(self, val: Val) -> list[str]:
        """The record types a change of `val` is a change of ("" for other state)."""
        names = [c.__name__ for c in val.types or () if self.is_record(c)]
        return names or [val.rec]

    def rows_of(self, sql: Sql) -> Val:
        """One row of a result: a record loaded from the database."""
        row = sql.row
        db = frozenset({DB})
        if row is None:
            return Val(origin=db, inner=db, pure=True)
        return Val(origin=db, inner=db, types=frozenset({row}), rec=row.__name__)

    def table_record(self, table: str) -> str:
        """The record type whose table is `table` (or the table's own name)."""
        stack: list[type] = list(self.record_base().__subclasses__())
        while stack:
            cls = stack.pop()
            stack.extend(cls.__subclasses__())
            mapped = getattr(cls, "__table__", None)
            if mapped is not None and getattr(mapped, "name", "").lower() == table.lower():
                return cls.__name__
        return table

    def user_inits(self, cls: type) -> list[Any]:
        """A record class's own ``__init__`` (not SQLAlchemy's)."""
        found = []
        for klass in cls.__mro__:
            init = klass.__dict__.get("__init__")
            if isinstance(init, types.FunctionType) and not init.__module__.startswith("sqlalchemy"):
                found.append(init)
                break
        return found

    def session_types(self) -> tuple[type, ...]:
        """The SQLAlchemy session and connection classes."""
        if self._sessions is None:
            from sqlalchemy.engine import Connection, Engine
            from sqlalchemy.orm import Session, scoped_session

            found: list[type] = [Session, scoped_session, Connection, Engine]
            try:
                from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession

                found += [AsyncSession, AsyncConnection, AsyncEngine]
                self._connections = (Connection, AsyncConnection)
            except ImportError:  # asyncio extra not installed
                self._connections = (Connection,)
            self._sessions = tuple(found)
        return self._sessions

    def connection_types(self) -> tuple[type, ...]:
        """The SQLAlchemy connection classes."""
        self.session_types()
        return self._connections

    def is_session_types(self, kinds: frozenset[type]) -> bool:
        """Whether a value of these types is a database session or connection."""
        sessions = self.session_types()
        return any(issubclass(k, sessions) for k in kinds)

    def sql_constructor(self, obj: Any) -> str | None:
        """``"select"`` … ``"text"`` when `obj` is one of SQLAlchemy's statement constructors."""
        if self._statements is None:
            import sqlalchemy

            self._statements = {
                id(getattr(sqlalchemy, n)): n for n in ("select", "insert", "update", "delete", "text")
            }
        return self._statements.get(id(obj))

    def is_pydantic(self, cls: type) -> bool:
        """Whether `cls` is a pydantic model."""
        import pydantic

        return issubclass(cls, pydantic.BaseModel)

    def pydantic_validators(self, cls: type) -> list[Any]:
        """The validator functions a pydantic model runs when made."""
        decorators = getattr(cls, "__pydantic_decorators__", None)
        found = []
        for group in ("validators", "field_validators", "root_validators", "model_validators"):
            for dec in getattr(decorators, group, {}).values():
                func = getattr(dec.func, "__func__", dec.func)
                if isinstance(func, types.FunctionType):
                    found.append(func)
        return found

    # --- attributes ------------------------------------------------------------------------

    def label(self, func: Any) -> str:
        """How a function reads in a path: ``"helpers.post_it"``."""
        module = getattr(func, "__module__", None) or ""
        qual = getattr(func, "__qualname__", None) or getattr(func, "__name__", "?")
        return f"{module.rsplit('.', 1)[-1]}.{qual}" if module else str(qual)

    def attr_of_object(self, frame: Frame, base: Val, obj: Any, attr: str) -> Val:
        """``obj.attr`` for a known object."""
        if inspect.ismodule(obj):
            qual = f"{base.qual or obj.__name__}.{attr}"
            value = obj.__dict__.get(attr, _MISSING)
            if value is _MISSING:
                return Val(qual=qual, origin=frozenset({GLOBAL}), inner=frozenset({GLOBAL}))
            return known(value, qual=value.__name__ if inspect.ismodule(value) else qual)
        if isinstance(obj, type):
            q = f"{qualified_name(obj)}.{attr}"
            try:
                member = inspect.getattr_static(obj, attr, _MISSING)
            except Exception:  # a class whose look-up fails: unknown member
                member = _MISSING
            if isinstance(member, staticmethod):
                return known(member.__func__, qual=q)
            if isinstance(member, classmethod):
                return _method(Method(func=member.__func__, self_val=base, cls=obj, qual=q))
            if isinstance(member, types.FunctionType):
                return _method(Method(func=member, self_val=None, cls=obj, qual=q))
            if member is _MISSING:
                try:
                    member = getattr(obj, attr)
                except Exception:  # not there: unknown
                    return Val(qual=q, origin=frozenset({GLOBAL}))
            return known(member, qual=q)
        if not isinstance(obj, types.FunctionType | types.BuiltinFunctionType):
            try:
                own = vars(obj).get(attr, _MISSING)
            except TypeError:
                own = _MISSING
            if own is not _MISSING:
                return known(own, origin=base.reach | {GLOBAL})
        return self.attr_of_type(frame, base, type(obj), attr)

    def attr_of_type(self, frame: Frame, base: Val, cls: type, attr: str) -> Val:
        """``value.attr`` for a value of static type `cls`."""
        q = f"{qualified_name(cls)}.{attr}"
        if issubclass(cls, self.session_types()):
            return _method(BuiltinMethod(name=attr, self_val=base, qual=q))
        try:
            member = inspect.getattr_static(cls, attr, _MISSING)
        except Exception:  # a class whose look-up fails: unknown member
            return base.derived()
        if (
            cls in IMMUTABLE_TYPES
            or cls.__module__ == "builtins"
            or is_pure_name(qualified_name(cls))
            or is_sink(q)
        ):
            if member is _MISSING or _is_data(member):
                return replace(base.derived(), pure=True)
            return _method(BuiltinMethod(name=attr, self_val=base, qual=q))
        rec = self.record_name(base) or base.rec
        if isinstance(member, staticmethod):
            return known(member.__func__, qual=q)
        if isinstance(member, classmethod):
            return _method(Method(func=member.__func__, self_val=known(cls), cls=cls, qual=q))
        if isinstance(member, types.FunctionType):
            targets = [Method(func=member, self_val=base, cls=cls, qual=q)]
            if not base.exact:
                overriding = self.overrides(cls, attr)
                if overriding is None:
                    return Val(calls=tuple(targets))  # too many to follow: dynamic
                targets += [
                    Method(func=f, self_val=base, cls=c, qual=f"{qualified_name(c)}.{attr}")
                    for c, f in overriding
                ]
            return _method(*targets)
        if isinstance(member, property):
            if member.fget is None:
                return base.derived(rec=rec)
            return self.call_method(frame, member.fget, cls, base)
        if isinstance(member, functools.cached_property):
            return self.call_method(frame, member.func, cls, base)
        if member is _MISSING:
            getter = inspect.getattr_static(cls, "__getattr__", None)
            if isinstance(getter, types.FunctionType):
                return self.call_method(frame, getter, cls, base, const(attr))
        hints = self.class_hints(cls)
        if attr in hints:
            kinds, elem = annotation_types(hints[attr])
            return base.derived(types=kinds, elem=elem, rec=rec)
        if member is not _MISSING and not hasattr(type(member), "__get__"):
            # a value kept on the class is shared by every instance: module state
            shared = known(member, origin=base.reach | {GLOBAL})
            return replace(shared, rec=rec)
        return base.derived(rec=rec)

    def attr_of_super(self, target: Super, attr: str) -> Val:
        """``super().attr``."""
        mro = target.self_cls.__mro__
        start = mro.index(target.owner) + 1 if target.owner in mro else 1
        for klass in mro[start:]:
            if attr not in klass.__dict__:
                continue
            member = klass.__dict__[attr]
            q = f"{qualified_name(klass)}.{attr}"
            if isinstance(member, staticmethod):
                return known(member.__func__, qual=q)
            if isinstance(member, classmethod):
                return _method(
                    Method(func=member.__func__, self_val=known(target.self_cls), cls=target.self_cls, qual=q)
                )
            if isinstance(member, types.FunctionType):
                return _method(Method(func=member, self_val=target.self_val, cls=target.self_cls, qual=q))
            return _method(BuiltinMethod(name=attr, self_val=target.self_val, qual=q))
        return Val()

    def overrides(self, cls: type, attr: str) -> list[tuple[type, Any]] | None:
        """The subclasses of `cls` that define their own `attr` (None when too many to follow)."""
        found: list[tuple[type, Any]] = []
        seen: set[type] = set()
        stack: list[type] = list(type.__subclasses__(cls))
        while stack:
            sub = stack.pop()
            if sub in seen:
                continue
            seen.add(sub)
            if len(seen) > _MAX_SUBCLASSES:
                return None
            stack.extend(type.__subclasses__(sub))
            member = sub.__dict__.get(attr)
            if isinstance(member, staticmethod | classmethod):
                member = member.__func__
            if member is not None:
                found.append((sub, member))
        return found

    def call_method(self, frame: Frame, func: Any, cls: type, base: Val, *rest: Val) -> Val:
        """Call a method found on a class with `base` as ``self``."""
        from signoff.actions._analysis_calls import call_function

        if not isinstance(func, types.FunctionType):
            return call_args(frame, known(func), Args([base, *rest], {}), None)
        return call_function(frame, func, [base, *rest], {}, None, cls=cls)

    # --- summaries -------------------------------------------------------------------------

    def bind(self, params: tuple[Param, ...], args: Args, default: Val | None) -> dict[str, Val]:
        """What each parameter holds for a call with `args`."""
        out: dict[str, Val] = {}
        positional = [p for p in params if p.kind in ("pos", "arg")]
        for i, p in enumerate(positional):
            if i < len(args.pos):
                out[p.name] = args.pos[i]
            elif args.star is not None:
                out[p.name] = args.star.derived()
        extra: frozenset[str] = EMPTY
        for v in args.pos[len(positional) :]:
            extra |= v.reach
        named = {p.name: p for p in params if p.kind in ("arg", "kwonly")}
        extra_kw: frozenset[str] = EMPTY
        for key, v in args.kw.items():
            if key in named:
                out[key] = v
            else:
                extra_kw |= v.reach
        if args.dstar is not None:
            for name in named:
                out.setdefault(name, args.dstar.derived())
            extra_kw |= args.dstar.reach
        for p in params:
            if p.kind == "vararg":
                star = args.star.reach if args.star is not None else EMPTY
                out[p.name] = default or fresh_of(tuple, inner=extra | star)
            elif p.kind == "kwarg":
                out[p.name] = default or fresh_of(dict, inner=extra_kw)
            elif p.name not in out:
                if default is not None:
                    out[p.name] = default
                elif p.default is not _MISSING:
                    out[p.name] = known(p.default)  # a default outlives the call: module state
        return out

    def call_analysed(
        self, frame: Frame, func: Any, cls: type | None, args: Args, node: ast.AST | None
    ) -> Val:
        """Call a Python function by its summary."""
        params = self.params_of(func)
        if params is None:
            name = qualified_name(func)
            return frame.unknown(name or "?", f"calls {name}, whose source is not available")
        default = (
            Val(origin=frozenset({_ROOT_TOKEN}), inner=frozenset({_ROOT_TOKEN})) if frame.root_name else None
        )
        binding = self.bind(params, args, default)
        hint = tuple(
            (p.name, binding[p.name].types, binding[p.name].pure)
            for i, p in enumerate(params)
            if not p.annotated
            and p.name in binding
            and (binding[p.name].types is not None or binding[p.name].pure)
            and not (i == 0 and cls is not None)
        )
        summary = self.summarise(func, cls, hint)
        return self.apply(frame, summary, func, binding)

    def apply(self, frame: Frame, summary: Summary, func: Any, binding: dict[str, Val]) -> Val:
        """Put a callee's summary into the caller's, its parameters replaced by the arguments."""
        prefix = (frame.root_name or self.label(func),)
        for e in summary.effects.values():
            frame.add(e.kind, e.target, prefix + e.path, e.reason)
        for (tokens, target), path in summary.muts.items():
            origin = _substitute(tokens, binding)
            if not origin:
                continue
            found = target
            if not found:
                for token in tokens:
                    bound = binding.get(token[2:].rstrip("*"))
                    if bound is not None:
                        found = self.record_name(bound) or bound.rec
                        if found:
                            break
            frame.mutate_origin(origin, found, prefix + path)
        for r in summary.raises.values():
            frame.raises.append(replace(r, path=frame.prefix + prefix + r.path))
        if summary.cost is not None:
            frame.summary.cost = max(frame.summary.cost or 0.0, summary.cost)
        ret = summary.ret or const(None)
        calls = ret.calls
        if any(not isinstance(c, Method | BuiltinMethod) for c in calls):
            return Val(origin=frozenset({UNKNOWN}))  # a closure made by the callee: not followed
        return replace(ret, origin=_substitute(ret.origin, binding), inner=_substitute(ret.inner, binding))

    def summarise(self, func: Any, cls: type | None, hint: Hint) -> Summary:
        """What `func` does (memoised; recursion iterated until it settles)."""
        key: SummaryKey = (func, cls, hint)
        done = self.summaries.get(key)
        if done is not None:
            return done
        if key in self.active:
            self.hits.add(key)
            if self.deps:
                self.deps[-1].add(key)
            return self.active[key]
        tentative = self.tentative.get(key)
        if tentative is not None:
            summary, depends = tentative
            if all(self.generation.get(k) == g and k in self.active for k, g in depends):
                if self.deps:
                    self.deps[-1].update(k for k, _ in depends)
                return summary
        node = self.node_of(func)
        params = self.params_of(func)
        if node is None or params is None:
            summary = Summary()
            name = qualified_name(func)
            for kind in (EffectKind.CHANGES, EffectKind.EXTERNAL):
                summary.effects[(kind, "", "", "no source")] = Effect(
                    kind=kind, path=(), reason=f"the source of {name} is not available"
                )
            self.summaries[key] = summary
            return summary
        provisional = Summary(params=params)
        self.deps.append(set())
        summary = provisional
        for _ in range(6):
            self.active[key] = provisional
            self.generation[key] = self.generation.get(key, 0) + 1
            self.walks += 1
            if self.walks > _MAX_WALKS:
                raise _TooLarge(f"more than {_MAX_WALKS} function bodies to walk")
            summary = self.walk(func, cls, hint, node, params)
            if key not in self.hits:
                break
            self.hits.discard(key)
            if summary.shape() == provisional.shape():
                break
            provisional = summary
        else:
            for kind in (EffectKind.CHANGES, EffectKind.EXTERNAL):
                summary.effects[(kind, "", "", "recursion")] = Effect(
                    kind=kind, path=("(recursion)",), reason="recursion that did not settle"
                )
        del self.active[key]
        deps = self.deps.pop() - {key}
        if deps:
            # Depends on a function still being summarised: good only while that one's
            # provisional summary stands.
            self.tentative[key] = (summary, frozenset((k, self.generation[k]) for k in deps))
            if self.deps:
                self.deps[-1] |= deps
        else:
            self.summaries[key] = summary
        return summary

    def walk(
        self,
        func: Any,
        cls: type | None,
        hint: Hint,
        node: _FunctionNode,
        params: tuple[Param, ...],
    ) -> Summary:
        """Walk one function's body with its parameters as tokens."""
        summary = Summary(params=params)
        cells = func.__closure__ or ()
        closure = {}
        for name, cell in zip(func.__code__.co_freevars, cells, strict=False):
            try:
                closure[name] = cell.cell_contents
            except ValueError:  # an empty cell
                closure[name] = _MISSING
        owner = None
        if cls is not None:
            owning = func.__qualname__.rsplit(".", 1)[0]
            owner = next((k for k in cls.__mro__ if k.__qualname__ == owning), cls)
        frame = Frame(
            self,
            summary,
            globals_=func.__globals__,
            closure=closure,
            qualname=f"{func.__module__}.{func.__qualname__}",
            owner=owner,
            self_cls=cls,
            persistent_closure=bool(cells),
        )
        hints = self.hints(func)
        given = {name: (kinds, pure) for name, kinds, pure in hint}
        for i, p in enumerate(params):
            origin = frozenset({param_token(p.name)})
            inner = frozenset({inner_token(p.name)})
            kinds: frozenset[type] | None = None
            elem: frozenset[type] | None = None
            objs: tuple[Any, ...] = ()
            pure = False
            if p.kind == "vararg":
                kinds = frozenset({tuple})
            elif p.kind == "kwarg":
                kinds = frozenset({dict})
            elif p.name in hints:
                kinds, elem = annotation_types(hints[p.name])
            elif i == 0 and cls is not None:
                if p.name == "cls":
                    kinds, objs = frozenset({type(cls)}), (cls,)
                else:
                    kinds = frozenset({cls})
            elif p.name in given:
                kinds, pure = given[p.name]
            value = Val(origin=origin, inner=inner, types=kinds, elem=elem, objs=objs, pure=pure)
            record = self.record_name(value)
            if record:
                frame.add(EffectKind.READS, record, (f"{p.name}: {record}",))
                value = replace(value, rec=record)
            frame.env[p.name] = value
        _declared_marks(frame, func)
        if isinstance(node, ast.Lambda):
            frame.returns.append(frame.expr(node.body))
        else:
            frame.body(node.body)
        if inspect.isgeneratorfunction(func) or inspect.isasyncgenfunction(func):
            # A generator stands for what it yields: iterated, or entered as a context manager.
            ret = join_all(frame.yields) if frame.yields else const(None)
        else:
            ret = join_all(frame.returns) if frame.returns else const(None)
        if ret.types is None and "return" in hints:
            kinds, elem = annotation_types(hints["return"])
            if kinds is not None:
                ret = replace(ret, types=kinds, elem=elem)
        summary.ret = ret
        for r in frame.raises:
            summary.raises.setdefault((r.exception, r.function, r.line), r)
        return summary

    # --- roots -----------------------------------------------------------------------------

    def reset_walk(self) -> None:
        """Forget a walk that stopped half-way."""
        self.active.clear()
        self.deps.clear()
        self.hits.clear()
        self.tentative.clear()

    def root(self, fn: Any, name: str) -> tuple[Summary, Frame]:
        """Analyse `fn` as an action called `name`: every argument is the caller's."""
        self.walks = 0
        self.tentative.clear()
        summary = Summary()
        frame = Frame(self, summary, globals_={}, closure={}, qualname=name, root_name=name)
        call_args(frame, known(fn), Args([], {}), None)
        return summary, frame


def _declared_marks(frame: Frame, func: Any) -> None:
    """``@sends`` / ``@spends`` on the function itself."""
    if func.__dict__.get(_SENDS):
        frame.add(EffectKind.SENDS, "", ("@sends",))
    spent = func.__dict__.get(_SPENDS)
    if spent is not None and spent is not False:
        frame.add(EffectKind.SPENDS, "", ("@spends",))
        if isinstance(spent, int | float) and spent is not True:
            frame.summary.cost = max(frame.summary.cost or 0.0, float(spent))


def _method(*targets: Method | BuiltinMethod) -> Val:
    return Val(types=frozenset(), calls=tuple(targets))


def _is_data(member: Any) -> bool:
    """Whether a class member is data (a value, a property) rather than a method."""
    if isinstance(member, property | types.GetSetDescriptorType | types.MemberDescriptorType):
        return True
    return not callable(member) and not isinstance(member, staticmethod | classmethod)


def _substitute(tokens: frozenset[str], binding: dict[str, Val]) -> frozenset[str]:
    """Origins in the callee's terms → origins in the caller's."""
    out: set[str] = set()
    for token in tokens:
        if not token.startswith("p:"):
            out.add(token)
            continue
        reach = token.endswith("*")
        bound = binding.get(token[2:-1] if reach else token[2:])
        if bound is None:
            continue
        out |= bound.reach if reach else bound.origin
    return frozenset(out)


_ANALYSER = Analyser()


def clear_caches() -> None:
    """Forget every parsed file and summary (for tests and benchmarks)."""
    global _ANALYSER
    _ANALYSER = Analyser()


def forget_summaries() -> None:
    """Forget every summary but keep parsed files (a benchmark's fresh start per action)."""
    _ANALYSER.summaries.clear()
    _ANALYSER.hints_cache.clear()


def analyse_effects(fn: Any, *, name: str) -> Effects:
    """The effects of `fn`, run as an action called `name`."""
    try:
        summary, _ = _ANALYSER.root(fn, name)
    except Exception as exc:  # a gap in the analysis must never make an action look safe
        _ANALYSER.reset_walk()
        return Effects.unknown(name, f"the analysis could not follow this code ({exc!r})")
    return Effects(effects=tuple(summary.effects.values()), cost_usd=summary.cost)


def find_raises(fn: Any, *, name: str) -> list[RaiseSite]:
    """The exception classes `fn` may raise, itself or through what it calls."""
    try:
        _, frame = _ANALYSER.root(fn, name)
    except Exception:  # the analysis could not follow the code: no raise site is known
        _ANALYSER.reset_walk()
        return []
    seen: set[tuple[str, str, int]] = set()
    sites: list[RaiseSite] = []
    for r in frame.raises:
        key = (qualified_name(r.exception), r.function, r.line)
        if key in seen:
            continue
        seen.add(key)
        sites.append(RaiseSite(exception=key[0], function=r.function, line=r.line, path=r.path))
    return sites


__all__ = ["Analyser", "analyse_effects", "clear_caches", "find_raises", "forget_summaries", "sink"]
