"""Walking statements: what each kind of statement does to a frame's names and to the objects
they hold (assignments, deletions, ``with``, ``try``, ``raise``, imports inside a function).

Each function takes the `Frame` walked; expressions are evaluated by the frame (`expressions`).
"""

from __future__ import annotations

import ast
import collections
import enum
import inspect
import types
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from signoff.effects import calls, decorated, orm, special, taken_whole
from signoff.effects.effect import EffectKind
from signoff.effects.expressions import dunder, iterated_by, tested, truth
from signoff.effects.naming import qualified_name
from signoff.effects.tables import IMMUTABLE_TYPES, is_pure_name
from signoff.effects.values import (
    FRESH,
    GLOBAL,
    Args,
    Inline,
    Typed,
    Val,
    const,
    fresh_of,
    grown,
    join,
    join_all,
    known,
    only_plain,
)

if TYPE_CHECKING:
    from signoff.effects.frame import Frame

__all__ = ["assign", "body"]


def body(frame: Frame, stmts: list[ast.stmt]) -> None:
    """Walk a block of statements."""
    for stmt in stmts:
        statement(frame, stmt)


def statement(frame: Frame, node: ast.stmt) -> None:
    """Walk one statement."""
    if isinstance(node, ast.Expr):
        frame.keep(node.value)
        frame.expr(node.value)
    elif isinstance(node, ast.Assign):
        aliased = _aliased(frame, node)
        if aliased:  # (``alias = items``: one container, two names, each filled as the other)
            frame.keep(node.value)
        elif _binds_local(frame, node.targets):
            frame.bind(node.value)
        value = frame.expr(node.value)
        for each in node.targets:
            assign(frame, each, value, node.value, "=")
        for other in aliased[1:]:
            frame.alias(aliased[0], other)
        if len(node.targets) > 1:  # (``a = b = []``: one container, two names)
            for target in node.targets:
                for bound in ast.walk(target):
                    if isinstance(bound, ast.Name):
                        frame.let_go(bound.id)
    elif isinstance(node, ast.AugAssign):
        aug_assign(frame, node)
    elif isinstance(node, ast.AnnAssign):
        if node.value is not None:
            if _binds_local(frame, [node.target]):
                frame.bind(node.value)
            assign(frame, node.target, frame.expr(node.value), node.value, "=")
    elif isinstance(node, ast.Return):
        if node.value is not None:  # (what the caller is given is its own from here)
            frame.keep(node.value)
        frame.returns.append(frame.expr(node.value) if node.value else const(None))
        frame.released(frame.returns[-1], surely=True)  # (a container it was given, back)
    elif isinstance(node, ast.If):
        tested(frame, node.test)
        truth(frame, node.test, frame.expr(node.test))
        body(frame, node.body)
        body(frame, node.orelse)
    elif isinstance(node, ast.While):
        def once() -> None:
            tested(frame, node.test)
            truth(frame, node.test, frame.expr(node.test))
            body(frame, node.body)
        with frame.repeated():
            looped(frame, once)
        body(frame, node.orelse)
    elif isinstance(node, ast.For | ast.AsyncFor):
        frame.keep(node.iter)
        iterated = frame.expr(node.iter)
        iterated_by(frame, node.iter, iterated)
        items = [frame.iterate(iterated)]
        def once() -> None:
            reshaped = frame.reshaped
            assign(frame, node.target, items[0], None, "=")
            body(frame, node.body)
            if frame.reshaped != reshaped:  # what it iterates may have been filled as it ran
                frame.keep(node.iter)
                items[0] = join(items[0], frame.iterate(frame.expr(node.iter)))
        with frame.repeated():
            looped(frame, once)
        body(frame, node.orelse)
    elif isinstance(node, ast.With | ast.AsyncWith):
        for with_item in node.items:
            enter_with(frame, with_item)
        body(frame, node.body)
    elif isinstance(node, ast.Try | ast.TryStar):
        try_(frame, node)
    elif isinstance(node, ast.Raise):
        raise_(frame, node)
    elif isinstance(node, ast.Delete):
        for target in node.targets:
            delete(frame, target)
    elif isinstance(node, ast.Global):
        frame.declared_global.update(node.names)
    elif isinstance(node, ast.Nonlocal):
        frame.declared_nonlocal.update(node.names)
    elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        decorators = [frame.expr(deco) for deco in node.decorator_list]
        defaults(frame, node.args)
        local = Val(types=frozenset(), calls=(Inline(node=node, frame=frame),))
        if decorators:  # each is called with it, bottom up, and may keep or call it: the
            frame.let_go_inside(node)  # name is bound to what the last gave
            local = decorated.decorated(frame, node, decorators, local)
        frame.bind_name(node.name, local)
    elif isinstance(node, ast.ClassDef):
        frame.let_go_inside(node)  # (its methods' code may fill what they name)
        decorators = [frame.expr(part) for part in node.decorator_list]
        for part in (k.value for k in node.keywords):
            frame.expr(part)
        runs = class_made(frame, node, node)
        if runs:  # (reading it, subscripting it: not followed)
            frame.unknown(f"class {node.name}", "makes a class whose metaclass or "
                          "__class_getitem__ is the app's, code that runs as it is used", node)
        frame.class_body(node)  # it runs as the class is made (and its values' __set_name__)
        for decorator, deco in zip(reversed(decorators), reversed(node.decorator_list),
                                   strict=True):  # (each called with it, bottom up)
            calls.call_args(frame, decorator, Args([Val()], {}), deco)
        made = Val()  # a class made here: calling it is not followed
        frame.bind_name(node.name, made)
        if frame.env.get(node.name) is made:  # (bound once: what it names is this class)
            frame.local_classes[node.name] = (made, node)
        if runs:  # (and so does a class made of it)
            frame.runs_as_used.add(node)
    elif isinstance(node, ast.Import | ast.ImportFrom):
        import_(frame, node)
    elif isinstance(node, ast.Assert):
        tested(frame, node.test)
        truth(frame, node.test, frame.expr(node.test))
        if node.msg is not None:  # (made when the test fails, and told as the error is)
            special.each(frame, frame.expr(node.msg), ("__str__", "__repr__"), [], node)
    elif isinstance(node, ast.Match):
        subject = frame.expr(node.subject)
        for case in node.cases:
            matched(frame, case.pattern, subject)
            for sub in ast.walk(case.pattern):
                name = getattr(sub, "name", None) or getattr(sub, "rest", None)
                if isinstance(name, str):
                    frame.bind_name(name, subject.derived())
            if case.guard is not None:
                frame.expr(case.guard)
            body(frame, case.body)
    # pass, break, continue, type aliases: nothing to do


def class_made(frame: Frame, node: ast.ClassDef, at: ast.ClassDef,
               seen: frozenset[int] = frozenset()) -> bool:
    """What making the class of the statement `node` runs of the code of the classes it is
    made of (at the statement `at`): each base's ``__init_subclass__`` and its metaclass's
    ``__prepare__``, ``__new__`` and ``__init__``, the app's followed, those of a class made in
    the function being walked (`Frame.local_classes`) walked as its own code; a base or a
    metaclass that cannot be resolved runs code not known. Whether the class runs the app's
    code as it is used (its metaclass's, or its ``__class_getitem__``), which is not followed
    (what it is bound to is of no known class)."""
    if id(node) in seen:
        return False
    seen = seen | {id(node)}
    runs = any(isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef)
               and stmt.name == "__class_getitem__" for stmt in node.body)
    metaclasses: list[type] = []
    for keyword in node.keywords:
        if keyword.arg == "metaclass":
            made_of, local = _made_of(frame, keyword.value, at, seen,
                                      ("__prepare__", "__new__", "__init__"))
            metaclasses += made_of
            runs = runs or local
    for base_node in node.bases:  # a base's __init_subclass__ runs as the class is made
        made_of, local = _made_of(frame, base_node, at, seen, ("__init_subclass__",))
        runs = runs or local
        for base in made_of:
            made = inspect.getattr_static(base, "__init_subclass__", None)
            made = getattr(made, "__func__", made)
            if isinstance(made, types.FunctionType) and frame.an.is_app_code(made):
                calls.call_function(frame, made, [known(base)], {}, at, cls=base)
            item = inspect.getattr_static(base, "__class_getitem__", None)
            item = getattr(item, "__func__", item)
            runs = runs or (isinstance(item, types.FunctionType) and frame.an.is_app_code(item))
            if type(base) is not type:
                metaclasses.append(type(base))
            if issubclass(base, enum.Enum) and node is at:
                _members_made(frame, node, base)
    for meta in dict.fromkeys(metaclasses):  # its metaclass's code makes it
        runs = runs or not special.of_library(frame, meta)
        for special_name in ("__prepare__", "__new__", "__init__"):
            member = inspect.getattr_static(meta, special_name, None)
            made = getattr(member, "__func__", member)
            if isinstance(made, types.FunctionType) and frame.an.is_app_code(made):
                given = [known(meta), const(at.name), Val(), Val()]
                calls.call_function(frame, made, given[:made.__code__.co_argcount], {}, at,
                                    cls=meta)
    return runs


def _members_made(frame: Frame, node: ast.ClassDef, base: type) -> None:
    """An enumeration made of `base` (the statement `node`) makes its members as it is made:
    each runs the ``__new__`` and ``__init__`` of the class's body, or of `base` where they are
    the app's."""
    own = {stmt.name: stmt for stmt in node.body
           if isinstance(stmt, ast.FunctionDef) and stmt.name in ("__new__", "__init__")}
    for name in ("__new__", "__init__"):
        if name in own:
            given = [Val()] * max(1, len(own[name].args.args))
            calls.call_target(frame, Inline(node=own[name], frame=frame), Args(given, {}), node)
            continue
        member = inspect.getattr_static(base, name, None)
        made = getattr(member, "__func__", member)
        if isinstance(made, types.FunctionType) and frame.an.is_app_code(made):
            calls.call_function(frame, made, [Val()] * max(1, made.__code__.co_argcount), {},
                                node, cls=base)


def _made_of(frame: Frame, part: ast.expr, at: ast.ClassDef, seen: frozenset[int],
             hooks: tuple[str, ...]) -> tuple[list[type], bool]:
    """The classes a base or metaclass `part` of a class statement is, whose code making a
    class is followed by `class_made`, and whether it is a class made in the function walked:
    of one, its `hooks` (methods its body defines) are walked, and what making it ran runs
    again; of one that cannot be resolved, code not known runs."""
    value = frame.expr(part)
    local = _local_class(frame, part)
    if local is not None:
        for stmt in local.body:
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and stmt.name in hooks:
                given = [Val(), const(at.name), Val(), Val()][:max(1, len(stmt.args.args))]
                calls.call_target(frame, Inline(node=stmt, frame=frame), Args(given, {}), part)
        class_made(frame, local, at, seen)  # (its own bases' and metaclass's, inherited)
        return [], "__new__" in hooks or local in frame.runs_as_used  # (a metaclass's: any)
    if not value.objs and not value.calls:
        frame.unknown(f"class {at.name}", "makes a class of a base or metaclass that cannot be "
                      "resolved, whose __init_subclass__ or metaclass's code runs", at)
    return [obj for obj in value.objs if isinstance(obj, type)], False


def _local_class(frame: Frame, part: ast.expr) -> ast.ClassDef | None:
    """The class statement of the function walked (or one it is made in) that the name `part`
    is still bound to the class of, if it is one."""
    here: Frame | None = frame
    while isinstance(part, ast.Name) and here is not None:
        if part.id in here.env:
            made = here.local_classes.get(part.id)
            return made[1] if made is not None and here.env[part.id] is made[0] else None
        here = here.parent
    return None


def matched(frame: Frame, pattern: ast.pattern, subject: Val) -> None:
    """What matching `subject` against a ``case`` pattern runs of the classes' own code: a
    value's ``__eq__`` (both sides), a class pattern's metaclass's ``__instancecheck__`` and the
    attributes it reads (a property, ``__getattr__``: of the subject, and of an object of that
    class, which the subject may be), a sequence's ``__len__`` and items, a mapping's ``get``
    and keys; and so on for the patterns inside."""
    inner: list[tuple[ast.pattern, Val]] = []
    if isinstance(pattern, ast.MatchValue):
        value = frame.expr(pattern.value)
        special.special(frame, subject, ("__eq__",), [value], pattern)
        special.special(frame, value, ("__eq__",), [subject], pattern)
    elif isinstance(pattern, ast.MatchSequence):
        special.each(frame, subject, ("__len__", "__getitem__", "__iter__"), [Val()], pattern)
        inner = [(p, frame.iterate(subject)) for p in pattern.patterns]
    elif isinstance(pattern, ast.MatchMapping):
        special.each(frame, subject, ("get", "keys", "__getitem__", "__iter__", "__len__"),
                     [Val()], pattern)
        inner = [(p, frame.item(subject)) for p in pattern.patterns]
    elif isinstance(pattern, ast.MatchClass):
        classes = [c for c in frame.expr(pattern.cls).objs if isinstance(c, type)]
        for cls in classes:
            special.special(frame, known(cls), ("__instancecheck__",), [subject], pattern)
        named = list(pattern.kwd_attrs)
        for cls in classes:
            held = inspect.getattr_static(cls, "__match_args__", ())  # (no code of its run)
            held = held if isinstance(held, tuple) else ()
            named += [a for a in held[:len(pattern.patterns)] if isinstance(a, str)]
        seen = [subject, *(Val(types=frozenset({cls})) for cls in classes)]
        read = {a: join_all([frame.attribute(v, a, None) for v in seen]) for a in named}
        inner = [(p, read.get(a, subject)) for p, a in zip(
            [*pattern.kwd_patterns], pattern.kwd_attrs, strict=True)]
        inner += [(p, subject.derived()) for p in pattern.patterns]
    elif isinstance(pattern, ast.MatchAs | ast.MatchOr):
        parts = pattern.patterns if isinstance(pattern, ast.MatchOr) else [
            p for p in (pattern.pattern,) if p is not None]
        inner = [(p, subject) for p in parts]
    for part, value in inner:
        matched(frame, part, value)


def _binds_local(frame: Frame, targets: list[ast.expr]) -> bool:
    """Whether `targets` are one local name (``x = …``)."""
    (target,) = targets if len(targets) == 1 else (None,)
    return (isinstance(target, ast.Name) and target.id not in frame.declared_global
            and target.id not in frame.declared_nonlocal)


def _aliased(frame: Frame, node: ast.Assign) -> tuple[str, ...]:
    """The two local names ``name = other`` binds to one container, if it is that."""
    (target,) = node.targets if len(node.targets) == 1 else (None,)
    if (isinstance(target, ast.Name) and isinstance(node.value, ast.Name)
            and node.value.id in frame.env and target.id not in frame.declared_global
            and target.id not in frame.declared_nonlocal):
        return target.id, node.value.id
    return ()


_WALKS = 4
"""How many times a loop's body is walked at most before what its containers hold is let go."""


def looped(frame: Frame, once: Callable[[], None]) -> None:
    """Walk a loop's body (`once`) until what the function's containers hold settles: twice at
    least (a name changed late in the loop is seen early), `_WALKS` times at most — then
    every container is let go (`Frame.let_go_every`: a chain of them filling each other, one
    more at each turn) and the body walked once more."""
    settled = False
    for walk in range(_WALKS):
        before = frame.held_now()
        once()
        if walk and frame.held_now() == before:
            settled = True
            break
    if not settled:
        frame.let_go_every()
        once()


def aug_assign(frame: Frame, node: ast.AugAssign) -> None:
    """``x += v``: a change of x's object when x is a name holding a mutable object."""
    frame.keep(node.value)  # (x += xs takes in what xs holds, not xs)
    value = frame.expr(node.value)
    if not value.holds_known or value.shares_known:  # (a parameter's items: maybe its caller's lists)
        frame.released(value)
    op = _OPS.get(type(node.op), "?") + "="
    target = node.target
    name = _IN_PLACE.get(type(node.op))
    given: list[Val | None] = []  # what x's and v's own methods give, when they have them
    if name is not None:  # x += v runs x's class's __iadd__, else its __add__
        frame.keep(target)
        now = frame.expr(target)
        taken_whole.grown_in_place(frame, now, node.op, value, node.value)  # (``xs += x``)
        given += [
            dunder(frame, target, now, (f"__i{name}__", f"__{name}__"), [node.value]),
            dunder(frame, node.value, value, (f"__r{name}__",), [target]),  # (x's gives up)
        ]
        if not isinstance(target, ast.Name) and not (now.types and now.types <= IMMUTABLE_TYPES):
            frame.mutate(now, f"{_text(target)} {_OPS.get(type(node.op), '?')}=")  # (``rows[0]
            frame.let_go_all(now.owners, filled=not only_plain(value))  # += xs``: a list
            frame.released(now)  # others may hold too, a caller's, grown in place)
    if isinstance(target, ast.Name):
        current = frame.name(target.id)
        if current.types is None or not current.types <= IMMUTABLE_TYPES:
            frame.mutate(current, f"{target.id} {op}")
            made = join(current.derived(), value)
            if current.types and current.types <= _GROWN_IN_PLACE:  # the same object, grown
                added = value.contents()
                item = frame.iterate(value)
                held = value.reached(added.value) if dict in current.types else None
                made = grown(replace(current, inner=current.inner | value.reach), item=item,
                             value=held)
                frame.grow(target, item=item, value=held)  # (and each other name for it)
        else:  # a new value, as ``x = x + v`` makes (a date moved on is a date)
            plain = value.pure or bool(value.types and value.types <= IMMUTABLE_TYPES)
            made = Val(types=current.types, inner=current.reach | value.reach, exact=True,
                       pure=plain)
        assign(frame, target, join_all([made, *(v for v in given if v is not None)]), None, op)
    else:
        assign(frame, target, value, None, op)


_GROWN_IN_PLACE = frozenset({list, set, dict, bytearray, collections.deque, collections.OrderedDict,
                             collections.defaultdict, collections.Counter})
"""Python's containers that ``x += v`` (``|=``…) grows in place: x stays what it was."""


def assign(frame: Frame, target: ast.expr, value: Val, source: ast.expr | None, op: str) -> None:
    """Bind or store `value` into `target`."""
    if isinstance(target, ast.Name):
        store_name(frame, target.id, value, op)
    elif isinstance(target, ast.Attribute):
        base = frame.expr(target.value)
        frame.mutate(base, f"{_text(target)} {op}")
        orm.held(frame, [value], target)  # (``self.where = text(…)``: not followed, counts)
        special.attribute_written(frame, base, target.attr, value, target)
    elif isinstance(target, ast.Subscript):
        if isinstance(target.value, ast.Name | ast.Subscript | ast.Attribute | ast.Call):
            frame.keep(target.value)  # (``(a if c else b)[0] = x``: let go, they are filled)
        base = frame.expr(target.value)
        key = frame.expr(target.slice)
        frame.mutate(base, f"{_text(target)} {op}")
        orm.held(frame, [key, value], target)  # (``d["c"] = text(…)``: not followed, counts)
        if not isinstance(target.value, ast.Name):  # (``rows[0][k] = v``: `Val.owners`)
            frame.let_go_all(base.owners, filled=not only_plain(key, value))
            frame.released(base)  # (a caller's, in a copy of its list: `Summary.releases`)
        if base.types and all(issubclass(t, dict) for t in base.types):
            frame.grow(target.value, item=key, value=value)
        elif isinstance(target.slice, ast.Slice):  # (``xs[:] = ys``: the items of ys)
            frame.grow(target.value, item=frame.iterate(value))
        elif key.types and slice not in key.types:
            frame.grow(target.value, item=value)
        elif key.types == frozenset({slice}):  # (``xs[s] = ys``, a slice named: the items of ys)
            frame.grow(target.value, item=frame.iterate(value))
        else:  # (a slice object, maybe: either)
            frame.grow(target.value, item=join(value, frame.iterate(value)))
        stored = source if source is not None else ast.Constant(value=None)
        dunder(frame, target.value, base, ("__setitem__",), [target.slice, stored])
        special.hashed(frame, key, target.slice)  # (a dict hashes it, a list takes it as a
        special.as_index(frame, key, target.slice)  # place)
    elif isinstance(target, ast.Tuple | ast.List):
        items = source.elts if isinstance(source, ast.Tuple | ast.List) else None
        if items is None:  # unpacking iterates the value: its class's __iter__ runs
            special.iterated(frame, value, target)
        starred = any(isinstance(e, ast.Starred) for e in (*target.elts, *(items or ())))
        for i, elt in enumerate(target.elts):
            if items is not None and len(items) == len(target.elts) and not starred:
                if isinstance(elt, ast.Name):  # (``part, n = g["k"], 0``: as ``part = g["k"]``)
                    frame.bind(items[i])
                part = frame.expr(items[i])
            elif (parts := value.contents().parts) is not None and len(parts) == len(target.elts):
                part = value.taken(parts[i])
            else:
                part = frame.iterate(value)
            assign(frame, elt, part, None, op)
    elif isinstance(target, ast.Starred):  # (``first, *rest = xs``: a list of the items,
        rest = fresh_of(list, inner=value.reach, shape=Typed(item=value.contents()))  # the
        assign(frame, target.value, replace(rest, owners=value.owners), None, op)  # same ones)


def store_name(frame: Frame, name: str, value: Val, op: str) -> None:
    """Bind a name, writing module or closure state when the name is declared so."""
    if name in frame.declared_global:
        frame.add(EffectKind.CHANGES, "", (f"global {name} {op}",))
        return
    if name in frame.declared_nonlocal:
        owner = frame.parent
        while owner is not None and name not in owner.env:
            owner = owner.parent
        if owner is None:
            if frame.persistent_closure or name in frame.closure:
                frame.add(EffectKind.CHANGES, "", (f"nonlocal {name} {op}",))
            return
        owner.env[name] = join(owner.env.get(name), value)
        return
    frame.bind_name(name, value)


def delete(frame: Frame, target: ast.expr) -> None:
    """``del target``."""
    if isinstance(target, ast.Name):
        if target.id in frame.declared_global:
            frame.add(EffectKind.CHANGES, "", (f"del {target.id}",))
    elif isinstance(target, ast.Attribute | ast.Subscript):
        if isinstance(target, ast.Subscript):
            frame.keep(target.value)
        base = frame.expr(target.value)
        if isinstance(target, ast.Subscript):
            key = frame.expr(target.slice)  # (hashed, or taken as a place)
            special.hashed(frame, key, target.slice)
            special.as_index(frame, key, target.slice)
            dunder(frame, target.value, base, ("__delitem__",), [target.slice])
        else:  # (its deleter, or its class's own ``__delattr__``, runs)
            special.attribute_written(frame, base, target.attr, None, target)
        frame.mutate(base, f"del {_text(target)}")
    elif isinstance(target, ast.Tuple | ast.List):
        for elt in target.elts:
            delete(frame, elt)


def enter_with(frame: Frame, item: ast.withitem) -> None:
    """``with cm as x``: runs ``cm.__enter__`` and ``cm.__exit__``."""
    frame.bind(item.context_expr)  # (what allow-listed code gave: entered here, not handed on)
    cm = frame.expr(item.context_expr)
    entered = calls.call(
        frame, frame.attribute(cm, "__enter__", item.context_expr), [], {}, item.context_expr
    )
    calls.call(frame, frame.attribute(cm, "__exit__", item.context_expr), [], {}, item.context_expr)
    if item.optional_vars is not None:  # (a buffer of Python's gives itself)
        own = bool(cm.types) and all(is_pure_name(qualified_name(t)) for t in cm.types or ())
        bound = cm if (entered.types is None and (entered.pure or own)) or cm.sql else entered
        assign(frame, item.optional_vars, join(bound, cm) if bound is not cm else cm, None, "=")


def try_(frame: Frame, node: ast.Try | ast.TryStar) -> None:
    """``try``: exceptions raised in the body and caught (not re-raised) are dropped."""
    outer = frame.raises
    frame.raises = []
    body(frame, node.body)
    inside, frame.raises = frame.raises, outer
    handlers = [(handler_types(frame, h), _reraises(h)) for h in node.handlers]
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
            caught = handler_types(frame, h)
            # (of any of the classes it catches, or of one deriving them: raised anywhere)
            frame.bind_name(h.name, Val(types=frozenset(caught), origin=frozenset({GLOBAL}),
                                        inner=frozenset({GLOBAL})) if caught else FRESH)
        body(frame, h.body)
    body(frame, node.orelse)
    body(frame, node.finalbody)


def handler_types(frame: Frame, handler: ast.ExceptHandler) -> tuple[type, ...] | None:
    """The classes an ``except`` catches: None for all; () when they cannot be resolved."""
    if handler.type is None:
        return None
    val = frame.expr(handler.type)
    found: list[type] = []
    for obj in val.objs:
        items = obj if isinstance(obj, tuple) else (obj,)
        found.extend(o for o in items if isinstance(o, type) and issubclass(o, BaseException))
    if isinstance(handler.type, ast.Tuple):
        for elt in handler.type.elts:
            found.extend(
                o for o in frame.expr(elt).objs if isinstance(o, type) and issubclass(o, BaseException)
            )
    if BaseException in found:
        return None
    return tuple(found)


def raise_(frame: Frame, node: ast.Raise) -> None:
    """``raise X(...)`` / ``raise X``: record the class when it resolves."""
    if node.cause is not None:
        frame.expr(node.cause)
    if node.exc is None:
        return
    val = frame.expr(node.exc)
    classes: list[type] = []
    func = node.exc.func if isinstance(node.exc, ast.Call) else None
    source = frame.expr(func) if func is not None else val
    for obj in source.objs:
        if isinstance(obj, type) and issubclass(obj, BaseException):
            classes.append(obj)
    if func is None and not classes and val.types:
        classes.extend(t for t in val.types if issubclass(t, BaseException) and val.exact)
    for exc in classes:
        frame.raised(exc, node.lineno, (f"raise {exc.__name__}",))
    # What it is told by (the log's traceback, a refusal's words), once raised, wherever it is
    # caught: its class's own __str__ and __repr__, and those of what it was made with.
    made_with = node.exc.args if isinstance(node.exc, ast.Call) else []
    for told in [val, *(fresh_of(c) for c in classes), *(
            frame.expr(a) for a in made_with if isinstance(a, ast.Name | ast.Attribute))]:
        special.each(frame, told, ("__str__", "__repr__"), [], node)


def import_(frame: Frame, node: ast.Import | ast.ImportFrom) -> None:
    """An import inside the function: the module (or name), from `sys.modules` only."""
    import sys

    if isinstance(node, ast.Import):
        for alias in node.names:
            _first_import(frame, alias.name, node)
            top = alias.name if alias.asname else alias.name.split(".", 1)[0]
            module = sys.modules.get(top)
            bound = alias.asname or top
            frame.bind_name(
                bound,
                known(module, qual=top)
                if module is not None
                else Val(qual=top, origin=frozenset({GLOBAL})),
            )
        return
    if node.level:
        package = frame.globals.get("__package__") or ""
        parts = package.split(".")
        base = ".".join(parts[: len(parts) - node.level + 1]) if package else ""
        modname = f"{base}.{node.module}" if node.module else base
    else:
        modname = node.module or ""
    module = sys.modules.get(modname)
    _first_import(frame, modname, node)
    for alias in node.names if module is not None else ():  # (a submodule is imported too)
        if alias.name != "*" and not hasattr(module, alias.name):
            _first_import(frame, f"{modname}.{alias.name}", node)
    mval = (
        known(module, qual=modname)
        if module is not None
        else Val(qual=modname, origin=frozenset({GLOBAL}))
    )
    for alias in node.names:
        frame.bind_name(alias.asname or alias.name, frame.attribute(mval, alias.name, None))


def _first_import(frame: Frame, name: str, node: ast.Import | ast.ImportFrom) -> None:
    """An import of a module not imported yet runs its code, which is not followed: it may do
    anything. Python's own modules are known to do nothing as they are imported but for
    `_ACTING_ON_IMPORT` (``import antigravity`` opens a web browser): an action that imports
    ``csv`` when it needs it only reads, whatever the process imported before (its effects do
    not hang on the order of imports)."""
    import sys

    top = name.split(".", 1)[0]
    if top in sys.stdlib_module_names and top not in _ACTING_ON_IMPORT:
        return
    if name not in sys.modules:
        frame.unknown(ast.unparse(node), f"imports {name}, not imported yet: its code runs as "
                      "it is first imported, and is not followed", node)


_ACTING_ON_IMPORT = frozenset({"antigravity", "this", "__hello__", "__phello__"})
"""Python's own modules that do something as they are first imported (open a browser, print)."""


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


def defaults(frame: Frame, arguments: ast.arguments) -> None:
    """A function's default values, evaluated where it is defined."""
    for value in [*arguments.defaults, *(d for d in arguments.kw_defaults if d is not None)]:
        frame.expr(value)


def _text(node: ast.AST) -> str:
    """The source text of a small expression, for a path."""
    return ast.unparse(node)


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


_IN_PLACE: dict[type, str] = {
    ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv", ast.FloorDiv: "floordiv",
    ast.Mod: "mod", ast.Pow: "pow", ast.MatMult: "matmul", ast.LShift: "lshift",
    ast.RShift: "rshift", ast.BitOr: "or", ast.BitAnd: "and", ast.BitXor: "xor",
}
"""The special methods an augmented assignment calls (``__iadd__``, else ``__add__``)."""
