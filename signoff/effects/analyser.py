"""The effect analysis: what a function does, found in its code and in everything it calls.

`analyse_effects(fn, name=...)` reads the source of `fn` (`source`: each file parsed once), walks
its body (`frame`), judges each call (`calls`, SQLAlchemy's in `orm`) against the tables
(`tables`), and follows every Python function it can resolve: module functions, imported
helpers, methods of ``self`` and of annotated parameters (and of any subclass that overrides them),
constructors, third-party pure-Python code. Each function is summarised once per class of ``self``
and per argument types of its unannotated parameters, in terms of its own parameters; recursion is
iterated until its summary settles. What cannot be resolved is assumed to change anything, reach
outside, send and spend an amount not known (`UNSEEN`), with the reason kept: nothing is ever
described as safer than it is.
"""

from __future__ import annotations

import ast
import enum
import functools
import inspect
import sysconfig
import types
from dataclasses import replace
from typing import Any

from sqlalchemy import func as sql_functions

from signoff.effects import bounds, orm, pydantic_models, special
from signoff.effects.annotations import annotation_types, fits
from signoff.effects.bindings import MISSING, Bindings, held_kinds
from signoff.effects.calls import call_args, call_function, call_site, declared
from signoff.effects.effect import EffectKind, Effects, RaiseSite
from signoff.effects.frame import EMPTY_CELL, Frame
from signoff.effects.listeners import follow_listeners
from signoff.effects.naming import of_builtins, qualified_name
from signoff.effects.scope import Scope
from signoff.effects.signature import NO_DEFAULT, FunctionNode, Param, bind
from signoff.effects.source import Cache, SourceIndex, lasting, one_at_a_time
from signoff.effects.sqltext import UNREAD
from signoff.effects.summary import Raised, Summary, in_callers_terms, keep_told_first
from signoff.effects.tables import (
    IMMUTABLE_TYPES,
    LEAF_TYPES,
    LIBRARIES,
    is_data_member,
    is_pure_name,
    is_sink,
)
from signoff.effects.values import (
    CARRIED,
    GLOBAL,
    RELATIVES,
    UNKNOWN,
    UNTYPED,
    Args,
    BuiltinMethod,
    Method,
    Sql,
    Super,
    Typed,
    Unseen,
    Val,
    allowed_data,
    const,
    enum_member_data,
    fresh_of,
    inner_token,
    join,
    join_all,
    known,
    known_held,
    param_token,
    relatives,
)

__all__ = ["Analyser", "analyse_effects", "clear_caches", "find_raises", "forget_rebound",
           "forget_summaries"]

_MISSING = object()
_ROOT_TOKEN = "argument"
_MAX_SUBCLASSES = 48


Hint = tuple[tuple[str, Typed, bool, tuple[Any, ...], Sql | None], ...]
"""What the arguments of unannotated parameters are known to be: (name, what is known of its
types and what it holds, whether it is plain, the functions it is, the statement it is)."""
SummaryKey = tuple[Any, type | None, Hint]


class Analyser:
    """Caches (parsed files, summaries, type hints) and the look-ups the walk needs."""

    def __init__(self) -> None:
        self.source = SourceIndex(lasting=lambda found: lasting(found, self.app_packages))
        self.summaries: Cache[SummaryKey, Summary] = Cache(self._lasting)
        self.active: dict[SummaryKey, Summary] = {}
        self.hits: set[SummaryKey] = set()
        self.generation: dict[SummaryKey, int] = {}
        self.tentative: dict[SummaryKey, tuple[Summary, frozenset[tuple[SummaryKey, int]]]] = {}
        self.walks = 0
        self.deps: list[set[SummaryKey]] = []
        self.app_packages: set[str] = set()
        """The top-level packages of the actions analysed: the app's code, wherever it is."""

    def _lasting(self, key: SummaryKey, summary: Summary) -> bool:
        """Whether a summary, and what it is of, name library code alone (`source.lasting`):
        kept for good; else until the analysis ends (`forget_own`)."""
        return not summary.resolved and lasting(
            (key, summary.ret, tuple(summary.raises), tuple(summary.costs)), self.app_packages)

    def forget_own(self) -> None:
        """Forget, at the end of an analysis, all it found that names the app's objects."""
        self.summaries.forget_own()
        self.source.forget_own()
        self.generation.clear()
        self.tentative.clear()

    # --- attributes ------------------------------------------------------------------------

    def label(self, func: Any) -> str:
        """How a function reads in a path: ``"helpers.post_it"``."""
        module = getattr(func, "__module__", None) or ""
        qual = getattr(func, "__qualname__", None) or getattr(func, "__name__", "?")
        return f"{module.rsplit('.', 1)[-1]}.{qual}" if module else str(qual)

    def attr_of_object(self, frame: Scope, base: Val, obj: Any, attr: str) -> Val:
        """``obj.attr`` for a known object."""
        if isinstance(obj, _FUNCTIONS) and not orm.function_reads(attr):
            # ``func.archive_notes()``: a function of the database's, which may write
            for kind, _ in UNREAD:  # (it may run any code the database holds)
                frame.add(kind, "", (f"func.{attr}()",),
                          f"calls the database's function {attr}(), not known to only read")
        if isinstance(obj, _FUNCTIONS):  # called, a SQL expression (`calls.call_object`)
            return known(getattr(obj, attr))
        special.advanced(frame, known(obj), attr=attr)  # (``gen.send(x)``: it runs on)
        if inspect.ismodule(obj):
            qual = f"{base.qual or obj.__name__}.{attr}"
            value = obj.__dict__.get(attr, _MISSING)
            frame.bound(obj.__dict__, attr, MISSING if value is _MISSING else value,
                        f"{obj.__name__}.{attr}", kinds=held_kinds(value))
            getter = obj.__dict__.get("__getattr__")
            if value is _MISSING and isinstance(getter, types.FunctionType):
                return call_function(frame, getter, [const(attr)], {}, None)  # (PEP 562)
            if value is _MISSING:
                return Val(qual=qual, origin=frozenset({GLOBAL}), inner=frozenset({GLOBAL}))
            if frame.app_code and held_kinds(value) is not None:  # (a registry: `known_held`)
                return known_held(value, qual=qual)
            return known(value, qual=value.__name__ if inspect.ismodule(value) else qual)
        if isinstance(obj, type):
            if attr in RELATIVES:
                return relatives(attr)
            if attr == "__call__" and not any(attr in k.__dict__ for k in obj.__mro__):
                return base  # (``C.__call__``: its metaclass's, bound to it: ``C`` itself)
            q = f"{qualified_name(obj)}.{attr}"
            try:
                member = inspect.getattr_static(obj, attr, _MISSING)
            except Exception:  # a class whose look-up fails: unknown member
                member = _MISSING
            _bound_on_class(frame, obj, attr)
            if isinstance(member, staticmethod):
                return known(member.__func__, qual=q)
            if isinstance(member, classmethod):
                return _method(Method(func=member.__func__, self_val=base, cls=obj, qual=q))
            if isinstance(member, types.FunctionType):
                return _method(Method(func=member, self_val=None, cls=obj, qual=q))
            by_meta = special.metaclass_read(frame, base, obj, attr)
            if by_meta is not None:  # (its metaclass's property or __getattr__: code that runs)
                return by_meta
            if member is _MISSING:
                try:
                    member = getattr(obj, attr)
                except Exception:  # not there: unknown
                    return Val(qual=q, origin=frozenset({GLOBAL}))
            return known(member, qual=q)
        if orm.past_the_sql(type(obj), attr):  # (before what the column keeps on itself)
            return self.attr_of_type(frame, base, type(obj), attr)
        if not isinstance(obj, types.FunctionType | types.BuiltinFunctionType):
            try:
                own = vars(obj).get(attr, _MISSING)
            except TypeError:
                own = _MISSING
            if own is not _MISSING:
                return known(own, origin=base.reach | {GLOBAL})
        return self.attr_of_type(frame, base, type(obj), attr)

    def attr_of_type(self, frame: Scope, base: Val, cls: type, attr: str) -> Val:
        """``value.attr`` for a value of static type `cls`."""
        if cls is Unseen:  # (of no known class: what it gives is not known)
            return base.derived()
        q = f"{qualified_name(cls)}.{attr}"
        if issubclass(cls, orm.session_types()):
            return orm.session_attribute(frame, base, cls, attr, None)
        try:
            member = inspect.getattr_static(cls, attr, _MISSING)
        except Exception:  # a class whose look-up fails: unknown member
            return base.derived()
        if issubclass(cls, type) and (attr in RELATIVES or member is _MISSING):  # (a class's
            return relatives(attr) if attr in RELATIVES else replace(  # own: no known code)
                base.derived(pure=False), owners=base.owners)
        if issubclass(cls, BaseException) and attr in CARRIED:  # (what it was raised with)
            return base.derived(pure=False)
        if orm.past_the_sql(cls, attr):  # (``Tag.price.__set__(tag, 5)``, ``Tag.price.impl``)
            return frame.unknown(f"{base.qual or qualified_name(cls)}.{attr}", (
                f"reads .{attr} of a mapped column, which is the ORM's own machinery, not SQL "
                "(a record's value is changed by assigning it: `tag.price = …`)"))
        if (
            cls in IMMUTABLE_TYPES
            or of_builtins(cls)
            or is_pure_name(qualified_name(cls))
            or is_sink(q)
        ):
            if q in pydantic_models.ADAPTER_PARTS:  # (what an adapter runs models' hooks by)
                return replace(fresh_of(pydantic_models.ADAPTER_PARTS[q]), pure=True)
            if member is _MISSING or is_data_member(member):
                return allowed_data(base, cls, attr)
            return _method(BuiltinMethod(name=attr, self_val=base, qual=q))
        _bound_on_class(frame, cls, attr)
        rec = orm.record_name(base) or base.rec
        if isinstance(member, staticmethod):
            return known(member.__func__, qual=q)
        if isinstance(member, classmethod):
            return _method(Method(func=member.__func__, self_val=known(cls), cls=cls, qual=q))
        if isinstance(member, types.FunctionType) or type(member) is _CACHED:  # (a cache of
            targets = [Method(func=member, self_val=base, cls=cls, qual=q)]  # one: ``@cache``)
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
        getter = inspect.getattr_static(type(member), "__get__", None)
        if isinstance(getter, types.FunctionType) and self.is_app_code(getter):
            # a descriptor of the app's: its __get__ runs as the attribute is read
            return self.call_method(frame, getter, type(member), known(member), base, known(cls))
        if isinstance(member, _C_METHODS) and is_pure_name(qualified_name(member)):
            # a method of an allow-listed base of Python's (an app's buffer's ``write``)
            return _method(BuiltinMethod(name=attr, self_val=base, qual=qualified_name(member)))
        field = pydantic_models.field_annotation(cls, attr)
        if field is not pydantic_models.NOT_A_FIELD:
            return base.reached(annotation_types(field), rec=rec)
        if isinstance(member, enum.property | types.DynamicClassAttribute) and issubclass(cls, enum.Enum):
            return enum_member_data(base, cls, attr)
        if member is _MISSING:
            getter = inspect.getattr_static(cls, "__getattr__", None)
            if isinstance(getter, types.FunctionType):
                return self.call_method(frame, getter, cls, base, const(attr))
        hints = self.source.class_hints(cls)
        if attr in hints:
            typed = annotation_types(hints[attr])
            if orm.is_record(cls):  # a relationship's records are read as it is
                for held in (typed, typed.item):
                    for kind in (held.types or ()) if held is not None else ():
                        if orm.is_record(kind):
                            frame.add(EffectKind.READS, orm.record_named(kind),
                                      (f"{rec or cls.__name__}.{attr}",))
            return base.reached(typed, rec=rec)
        if member is not _MISSING and not hasattr(type(member), "__get__"):
            # a value kept on the class is shared by every instance: module state
            shared = known(member, origin=base.reach | {GLOBAL})
            return replace(shared, rec=rec)
        # What the class's methods set it to, or declare it as, is not all it may be (code
        # elsewhere may set it, or set it so unseen): its properties' code counts as it is
        # read (`Val.maybe`), and a method of it called by name is of no known code.
        said = self.source.set_on_self(cls, self.is_app_code).get(attr, [])
        kinds = [annotation_types(one).types for one in said]
        found = base.derived(rec=rec)
        return replace(found, maybe=frozenset().union(*(k for k in kinds if k))) if said else found

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

    def call_method(self, frame: Scope, func: Any, cls: type, base: Val, *rest: Val) -> Val:
        """Call a method found on a class with `base` as ``self``."""
        if not isinstance(func, types.FunctionType):
            return call_args(frame, known(func), Args([base, *rest], {}), None)
        return call_function(frame, func, [base, *rest], {}, None, cls=cls)

    # --- summaries -------------------------------------------------------------------------

    def node_of(self, func: Any) -> FunctionNode | None:
        """The syntax of a Python function (None when its source is not found)."""
        return self.source.node_of(func)

    def is_app_code(self, func: Any) -> bool:
        """Whether `func` is code of the app's own (not of the standard library or an installed
        package — but the app's own, installed: `is_app_file`) whose source can be read."""
        return self.is_app_file(func.__code__.co_filename, getattr(func, "__module__", "") or "") and (
            self.source.params_of(func) is not None)

    def is_app_file(self, filename: str, module: str) -> bool:
        """Whether code in `filename`, of `module`, is the app's own: outside the standard
        library and the installed packages, or in the package an action analysed is of
        (an app installed with ``pip install .`` lives among the installed packages)."""
        if not filename or filename.startswith("<"):
            return False
        return not filename.startswith(LIBRARIES) or module.partition(".")[0] in self.app_packages

    def _loosely_annotated(self, func: Any) -> frozenset[str]:
        """The parameters of `func` whose annotation says nothing of their type (``Any``): what
        a caller passes them is known as well as if they had none."""
        return frozenset(name for name, hint in self.source.hints(func).items()
                         if annotation_types(hint).types is None or _pydantics_own(hint))

    def _contradicted(self, func: Any, binding: dict[str, Val]) -> frozenset[str]:
        """The parameters of `func` whose annotation what a caller passes is known not to fit
        (a list given to ``items: str``): a helper's annotation is checked by no one, so what
        is passed is what the walk takes them to be."""
        hints = self.source.hints(func)
        return frozenset(name for name, given in binding.items()
                         if name in hints and not fits(given.types, hints[name]))

    def is_standard_library(self, func: Any) -> bool:
        """Whether `func` is code of Python's standard library."""
        return bool(func.__code__.co_filename.startswith(_STANDARD_LIBRARY))

    def hints(self, func: Any) -> dict[str, Any]:
        """The annotations of `func`'s parameters and return, resolved."""
        return self.source.hints(inspect.unwrap(func))

    def call_analysed(
        self, frame: Scope, func: Any, cls: type | None, args: Args, node: ast.AST | None
    ) -> Val:
        """Call a Python function by its summary."""
        params = self.source.params_of(func)
        if params is None:
            name = qualified_name(func)
            return frame.unknown(name or "?", f"calls {name}, whose source is not available")
        special.advanced(frame, *args.every())  # (an iterator it is handed may be advanced)
        default = (
            Val(origin=frozenset({_ROOT_TOKEN}), inner=frozenset({_ROOT_TOKEN})) if frame.root_name else None
        )
        binding = bind(params, args, default)
        loose = self._loosely_annotated(func) | self._contradicted(func, binding)
        # (what the arguments hold, at every depth, where one alone may hold a container: two
        # may be, or hold, one list, which the helper fills through one and reads through the
        # other; a later one may have let an earlier one's go)
        holding = [value for value in binding.values() if _may_hold(value)]
        hint = tuple(  # (a statement, annotated or not, is walked as the one given: its SQL)
            (p.name, binding[p.name].contents() if len(holding) <= 1 else Typed(
                types=binding[p.name].types), binding[p.name].pure, _functions(binding[p.name]),
             binding[p.name].sql)
            for i, p in enumerate(params)
            if p.name in binding
            and not (i == 0 and cls is not None)
            and (((not p.annotated or p.name in loose)
                  and (binding[p.name].types is not None or binding[p.name].pure)
                  and not binding[p.name].calls)  # (a bound method, a lambda: not by type)
                 or _functions(binding[p.name]) or binding[p.name].sql is not None)
        )
        summary = self.summarise(func, cls, hint)
        if any(key[0] is func for key in self.active):  # a call back into itself: a loop
            with frame.repeated():
                return self.apply(frame, summary, func, binding, node)
        return self.apply(frame, summary, func, binding, node)

    def apply(self, frame: Scope, summary: Summary, func: Any, binding: dict[str, Val],
              node: ast.AST | None = None) -> Val:
        """Put a callee's summary into the caller's, its parameters replaced by the arguments
        (`node`: the call, whose place tells its costs from those of other calls)."""
        prefix = (frame.root_name or self.label(func),)
        frame.summary.resolved.update(summary.resolved)
        for e in summary.effects.values():
            frame.add(e.kind, e.target, prefix + e.path, e.reason, e.at, in_words=e.in_words)
        for (tokens, target, _), path in summary.muts.items():
            origin = in_callers_terms(tokens, binding)
            if not origin:
                continue
            found = target
            if not found:
                for token in tokens:
                    bound = binding.get(token[2:].rstrip("*"))
                    if bound is not None:
                        found = orm.record_name(bound) or bound.rec
                        if found:
                            break
            frame.mutate_origin(origin, found, prefix + path)
        for r in summary.raises.values():
            frame.raises.append(replace(r, path=frame.prefix + prefix + r.path))
        released = summary.releases | {t[2:].rstrip("*") for tokens, _, _ in summary.muts
                                       for t in tokens if t[:2] == "p:"}
        for param in released:  # (the caller's containers it hands on or fills: let go)
            given = binding.get(param)
            if given is not None:
                frame.released(given)  # (and the caller's own parameters, handed on in turn)
                frame.let_go_all(given.owners, inner=False, filled=True)
        frame.summary.take_costs(summary, call_site(frame, node), looped=frame.loops > 0)
        ret = summary.ret or const(None)
        calls = ret.calls
        if any(not isinstance(c, Method | BuiltinMethod) for c in calls):
            return Val(origin=frozenset({UNKNOWN}))  # a closure made by the callee: not followed
        # (its own names for it are the callee's; it may be, or hold, what the caller gave it
        # — but a container it made, holding none whose contents are known, is its own: the
        # caller's items put in a new list, ``items[:n]``)
        made_here = not ret.origin and ret.types is not None and not ret.shares_known
        reaching = ret.origin if made_here else ret.reach
        held_by = frozenset().union(*(v.owners for k, v in binding.items() if any(
            t[2:].rstrip("*") == k for t in reaching if t[:2] == "p:")))
        scalar = ret.types is not None and ret.types <= IMMUTABLE_TYPES - {tuple, frozenset}
        return replace(ret, origin=in_callers_terms(ret.origin, binding),
                       inner=in_callers_terms(ret.inner, binding),
                       owners=frozenset() if scalar else held_by)

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
        node = self.source.node_of(func)
        params = self.source.params_of(func)
        if node is None or params is None:
            summary = Summary()
            summary.assume_unseen((), f"the source of {qualified_name(func)} is not available")
            self.summaries[key] = summary
            return summary
        provisional = Summary(params=params)
        self.deps.append(set())
        summary = provisional
        for _ in range(6):
            self.active[key] = provisional
            self.generation[key] = self.generation.get(key, 0) + 1
            self.walks += 1
            bounds.within(self.walks, self.active, self.label)  # (or stop: `TooFar`)
            summary = self.walk(func, cls, hint, node, params)
            if key not in self.hits:
                break
            self.hits.discard(key)
            if summary.shape() == provisional.shape():
                break
            provisional = summary
        else:
            summary.assume_unseen(("(recursion)",), "recursion that did not settle")
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
        node: FunctionNode,
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
                closure[name] = EMPTY_CELL
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
            filename=func.__code__.co_filename,
        )
        hints = self.source.hints(func)
        loose = self._loosely_annotated(func)
        given = {name: (kinds, pure, functions) for name, kinds, pure, functions, _ in hint}
        statements = {name: sql for name, _, _, _, sql in hint if sql is not None}
        for i, p in enumerate(params):
            origin = frozenset({param_token(p.name)})
            inner = frozenset({inner_token(p.name)})
            typed = UNTYPED
            objs: tuple[Any, ...] = ()
            pure = False
            if p.kind == "vararg":
                typed = Typed(types=frozenset({tuple}))
            elif p.kind == "kwarg":
                typed = Typed(types=frozenset({dict}))
            elif p.name in hints and not (p.name in given and (
                    p.name in loose or not fits(given[p.name][0].types, hints[p.name]))):
                typed = annotation_types(hints[p.name])
            elif i == 0 and cls is not None:
                if p.name == "cls":
                    typed, objs = Typed(types=frozenset({type(cls)})), (cls,)
                else:
                    typed = Typed(types=frozenset({cls}))
            elif p.name in given:  # (what it holds too: a list of the caller's records)
                typed, pure, objs = given[p.name]
            if p.name in given and given[p.name][2]:  # the functions it is called with
                objs = given[p.name][2]
                typed = Typed(types=frozenset(type(o) for o in objs))
            value = typed.on(Val(origin=origin, inner=inner, objs=objs, pure=pure,
                                 sql=statements.get(p.name)))
            if p.default is not NO_DEFAULT and p.default is not None and (
                    orm.is_expression(p.default) or special.advances(p.default) or (
                        p.name in hints and not fits(frozenset({type(p.default)}), hints[p.name]))):
                value = join(value, known(p.default))  # (what it is when not given, not what it
                # is said to be; SQL, whose text counts; an iterator, advanced as it is used)
            record = orm.record_name(value)
            if record:
                frame.add(EffectKind.READS, record, (f"{p.name}: {record}",))
                value = replace(value, rec=record)
            frame.env[p.name] = value
        declared(frame, func)
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
            promised = annotation_types(hints["return"])
            if promised.types is not None:
                ret = promised.on(ret)
        summary.ret = ret
        for r in frame.raises:
            keep_told_first(summary.raises, (r.exception, r.function, r.line), r)
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
        package = (getattr(inspect.unwrap(fn), "__module__", "") or "").partition(".")[0]
        if package and package != "signoff" and package not in self.app_packages:
            # Its code is the app's, wherever it is installed: what was kept of it as a library's
            # (reached before from another package's code) is found again as the app's.
            self.app_packages.add(package)
            self.summaries.keep_lasting()
            self.source.keep_lasting()
        frame = Frame(self, summary, globals_={}, closure={}, qualname=name, root_name=name)
        call_args(frame, known(fn), Args([], {}), None)
        self._boundary(summary, fn, name, checked=False)
        follow_listeners(self, summary, name)  # (what the ORM runs of the app's as it does)
        return summary, frame

    def checking(self, fn: Any, name: str) -> Summary:
        """What checking a call of `fn` as an action called `name` runs: the validators of the
        pydantic models its parameters are."""
        self.walks = 0
        self.tentative.clear()
        summary = Summary()
        self._boundary(summary, fn, name, checked=True)
        return summary

    def _boundary(self, summary: Summary, fn: Any, name: str, *, checked: bool) -> None:
        """What a call of `fn` as an action runs besides its own code: when `checked`, the
        validators of the pydantic models its parameters are (each call is checked by making
        them, before anyone decides whether it runs: `checking`); else the serializers of those
        its result is (turned into data as it is recorded, a part of its run)."""
        # (as they resolve with the names local to where the action was declared: `resolved`)
        for key, annotation in self.source.hints(inspect.unwrap(fn)).items():
            if (key == "return") is checked:
                continue
            models = pydantic_models.models_in(annotation)
            run, unfollowed = pydantic_models.hooks_run(models, serializing=key == "return")
            run += [(hook.owner or annotation, hook) for hook in pydantic_models.carried(
                annotation, serializing=key == "return")]
            for model, hook in run:
                path = f"{name} -> {self.label(hook.func)}"
                frame = Frame(self, summary, globals_={}, closure={}, qualname=name,
                              root_name=path)
                call_function(frame, hook.func, pydantic_models.hook_arguments(model, hook),
                              {}, None, cls=model if hook.receiver else None)
            for why in unfollowed:
                frame = Frame(self, summary, globals_={}, closure={}, qualname=name,
                              root_name=name)
                frame.unknown("pydantic", why)


def _bound_on_class(frame: Scope, cls: type, attr: str) -> None:
    """Keep what `attr` was bound to on each class of `cls`'s that Python looks it up on, up to
    the one that has it (a method, a value kept on the class, set on a subclass later, or on
    the class itself, is found there first): the app's classes only."""
    for klass in cls.__mro__:
        if klass.__module__ == "builtins" or not frame.app_code:
            return
        own = klass.__dict__.get(attr, MISSING)
        frame.bound(klass.__dict__, attr, own, f"{qualified_name(klass)}.{attr}", owner=klass)
        if own is not MISSING:
            return


def _pydantics_own(hint: Any) -> bool:
    """Whether `hint` names a type of pydantic's that it hands a validator or serializer (its
    handler, its info): what it is given there is known as well as if it had no annotation."""
    return (getattr(hint, "__module__", "") or "").startswith(("pydantic_core", "pydantic."))


def _functions(value: Val) -> tuple[Any, ...]:
    """The functions `value` is known to be, when it is known to be nothing else: a function
    called with them is summarised for them, so that what it does with them is seen (calling
    one known only by its type may do anything)."""
    found = tuple(value.objs)
    if not found or not all(isinstance(o, types.FunctionType | types.MethodType |
                                       functools.partial) for o in found):
        return ()
    try:  # (a bound method hashes as its object does, which may not hash)
        hash(found)
    except TypeError:
        return ()
    return found


def _may_hold(value: Val) -> bool:
    """Whether an argument may be, or hold, or reach, a container of the caller's: anything but
    text, numbers and their like (an iterator, an object of the app's, a function, may)."""
    return bool(value.owners or value.calls) or not (value.types and value.types <= LEAF_TYPES)


def _method(*targets: Method | BuiltinMethod) -> Val:
    return Val(types=frozenset(), calls=tuple(targets))


_STANDARD_LIBRARY = tuple(sorted({path for key, path in sysconfig.get_paths().items()
                                  if key in ("stdlib", "platstdlib")}))
"""Where the standard library lives (its installed packages are elsewhere, `LIBRARIES`)."""

_C_METHODS = (types.MethodDescriptorType, types.WrapperDescriptorType,
              types.BuiltinFunctionType, types.ClassMethodDescriptorType)
"""Methods of Python's own types, written in C."""

_FUNCTIONS = type(sql_functions)
_CACHED = type(functools.cache(lambda: None))
"""What ``functools.cache`` (``lru_cache``) makes of a function: called, it hashes its arguments
(``self`` too, of a method) and calls the function."""
"""What SQLAlchemy's ``func`` is (``func.lower``, ``func.schema.fn``: each a new one)."""

_ANALYSER = Analyser()

_one_at_a_time = one_at_a_time(lambda: _ANALYSER.forget_own())
"""An analysis, run while no other thread analyses; what it found of the app's forgotten after."""


def clear_caches() -> None:
    """Forget every parsed file and summary (for tests and benchmarks)."""
    global _ANALYSER
    _ANALYSER = Analyser()


@_one_at_a_time
def forget_summaries() -> None:
    """Forget every summary but keep parsed files (a benchmark's fresh start per action)."""
    _ANALYSER.summaries.clear()
    _ANALYSER.source.hints_cache.clear()


@_one_at_a_time
def forget_rebound() -> None:
    """Forget the summaries of code a name it resolved is now bound to something else in (so
    that the next analysis reads the code as it now is), and the type hints read so far."""
    summaries = _ANALYSER.summaries
    for key in [k for k, s in summaries.items() if any(not b.holds() for b in s.resolved.values())]:
        del summaries[key]
    _ANALYSER.source.hints_cache.clear()


@_one_at_a_time
def analyse_effects(fn: Any, *, name: str, localns: dict[str, Any] | None = None) -> Effects:
    """The effects of `fn`, run as an action called `name` (`localns`: the names local to
    where it was declared, which its annotations may use)."""
    if localns:
        _ANALYSER.source.resolved(fn, localns)
    try:
        summary, _ = _ANALYSER.root(fn, name)
    except Exception as exc:  # a gap in the analysis must never make an action look safe
        _ANALYSER.reset_walk()
        return bounds.stopped(name, exc)
    return Effects(effects=tuple(summary.effects.values()),
                   cost_usd=summary.cost(own=(inspect.unwrap(fn),)),  # (called at no place)
                   cost_repeats=summary.cost_repeats,
                   resolved=Bindings(summary.resolved.values()))


@_one_at_a_time
def checking_effects(fn: Any, *, name: str, localns: dict[str, Any] | None = None) -> Effects:
    """The effects of checking a call of `fn` as an action called `name` (`Analyser.checking`;
    `localns`: the names local to where it was declared, which its annotations may use)."""
    if localns:
        _ANALYSER.source.resolved(inspect.unwrap(fn), localns)
    try:
        summary = _ANALYSER.checking(fn, name)
    except Exception as exc:  # a gap in the analysis must never make a check look safe
        _ANALYSER.reset_walk()
        return bounds.stopped(name, exc)
    return Effects(effects=tuple(summary.effects.values()))


@_one_at_a_time
def find_raises(fn: Any, *, name: str, localns: dict[str, Any] | None = None) -> list[RaiseSite]:
    """What `fn` may raise, itself or through what it calls (`localns`: see `analyse_effects`)."""
    if localns:
        _ANALYSER.source.resolved(fn, localns)
    try:
        _, frame = _ANALYSER.root(fn, name)
    except Exception:  # the analysis could not follow the code: no raise site is known
        _ANALYSER.reset_walk()
        return []
    found: dict[tuple[str, str, int], Raised] = {}
    for r in frame.raises:
        keep_told_first(found, (qualified_name(r.exception), r.function, r.line), r)
    return [RaiseSite(exception=key[0], function=r.function, line=r.line, path=r.path)
            for key, r in found.items()]

