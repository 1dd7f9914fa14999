"""Walking one function's body: statements, expressions, names, attributes, mutations.

A `Frame` walks the syntax of one function (or of a lambda or local function, at the place it is
called), keeping what each local name may hold (`Val`) and writing what it finds into a `Summary`.
Calls are judged in `calls` (and SQLAlchemy's in `orm`); functions called are summarised by the
analyser, which the frame knows only as an `Interpreter`.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import os
from typing import Any

from signoff.effects import calls, orm
from signoff.effects.effect import Effect, EffectKind
from signoff.effects.scope import Interpreter, call_text
from signoff.effects.signature import bind, params_of_node
from signoff.effects.summary import Raised, Summary
from signoff.effects.tables import IMMUTABLE_TYPES
from signoff.effects.values import (
    EMPTY,
    FRESH,
    GLOBAL,
    UNKNOWN,
    Args,
    BuiltinMethod,
    Inline,
    Super,
    Typed,
    Val,
    const,
    fresh_of,
    join,
    join_all,
    known,
)

EMPTY_CELL: Any = object()
"""What a closure cell holds before its variable is assigned."""
_BUILTINS = vars(builtins)


class Frame:
    """The walk of one function body."""

    def __init__(
        self,
        an: Interpreter,
        summary: Summary,
        *,
        globals_: dict[str, Any],
        closure: dict[str, Any],
        qualname: str,
        owner: type | None = None,
        self_cls: type | None = None,
        parent: Frame | None = None,
        root_name: str = "",
        persistent_closure: bool = False,
        filename: str = "",
    ) -> None:
        self.an = an
        self.summary = summary
        self.env: dict[str, Val] = {}
        self.globals = globals_
        self.closure = closure
        self.qualname = qualname
        self.owner = owner
        self.self_cls = self_cls
        self.parent = parent
        self.root_name = root_name
        self.persistent_closure = persistent_closure
        self.filename = filename
        """The file the walked code is in ("" when it has none)."""
        self.declared_global: set[str] = set()
        self.declared_nonlocal: set[str] = set()
        self.raises: list[Raised] = []
        self.returns: list[Val] = []
        self.yields: list[Val] = []
        self.inline_active: set[int] = parent.inline_active if parent else set()
        self.prefix: tuple[str, ...] = ()
        """Local functions walked on the way here, put before each path."""

    # --- recording -------------------------------------------------------------------------

    def add(
        self, kind: EffectKind, target: str, path: tuple[str, ...], reason: str = "", at: str = ""
    ) -> None:
        """Record an effect of the function."""
        path = self.prefix + path
        key = (kind, target, path[-1] if path else "", reason)
        if key not in self.summary.effects:
            self.summary.effects[key] = Effect(kind=kind, target=target, path=path, reason=reason, at=at)

    def unknown(self, text: str, reason: str, node: ast.AST | None = None) -> Val:
        """Record that something here cannot be seen: it is assumed to change and reach out.
        With `node`, the effect says where (``"bakery.py:34"``)."""
        at = self.where(node)
        self.add(EffectKind.CHANGES, "", (text,), reason, at)
        self.add(EffectKind.EXTERNAL, "", (text,), reason, at)
        return Val(origin=frozenset({UNKNOWN}), inner=frozenset({UNKNOWN}))

    def where(self, node: ast.AST | None) -> str:
        """``"bakery.py:34"``: the file and line of `node`, or "" when either is not known."""
        line = getattr(node, "lineno", None)
        if not self.filename or line is None or self.filename.startswith("<"):
            return ""
        return f"{os.path.basename(self.filename)}:{line}"

    def mutate(self, val: Val, text: str) -> None:
        """Record that `val` itself is changed (``val.x = ...``, ``val.append(...)``)."""
        if not val.origin:
            return
        if val.types is not None and val.types and val.types <= IMMUTABLE_TYPES:
            return
        for target in orm.record_targets(val):
            self.mutate_origin(val.origin, target, (text,))

    def mutate_origin(self, origin: frozenset[str], target: str, path: tuple[str, ...]) -> None:
        """Record a change of what comes from `origin`: conditional on parameters, or not."""
        path = self.prefix + path
        params = frozenset(t for t in origin if t.startswith("p:"))
        if params:
            self.summary.muts.setdefault((params, target), path)
        reason = "changes an object the analysis cannot follow" if UNKNOWN in origin else ""
        if origin - params:
            key = (EffectKind.CHANGES, target, path[-1], reason)
            self.summary.effects.setdefault(
                key, Effect(kind=EffectKind.CHANGES, target=target, path=path, reason=reason)
            )

    def raised(self, exc: type, line: int, path: tuple[str, ...]) -> None:
        """Record that `exc` may be raised here."""
        self.raises.append(Raised(exception=exc, function=self.qualname, line=line, path=self.prefix + path))

    def call_inline(self, target: Inline, args: Args, node: ast.AST | None) -> Val:
        """Call a lambda or a function defined inside the function analysed: walk its body here."""
        fn = target.node
        key = id(fn)
        if key in self.inline_active:  # a local function calling itself: assume it changes its args
            for v in args.every():
                self.mutate(v, f"{call_text(self, node)} (recursive)")
            reach = args.reach()
            return Val(origin=reach, inner=reach)
        outer: Frame = target.frame
        name = "<lambda>" if isinstance(fn, ast.Lambda) else fn.name
        child = Frame(
            self.an,
            self.summary,
            globals_=outer.globals,
            closure=outer.closure,
            qualname=f"{outer.qualname}.<locals>.{name}",
            owner=outer.owner,
            self_cls=outer.self_cls,
            parent=outer,
            root_name="",
            persistent_closure=outer.persistent_closure,
            filename=outer.filename,
        )
        child.prefix = (*self.prefix, name)
        child.raises = self.raises
        binding = bind(params_of_node(fn), args, None)
        for param_name, value in binding.items():
            child.env[param_name] = value
        for p in params_of_node(fn):
            if p.name not in child.env:
                child.env[p.name] = Val()
        self.inline_active.add(key)
        try:
            if isinstance(fn, ast.Lambda):
                return child.expr(fn.body)
            child.body(fn.body)
        finally:
            self.inline_active.discard(key)
        if any(isinstance(n, ast.Yield | ast.YieldFrom) for n in ast.walk(fn)):
            return join_all(child.yields) if child.yields else const(None)
        return join_all(child.returns) if child.returns else const(None)

    def super_(self, node: ast.AST | None) -> Val:
        """``super()``: the methods of the classes after the method's own."""
        scope: Frame | None = self
        while scope is not None and scope.owner is None:
            scope = scope.parent
        if scope is None or scope.owner is None or not scope.summary.params:
            return self.unknown(call_text(self, node), "super() outside a method")
        self_val = scope.env.get(scope.summary.params[0].name, Val())
        target = Super(owner=scope.owner, self_cls=scope.self_cls or scope.owner, self_val=self_val)
        return Val(types=frozenset(), calls=(target,), origin=self_val.origin, inner=self_val.inner)

    # --- statements ------------------------------------------------------------------------

    def body(self, stmts: list[ast.stmt]) -> None:
        """Walk a block of statements."""
        for stmt in stmts:
            self.stmt(stmt)

    def stmt(self, node: ast.stmt) -> None:
        """Walk one statement."""
        if isinstance(node, ast.Expr):
            self.expr(node.value)
        elif isinstance(node, ast.Assign):
            value = self.expr(node.value)
            for target in node.targets:
                self.assign(target, value, node.value, "=")
        elif isinstance(node, ast.AugAssign):
            self.aug_assign(node)
        elif isinstance(node, ast.AnnAssign):
            if node.value is not None:
                self.assign(node.target, self.expr(node.value), node.value, "=")
        elif isinstance(node, ast.Return):
            self.returns.append(self.expr(node.value) if node.value else const(None))
        elif isinstance(node, ast.If | ast.While):
            self.expr(node.test)
            self.body(node.body)
            if isinstance(node, ast.While):
                self.body(node.body)
            self.body(node.orelse)
        elif isinstance(node, ast.For | ast.AsyncFor):
            iterated = self.expr(node.iter)
            self.dunder(node.iter, iterated, ("__iter__", "__aiter__"), [])
            item = self.iterate(iterated)
            for _ in range(2):  # twice: a name changed late in the loop is seen early
                self.assign(node.target, item, None, "=")
                self.body(node.body)
            self.body(node.orelse)
        elif isinstance(node, ast.With | ast.AsyncWith):
            for with_item in node.items:
                self.with_item(with_item)
            self.body(node.body)
        elif isinstance(node, ast.Try | ast.TryStar):
            self.try_(node)
        elif isinstance(node, ast.Raise):
            self.raise_(node)
        elif isinstance(node, ast.Delete):
            for target in node.targets:
                self.delete(target)
        elif isinstance(node, ast.Global):
            self.declared_global.update(node.names)
        elif isinstance(node, ast.Nonlocal):
            self.declared_nonlocal.update(node.names)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for deco in node.decorator_list:
                self.expr(deco)
            self.bind_name(node.name, Val(types=frozenset(), calls=(Inline(node=node, frame=self),)))
        elif isinstance(node, ast.ClassDef):
            for deco in node.decorator_list:
                self.expr(deco)
            self.bind_name(node.name, Val())  # a class made here: calling it is not followed
        elif isinstance(node, ast.Import | ast.ImportFrom):
            self.import_(node)
        elif isinstance(node, ast.Assert):
            self.expr(node.test)
        elif isinstance(node, ast.Match):
            subject = self.expr(node.subject)
            for case in node.cases:
                for sub in ast.walk(case.pattern):
                    name = getattr(sub, "name", None) or getattr(sub, "rest", None)
                    if isinstance(name, str):
                        self.bind_name(name, subject.derived())
                if case.guard is not None:
                    self.expr(case.guard)
                self.body(case.body)
        # pass, break, continue, type aliases: nothing to do

    def aug_assign(self, node: ast.AugAssign) -> None:
        """``x += v``: a change of x's object when x is a name holding a mutable object."""
        value = self.expr(node.value)
        op = _OPS.get(type(node.op), "?") + "="
        target = node.target
        if isinstance(target, ast.Name):
            current = self.name(target.id)
            if current.types is None or not current.types <= IMMUTABLE_TYPES:
                self.mutate(current, f"{target.id} {op}")
            self.assign(target, join(current.derived(), value), None, op)
        else:
            self.assign(target, value, None, op)

    def assign(self, target: ast.expr, value: Val, source: ast.expr | None, op: str) -> None:
        """Bind or store `value` into `target`."""
        if isinstance(target, ast.Name):
            self.store_name(target.id, value, op)
        elif isinstance(target, ast.Attribute):
            base = self.expr(target.value)
            self.mutate(base, f"{_text(target)} {op}")
            self.property_setter(base, target.attr, value, target)
        elif isinstance(target, ast.Subscript):
            base = self.expr(target.value)
            self.expr(target.slice)
            self.mutate(base, f"{_text(target)} {op}")
            stored = source if source is not None else ast.Constant(value=None)
            self.dunder(target.value, base, ("__setitem__",), [target.slice, stored])
        elif isinstance(target, ast.Tuple | ast.List):
            items = source.elts if isinstance(source, ast.Tuple | ast.List) else None
            for i, elt in enumerate(target.elts):
                if items is not None and len(items) == len(target.elts):
                    part = self.expr(items[i]) if not isinstance(items[i], ast.Starred) else value
                elif (parts := value.contents().parts) is not None and len(parts) == len(target.elts):
                    part = value.reached(parts[i])
                else:
                    part = self.iterate(value)
                self.assign(elt, part, None, op)
        elif isinstance(target, ast.Starred):
            self.assign(target.value, fresh_of(list, inner=value.reach), None, op)

    def store_name(self, name: str, value: Val, op: str) -> None:
        """Bind a name, writing module or closure state when the name is declared so."""
        if name in self.declared_global:
            self.add(EffectKind.CHANGES, "", (f"global {name} {op}",))
            return
        if name in self.declared_nonlocal:
            owner = self.parent
            while owner is not None and name not in owner.env:
                owner = owner.parent
            if owner is None:
                if self.persistent_closure or name in self.closure:
                    self.add(EffectKind.CHANGES, "", (f"nonlocal {name} {op}",))
                return
            owner.env[name] = join(owner.env.get(name), value)
            return
        self.bind_name(name, value)

    def bind_name(self, name: str, value: Val) -> None:
        """Let a local name also hold `value`."""
        self.env[name] = join(self.env.get(name), value)

    def delete(self, target: ast.expr) -> None:
        """``del target``."""
        if isinstance(target, ast.Name):
            if target.id in self.declared_global:
                self.add(EffectKind.CHANGES, "", (f"del {target.id}",))
        elif isinstance(target, ast.Attribute | ast.Subscript):
            base = self.expr(target.value)
            if isinstance(target, ast.Subscript):
                self.expr(target.slice)
                self.dunder(target.value, base, ("__delitem__",), [target.slice])
            self.mutate(base, f"del {_text(target)}")
        elif isinstance(target, ast.Tuple | ast.List):
            for elt in target.elts:
                self.delete(elt)

    def property_setter(self, base: Val, attr: str, value: Val, node: ast.expr) -> None:
        """Assigning to a property runs its setter: follow it."""
        for cls in base.types or ():
            if cls.__module__ == "builtins":
                continue
            prop = inspect.getattr_static(cls, attr, None)
            if isinstance(prop, property) and prop.fset is not None:
                calls.call_function(self, prop.fset, [base, value], {}, node, cls=cls)

    def with_item(self, item: ast.withitem) -> None:
        """``with cm as x``: runs ``cm.__enter__`` and ``cm.__exit__``."""
        cm = self.expr(item.context_expr)
        entered = calls.call(
            self, self.attribute(cm, "__enter__", item.context_expr), [], {}, item.context_expr
        )
        calls.call(self, self.attribute(cm, "__exit__", item.context_expr), [], {}, item.context_expr)
        if item.optional_vars is not None:
            bound = cm if (entered.types is None and entered.pure) or cm.sql else entered
            self.assign(item.optional_vars, join(bound, cm) if bound is not cm else cm, None, "=")

    def try_(self, node: ast.Try | ast.TryStar) -> None:
        """``try``: exceptions raised in the body and caught (not re-raised) are dropped."""
        outer = self.raises
        self.raises = []
        self.body(node.body)
        inside, self.raises = self.raises, outer
        handlers = [(self.handler_types(h), _reraises(h)) for h in node.handlers]
        for site in inside:
            for caught, reraises in handlers:
                if caught is None or issubclass(site.exception, caught):
                    if reraises:
                        outer.append(site)
                    break
            else:
                outer.append(site)
        for h in node.handlers:
            if h.name:
                caught = self.handler_types(h)
                self.bind_name(h.name, fresh_of(caught[0]) if caught else FRESH)
            self.body(h.body)
        self.body(node.orelse)
        self.body(node.finalbody)

    def handler_types(self, handler: ast.ExceptHandler) -> tuple[type, ...] | None:
        """The classes an ``except`` catches: None for all; () when they cannot be resolved."""
        if handler.type is None:
            return None
        val = self.expr(handler.type)
        found: list[type] = []
        for obj in val.objs:
            items = obj if isinstance(obj, tuple) else (obj,)
            found.extend(o for o in items if isinstance(o, type) and issubclass(o, BaseException))
        if isinstance(handler.type, ast.Tuple):
            for elt in handler.type.elts:
                found.extend(
                    o for o in self.expr(elt).objs if isinstance(o, type) and issubclass(o, BaseException)
                )
        if BaseException in found:
            return None
        return tuple(found)

    def raise_(self, node: ast.Raise) -> None:
        """``raise X(...)`` / ``raise X``: record the class when it resolves."""
        if node.cause is not None:
            self.expr(node.cause)
        if node.exc is None:
            return
        val = self.expr(node.exc)
        classes: list[type] = []
        func = node.exc.func if isinstance(node.exc, ast.Call) else None
        source = self.expr(func) if func is not None else val
        for obj in source.objs:
            if isinstance(obj, type) and issubclass(obj, BaseException):
                classes.append(obj)
        if func is None and not classes and val.types:
            classes.extend(t for t in val.types if issubclass(t, BaseException) and val.exact)
        for exc in classes:
            self.raised(exc, node.lineno, (f"raise {exc.__name__}",))

    def import_(self, node: ast.Import | ast.ImportFrom) -> None:
        """An import inside the function: the module (or name), from `sys.modules` only."""
        import sys

        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name if alias.asname else alias.name.split(".", 1)[0]
                module = sys.modules.get(top)
                bound = alias.asname or top
                self.bind_name(
                    bound,
                    known(module, qual=top)
                    if module is not None
                    else Val(qual=top, origin=frozenset({GLOBAL})),
                )
            return
        if node.level:
            package = self.globals.get("__package__") or ""
            parts = package.split(".")
            base = ".".join(parts[: len(parts) - node.level + 1]) if package else ""
            modname = f"{base}.{node.module}" if node.module else base
        else:
            modname = node.module or ""
        module = sys.modules.get(modname)
        mval = (
            known(module, qual=modname)
            if module is not None
            else Val(qual=modname, origin=frozenset({GLOBAL}))
        )
        for alias in node.names:
            self.bind_name(alias.asname or alias.name, self.attribute(mval, alias.name, None))

    # --- expressions -----------------------------------------------------------------------

    def expr(self, node: ast.expr) -> Val:
        """The value of an expression, recording what evaluating it does."""
        if isinstance(node, ast.Name):
            return self.name(node.id)
        if isinstance(node, ast.Constant):
            return const(node.value)
        if isinstance(node, ast.Attribute):
            return self.attribute(self.expr(node.value), node.attr, node)
        if isinstance(node, ast.Call):
            return calls.evaluate_call(self, node)
        if isinstance(node, ast.Subscript):
            base = self.expr(node.value)
            self.expr(node.slice)
            self.dunder(node.value, base, ("__getitem__",), [node.slice])
            return self.item(base)
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            kind = {ast.List: list, ast.Tuple: tuple, ast.Set: set}[type(node)]
            parts = [self.expr(e) for e in node.elts]
            shape = Typed(parts=tuple(p.contents() for p in parts)) if kind is tuple else None
            return fresh_of(kind, inner=_reach(parts), elem=_elem(parts), shape=shape)
        if isinstance(node, ast.Dict):
            parts = [self.expr(e) for e in node.keys if e is not None]
            parts += [self.expr(e) for e in node.values]
            return fresh_of(dict, inner=_reach(parts))
        if isinstance(node, ast.BinOp):
            left, right = self.expr(node.left), self.expr(node.right)
            name = _BINARY.get(type(node.op))
            if name is not None:
                self.dunder(node.left, left, (f"__{name}__",), [node.right])
                self.dunder(node.right, right, (f"__r{name}__",), [node.left])
            kinds = left.types if left.types and left.types <= IMMUTABLE_TYPES else None
            if kinds is None and left.types and left.types <= {list, dict, set}:
                kinds = left.types
            plain = all(v.pure or (v.types and v.types <= IMMUTABLE_TYPES) for v in (left, right))
            return Val(types=kinds, inner=left.reach | right.reach, exact=kinds is not None, pure=plain)
        if isinstance(node, ast.BoolOp):
            return join_all([self.expr(v) for v in node.values])
        if isinstance(node, ast.UnaryOp):
            operand = self.expr(node.operand)
            return (
                const(True)
                if isinstance(node.op, ast.Not)
                else operand.derived(
                    types=operand.types if operand.types and operand.types <= IMMUTABLE_TYPES else None
                )
            )
        if isinstance(node, ast.Compare):
            left_node, left = node.left, self.expr(node.left)
            for op, right_node in zip(node.ops, node.comparators, strict=True):
                right = self.expr(right_node)
                if isinstance(op, ast.In | ast.NotIn):
                    self.dunder(right_node, right, ("__contains__",), [left_node])
                elif type(op) in _COMPARE:
                    self.dunder(left_node, left, (_COMPARE[type(op)],), [right_node])
                left_node, left = right_node, right
            return fresh_of(bool)
        if isinstance(node, ast.IfExp):
            self.expr(node.test)
            return join(self.expr(node.body), self.expr(node.orelse))
        if isinstance(node, ast.JoinedStr):
            for v in node.values:
                self.expr(v)
            return fresh_of(str)
        if isinstance(node, ast.FormattedValue):
            value = self.expr(node.value)
            if node.format_spec is not None:
                self.expr(node.format_spec)
            # Formatting calls the value's own __format__ (object's calls __str__), or __repr__
            # with !r: code of the value's class that runs here.
            if node.conversion == ord("r"):
                self.dunder(node.value, value, ("__repr__",), [])
            else:
                self.dunder(node.value, value, ("__format__", "__str__"), [ast.Constant(value="")])
            return fresh_of(str)
        if isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
            return self.comprehension(node)
        if isinstance(node, ast.Lambda):
            for d in node.args.defaults + [d for d in node.args.kw_defaults if d is not None]:
                self.expr(d)
            return Val(types=frozenset(), calls=(Inline(node=node, frame=self),))
        if isinstance(node, ast.NamedExpr):
            value = self.expr(node.value)
            self.assign(node.target, value, node.value, ":=")
            return value
        if isinstance(node, ast.YieldFrom):
            self.yields.append(self.iterate(self.expr(node.value)))
            return Val(origin=frozenset({UNKNOWN}), inner=frozenset({UNKNOWN}))
        if isinstance(node, ast.Await):
            return self.expr(node.value)
        if isinstance(node, ast.Yield):
            self.yields.append(self.expr(node.value) if node.value is not None else const(None))
            return Val(origin=frozenset({UNKNOWN}), inner=frozenset({UNKNOWN}), pure=True)
        if isinstance(node, ast.Starred):
            return self.expr(node.value)
        if isinstance(node, ast.Slice):
            for part in (node.lower, node.upper, node.step):
                if part is not None:
                    self.expr(part)
            return fresh_of(slice)
        return Val(origin=frozenset({UNKNOWN}))

    def dunder(self, node: ast.expr, value: Val, names: tuple[str, ...],
               args: list[ast.expr]) -> None:
        """Follow the special method an operator calls on `value` (``f"{x}"`` calls
        ``x.__format__``), when its class defines it in Python: code that runs, so its effects
        count. The first of `names` the class defines is the one called."""
        if not value.types:
            return
        for name in names:
            if any(_defines(t, name) for t in value.types):
                call = ast.Call(func=ast.Attribute(value=node, attr=name, ctx=ast.Load()),
                                args=list(args), keywords=[])
                ast.copy_location(call, node)
                ast.fix_missing_locations(call)
                calls.evaluate_call(self, call)
                return

    def comprehension(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp) -> Val:
        """A comprehension: a fresh container of what its element expression yields."""
        for gen in node.generators:
            iterated = self.expr(gen.iter)
            self.dunder(gen.iter, iterated, ("__iter__", "__aiter__"), [])
            self.assign(gen.target, self.iterate(iterated), None, "=")
            for cond in gen.ifs:
                self.expr(cond)
        if isinstance(node, ast.DictComp):
            parts = [self.expr(node.key), self.expr(node.value)]
            return fresh_of(dict, inner=_reach(parts))
        part = self.expr(node.elt)
        kind = {ast.ListComp: list, ast.SetComp: set}.get(type(node))
        if kind is None:
            return Val(inner=part.reach, pure=True, elem=part.types, shape=Typed(item=part.contents()))
        return fresh_of(kind, inner=part.reach, elem=part.types, shape=Typed(item=part.contents()))

    def name(self, name: str) -> Val:
        """What a name refers to: a local, a closure cell, a module global, a builtin."""
        if name not in self.declared_global:
            frame: Frame | None = self
            while frame is not None:
                if name in frame.env:
                    return frame.env[name]
                frame = frame.parent
            if name in self.closure:
                cell = self.closure[name]
                return known(cell) if cell is not EMPTY_CELL else Val(origin=frozenset({GLOBAL}))
        if name in self.globals:
            value = self.globals[name]
            return known(value, qual=value.__name__ if inspect.ismodule(value) else "")
        if name in _BUILTINS:
            return known(_BUILTINS[name], qual=f"builtins.{name}")
        return Val(origin=frozenset({UNKNOWN}), inner=frozenset({UNKNOWN}))

    def item(self, base: Val) -> Val:
        """``base[...]``: something reachable from base."""
        if base.sql is not None and base.sql.result:
            return orm.rows_of(base.sql)
        if base.types and base.types <= _SCALARS:
            return Val(types=base.types if base.types <= {str, bytes} else None, pure=True)
        rec = orm.record_name(base) or base.rec
        if base.types and all(issubclass(t, dict) for t in base.types):
            return base.reached(base.contents().value, rec=rec)
        if base.types and base.types <= {list, tuple, set, frozenset}:
            return base.reached(base.contents().item, rec=rec)
        return base.derived(rec=rec)

    def iterate(self, base: Val) -> Val:
        """An item of an iterable."""
        if base.sql is not None and base.sql.result:
            return orm.rows_of(base.sql)
        rec = orm.record_name(base) or base.rec
        if base.types and base.types <= {str, bytes}:
            return base.derived(types=base.types, rec=rec)
        return base.reached(base.contents().item, rec=rec)

    def attribute(self, base: Val, attr: str, node: ast.expr | None) -> Val:
        """``base.attr``: a module member, a class member, a method bound to base, or data."""
        results: list[Val] = []
        for obj in base.objs:
            results.append(self.an.attr_of_object(self, base, obj, attr))
        if base.objs:
            return join_all(results)
        if base.sql is not None:
            return Val(
                types=frozenset(), calls=(BuiltinMethod(name=attr, self_val=base, qual=f"sql.{attr}"),)
            )
        for target in base.calls:
            if isinstance(target, Super):
                results.append(self.an.attr_of_super(target, attr))
        if base.calls:
            return join_all(results) if results else Val(pure=True)
        if base.types is None:
            return base.derived(qual=f"{base.qual}.{attr}" if base.qual else "")
        for cls in base.types:
            results.append(self.an.attr_of_type(self, base, cls, attr))
        return join_all(results) if results else base.derived()


def _reach(parts: list[Val]) -> frozenset[str]:
    out: frozenset[str] = EMPTY
    for p in parts:
        out |= p.reach
    return out


def _elem(parts: list[Val]) -> frozenset[type] | None:
    kinds: set[type] = set()
    for p in parts:
        if p.types is None:
            return None
        kinds |= p.types
    return frozenset(kinds)


def _reraises(handler: ast.ExceptHandler) -> bool:
    """Whether an ``except`` block raises again what it caught."""
    stack: list[ast.AST] = list(handler.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            continue
        if isinstance(node, ast.Raise) and (
            node.exc is None
            or (isinstance(node.exc, ast.Name) and handler.name and node.exc.id == handler.name)
        ):
            return True
        stack.extend(ast.iter_child_nodes(node))
    return False


def _text(node: ast.AST) -> str:
    """The source text of a small expression, for a path."""
    return ast.unparse(node)


_SCALARS = IMMUTABLE_TYPES - {tuple, frozenset}
"""Immutable types whose parts are plain values too."""

_OPS: dict[type, str] = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
    ast.BitOr: "|",
    ast.BitAnd: "&",
    ast.BitXor: "^",
    ast.LShift: "<<",
    ast.RShift: ">>",
    ast.MatMult: "@",
}

__all__ = ["EMPTY_CELL", "Frame"]


_BINARY: dict[type, str] = {
    ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv", ast.FloorDiv: "floordiv",
    ast.Mod: "mod", ast.Pow: "pow", ast.MatMult: "matmul", ast.LShift: "lshift",
    ast.RShift: "rshift", ast.BitOr: "or", ast.BitAnd: "and", ast.BitXor: "xor",
}
"""The special methods binary operators call (``__add__``, and ``__radd__`` on the right)."""

_COMPARE: dict[type, str] = {
    ast.Eq: "__eq__", ast.NotEq: "__ne__", ast.Lt: "__lt__", ast.LtE: "__le__", ast.Gt: "__gt__",
    ast.GtE: "__ge__",
}
"""The special methods comparisons call."""


def _defines(cls: type, name: str) -> bool:
    """Whether `cls` runs Python code of the app's (or a third party's) for special method
    `name`: signoff's own classes and builtins' slots only compute."""
    for klass in cls.__mro__:
        if name in klass.__dict__:
            found = klass.__dict__[name]
            module = getattr(klass, "__module__", "") or ""
            if module == "builtins" or module.startswith(("signoff.", "pydantic", "enum")):
                return False
            return inspect.isfunction(found)
    return False
