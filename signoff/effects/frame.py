"""Walking one function's body: the frame, its names, attributes and mutations.

A `Frame` walks the syntax of one function (or of a lambda or local function, at the place it is
called), keeping what each local name may hold (`Val`) and writing what it finds into a `Summary`.
Statements are walked in `statements`, expressions evaluated in `expressions`.
Calls are judged in `calls` (and SQLAlchemy's in `orm`); functions called are summarised by the
analyser, which the frame knows only as an `Interpreter`.
"""

from __future__ import annotations

import ast
import builtins
import collections
import enum
import inspect
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from signoff.effects import calls, decorated, expressions, orm, special, statements
from signoff.effects.bindings import MISSING, Binding, held_kinds
from signoff.effects.effect import UNSEEN, Effect, EffectKind
from signoff.effects.scope import Interpreter, call_text
from signoff.effects.signature import bind, params_of_node
from signoff.effects.summary import Raised, Summary, keep_told_first
from signoff.effects.tables import IMMUTABLE_TYPES
from signoff.effects.values import (
    GLOBAL,
    UNKNOWN,
    Args,
    BuiltinMethod,
    Inline,
    Method,
    Super,
    Val,
    const,
    grown,
    holder,
    join,
    join_all,
    known,
    known_held,
    only_plain,
)

EMPTY_CELL: Any = object()
_DESCRIBING = frozenset({"__name__", "__qualname__", "__doc__", "__module__"})
"""What a callable says of itself, in words: reading it does nothing."""
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
        self.app_code = an.is_app_file(filename, globals_.get("__name__", "") or "")
        """Whether the walked code is the app's own: what its names are bound to is kept."""
        self.declared_global: set[str] = set()
        self.declared_nonlocal: set[str] = set()
        self.raises: list[Raised] = []
        self.returns: list[Val] = []
        self.yields: list[Val] = []
        self.inline_active: set[int] = parent.inline_active if parent else set()
        self.recursed: set[int] = parent.recursed if parent else set()
        """The local functions and lambdas (by their node) found calling themselves as they were
        walked, by a name, through another or as an argument: each runs over and over."""
        self.sites: tuple[tuple[str, int, int], ...] = ()
        """The places of the calls of the local functions and lambdas being walked here: what a
        call in one costs is counted once for each place it is called from (`calls.call_site`)."""
        self.prefix: tuple[str, ...] = ()
        """Local functions walked on the way here, put before each path."""
        self.kept: dict[int, ast.expr] = {}
        """The names and calls about to be walked where a container stays with its name (the
        next walk of each, once: `keep`)."""
        self.calling: set[int] = set()
        """The expressions about to be walked that are called at once (``g.append(x)``, not
        ``add = g.append``)."""
        self.binding: set[int] = set()
        """The expressions about to be walked whose value a local name is bound to next (`bind`)."""
        self.reshaped = 0
        """How many times a local container's known items changed (grown, or let go)."""
        self.aliases: dict[str, frozenset[str]] = {}
        """The local names bound to one container (``alias = items``), each to all of them:
        filled, or let go, through one, it is through each (`alias`)."""
        self.local_classes: dict[str, tuple[Val, ast.ClassDef]] = {}
        """The classes made by class statements here, by name, with what the name was bound to
        (`statements.class_made` walks their ``__init_subclass__`` as a subclass is made)."""
        self.runs_as_used: set[ast.ClassDef] = set()
        """Those of `local_classes` that run the app's code as they are used (a metaclass's)."""
        self.loops = 0
        """How many loops the walk is inside here (a lambda or local function is walked inside
        those of the place it is called): what is called inside one may run more than once."""

    # --- recording -------------------------------------------------------------------------

    def add(
        self, kind: EffectKind, target: str, path: tuple[str, ...], reason: str = "", at: str = "",
        *, in_words: bool = False,
    ) -> None:
        """Record an effect of the function (`in_words`: `target` is words, `Effect.in_words`)."""
        path = self.prefix + path
        key = (kind, target, path[-1] if path else "", reason)
        keep_told_first(self.summary.effects, key, Effect(kind=kind, target=target, path=path,
                                                          reason=reason, at=at, in_words=in_words))

    def bound(self, namespace: Any, name: str, value: Any, where: str, owner: Any = None,
              kinds: tuple[frozenset[type], frozenset[type]] | None = None) -> None:
        """Keep what a name resolved in the app's code was bound to (`Summary.resolved`; by
        where it is bound — `owner`, else `namespace` — and the name; `kinds`: what the
        container it is held, when its items are typed by that)."""
        if self.app_code:
            self.summary.resolved.setdefault(
                f"{id(owner if owner is not None else namespace)}.{name}",
                Binding(namespace=namespace, name=name, value=value, where=where, kinds=kinds))

    def unknown(self, text: str, reason: str, node: ast.AST | None = None) -> Val:
        """Record that something here cannot be seen: it is assumed to do everything but read
        (`UNSEEN`: change, reach out, send, and spend an amount not known). With `node`, the
        effect says where (``"bakery.py:34"``)."""
        at = self.where(node)
        for kind in UNSEEN:
            self.add(kind, "", (text,), reason, at)
        self.summary.cost_unseen = True
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
            keep_told_first(self.summary.muts, (params, target, path[-1]), path)
        reason = "changes an object the analysis cannot follow" if UNKNOWN in origin else ""
        if origin - params:
            keep_told_first(self.summary.effects, (EffectKind.CHANGES, target, path[-1], reason),
                            Effect(kind=EffectKind.CHANGES, target=target, path=path, reason=reason))

    @contextmanager
    def repeated(self) -> Iterator[None]:
        """While the block walks, the code walked may run more than once (a loop's body)."""
        self.loops += 1
        try:
            yield
        finally:
            self.loops -= 1

    def raised(self, exc: type, line: int, path: tuple[str, ...]) -> None:
        """Record that `exc` may be raised here."""
        self.raises.append(Raised(exception=exc, function=self.qualname, line=line, path=self.prefix + path))

    def call_inline(self, target: Inline, args: Args, node: ast.AST | None) -> Val:
        """Call a lambda or a function defined inside the function analysed: walk its body here.
        One that calls itself — by its name, through another name, a container, an argument
        (``f = lambda k: … f(k - 1)``, ``me(me, k)``) — runs its body over and over, as a loop's:
        found so as it is walked, it is walked again as one."""
        fn = target.node
        key = id(fn)
        if target.hashes:  # (a cache of it: ``@cache``)
            decorated.hashed_arguments(self, args, node)
        if key in self.inline_active:  # a local function calling itself: assume it changes its args
            self.recursed.add(key)
            for v in args.every():
                self.mutate(v, f"{call_text(self, node)} (recursive)")
            reach = args.reach()
            return Val(origin=reach, inner=reach)
        name = "<lambda>" if isinstance(fn, ast.Lambda) else fn.name
        calls_itself = any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                           and n.func.id == name for n in ast.walk(fn))
        given = self._walk_inline(target, args, node, name, repeats=calls_itself)
        if key in self.recursed and not calls_itself:
            given = self._walk_inline(target, args, node, name, repeats=True)
        return given

    def call_defined(self, func: Any, args: Args, node: ast.AST | None) -> Val | None:
        """Call `func`, a function of the app's written elsewhere (a decorator), by walking its
        body here as a local function's is, in a scope of the names its code sees (its module's,
        its closure's): what it gives may be a function it defines, walked where it is called,
        or what it was given. None when its source is not found."""
        found = self.an.node_of(func) if inspect.isfunction(func) else None
        if found is None or isinstance(found, ast.Lambda):
            return None
        closure: dict[str, Any] = {}
        for name, cell in zip(func.__code__.co_freevars, func.__closure__ or (), strict=False):
            try:
                closure[name] = cell.cell_contents
            except ValueError:  # an empty cell
                closure[name] = EMPTY_CELL
        outer = Frame(self.an, self.summary, globals_=func.__globals__, closure=closure,
                      qualname=func.__module__, persistent_closure=bool(func.__closure__),
                      filename=func.__code__.co_filename)
        outer.inline_active, outer.recursed = self.inline_active, self.recursed
        outer.prefix, outer.raises, outer.loops, outer.sites = (
            self.prefix, self.raises, self.loops, self.sites)
        return self.call_inline(Inline(node=found, frame=outer), args, node)

    def _walk_inline(self, target: Inline, args: Args, node: ast.AST | None, name: str, *,
                     repeats: bool) -> Val:
        """Walk the body of a lambda or local function called here (`repeats`: it runs over and
        over, a loop's body): what it gives."""
        fn = target.node
        key = id(fn)
        self.recursed.discard(key)
        outer: Frame = target.frame
        if repeats:  # (what it fills, it fills again and again: a loop not walked so)
            outer.let_go_inside(fn)
        child = self._scope(outer, f"{outer.qualname}.<locals>.{name}", name,
                            loops=self.loops + repeats)
        child.sites = (*self.sites, *calls.call_site(self, node))
        binding = bind(params_of_node(fn), args, None)
        for param_name, value in binding.items():
            child.env[param_name] = value
        for p in params_of_node(fn):
            if p.name not in child.env:
                child.env[p.name] = Val()
        self.inline_active.add(key)
        try:
            if isinstance(fn, ast.Lambda):  # (what it gives, as a function returns it)
                child.keep(fn.body)
                given = child.expr(fn.body)
                child.released(given, surely=True)
                return expressions.handed_on(child, fn.body, given, release=False)
            child.body(fn.body)
        finally:
            self.inline_active.discard(key)
        if any(isinstance(n, ast.Yield | ast.YieldFrom) for n in ast.walk(fn)):
            return join_all(child.yields) if child.yields else const(None)
        return join_all(child.returns) if child.returns else const(None)

    def class_body(self, node: ast.ClassDef) -> None:
        """Walk the body of a class made here, as it runs when the class is made (in a scope of
        its own: its names are the class's, not the function's); then what the class's making
        calls of the values it holds (a descriptor's ``__set_name__``)."""
        scope = self._scope(self, f"{self.qualname}.{node.name}", node.name, loops=self.loops)
        scope.body(node.body)
        orm.held(self, scope.env.values(), node, what=f"class {node.name}")  # (``t = text(…)``:
        # the class holds it, and what reads it off the class is not followed)
        for name, value in scope.env.items():
            special.special(self, value, ("__set_name__",), [Val(), const(name)], node)

    def _scope(self, outer: Frame, qualname: str, name: str, *, loops: int) -> Frame:
        """A scope walked here, inside `outer` (where its code was written): a local function's
        or a class body's. It writes into this walk's summary and raises, its paths after
        `name`."""
        child = Frame(
            self.an,
            self.summary,
            globals_=outer.globals,
            closure=outer.closure,
            qualname=qualname,
            owner=outer.owner,
            self_cls=outer.self_cls,
            parent=outer,
            root_name="",
            persistent_closure=outer.persistent_closure,
            filename=outer.filename,
        )
        child.prefix = (*self.prefix, name)
        child.raises = self.raises
        child.loops = loops
        child.sites = self.sites
        return child

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

    def name(self, name: str) -> Val:
        """What a name refers to: a local, a closure cell, a module global, a builtin."""
        if name not in self.declared_global:
            frame: Frame | None = self
            while frame is not None:
                if name in frame.env:
                    found = frame.env[name]
                    if (found.holds_known or found.plain_container) and name not in found.owners:
                        return replace(found, owners=found.owners | {name})
                    return found
                frame = frame.parent
            if name in self.closure:
                cell = self.closure[name]
                return known(cell) if cell is not EMPTY_CELL else Val(origin=frozenset({GLOBAL}))
        module = self.globals.get("__name__", "?")
        if name in self.globals:
            value = self.globals[name]
            self.bound(self.globals, name, value, f"{module}.{name}", kinds=held_kinds(value))
            if self.app_code:  # (what a registry holds types its items: the binding sees it)
                return known_held(value)
            return known(value, qual=value.__name__ if inspect.ismodule(value) else "")
        if name in _BUILTINS:
            self.bound(self.globals, name, MISSING, f"{module}.{name}")  # (a global may hide it)
            return known(_BUILTINS[name], qual=f"builtins.{name}")
        return Val(origin=frozenset({UNKNOWN}), inner=frozenset({UNKNOWN}))

    def item(self, base: Val) -> Val:
        """``base[...]``: something reachable from base."""
        if base.sql is not None and base.sql.result:
            return orm.rows_of(base.sql)
        if base.types and base.types <= _SCALARS:
            return Val(types=base.types if base.types <= {str, bytes} else None, pure=True)
        rec = orm.record_name(base) or base.rec
        if base.types and all(issubclass(t, dict | collections.ChainMap) for t in base.types):
            return base.taken(base.contents().value, rec=rec)
        if base.types and base.types <= {list, tuple, set, frozenset, collections.deque}:
            return base.taken(base.contents().item, rec=rec)
        return base.taken(None, rec=rec) if base.pure else base.derived(rec=rec)

    def iterate(self, base: Val) -> Val:
        """An item of an iterable (one known as an object, an iterator, advanced: `advanced`)."""
        special.advanced(self, base)
        if base.sql is not None and base.sql.result:
            return orm.rows_of(base.sql)
        rec = orm.record_name(base) or base.rec
        if base.types and base.types <= {str, bytes}:
            return base.derived(types=base.types, rec=rec)
        if base.objs and not base.beyond and all(_members_listed(o) for o in base.objs):
            return join_all([known(m) for o in base.objs for m in o])  # (``for g in Genre``)
        return base.taken(base.contents().item, rec=rec)

    def attribute(self, base: Val, attr: str, node: ast.expr | None) -> Val:
        """``base.attr``: a module member, a class member, a method bound to base, or data. A
        class of the app's with its own ``__getattribute__`` runs it for every attribute read
        (what it gives is among what the read gives)."""
        looked_up = special.special(self, base, ("__getattribute__",), [const(attr)], node)
        if looked_up is not None:
            return join(looked_up, self._attribute(base, attr, node))
        return self._attribute(base, attr, node)

    def _descriptor_read(self, cls: type, attr: str, base: Val, node: ast.expr | None
                         ) -> Val | None:
        """``cls.attr`` where what `cls` keeps is a descriptor of the app's: its ``__get__``
        runs, given no object and the class (what it gives is among what the read gives)."""
        try:
            member = inspect.getattr_static(cls, attr)
        except Exception:  # (not there, or a class whose look-up fails: nothing more)
            return None
        getter = inspect.getattr_static(type(member), "__get__", None)
        if not (inspect.isfunction(getter) and self.an.is_app_code(getter)):
            return None
        return calls.call_function(self, getter, [known(member), const(None), base], {}, node,
                                   cls=type(member))

    def _attribute(self, base: Val, attr: str, node: ast.expr | None) -> Val:
        results: list[Val] = []
        of: list[type | None] = []  # (the type each result is of: `_but_failing`)
        for obj in base.objs:
            results.append(self.an.attr_of_object(self, base, obj, attr))
            got = self._descriptor_read(obj, attr, base, node) if isinstance(obj, type) else None
            if got is not None:  # (``C.d``: a descriptor's ``__get__(None, C)`` runs)
                results[-1] = join(results[-1], got)
            of.append(type(obj))
        if base.objs:  # (and of what else it may be: ``x = None``, then maybe ``x = Loud()``)
            if base.types is None:
                results.append(base.derived())
                of.append(None)
            elif base.beyond:
                for cls in base.types:
                    results.append(self.an.attr_of_type(self, base, cls, attr))
                    of.append(cls)
            return _but_failing(results, of, attr)
        if base.sql is not None:
            if attr in _SQL_COLUMNS:  # ``subquery.c.total``: its columns, expressions to build on
                return orm.carried(Val(pure=True), [base])  # (of a CTE that writes: it runs)
            return orm.carried(Val(  # (a method, or a column: ``cte.c.id``, ``q.subquery().id``)
                types=frozenset(), calls=(BuiltinMethod(name=attr, self_val=base, qual=f"sql.{attr}"),)
            ), [base])
        for target in base.calls:
            if isinstance(target, Super):
                results.append(self.an.attr_of_super(target, attr))
        if base.calls:
            if results:
                return join_all(results)
            if attr == "__self__":  # the object a method is bound to
                bound = [t.self_val for t in base.calls
                         if isinstance(t, Method | BuiltinMethod) and t.self_val is not None]
                return join_all(bound) if len(bound) == len(base.calls) else self.unknown(
                    f".{attr}", "the object a callable is bound to is not known", node)
            if attr in _DESCRIBING:
                return Val(pure=True)
            return self.unknown(f".{attr}", f"reads .{attr} of a callable", node)
        if base.types is None:  # (a method of what allow-listed code gave: `filled_elsewhere`)
            found = base.derived(qual=f"{base.qual}.{attr}" if base.qual else "",
                                 owners=base.owners)
            maybe = [self.an.attr_of_type(self, replace(base, types=frozenset({cls}),
                                                        maybe=frozenset()), cls, attr)
                     for cls in base.maybe]  # (what reading it runs of theirs: `Val.maybe`)
            return join_all([found, *maybe])
        for cls in base.types:
            results.append(self.an.attr_of_type(self, base, cls, attr))
            of.append(cls)
        return _but_failing(results, of, attr) if results else base.derived()

    # --- statements and expressions (walked in `statements` and `expressions`) -------------

    def body(self, stmts: list[ast.stmt]) -> None:
        """Walk a block of statements."""
        statements.body(self, stmts)

    def assign(self, target: ast.expr, value: Val, source: ast.expr | None, op: str) -> None:
        """Bind or store `value` into `target`."""
        statements.assign(self, target, value, source, op)

    def bind_name(self, name: str, value: Val) -> None:
        """Let a local name also hold `value`."""
        self.env[name] = join(self.env.get(name), value)

    def grow(self, node: ast.expr, *, item: Val | None = None, value: Val | None = None) -> None:
        """What the container a local name holds (`node`) holds now includes `item` (a key)
        or `value` (`values.grown`): it was stored into it."""
        frame: Frame | None = self
        while isinstance(node, ast.Name) and frame is not None:  # (a local function's: the
            if node.id in frame.env:                             # function it is made in's)
                group = frame.aliases.get(node.id, frozenset({node.id}))  # (each grown)
                filled = not only_plain(item, value)  # (what allow-listed code gave: the app's)
                for name in group:
                    held = frame.env[name]
                    frame.env[name] = grown(held, item=item, value=value)
                    self.reshaped += 1
                    if not held.anew:  # (those holding it hold more now; a copy's do not)
                        self.let_go_all(held.owners - group, filled=filled)
                    self.let_go_parts(name, filled=filled, but=group)  # (and what sees it)
                return
            frame = frame.parent

    def alias(self, name: str, other: str) -> None:
        """`name` is bound to the container `other` holds (``name = other``): each names it."""
        group = self.aliases.get(name, frozenset({name})) | self.aliases.get(
            other, frozenset({other}))
        for each in group:
            self.aliases[each] = group

    def keep(self, node: ast.expr) -> None:
        """`node`, walked next, leaves the container it gives with its name: it is only read
        (``len(xs)``, ``xs[0]``, ``for x in xs``) or filled where the walk sees it
        (``xs.append(x)``). A name anywhere else — bound to another name, handed to a function,
        stored, captured by a local function — lets the container go (`let_go`)."""
        self.kept[id(node)] = node

    def bind(self, node: ast.expr) -> None:
        """`node`, walked next, gives what a local name is bound to (``x = rows[0]``): the
        containers it may be, or be part of, stay with their names; the name is theirs too
        (`Val.owners`), so filling it lets them go, and changing them lets it go
        (`let_go_parts`)."""
        self.binding.add(id(node))

    def called_at_once(self, node: ast.expr) -> None:
        """`node`, walked next, is called at once: a method of what allow-listed code gave,
        read there, is not kept to fill it later (`expressions._owner`)."""
        self.calling.add(id(node))

    def called_here(self, node: ast.expr) -> bool:
        """Whether `node` is called at once (`called_at_once`), for this walk of it."""
        if id(node) in self.calling:
            self.calling.discard(id(node))
            return True
        return False

    def bound_here(self, node: ast.expr) -> bool:
        """Whether `node` is bound to a local name (`bind`), for this walk of it."""
        if id(node) in self.binding:
            self.binding.discard(id(node))
            return True
        return False

    def kept_here(self, node: ast.expr) -> bool:
        """Whether `node` was kept (`keep`), for this walk of it."""
        return self.kept.pop(id(node), None) is not None

    def let_go(self, name: str, *, inner: bool = False, filled: bool = False) -> None:
        """The container a local name holds was handed on where it may be filled out of the
        walk's sight (another function, another container, a local function): what it holds
        is no longer known (`Val.let_go`), here and in the frames it is local to — nor what
        the containers holding it (`Val.owners`) hold."""
        frame: Frame | None = self
        while frame is not None:
            held = frame.env.get(name)
            if held is not None:
                loosened = held.let_go(inner=inner, filled=filled)
                if (loosened.elem, loosened.shape, loosened.pure) != (held.elem, held.shape,
                                                                      held.pure):
                    frame.env[name] = loosened
                    self.reshaped += 1
                    self.let_go_all(held.owners - {name}, filled=filled)
                    for other in frame.aliases.get(name, frozenset()) - {name}:
                        frame.let_go(other, inner=inner, filled=filled)  # (the same one)
                    self.let_go_parts(name, filled=filled)
                return
            frame = frame.parent

    def let_go_parts(self, name: str, *, filled: bool = False,
                     but: frozenset[str] = frozenset()) -> None:
        """The container `name` holds changed: the local names bound to what it held, or to a
        view of it (``x = rows[0]``, ``v = d.values()``: their `Val.owners` name it), are let
        go too — each may be what changed, or see it (`but` those known to be it)."""
        frame: Frame | None = self
        while frame is not None:
            for other, held in list(frame.env.items()):
                if other != name and other not in but and name in held.owners:
                    self.let_go(other, filled=filled)
            frame = frame.parent

    def held_now(self) -> dict[tuple[int, str], tuple[object, object]]:
        """What each container of this frame's and of those it is in (a local function's) is
        known to hold now (`statements.looped`)."""
        held: dict[tuple[int, str], tuple[object, object]] = {}
        frame: Frame | None = self
        depth = 0
        while frame is not None:
            held.update({(depth, name): (v.elem, v.shape)
                         for name, v in frame.env.items() if v.holds_known})
            frame, depth = frame.parent, depth + 1
        return held

    def released(self, value: Val, *, surely: bool = False) -> None:
        """`value` is handed on where it may be filled out of sight: where it may be a
        container a parameter holds, the function releases that parameter
        (`Summary.releases`). `surely`: only where it is known to be a container (what a
        function gives back, often worked out of one it was given)."""
        kinds = value.types
        if kinds is None and surely:
            return
        if holder(kinds):
            # (given back surely, a new container of a parameter's items releases it only
            # where those items may be containers: ``[i for i in items if i.ok]`` does not)
            items = value.contents().item
            whole = not surely or items is None or holder(items.types)
            reached = value.reach if whole else value.origin  # (a new one: its origin is none)
            self.summary.releases.update(t[2:].rstrip("*") for t in reached if t[:2] == "p:")

    def let_go_every(self) -> None:
        """`let_go` every local name (``vars()`` gives them all, by other names)."""
        frame: Frame | None = self
        while frame is not None:
            for name in list(frame.env):
                self.let_go(name)
            frame = frame.parent

    def let_go_all(self, names: frozenset[str], *, inner: bool = True,
                   filled: bool = False) -> None:
        """What the containers of `names` hold was filled, or handed on, out of the walk's
        sight (they are `Val.owners` of it): what that holds is let go (`let_go`, `inner`,
        `filled`); not `inner`: they were."""
        for name in names:
            self.let_go(name, inner=inner, filled=filled)

    def let_go_inside(self, node: ast.AST) -> None:
        """A local function, lambda or class is made of `node`: the containers of this frame
        its code names may be filled whenever it runs (`let_go`)."""
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name):
                self.let_go(sub.id, filled=True)
                if sub.id in self.env:
                    self.released(self.env[sub.id])

    def expr(self, node: ast.expr) -> Val:
        """The value of an expression, recording what evaluating it does."""
        return expressions.evaluate(self, node)


def _but_failing(results: list[Val], of: list[type | None], attr: str) -> Val:
    """What reading `attr` gives, of each thing the value may be (`results`, each of the type
    `of` says; None: of no known type), but ``None``'s, which has none of an object's
    attributes: read of ``None`` it fails, and does nothing (``found = None``, then maybe
    ``found = Calm()``: ``found.run()`` is ``Calm.run``)."""
    if getattr(type(None), attr, _NO_ATTRIBUTE) is not _NO_ATTRIBUTE:
        return join_all(results)
    kept = [value for value, kind in zip(results, of, strict=True) if kind is not type(None)]
    return join_all(kept) if kept else Val(pure=True)


_NO_ATTRIBUTE = object()

_SQL_COLUMNS = frozenset({"c", "columns", "selected_columns", "exported_columns"})
"""A statement's (a subquery's) columns: data, not methods."""

_SCALARS = IMMUTABLE_TYPES - {tuple, frozenset}
"""Immutable types whose parts are plain values too."""

__all__ = ["EMPTY_CELL", "Frame"]


def _members_listed(obj: Any) -> bool:
    """Whether `obj` is an enum class that iterates as enum's own code does: its members, each
    an object of it (not a class whose metaclass has an ``__iter__`` of its own)."""
    return isinstance(obj, enum.EnumType) and type(obj).__iter__ is enum.EnumType.__iter__
