"""Judging calls: sinks, the allow-list, constructors, SQLAlchemy sessions, analysed functions.

Each function here takes the `Scope` (the frame) the call happens in, records what the call does there, and
returns the value the call gives back.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import enum
import functools
import inspect
import sysconfig
import types
from dataclasses import replace
from fnmatch import fnmatchcase
from typing import Any

from sqlalchemy import func as sql_function_maker
from sqlalchemy.sql import functions as sql_functions

from signoff.effects import (
    averages,
    callbacks,
    comparing,
    containers,
    decorated,
    marks,
    orm,
    pydantic_models,
    shown_exceptions,
    special,
    taken_whole,
)
from signoff.effects.effect import EffectKind
from signoff.effects.naming import of_builtins, qualified_name
from signoff.effects.scope import Scope, call_text
from signoff.effects.tables import (
    CALLS_CODE_IT_HOLDS,
    CHANGES_GLOBAL_STATE,
    EVALUATES_TEXT,
    IMMUTABLE_TYPES,
    MUTATES_ARGUMENT,
    MUTATING_METHODS,
    OPEN_NAMES,
    PATH_OPEN_PATTERN,
    RETURN_TYPES,
    SINK_WORDS,
    STARTS_THREADS,
    TEXT_METHOD_RESULTS,
    UNKNOWABLE_BUILTINS,
    is_pure_name,
    is_sink,
    listed,
)
from signoff.effects.values import (
    EMPTY,
    UNKNOWN,
    Args,
    BuiltinMethod,
    Inline,
    Method,
    Partial,
    Target,
    Typed,
    Val,
    class_of,
    const,
    fresh_of,
    join,
    join_all,
    known,
    only_plain,
)

_C_CALLABLES = (
    types.BuiltinFunctionType,
    types.MethodDescriptorType,
    types.WrapperDescriptorType,
    types.ClassMethodDescriptorType,
    types.MethodWrapperType,
)
def evaluate_call(frame: Scope, node: ast.Call, *, used_up: bool = False) -> Val:
    """Evaluate a call expression (`used_up`: what it gives is iterated at once, `Scope.keep`)."""
    within = containers.grown_within(frame, node.func)  # (``groups[k].append(x)``)
    method = containers.kept_receiver(frame, node.func, used_up)
    frame.keep(node.func)  # (what is called is not handed on)
    if isinstance(node.func, ast.Attribute):  # (``g.append(x)``, not ``add = g.append``)
        frame.called_at_once(node.func)
    fv = frame.expr(node.func)
    elsewhere = bool(method) and isinstance(node.func, ast.Attribute) and not isinstance(
        node.func.value, ast.Name) and within is None
    if elsewhere and isinstance(node.func, ast.Attribute):
        for name in containers.named_by(node.func.value, top=True):  # (it is that container)
            frame.let_go(name)
    keeps = containers.keeps_nothing(fv, node, used_up)
    followed = not keeps and containers.followed(frame, fv)  # (`Summary.releases`)
    handed = containers.hands_items_on(frame, fv, node)
    allowed = containers.takes_plain(fv)
    namespace = any(o is vars or o is locals or o is globals for o in fv.objs)
    if namespace and not node.args:
        frame.let_go_every()  # (``vars()["xs"]``: every local, by another name)
    pos: list[Val] = []
    star: Val | None = None
    for a in node.args:
        if isinstance(a, ast.Starred):  # (what it holds is handed on, not it: `keeps_starred`)
            if containers.keeps_starred(fv, keeps):  # (a function's: its items, unnamed)
                frame.keep(a.value)
            star = join(star, frame.expr(a.value))
            taken_whole.unpacked(frame, star, a)  # (its class's own __iter__, __len__…)
        else:
            if followed or (keeps and not (handed and containers.shares(frame, a))):
                frame.keep(a)  # (not a list of lists whose lists a function is handed)
                if keeps:
                    containers.keep_reader(frame, a)
                if containers.only_reads(fv):  # (``json.dumps({"names": names})``)
                    containers.keep_displayed(frame, a)
            elif allowed:
                frame.bind(a)  # (what allow-listed code gave: `containers.given_together`)
            pos.append(frame.expr(a))
    kw: dict[str, Val] = {}
    dstar: Val | None = None
    for k in node.keywords:
        if followed or containers.keeps_keyword(fv, k.arg, keeps):
            frame.keep(k.value)
            if keeps:
                containers.keep_reader(frame, k.value)
        elif allowed:
            frame.bind(k.value)
        v = frame.expr(k.value)
        if k.arg is None:  # (unpacked: its class's own keys and __getitem__)
            dstar = join(dstar, v)
            special.each(frame, v, ("keys", "__getitem__"), [], k)
        else:
            kw[k.arg] = v
    if method in ("extend", "update"):  # (what they hold, taken in: maybe a caller's lists)
        for given in pos:
            if not given.holds_known or given.shares_known:
                frame.released(given)
    handed_in = [*pos, *kw.values(), *(v for v in (star, dstar) if v)]
    if elsewhere:  # (``rows[0].append(x)``, once what it is given is known)
        containers.filled_elsewhere(frame, fv, method, filled=not only_plain(*handed_in))
    containers.given_together(frame, fv, handed_in, node.func)
    made = call_args(frame, fv, Args(pos, kw, star, dstar), node)
    made = containers.holding_given(made, handed_in)  # (``copy.copy(g)``: of what it was given)
    if isinstance(node.func, ast.Attribute) and node.func.attr in containers.GROWING and (
            pos or kw):
        containers.grown_by(frame, node.func, pos, kw)
        if within is not None:
            containers.grow_within(frame, within, node.func, pos)
    if namespace:  # (what it holds: whatever the names hold, of no known type)
        made = pos[0].derived(pure=False) if pos else Val(origin=frozenset({UNKNOWN}),
                                                            inner=frozenset({UNKNOWN}))
    if keeps:  # (a copy holds what they held: `Val.owners`)
        receivers = [t.self_val for t in fv.calls if isinstance(t, BuiltinMethod)]
        made = containers.sharing(made, [*receivers, *pos, *kw.values(), *([star] if star else [])])
    return made


def call(frame: Scope, fv: Val, pos: list[Val], kw: dict[str, Val], node: ast.AST | None) -> Val:
    """Call `fv` with these arguments."""
    return call_args(frame, fv, Args(pos, kw), node)


def call_args(frame: Scope, fv: Val, args: Args, node: ast.AST | None) -> Val:
    """Call `fv`: each object and callable it may be, and what cannot be seen as unknown."""
    if fv.qual and _sinkish(fv.qual):
        return sink(frame, fv.qual, args, node, mode_at=1)
    results = [call_object(frame, obj, fv.qual, args, node) for obj in fv.objs]
    results += [call_target(frame, t, args, node) for t in fv.calls]
    if fv.types is None:
        if fv.pure or is_pure_name(fv.qual):
            made = pure_call(frame, fv.qual, args, node)  # (a method of what allow-listed code
            if fv.pure and fv.owners:  # gave may give one of its items: ``g.setdefault(k, [])``)
                made = replace(made, owners=made.owners | fv.owners, pure=made.pure or (
                    only_plain(*args.every())))  # (or what it was given, if that is plain)
            results.append(made)
        else:
            results.append(_unresolved(frame, node))
    else:
        if not fv.types and not fv.objs and not fv.calls:  # (nothing known of it: a function
            results.append(_unresolved(frame, node))     # a container held, say)
        for cls in fv.types if not fv.objs or fv.beyond else ():  # (and of what else it may be:
                                                                   # ``x = None``, maybe ``Loud()``)
            if issubclass(cls, type):
                what = call_text(frame, node)
                results.append(frame.unknown(what, "calls a class that cannot be resolved"))
            elif cls in CALLS_CODE_IT_HOLDS:  # which function it is is not known: its code
                results.append(_unresolved(frame, node))  # is not (its type's __call__ runs it)
            else:
                method = frame.an.attr_of_type(frame, fv, cls, "__call__")
                results.append(call_args(frame, method, args, node))
    return join_all(results)


def _unresolved(frame: Scope, node: ast.AST | None) -> Val:
    """A call of something whose code cannot be resolved: it may do anything. When it is a
    method of a value whose type is not known, say which value, so that it can be annotated."""
    what = call_text(frame, node)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        owner = ast.unparse(node.func.value)
        reason = f"the type of `{owner}` is not known; annotate it"
    else:
        reason = f"calls {what.removesuffix('()')}, whose code cannot be resolved (dynamic dispatch)"
    return frame.unknown(what, reason, node)


def _sinkish(name: str) -> bool:
    return is_sink(name) or name in OPEN_NAMES or fnmatchcase(name, PATH_OPEN_PATTERN)


def sink(frame: Scope, name: str, args: Args, node: ast.AST | None, *, mode_at: int) -> Val:
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
    words = _sink_words(name, args)
    frame.add(EffectKind.EXTERNAL, words or name, (name,), in_words=bool(words))
    return Val(pure=True)


def _sink_words(name: str, args: Args) -> str:
    """What a sink of `SINK_WORDS` reaches, in words made of its arguments; "" when it is not
    one, or when any of the arguments the words need is not known to be one string (the sink is
    then named by its code, as any other)."""
    if name not in SINK_WORDS or args.star is not None or args.dstar is not None:
        return ""
    params, words = SINK_WORDS[name]
    pos = list(args.pos)
    owner = name.rpartition(".")[0]
    if pos and pos[0].types and all(qualified_name(t) == owner for t in pos[0].types):
        pos = pos[1:]  # the object a method is bound to, passed first
    given: dict[str, str] = {}
    for index, param in enumerate(params):
        val = args.kw.get(param, pos[index] if index < len(pos) else None)
        if val is None or not _one_string(val):
            return ""
        given[param] = val.objs[0]
    return words.format(**given)


def _one_string(val: Val) -> bool:
    """Whether `val` is known to be exactly one string (a constant, a closure's or a global's)."""
    return (len(val.objs) == 1 and isinstance(val.objs[0], str) and val.exact
            and val.types == frozenset({str}) and UNKNOWN not in val.origin)


def call_object(frame: Scope, obj: Any, qual: str, args: Args, node: ast.AST | None) -> Val:
    """Call a known object: a function, class, method, partial, or callable instance."""
    core = obj
    for _ in range(32):  # follow wrappers (decorators, signoff's action objects) to the code
        if isinstance(core, type | functools.partial):
            break
        wrapped = _wrapped(core)
        if wrapped is None:
            break
        checked = getattr(core, "raw_function", None) if isinstance(core, types.FunctionType) else None
        if isinstance(checked, types.FunctionType) and "pydantic" in core.__code__.co_filename:
            _arguments_validated(frame, checked, node)  # (``@validate_call``)
        if isinstance(core, types.FunctionType) and not frame.an.is_standard_library(core):
            # A decorator of the app's or of an installed package: its function's code runs
            # (a retry loop, a log written…) and calls what it wraps, so it is walked, not
            # stepped over (one whose source cannot be read is unknown). The standard
            # library's (functools.wraps on a cache, contextlib's) only call what they wrap.
            return frame.an.call_analysed(frame, core, None, args, node)
        if type(core).__name__ == "_lru_cache_wrapper":  # a cache hashes what it is given
            decorated.hashed_arguments(frame, args, node)
        calling = _own_call(core)
        if calling is not None:  # a decorator made of a class: its __call__ runs
            return call_function(frame, calling, [known(core), *args.pos], args.kw, node,
                                 cls=type(core), args=args.prepend(known(core)))
        declared(frame, core, (frame.an.label(wrapped),), node)  # (marks add, wherever)
        dispatched = special.dispatched(core)
        if dispatched:  # (``functools.singledispatch``: the function registered for the type)
            return join_all([call_args(frame, known(f), args, node) for f in dispatched])
        core = wrapped
    q = qualified_name(core)
    if core is not obj:
        qual = ""
    for name in (qual, q):
        if name and _sinkish(name):
            return sink(frame, name, args, node, mode_at=1)
    for name in (q, qual):  # a C function reports its C module (_heapq); its path says heapq
        if name in MUTATES_ARGUMENT:
            special.runs_unnamed(frame, name, args, node)
            index = MUTATES_ARGUMENT[name]
            if len(args.pos) > index:
                frame.mutate(args.pos[index], call_text(frame, node))
            return Val(pure=True)
        if name in CHANGES_GLOBAL_STATE:
            frame.add(EffectKind.CHANGES, "", (name,))
            return Val(pure=True)
        if name in EVALUATES_TEXT:
            return frame.unknown(call_text(frame, node), f"calls {name}, which runs text as code")
        if name in STARTS_THREADS:
            return _thread_started(frame, node, core)
    by_arguments = _builtin(frame, core, args, node)
    if by_arguments is not None:
        return by_arguments
    if (sql := orm.sql_constructor(core)) is not None and (made := orm.statement(sql, args)):
        return made
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
        return call_function(frame, core.__func__, [known(owner), *args.pos], args.kw, node,
                             cls=cls, args=args.prepend(known(owner)))
    if isinstance(core, _C_CALLABLES):
        owner = getattr(core, "__self__", None)  # (``C.__call__``: a class's, called: ``C()``)
        if owner is not None and not inspect.ismodule(owner) and (
                not isinstance(owner, type) or core.__name__ == "__call__"):
            method = BuiltinMethod(name=core.__name__, self_val=known(owner), qual=q)
            return builtin_method(frame, method, args, node)
        if is_pure_name(q) or is_pure_name(qual):
            unbound = isinstance(core, types.MethodDescriptorType | types.WrapperDescriptorType)
            if unbound and core.__name__ in MUTATING_METHODS and args.pos:
                frame.mutate(args.pos[0], call_text(frame, node))
            return pure_call(frame, q, args, node)
        return frame.unknown(q or call_text(frame, node), f"calls {q}, C code outside the allow-list")
    if isinstance(core, _SQL_FUNCTIONS):  # func.sum(…): a SQL expression (func.x is judged)
        return orm.carried(fresh_of(sql_functions.Function), args.every())  # (and its SQL)
    if callable(core):
        dunder = frame.an.attr_of_type(frame, known(core), type(core), "__call__")
        return call_args(frame, dunder, args, node)
    return frame.unknown(call_text(frame, node), f"calls {q or 'an object'} that is not callable")


_SQL_FUNCTIONS = type(sql_function_maker)
"""What SQLAlchemy's ``func`` is (``func.sum``: another one, made to be called)."""

def _thread_started(frame: Scope, node: ast.AST | None, made: Any = None) -> Val:
    """A thread (or a process) started, or what starts one made (`made`, a class: an object of
    it, whose own starting is told the same way): taken to do anything."""
    frame.unknown(call_text(frame, node),
                  "starts a thread (or a process), whose code goes on where no hold sees it")
    return fresh_of(made) if isinstance(made, type) else Val(pure=True)


def declared(frame: Scope, fn: Any, path: tuple[str, ...] = (), node: ast.AST | None = None
             ) -> None:
    """``@sends`` / ``@spends`` on `fn` itself (a function, or a wrapper layer around one)."""
    if marks.declares_sends(fn):
        frame.add(EffectKind.SENDS, "", (*path, "@sends"))
    if marks.declares_spends(fn):
        frame.add(EffectKind.SPENDS, "", (*path, "@spends"))
        if _copied_from_wrapped(fn):  # counted where the function it wraps is called
            return
        cost = marks.declared_cost(fn)
        if cost is None:
            frame.summary.cost_unknown = True
        else:  # by the function's code: its wrappers and itself declare one cost a call
            frame.summary.costs[(*call_site(frame, node), inspect.unwrap(fn))] = cost
            frame.summary.cost_repeats |= frame.loops > 0


def _copied_from_wrapped(fn: Any) -> bool:
    """Whether the ``@spends`` on `fn` is that of the function it wraps, copied onto it with the
    rest of its attributes (``functools.wraps`` does so)."""
    inner = fn.__dict__.get("__wrapped__") if isinstance(fn, types.FunctionType) else None
    return inner is not None and marks.declares_spends(inner) and (
        marks.declared_cost(inner) == marks.declared_cost(fn))


def call_site(frame: Scope, node: ast.AST | None) -> tuple[tuple[str, int, int], ...]:
    """Where a call is, as the key of what it costs begins (nothing for a function's own
    declaration, or a call with no place), after the places the local function or lambda it is
    in is called from (`Scope.sites`): each place a spending function is called from counts its
    cost once more; the same place walked twice (a loop's body is) counts once."""
    line = getattr(node, "lineno", None)
    if line is None:
        return frame.sites
    return (*frame.sites, (frame.qualname, line, getattr(node, "col_offset", 0)))


def call_target(frame: Scope, target: Target, args: Args, node: ast.AST | None) -> Val:
    """Call a callable the analysis built: a lambda or local function, a bound method…"""
    if isinstance(target, Inline):  # (walked where it is called: what it fills is seen then)
        return frame.call_inline(target, args, node)
    if isinstance(target, Method):
        full = args.prepend(target.self_val) if target.self_val is not None else args
        return call_function(
            frame, target.func, full.pos, full.kw, node, cls=target.cls, qual=target.qual, args=full
        )
    if isinstance(target, BuiltinMethod):
        return builtin_method(frame, target, args, node)
    if isinstance(target, Partial):
        merged = Args([*target.args, *args.pos], {**dict(target.kw), **args.kw}, args.star,
                      args.dstar)
        return call_args(frame, target.fn, merged, node)
    what = call_text(frame, node)
    return frame.unknown(what, "calls super() itself")


def call_function(
    frame: Scope,
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
        if name in STARTS_THREADS:
            return _thread_started(frame, node)
    if q.startswith(("collections.abc.", "_collections_abc.")) and full.pos:
        special.mixin_runs(frame, func, full.pos[0], node)
    if q in pydantic_models.DUMPS or q in pydantic_models.VALIDATES:
        return _models_own(frame, q, cls, full, node)
    if is_pure_name(q):
        return pure_call(frame, q, full, node)
    return frame.an.call_analysed(frame, func, cls, full, node)


def _arguments_validated(frame: Scope, fn: Any, node: ast.AST | None) -> None:
    """What pydantic's ``@validate_call`` runs of the app's code as it validates a call of `fn`
    (and what it gives back): the hooks of the models, and the validators the annotations
    carry, of its parameters and return."""
    for annotation in frame.an.hints(fn).values():
        pydantic_hooks(frame, pydantic_models.models_in(annotation), serializing=False, node=node)
        for hook in pydantic_models.carried(annotation, serializing=False):
            owner = hook.owner or annotation
            call_function(frame, hook.func, pydantic_models.hook_arguments(owner, hook), {}, node,
                          cls=owner if hook.receiver else None)


def pydantic_hooks(frame: Scope, models: list[type], *, serializing: bool, node: ast.AST | None,
                   given: frozenset[str] = EMPTY, every: bool = False) -> None:
    """What pydantic runs of the app's code as it validates a value into each of `models` (or,
    `serializing`, turns one into data): the hooks of each and of the models their fields hold
    (`pydantic_models.hooks`); serializing one whose fields may hold a model they do not name
    (``Any``), or given `every`, those of every model of the app's; a type of the app's that
    tells pydantic its own schema is code not followed. (`given`: where the data validated
    comes from, what a validator is handed.)"""
    run, unfollowed = pydantic_models.hooks_run(models, serializing=serializing, every=every,
                                                near=frame.globals.get("__name__", "") or "")
    for why in unfollowed:
        frame.unknown(call_text(frame, node) if node is not None else "pydantic", why)
    for model, hook in run:
        handed = pydantic_models.hook_arguments(model, hook)
        if given and not serializing:
            handed = [replace(v, origin=v.origin | given, inner=v.inner | given)
                      if i == int(hook.receiver) else v for i, v in enumerate(handed)]
        call_function(frame, hook.func, handed, {}, node, cls=model if hook.receiver else None)


def _models_own(frame: Scope, q: str, cls: type | None, args: Args, node: ast.AST | None) -> Val:
    """A pydantic model's own method that runs the app's code in it (`cls`: the model): made
    from data (``model_validate``), its validators run, as when it is made by its class; turned
    into data (``model_dump``), the serializers of it and of the models its fields hold, and
    what it gives is new data."""
    owners = [cls] if cls is not None else list(args.pos[0].types or ()) if args.pos else []
    models = [m for m in owners if isinstance(m, type) and pydantic_models.is_model(m)]
    if not models:
        return frame.unknown(call_text(frame, node), f"calls {q} of a model that is not known")
    if q in pydantic_models.VALIDATES:
        return join_all([construct(frame, m, Args(args.pos[1:], {}), node) for m in models])
    as_any = args.kw.get("serialize_as_any")  # (each value by the model it is: any of them)
    pydantic_hooks(frame, models, serializing=True, node=node,
                   every=as_any is not None and not (as_any.objs and not any(as_any.objs)))
    given = pydantic_models.DUMPS[q]
    return fresh_of(dict) if given is dict else Val(types=frozenset({given}), pure=True)


def pure_call(frame: Scope, q: str, args: Args, node: ast.AST | None) -> Val:
    """A call of allow-listed code: only the callbacks it is handed are followed."""
    if q in pydantic_models.ADAPTS:  # (a type adapter's, pydantic-core's, however reached:
        serializing = pydantic_models.ADAPTS[q] is not None  # which type it was made for is
        pydantic_hooks(frame, [] if serializing else pydantic_models.every_app_model(  # not
                           frame.globals.get("__name__", "") or ""),  # followed: any model's)
                       serializing=serializing, node=node, every=True)
        gives = pydantic_models.ADAPTS[q]
        return Val(types=frozenset({gives}), pure=True) if gives in (str, bytes) else Val(
            pure=serializing)
    if q == "functools.partial" and args.pos:  # followed where it is called, as often
        reach = args.reach()
        return Val(types=frozenset({functools.partial}), origin=reach, inner=reach,
                   calls=(Partial(fn=args.pos[0], args=tuple(args.pos[1:]),
                                  kw=tuple(args.kw.items())),))
    if listed(CHANGES_GLOBAL_STATE, q):  # (``handler.setFormatter``: a Handler's, inherited)
        frame.add(EffectKind.CHANGES, "", (q,))
    if listed(EVALUATES_TEXT, q):  # (a method: ``ForwardRef(text)._evaluate(…)``)
        return frame.unknown(call_text(frame, node), f"calls {q}, which runs text as code")
    if q in ("operator.attrgetter", "operator.itemgetter") and args.pos:
        return special.getter(frame, q, args, node)
    if q in ("itertools.chain", "itertools.chain.from_iterable"):  # what it goes through
        items = [special.iterated(frame, a, node) for a in args.pos]  # (their own __iter__)
        if q.endswith("from_iterable"):
            items = [special.iterated(frame, item, node) for item in items]
        return fresh_of(list, inner=args.reach(), shape=Typed(item=join_all(items).contents()))
    if q == "sqlalchemy.orm._orm_constructors.aliased" and args.pos:
        return args.pos[0]  # (another name for the entity: its columns are the entity's)
    given = special.runs_unnamed(frame, q, args, node)
    if q.startswith("statistics."):  # (what it runs of the numbers' classes, as CPython does)
        averages.averaged(frame, q, args, node)
    made = special.fields_copied(frame, q, args) or callbacks.pure_result(frame, q, args, node)
    made = orm.carried(made, args.every())  # (``and_(text(…))``: the SQL text goes on in it)
    orm.held(frame, () if q.startswith("sqlalchemy.") else args.every(), node)  # (``dict(c=text(…))``)
    return made if given is None else special.shown(made, given)


def _builtin(frame: Scope, core: Any, args: Args, node: ast.AST | None) -> Val | None:
    """The builtins the analysis reads by their arguments."""
    if not isinstance(core, types.BuiltinFunctionType) and core is not builtins.super:
        return None
    if getattr(core, "__self__", None) is not builtins:
        return None
    name = core.__name__
    if name in UNKNOWABLE_BUILTINS:
        return frame.unknown(call_text(frame, node), f"calls {name}(), whose effect cannot be known")
    if name == "getattr" and len(args.pos) >= 2:
        attr = args.pos[1].objs[0] if len(args.pos[1].objs) == 1 else None
        if not isinstance(attr, str):
            return frame.unknown(call_text(frame, node), "getattr with a computed name")
        found = frame.attribute(args.pos[0], attr, None)
        return join(found, args.pos[2]) if len(args.pos) > 2 else found
    if name in ("setattr", "delattr") and args.pos:
        frame.mutate(args.pos[0], call_text(frame, node))
        named = args.pos[1].objs[0] if len(args.pos) > 1 and len(args.pos[1].objs) == 1 else None
        special.attribute_written(  # (its setter, deleter, own ``__setattr__`` run)
            frame, args.pos[0], named if isinstance(named, str) else None,
            (args.pos[2] if len(args.pos) > 2 else Val()) if name == "setattr" else None, node)
        return const(None)
    if name == "hasattr" and len(args.pos) >= 2:  # (it reads the attribute: as getattr does)
        attr = args.pos[1].objs[0] if len(args.pos[1].objs) == 1 else None
        if not isinstance(attr, str):
            return frame.unknown(call_text(frame, node), "hasattr with a computed name")
        frame.attribute(args.pos[0], attr, None)
        return fresh_of(bool)
    if name == "super":
        return frame.super_(node)
    if name == "globals":
        return Val(origin=frozenset({"global"}), inner=frozenset({"global"}), types=frozenset({dict}))
    if name == "iter" and len(args.pos) > 1:  # iter(callable, sentinel): called once an item
        with frame.repeated():
            made = call_args(frame, args.pos[0], Args([], {}), node)
        return fresh_of(type(iter(int, 0)), inner=made.reach)
    if name in ("vars", "iter", "next", "reversed") and args.pos:
        first = args.pos[0]
        special.runs_unnamed(frame, f"builtins.{name}", args, node)
        if name == "next":
            return join(frame.iterate(first), args.pos[1]) if len(args.pos) > 1 else frame.iterate(first)
        if name == "vars":
            return first.derived(types=frozenset({dict}))
        # (an iterator of its items: a container among them is the one it holds, `Val.owners`)
        return replace(Typed(item=first.contents().item).on(first.derived()), owners=first.owners)
    return None


def construct(frame: Scope, cls: type, args: Args, node: ast.AST | None) -> Val:
    """Making an object: a record is created; its ``__new__`` / ``__init__`` are followed, and
    the ``__del__`` that runs when it goes (at some point: garbage is collected when it is), and
    a metaclass's own ``__call__``, which makes it."""
    if issubclass(cls, type) and len(args.pos) == 3:  # type(name, bases, namespace)
        return frame.unknown(call_text(frame, node), "makes a class, which runs its bases' "
                             "__init_subclass__ and its metaclass's code, not followed here")
    if cls is type and len(args.pos) == 1 and not args.kw:  # type(x): the class x is of
        return class_of(args.pos[0], lambda kind: not special.of_library(frame, kind))
    made = fresh_of(cls, inner=args.reach())
    if special.defines(cls, "__del__"):
        special.special(frame, made, ("__del__",), [], node)
    if special.defines(type(cls), "__call__"):
        called = special.special(frame, known(cls), ("__call__",), list(args.pos), node)
        return join(made, called) if called is not None else made
    if orm.is_record(cls):
        frame.add(EffectKind.CREATES, orm.record_named(cls), (f"{cls.__name__}(...)",))
        for init in orm.user_inits(cls):
            call_function(frame, init, [made, *args.pos], args.kw, node, cls=cls)
        return replace(made, rec=orm.record_named(cls))
    if issubclass(cls, orm.session_types()):  # opening a session or connection does nothing yet
        return made
    for base in cls.__mro__[1:]:  # a subclass of a sink (a logging.FileHandler of the app's)
        named = qualified_name(base)
        if named and _sinkish(named):
            return sink(frame, named, args, node, mode_at=1)
    q = qualified_name(cls)
    if is_pure_name(q) or (issubclass(cls, BaseException) and of_builtins(cls)):
        result = pure_call(frame, q, args, node)
        if result.calls:  # a partial: followed where it is called
            return result
        made = containers.made_iterable(frame, cls, args, fresh_of(cls, inner=result.reach))
        if cls is map and result.shape is not None:  # (its items: what its function gave)
            made = replace(made, shape=result.shape)
        made = shown_exceptions.holding(frame, made, cls, args)  # (``ValueError(x)``: x, shown by it)
        return special.shown(made, result) if cls is str else made
    orm.held(frame, args.every(), node)  # (``Parts(where=text(…))``: what it holds is not followed)
    if pydantic_models.is_model(cls):
        pydantic_hooks(frame, [cls], serializing=False, node=node, given=args.reach())
        return made
    if issubclass(cls, enum.Enum):  # a member looked up by value: one not found, its _missing_
        missing = getattr(inspect.getattr_static(cls, "_missing_", None), "__func__", None)
        if isinstance(missing, types.FunctionType) and frame.an.is_app_code(missing):
            call_function(frame, missing, [known(cls), *args.pos[:1]], {}, node, cls=cls)
        return replace(made, inner=EMPTY)  # (one of its members)
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
            named = qualified_name(method)
            if is_pure_name(named):  # (what it is given is its own: the class, or the object
                pure_call(frame, named, args, node)  # made, is no callback of the app's)
                continue
            first = known(cls) if method_name == "__new__" else made
            gave = call_function(frame, method, [first, *args.pos], args.kw, node, cls=cls)
            if method_name == "__new__":  # (what it gives may be of another class: its own;
                made = replace(made, exact=False)  # of no known one, ``super().__new__(cls)``,
                made = join(made, gave) if gave.types else made  # the class made)
            continue
        owner_q = qualified_name(method)
        if _sinkish(owner_q) or _sinkish(q):
            sink(frame, owner_q, args, node, mode_at=1)
        elif not is_pure_name(owner_q):
            frame.unknown(
                call_text(frame, node), f"makes {q}, whose {method_name} is C code outside the allow-list"
            )
    if dataclasses.is_dataclass(cls):  # (its fields' default factories, its __post_init__)
        special.dataclass_made(frame, cls, made, node)
    return shown_exceptions.holding(frame, made, cls, args)  # (an exception: what it shows)


_CALLED_AS_THEMSELVES = (types.FunctionType, types.MethodType, type, functools.partial)


def builtin_method(frame: Scope, method: BuiltinMethod, args: Args, node: ast.AST | None) -> Val:
    """A method of a builtin, allow-listed, sink, session or statement type."""
    base = method.self_val
    if base.sql is not None:
        return orm.sql_method(frame, method, args, node)
    if base.types and orm.is_session_types(base.types):
        return orm.session_method(frame, method, args, node)
    if method.qual and _sinkish(method.qual):
        return sink(frame, method.qual, args, node, mode_at=0)
    if method.name == "__call__" and base.objs and not base.beyond and all(  # (``f.__call__(x)``
            isinstance(o, _CALLED_AS_THEMSELVES) for o in base.objs):  # is ``f(x)``)
        return call_args(frame, base, args, node)
    trusted = base.pure or is_pure_name(method.qual) or bool(base.types and all(
        of_builtins(c) or is_pure_name(qualified_name(c)) for c in base.types))
    if not trusted:
        return frame.unknown(
            call_text(frame, node), f"calls {method.qual or method.name}, C code outside the allow-list"
        )
    if method.qual.startswith("sqlalchemy."):  # SQL expressions are generative: never changed
        orm.schema_changed(frame, method.qual)  # (though ``metadata.create_all(bind)`` runs DDL)
        return orm.table_statement(method) or orm.carried(  # (``col.in_(text(…))``: the text
            Val(pure=True, types=base.types), [base, *args.every()])  # goes on in it)
    if method.name in MUTATING_METHODS:
        frame.mutate(base, call_text(frame, node))
    comparing.compared_by(frame, method.name, base, args, node)  # (items compared, keys hashed)
    given = pure_call(frame, method.qual, args, node)
    if method.name in ("format", "format_map") and base.types and base.types <= {str}:
        special.format_fields(frame, base.objs, args, node, mapped=method.name == "format_map")
    if method.qual in RETURN_TYPES:
        return replace(fresh_of(RETURN_TYPES[method.qual]), pure=True)
    if method.name == "copy":  # (a shallow copy: the same items, held by those holding them)
        copied = (fresh_of(next(iter(base.types)), inner=base.reach)
                  if base.types and len(base.types) == 1 else Val(inner=base.reach))
        made = base.contents().on(copied) if copied.types and base.holds_known else copied
        return containers.sharing(made, [base])
    if base.types and base.types <= IMMUTABLE_TYPES:
        made = _text_result(base.types, method.name)
        return special.shown(made, given) if method.name in ("format", "format_map") else made
    return containers.method_result(base, method.name, args)


def _text_result(kinds: frozenset[type], name: str) -> Val:
    """What a method of an immutable value gives: a plain value, typed when it is text's."""
    if not kinds <= {str} and not kinds <= {bytes}:
        return Val(pure=True)
    text = next(iter(kinds))
    if name in ("split", "rsplit", "splitlines"):
        return replace(fresh_of(list, shape=Typed(item=Typed(types=kinds))), pure=True)
    if name in ("partition", "rpartition"):
        return replace(fresh_of(tuple, shape=Typed(item=Typed(types=kinds))), pure=True)
    if name in ("encode", "decode"):
        return Val(types=frozenset({bytes if name == "encode" else str}), pure=True)
    return Val(types=frozenset({TEXT_METHOD_RESULTS.get(name, text)}), pure=True)


def _own_call(obj: Any) -> Any:
    """The ``__call__`` written in Python of a wrapper object's class, unless it is signoff's
    own (its action objects) or the standard library's: code that runs when it is called."""
    calling = inspect.getattr_static(type(obj), "__call__", None)
    if not isinstance(calling, types.FunctionType):
        return None
    module = getattr(calling, "__module__", "") or ""
    if module.startswith("signoff.") or calling.__code__.co_filename.startswith(
            tuple(sysconfig.get_paths()[key] for key in ("stdlib", "platstdlib"))):
        return None
    return calling


def _wrapped(obj: Any) -> Any:
    """What a wrapper (a decorator's function, one of signoff's action objects) wraps, if it says."""
    try:
        if isinstance(obj, types.FunctionType):
            return obj.__dict__.get("__wrapped__")
        return inspect.getattr_static(obj, "__wrapped__", None)
    except Exception:  # an object whose attribute look-up fails is not followed
        return None
