"""Judging calls: sinks, the allow-list, constructors, SQLAlchemy sessions, analysed functions.

Each function here takes the `Frame` the call happens in, records what the call does there, and
returns the value the call gives back.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import functools
import inspect
import types
from dataclasses import dataclass, replace
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, Any

from signoff.actions._analysis_tables import (
    CALLBACK_POSITIONS,
    CHANGES_GLOBAL_STATE,
    IMMUTABLE_TYPES,
    MUTATES_ARGUMENT,
    MUTATING_METHODS,
    OPEN_NAMES,
    PATH_OPEN_PATTERN,
    RETURN_TYPES,
    UNKNOWABLE_BUILTINS,
    gives_fresh,
    is_pure_name,
    is_sink,
    qualified_name,
    sql_effects,
)
from signoff.actions._analysis_values import (
    DB,
    EMPTY,
    BuiltinMethod,
    Inline,
    Method,
    Partial,
    Sql,
    Super,
    Target,
    Val,
    const,
    fresh_of,
    join,
    join_all,
    known,
)
from signoff.actions.effects import _SENDS, _SPENDS, EffectKind

if TYPE_CHECKING:
    from signoff.actions._analysis_frame import Frame

_C_CALLABLES = (
    types.BuiltinFunctionType,
    types.MethodDescriptorType,
    types.WrapperDescriptorType,
    types.ClassMethodDescriptorType,
    types.MethodWrapperType,
)
_NEUTRAL_SESSION = frozenset(
    {
        # commit and flush write what is pending: those changes are found where they are made
        # (and a query's flush is refused at run time), so they add nothing here.
        "commit",
        "flush",
        "rollback",
        "close",
        "begin",
        "begin_nested",
        "refresh",
        "expire",
        "expire_all",
        "expunge",
        "expunge_all",
        "is_modified",
        "in_transaction",
        "in_nested_transaction",
        "get_bind",
        "no_autoflush",
        "connection",
        "connect",
        "get_transaction",
        "get_nested_transaction",
        "__enter__",
        "__exit__",
        "__aenter__",
        "__aexit__",
        "close_all",
        "invalidate",
        "enable_relationship_loading",
        "info",
        "bind",
    }
)
_ROW_METHODS = frozenset({"first", "one", "one_or_none", "scalar", "scalar_one", "scalar_one_or_none", "get"})
_ROWS_METHODS = frozenset(
    {
        "all",
        "scalars",
        "unique",
        "fetchall",
        "fetchmany",
        "partitions",
        "mappings",
        "tuples",
        "yield_per",
        "columns",
    }
)


@dataclass(slots=True)
class Args:
    """The arguments of one call."""

    pos: list[Val]
    """Positional arguments."""
    kw: dict[str, Val]
    """Keyword arguments."""
    star: Val | None = None
    """What ``*args`` at the call site hold."""
    dstar: Val | None = None
    """What ``**kwargs`` at the call site hold."""

    def every(self) -> list[Val]:
        """Every argument value."""
        out = [*self.pos, *self.kw.values()]
        return out + [v for v in (self.star, self.dstar) if v is not None]

    def reach(self) -> frozenset[str]:
        """Where anything passed may come from."""
        out: frozenset[str] = EMPTY
        for v in self.every():
            out |= v.reach
        return out

    def prepend(self, *vals: Val) -> Args:
        """These arguments with `vals` first."""
        return Args([*vals, *self.pos], self.kw, self.star, self.dstar)


def text(frame: Frame, node: ast.AST | None) -> str:
    """How a call reads in a path: ``"httpx.post()"``."""
    if isinstance(node, ast.Call):
        return f"{ast.unparse(node.func)}()"
    if node is not None:
        return ast.unparse(node)
    return frame.root_name or frame.qualname


def evaluate_call(frame: Frame, node: ast.Call) -> Val:
    """Evaluate a call expression."""
    fv = frame.expr(node.func)
    pos: list[Val] = []
    star: Val | None = None
    for a in node.args:
        if isinstance(a, ast.Starred):
            star = join(star, frame.expr(a.value))
        else:
            pos.append(frame.expr(a))
    kw: dict[str, Val] = {}
    dstar: Val | None = None
    for k in node.keywords:
        v = frame.expr(k.value)
        if k.arg is None:
            dstar = join(dstar, v)
        else:
            kw[k.arg] = v
    return call_args(frame, fv, Args(pos, kw, star, dstar), node)


def call(frame: Frame, fv: Val, pos: list[Val], kw: dict[str, Val], node: ast.AST | None) -> Val:
    """Call `fv` with these arguments."""
    return call_args(frame, fv, Args(pos, kw), node)


def call_args(frame: Frame, fv: Val, args: Args, node: ast.AST | None) -> Val:
    """Call `fv`: each object and callable it may be, and what cannot be seen as unknown."""
    if fv.qual and _sinkish(fv.qual):
        return sink(frame, fv.qual, args, node, mode_at=1)
    results = [call_object(frame, obj, fv.qual, args, node) for obj in fv.objs]
    results += [call_target(frame, t, args, node) for t in fv.calls]
    if fv.types is None:
        if fv.pure or is_pure_name(fv.qual):
            results.append(pure_call(frame, fv.qual, args, node))
        else:
            what = text(frame, node)
            results.append(
                frame.unknown(
                    what, f"calls {what.removesuffix('()')}, whose code cannot be resolved (dynamic dispatch)"
                )
            )
    elif not fv.objs and not fv.calls:
        for cls in fv.types:
            if issubclass(cls, type):
                what = text(frame, node)
                results.append(frame.unknown(what, "calls a class that cannot be resolved"))
            else:
                method = frame.an.attr_of_type(frame, fv, cls, "__call__")
                results.append(call_args(frame, method, args, node))
    return join_all(results)


def _sinkish(name: str) -> bool:
    return is_sink(name) or name in OPEN_NAMES or fnmatchcase(name, PATH_OPEN_PATTERN)


def sink(frame: Frame, name: str, args: Args, node: ast.AST | None, *, mode_at: int) -> Val:
    """A call of a sink: outside reach (``open`` only when its mode may write)."""
    if name in OPEN_NAMES or fnmatchcase(name, PATH_OPEN_PATTERN):
        mode = args.kw.get("mode") or (args.pos[mode_at] if len(args.pos) > mode_at else None)
        if mode is None and args.star is None and args.dstar is None:
            return Val(pure=True)
        literal = mode.objs[0] if mode is not None and len(mode.objs) == 1 else None
        if isinstance(literal, str) and not set(literal) & set("wax+"):
            return Val(pure=True)
        shown = repr(literal) if isinstance(literal, str) else "?"
        frame.add(EffectKind.EXTERNAL, name, (f"{name}(mode={shown})",))
        return Val(pure=True)
    frame.add(EffectKind.EXTERNAL, name, (name,))
    return Val(pure=True)


def call_object(frame: Frame, obj: Any, qual: str, args: Args, node: ast.AST | None) -> Val:
    """Call a known object: a function, class, method, partial, or callable instance."""
    core = obj
    for _ in range(32):  # follow wrappers (decorators, signoff's action objects) to the code
        if isinstance(core, type):
            break
        wrapped = _safe_attr(core, "__wrapped__")
        if wrapped is None:
            break
        _declared(frame, core, frame.an.label(wrapped))
        core = wrapped
    q = qualified_name(core)
    if core is not obj:
        qual = ""
    for name in (qual, q):
        if name and _sinkish(name):
            return sink(frame, name, args, node, mode_at=1)
    if q in MUTATES_ARGUMENT:
        index = MUTATES_ARGUMENT[q]
        if len(args.pos) > index:
            frame.mutate(args.pos[index], text(frame, node))
        return Val(pure=True)
    if q in CHANGES_GLOBAL_STATE:
        frame.add(EffectKind.CHANGES, "", (q,))
        return Val(pure=True)
    special = _builtin(frame, core, args, node)
    if special is not None:
        return special
    sql = frame.an.sql_constructor(core)
    if sql is not None:
        return _statement(frame, sql, args)
    if isinstance(core, type):
        return construct(frame, core, args, node)
    if isinstance(core, functools.partial):
        bound = Args([known(a) for a in core.args], {k: known(v) for k, v in core.keywords.items()})
        merged = Args(bound.pos + args.pos, {**bound.kw, **args.kw}, args.star, args.dstar)
        return call_args(frame, known(core.func), merged, node)
    if isinstance(core, types.FunctionType):
        return call_function(frame, core, args.pos, args.kw, node, qual=qual, args=args)
    if isinstance(core, types.MethodType):
        owner = core.__self__
        cls = owner if isinstance(owner, type) else type(owner)
        return call_function(
            frame,
            core.__func__,
            [known(owner), *args.pos],
            args.kw,
            node,
            cls=cls,
            args=args.prepend(known(owner)),
        )
    if isinstance(core, _C_CALLABLES):
        owner = getattr(core, "__self__", None)
        if owner is not None and not inspect.ismodule(owner) and not isinstance(owner, type):
            method = BuiltinMethod(name=core.__name__, self_val=known(owner), qual=q)
            return builtin_method(frame, method, args, node)
        if is_pure_name(q) or is_pure_name(qual):
            unbound = isinstance(core, types.MethodDescriptorType | types.WrapperDescriptorType)
            if unbound and core.__name__ in MUTATING_METHODS and args.pos:
                frame.mutate(args.pos[0], text(frame, node))
            return pure_call(frame, q, args, node)
        return frame.unknown(q or text(frame, node), f"calls {q}, C code outside the allow-list")
    if callable(core):
        dunder = frame.an.attr_of_type(frame, known(core), type(core), "__call__")
        return call_args(frame, dunder, args, node)
    return frame.unknown(text(frame, node), f"calls {q or 'an object'} that is not callable")


def _safe_attr(obj: Any, name: str) -> Any:
    try:
        return (
            inspect.getattr_static(obj, name, None)
            if not isinstance(obj, types.FunctionType)
            else obj.__dict__.get(name)
        )
    except Exception:  # an object whose attribute look-up fails is not followed
        return None


def _declared(frame: Frame, fn: Any, label: str) -> None:
    """``@sends`` / ``@spends`` on a wrapper layer."""
    if _safe_attr(fn, _SENDS):
        frame.add(EffectKind.SENDS, "", (label, "@sends"))
    spent = _safe_attr(fn, _SPENDS)
    if spent is not None and spent is not False:
        frame.add(EffectKind.SPENDS, "", (label, "@spends"))
        if isinstance(spent, int | float) and spent is not True:
            frame.summary.cost = max(frame.summary.cost or 0.0, float(spent))


def call_target(frame: Frame, target: Target, args: Args, node: ast.AST | None) -> Val:
    """Call a callable the analysis built: a lambda or local function, a bound method…"""
    if isinstance(target, Inline):
        return call_inline(frame, target, args, node)
    if isinstance(target, Method):
        full = args.prepend(target.self_val) if target.self_val is not None else args
        return call_function(
            frame, target.func, full.pos, full.kw, node, cls=target.cls, qual=target.qual, args=full
        )
    if isinstance(target, BuiltinMethod):
        return builtin_method(frame, target, args, node)
    if isinstance(target, Partial):
        merged = Args([*target.args, *args.pos], args.kw, args.star, args.dstar)
        return call_args(frame, target.fn, merged, node)
    what = text(frame, node)
    return frame.unknown(what, "calls super() itself")


def call_function(
    frame: Frame,
    func: Any,
    pos: list[Val],
    kw: dict[str, Val],
    node: ast.AST | None,
    *,
    cls: type | None = None,
    qual: str = "",
    args: Args | None = None,
) -> Val:
    """Call a Python function: a sink, allow-listed, or analysed and its summary applied."""
    full = args if args is not None else Args(pos, kw)
    if not isinstance(func, types.FunctionType) or "__wrapped__" in func.__dict__:
        return call_object(frame, func, qual, full, node)
    q = qualified_name(func)
    for name in (qual, q):
        if name and _sinkish(name):
            return sink(frame, name, full, node, mode_at=1 if name in OPEN_NAMES else 0)
    if is_pure_name(q):
        return pure_call(frame, q, full, node)
    return frame.an.call_analysed(frame, func, cls, full, node)


def call_inline(frame: Frame, target: Inline, args: Args, node: ast.AST | None) -> Val:
    """Call a lambda or a function defined inside the function analysed: walk its body here."""
    from signoff.actions._analysis_frame import Frame as FrameType

    fn = target.node
    key = id(fn)
    if key in frame.inline_active:  # a local function calling itself: assume it changes its args
        for v in args.every():
            frame.mutate(v, f"{text(frame, node)} (recursive)")
        reach = args.reach()
        return Val(origin=reach, inner=reach)
    outer: FrameType = target.frame
    name = "<lambda>" if isinstance(fn, ast.Lambda) else fn.name
    child = FrameType(
        frame.an,
        frame.summary,
        globals_=outer.globals,
        closure=outer.closure,
        qualname=f"{outer.qualname}.<locals>.{name}",
        owner=outer.owner,
        self_cls=outer.self_cls,
        parent=outer,
        root_name="",
        persistent_closure=outer.persistent_closure,
    )
    child.prefix = (*frame.prefix, name)
    child.raises = frame.raises
    binding = frame.an.bind(frame.an.params_of_node(fn), args, None)
    for param_name, value in binding.items():
        child.env[param_name] = value
    for p in frame.an.params_of_node(fn):
        if p.name not in child.env:
            child.env[p.name] = Val()
    frame.inline_active.add(key)
    try:
        if isinstance(fn, ast.Lambda):
            return child.expr(fn.body)
        child.body(fn.body)
    finally:
        frame.inline_active.discard(key)
    if any(isinstance(n, ast.Yield | ast.YieldFrom) for n in ast.walk(fn)):
        return join_all(child.yields) if child.yields else const(None)
    return join_all(child.returns) if child.returns else const(None)


def pure_call(frame: Frame, q: str, args: Args, node: ast.AST | None) -> Val:
    """A call of allow-listed code: only the callbacks it is handed are followed."""
    positions, keywords = CALLBACK_POSITIONS.get(q, ((), ()))
    reach = args.reach()
    fresh = gives_fresh(q)
    item = Val(pure=True) if fresh else Val(origin=reach, inner=reach)
    called = False
    for i, v in enumerate(args.pos):
        called |= _callback(frame, v, item, node, expected=i in positions, where=q)
    for k, v in args.kw.items():
        called |= _callback(frame, v, item, node, expected=k in keywords, where=q)
    if fresh and (not called or q in ("re.sub", "re.subn")):
        return Val(pure=True)
    returns = RETURN_TYPES.get(q)
    if returns is not None:
        first = args.pos[0] if args.pos else None
        elem = first.elem if first is not None and returns in (list, tuple, set, frozenset) else None
        contained = reach if returns not in IMMUTABLE_TYPES else EMPTY
        return fresh_of(returns, inner=contained, elem=elem)
    if not reach:
        return Val(pure=True)
    return Val(origin=reach, inner=reach)


def _callback(frame: Frame, v: Val, item: Val, node: ast.AST | None, *, expected: bool, where: str) -> bool:
    """A function handed to allow-listed code is called by it (True when there is one)."""
    functions = [o for o in v.objs if callable(o) and not isinstance(o, type | str)]
    if v.calls or functions:
        call_args(frame, replace(v, objs=tuple(functions)), Args([item, item], {}), node)
        return True
    if expected and v.types is None and not v.pure:
        what = text(frame, node)
        frame.unknown(what, f"hands {where} a callable whose code cannot be resolved")
        return True
    return False


def _builtin(frame: Frame, core: Any, args: Args, node: ast.AST | None) -> Val | None:
    """The builtins the analysis reads by their arguments."""
    if not isinstance(core, types.BuiltinFunctionType) and core is not builtins.super:
        return None
    if getattr(core, "__self__", None) is not builtins:
        return None
    name = core.__name__
    if name in UNKNOWABLE_BUILTINS:
        return frame.unknown(text(frame, node), f"calls {name}(), whose effect cannot be known")
    if name == "getattr" and len(args.pos) >= 2:
        attr = args.pos[1].objs[0] if len(args.pos[1].objs) == 1 else None
        if not isinstance(attr, str):
            return frame.unknown(text(frame, node), "getattr with a computed name")
        found = frame.attribute(args.pos[0], attr, None)
        return join(found, args.pos[2]) if len(args.pos) > 2 else found
    if name in ("setattr", "delattr") and args.pos:
        frame.mutate(args.pos[0], text(frame, node))
        return const(None)
    if name == "super":
        return _super(frame, node)
    if name == "globals":
        return Val(origin=frozenset({"global"}), inner=frozenset({"global"}), types=frozenset({dict}))
    if name in ("vars", "iter", "next", "reversed") and args.pos:
        first = args.pos[0]
        if name == "next":
            return join(frame.iterate(first), args.pos[1]) if len(args.pos) > 1 else frame.iterate(first)
        return first.derived(elem=first.elem, types=frozenset({dict}) if name == "vars" else None)
    return None


def _super(frame: Frame, node: ast.AST | None) -> Val:
    """``super()``: the methods of the classes after the method's own."""
    scope: Frame | None = frame
    while scope is not None and scope.owner is None:
        scope = scope.parent
    if scope is None or scope.owner is None or not scope.summary.params:
        return frame.unknown(text(frame, node), "super() outside a method")
    self_val = scope.env.get(scope.summary.params[0].name, Val())
    target = Super(owner=scope.owner, self_cls=scope.self_cls or scope.owner, self_val=self_val)
    return Val(types=frozenset(), calls=(target,), origin=self_val.origin, inner=self_val.inner)


def construct(frame: Frame, cls: type, args: Args, node: ast.AST | None) -> Val:
    """Making an object: a record is created; its ``__new__`` / ``__init__`` are followed."""
    an = frame.an
    made = fresh_of(cls, inner=args.reach())
    if an.is_record(cls):
        frame.add(EffectKind.CREATES, cls.__name__, (f"{cls.__name__}(...)",))
        for init in an.user_inits(cls):
            call_function(frame, init, [made, *args.pos], args.kw, node, cls=cls)
        return replace(made, rec=cls.__name__)
    if issubclass(cls, an.session_types()):  # opening a session or connection does nothing yet
        return made
    q = qualified_name(cls)
    if is_pure_name(q) or (issubclass(cls, BaseException) and cls.__module__ == "builtins"):
        first = args.pos[0] if args.pos else None
        result = pure_call(frame, q, args, node)
        elem = first.elem if first is not None else None
        return fresh_of(cls, inner=result.reach, elem=elem)
    if an.is_pydantic(cls):
        for validator in an.pydantic_validators(cls):
            call_function(frame, validator, [known(cls), Val(inner=args.reach())], {}, node, cls=cls)
        return made
    generated = dataclasses.is_dataclass(cls) or hasattr(cls, "_fields")
    for method_name in ("__new__", "__init__"):
        method = inspect.getattr_static(cls, method_name, None)
        if isinstance(method, staticmethod | classmethod):
            method = method.__func__
        if method is None or method is object.__new__ or method is object.__init__:
            continue
        if isinstance(method, types.FunctionType):
            if generated and method.__code__.co_filename.startswith("<"):
                continue
            first = known(cls) if method_name == "__new__" else made
            call_function(frame, method, [first, *args.pos], args.kw, node, cls=cls)
            continue
        owner_q = qualified_name(method)
        if _sinkish(owner_q) or _sinkish(q):
            sink(frame, owner_q, args, node, mode_at=1)
        elif not is_pure_name(owner_q):
            frame.unknown(
                text(frame, node), f"makes {q}, whose {method_name} is C code outside the allow-list"
            )
    post_init = inspect.getattr_static(cls, "__post_init__", None)
    if dataclasses.is_dataclass(cls) and isinstance(post_init, types.FunctionType):
        call_function(frame, post_init, [made], {}, node, cls=cls)
    return made


# --- SQLAlchemy ----------------------------------------------------------------------------------


def _statement(frame: Frame, kind: str, args: Args) -> Val:
    """``select(T)``, ``insert(T)``, ``update(T)``, ``delete(T)``, ``text("...")``."""
    if kind == "text":
        sql = args.pos[0] if args.pos else args.kw.get("text")
        literal = sql.objs[0] if sql is not None and len(sql.objs) == 1 else None
        if isinstance(literal, str):
            found = tuple((k, frame.an.table_record(t)) for k, t in sql_effects(literal))
            return Val(sql=Sql(effects=found), pure=True, types=frozenset())
        return Val(
            sql=Sql(effects=((EffectKind.CHANGES, ""),), reason="SQL text not known"),
            pure=True,
            types=frozenset(),
        )
    effect = {
        "select": EffectKind.READS,
        "insert": EffectKind.CREATES,
        "update": EffectKind.CHANGES,
        "delete": EffectKind.DELETES,
    }[kind]
    row: type | None = None
    target = ""
    for value in args.pos:
        for obj in value.objs:
            record = obj if frame.an.is_record(obj) else getattr(obj, "class_", None)
            if record is not None and frame.an.is_record(record):
                row = row or (obj if record is obj else None)
                target = target or record.__name__
    reason = "" if target else "a statement on a table the analysis cannot name"
    if effect is EffectKind.READS and not target:
        reason = ""
    return Val(sql=Sql(effects=((effect, target),), row=row, reason=reason), pure=True, types=frozenset())


def _table_statement(frame: Frame, method: BuiltinMethod) -> Val | None:
    """``table.insert()`` and the like on a SQLAlchemy ``Table``."""
    kind = {
        "select": EffectKind.READS,
        "insert": EffectKind.CREATES,
        "update": EffectKind.CHANGES,
        "delete": EffectKind.DELETES,
    }.get(method.name)
    if kind is None:
        return None
    names = [getattr(o, "name", "") for o in method.self_val.objs]
    table = names[0] if len(names) == 1 and isinstance(names[0], str) else ""
    target = frame.an.table_record(table) if table else ""
    return Val(sql=Sql(effects=((kind, target),)), pure=True, types=frozenset())


def _run_sql(frame: Frame, stmt: Val | None, what: str) -> Sql:
    """What running a statement does; unknown text is assumed to change anything."""
    if stmt is not None and stmt.sql is not None:
        for kind, target in stmt.sql.effects:
            frame.add(kind, target, (what,), stmt.sql.reason)
        return Sql(effects=stmt.sql.effects, row=stmt.sql.row, result=True)
    literal = stmt.objs[0] if stmt is not None and len(stmt.objs) == 1 else None
    if isinstance(literal, str):
        for kind, table in sql_effects(literal):
            frame.add(kind, frame.an.table_record(table), (what,))
        return Sql(result=True)
    frame.add(EffectKind.CHANGES, "", (what,), "runs SQL the analysis cannot see")
    return Sql(result=True)


def sql_method(frame: Frame, method: BuiltinMethod, args: Args, node: ast.AST | None) -> Val:
    """A method of a statement, an ORM query, or a result."""
    base = method.self_val
    sql = base.sql
    assert sql is not None
    name = method.name
    target = sql.effects[0][1] if sql.effects else ""
    if sql.query and name == "update":
        frame.add(EffectKind.CHANGES, target, (text(frame, node),))
        return fresh_of(int)
    if sql.query and name == "delete":
        frame.add(EffectKind.DELETES, target, (text(frame, node),))
        return fresh_of(int)
    if sql.result or sql.query:
        if name in _ROW_METHODS:
            return frame.an.rows_of(sql)
        if name in _ROWS_METHODS:
            return Val(
                sql=replace(sql, result=True),
                origin=frozenset({DB}),
                inner=frozenset({DB}),
                pure=True,
                types=frozenset(),
            )
        return Val(pure=True, origin=frozenset({DB}), inner=frozenset({DB}))
    return base  # building a statement: .where(), .values(), .order_by() …


def session_method(frame: Frame, method: BuiltinMethod, args: Args, node: ast.AST | None) -> Val:
    """A method of a SQLAlchemy session or connection, by what it does to records."""
    an = frame.an
    name = method.name
    what = text(frame, node)
    first = args.pos[0] if args.pos else None
    if name in ("add", "add_all", "merge", "delete"):
        value = first or Val()
        kinds = value.elem if name == "add_all" else value.types
        records = [k.__name__ for k in kinds or () if an.is_record(k)]
        kind = {"delete": EffectKind.DELETES, "merge": EffectKind.CHANGES}.get(
            name, EffectKind.CREATES if not value.origin else EffectKind.CHANGES
        )
        for record in records:
            frame.add(kind, record, (what,))
        if not records:
            frame.add(
                kind if kind is EffectKind.DELETES else EffectKind.CHANGES,
                "",
                (what,),
                f"{name} of an object whose record type is not known",
            )
        return const(None) if name != "merge" else value
    if name in ("get", "get_one", "query"):
        loaded: type | None = next((o for o in (first.objs if first else ()) if an.is_record(o)), None)
        if loaded is None:
            frame.add(EffectKind.READS, "", (what,))
            return Val(origin=frozenset({DB}), inner=frozenset({DB}))
        frame.add(EffectKind.READS, loaded.__name__, (what,))
        sql = Sql(effects=((EffectKind.READS, loaded.__name__),), row=loaded, query=True)
        if name == "query":
            return Val(sql=sql, pure=True, types=frozenset())
        return an.rows_of(sql)
    if name in ("execute", "scalars", "scalar", "stream", "stream_scalars", "exec_driver_sql"):
        result = _run_sql(frame, first, what)
        if name == "scalar":
            return an.rows_of(result)
        return Val(sql=result, origin=frozenset({DB}), inner=frozenset({DB}), pure=True, types=frozenset())
    if name in _NEUTRAL_SESSION:
        if name in ("connection", "connect"):
            return Val(types=frozenset(an.connection_types()))
        return method.self_val
    frame.add(
        EffectKind.CHANGES,
        "",
        (what,),
        f"calls {name} on a database session, which the analysis cannot classify",
    )
    return Val(origin=frozenset({DB}), inner=frozenset({DB}))


def builtin_method(frame: Frame, method: BuiltinMethod, args: Args, node: ast.AST | None) -> Val:
    """A method of a builtin, allow-listed, sink, session or statement type."""
    base = method.self_val
    if base.sql is not None:
        return sql_method(frame, method, args, node)
    if base.types and frame.an.is_session_types(base.types):
        return session_method(frame, method, args, node)
    if method.qual and _sinkish(method.qual):
        return sink(frame, method.qual, args, node, mode_at=0)
    trusted = (
        base.pure
        or is_pure_name(method.qual)
        or bool(
            base.types
            and all(c.__module__ == "builtins" or is_pure_name(qualified_name(c)) for c in base.types)
        )
    )
    if not trusted:
        return frame.unknown(
            text(frame, node), f"calls {method.qual or method.name}, C code outside the allow-list"
        )
    if method.qual.startswith("sqlalchemy."):  # SQL expressions are generative: never changed
        return _table_statement(frame, method) or Val(pure=True)
    if method.name in MUTATING_METHODS:
        frame.mutate(base, text(frame, node))
    pure_call(frame, method.qual, args, node)
    if method.name == "copy":
        return (
            fresh_of(next(iter(base.types)), inner=base.reach)
            if base.types and len(base.types) == 1
            else Val(inner=base.reach)
        )
    if base.types and base.types <= IMMUTABLE_TYPES:
        return Val(pure=True)
    if method.name in ("keys", "values", "items"):
        return fresh_of(list, inner=base.reach)
    return base.derived()
