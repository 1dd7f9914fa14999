"""What the analysis knows of SQLAlchemy: app records, sessions and connections, statements.

A record class (a subclass of signoff's ``RecordBase`` with a table) is what read, create, change
and delete effects are about. Statements (``select``, ``insert``, ``update``, ``delete``,
``text``, and a ``Table``'s own) are followed from where they are built to where a session or
connection runs them; a session's methods are judged by what they do to records.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import types
import weakref
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

import sqlalchemy
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.orm import Mapper, Session, scoped_session
from sqlalchemy.sql import dml as sql_dml
from sqlalchemy.sql import elements as sql_elements
from sqlalchemy.sql import functions as sql_functions
from sqlalchemy.sql import selectable as sql_selectable

from signoff.effects.effect import EffectKind
from signoff.effects.naming import qualified_name
from signoff.effects.scope import Scope, call_text
from signoff.effects.sqltext import READING_FUNCTIONS, UNREAD, sql_effects
from signoff.effects.values import DB, Args, BuiltinMethod, Sql, Typed, Val, const, fresh_of
from signoff.security.records import RecordBase

__all__ = [
    "carried",
    "connection_types",
    "function_reads",
    "is_expression",
    "is_record",
    "is_session_types",
    "mapping_does",
    "object_does",
    "past_the_sql",
    "record_name",
    "record_named",
    "record_targets",
    "records_of",
    "rows_of",
    "run_sql",
    "session_attribute",
    "session_method",
    "session_types",
    "sql_constructor",
    "sql_method",
    "statement",
    "table_record",
    "table_statement",
    "user_inits",
]

_SESSIONS: tuple[type, ...] = (Session, scoped_session, Connection, Engine)
_HAS_CONNECTION_METHOD: tuple[type, ...] = (Session, scoped_session)
"""Classes whose ``connection`` is a method returning a SQLAlchemy ``Connection`` (not the driver's)."""
_STATEMENTS = {id(getattr(sqlalchemy, n)): n for n in ("select", "insert", "update", "delete", "text",
                                                       "literal_column", "column")}
_STATEMENTS[id(sql_functions.Function)] = "function"
_STATEMENTS[id(sql_functions.next_value)] = "next_value"

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


def statement(kind: str, args: Args) -> Val | None:
    """``select(T)``, ``insert(T)``, ``update(T)``, ``delete(T)``, ``text("...")``, and the
    other ways SQL is written out (`_written`); None for a plain ``column("name")``."""
    if kind in ("column", "function", "next_value"):
        return _written(kind, args)
    if kind in ("text", "literal_column"):
        sql = args.pos[0] if args.pos else args.kw.get("text")
        literal = sql.objs[0] if sql is not None and len(sql.objs) == 1 else None
        if not isinstance(literal, str):
            return Val(sql=Sql(effects=UNREAD if kind == "text" else (), within=UNREAD,
                               reason="SQL text not known"), pure=True, types=frozenset())
        within = tuple((k, table_record(t)) for k, t in sql_effects(f"SELECT {literal}")
                       if (k, t) != (EffectKind.READS, ""))  # (what it does as a part)
        found = tuple((k, table_record(t)) for k, t in sql_effects(literal)) if kind == "text" else ()
        unread = (EffectKind.EXTERNAL, "") in found + within  # (`UNREAD`: assumed, said why)
        return Val(sql=Sql(effects=found, within=within, reason=_UNREAD_WHY if unread else ""),
                   pure=True, types=frozenset())
    effect = {
        "select": EffectKind.READS,
        "insert": EffectKind.CREATES,
        "update": EffectKind.CHANGES,
        "delete": EffectKind.DELETES,
    }[kind]
    row: type | None = None
    target = ""
    entities: list[type] = []  # (each record class selected whole, in order)
    read: list[str] = []  # (each record class a selected column is of, beyond the first)
    for value in args.pos:
        for obj in value.objs:
            record = obj if is_record(obj) else getattr(obj, "class_", None)
            if record is not None and is_record(record):
                row = row or (obj if record is obj else None)
                target = target or record_named(record)
                read.append(record_named(record))
                if record is obj:
                    entities.append(obj)
    reason = "" if target else "a statement on a table the analysis cannot name"
    if effect is EffectKind.READS and not target:
        reason = ""
    done: list[tuple[EffectKind, str]] = [(effect, target), *_parts_do(args)]
    if effect is EffectKind.READS:
        done += [(effect, name) for name in dict.fromkeys(read) if name != target]
        done += [did for value in args.pos for obj in value.objs  # (a class mapped apart from
                 if isinstance(obj, type) and not is_record(obj)  # the records, whose mapping
                 for _, did in mapping_does(obj)]  # counts as they are used: `listeners`)
    parts = tuple(entities) if effect is EffectKind.READS and len(entities) > 1 else ()
    return Val(sql=Sql(effects=tuple(done), row=None if parts else row, parts=parts,
                       reason=reason, within=_as_part(done)), pure=True, types=frozenset())


def _written(kind: str, args: Args) -> Val | None:
    """``column(t, is_literal=True)`` (as ``literal_column(t)``); ``Function(name, …)``, a
    function of the database's called by name, which may write unless known to only read
    (`sqltext.READING_FUNCTIONS`); ``next_value(sequence)``, which advances it."""
    if kind == "column":
        literal = args.kw.get("is_literal") or (args.pos[2] if len(args.pos) > 2 else None)
        if literal is None or (len(literal.objs) == 1 and literal.objs[0] is False):
            return None
        return statement("literal_column", Args(args.pos[:1], {
            k: v for k, v in args.kw.items() if k == "text"}))
    name = (args.pos[0] if args.pos else args.kw.get("name")) if kind == "function" else None
    called = name.objs[0] if name is not None and len(name.objs) == 1 else None
    reads = isinstance(called, str) and called.lower() in READING_FUNCTIONS and (
        "packagenames" not in args.kw)
    done = tuple(dict.fromkeys(((EffectKind.CHANGES, ""),) if kind == "next_value" else (
        () if reads else UNREAD) + parts_do(args.every())))
    return Val(sql=Sql(effects=done, within=done, reason=_UNREAD_WHY if (
        EffectKind.EXTERNAL, "") in done else ""), pure=True, types=frozenset())


def _as_part(done: Iterable[tuple[EffectKind, str]]) -> tuple[tuple[EffectKind, str], ...]:
    """What a statement that does `done` does as a part of another (a subquery; a CTE, which
    may write): the same, but reading no table named."""
    return tuple(e for e in done if e != (EffectKind.READS, ""))


def table_statement(method: BuiltinMethod) -> Val | None:
    """``table.insert()`` and the like on a SQLAlchemy ``Table``; ``sequence.next_value()``,
    which advances the sequence."""
    if method.name == "next_value" and method.qual.startswith("sqlalchemy.sql.schema.Sequence."):
        return _written("next_value", Args([], {}))
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
    target = table_record(table) if table else ""
    return Val(sql=Sql(effects=((kind, target),), within=_as_part(((kind, target),))),
               pure=True, types=frozenset())


_SCHEMA_CHANGES = ("create_all", "drop_all", "create", "drop")
"""Methods of SQLAlchemy's schema objects (a ``MetaData``, a ``Table``, an ``Index``, a
``Sequence``, an ``Enum``) that run DDL on the database they are given."""


def schema_changed(frame: Scope, q: str) -> None:
    """``Base.metadata.create_all(bind)``, ``Order.__table__.drop(bind)``: the database's
    schema changed, by the allow-listed method `q` of a schema object."""
    module, _, name = q.rpartition(".")
    if name in _SCHEMA_CHANGES and module.startswith(("sqlalchemy.sql.schema.",
                                                      "sqlalchemy.sql.sqltypes.")):
        frame.add(EffectKind.CHANGES, "", (f"{q}()",), "runs DDL: changes the database's schema")


def run_sql(frame: Scope, stmt: Val | None, what: str) -> Sql:
    """What running a statement does; unknown text is assumed to change anything."""
    if stmt is not None and stmt.sql is not None:
        done = stmt.sql.effects or stmt.sql.within  # (``union(a, b)``: what its parts do)
        for kind, target in done:
            frame.add(kind, target, (what,), stmt.sql.reason)
        return Sql(effects=done, row=stmt.sql.row, parts=stmt.sql.parts, result=True)
    literal = stmt.objs[0] if stmt is not None and len(stmt.objs) == 1 else None
    if isinstance(literal, str):
        found = sql_effects(literal)
        unread = _UNREAD_WHY if (EffectKind.EXTERNAL, "") in found else ""
        for kind, table in found:
            frame.add(kind, table_record(table), (what,), unread)
        return Sql(result=True)
    for kind, table in UNREAD:
        frame.add(kind, table, (what,), "runs SQL the analysis cannot see")
    return Sql(result=True)


_UNREAD_WHY = "runs SQL the analysis cannot read"
"""Why what SQL it cannot read does is assumed (`sqltext.UNREAD`)."""


def sql_method(frame: Scope, method: BuiltinMethod, args: Args, node: ast.AST | None) -> Val:
    """A method of a statement, an ORM query, or a result."""
    base = method.self_val
    sql = base.sql
    assert sql is not None
    name = method.name
    target = sql.effects[0][1] if sql.effects else ""
    if sql.query and name == "update":
        frame.add(EffectKind.CHANGES, target, (call_text(frame, node),))
        return fresh_of(int)
    if sql.query and name == "delete":
        frame.add(EffectKind.DELETES, target, (call_text(frame, node),))
        return fresh_of(int)
    if name == "from_statement":  # what runs is the statement given, whatever it does
        given = args.pos[0] if args.pos else None
        if given is not None and given.sql is not None:
            return given
        return frame.unknown(call_text(frame, node), "runs a statement the analysis cannot read",
                             node)
    if sql.result or sql.query:
        if name in _ROW_METHODS:
            return rows_of(sql)
        if name in _ROWS_METHODS:
            if name == "scalars" and sql.parts:  # (the first's)
                sql = replace(sql, row=sql.parts[0], parts=())
            return Val(
                sql=replace(sql, result=True),
                origin=frozenset({DB}),
                inner=frozenset({DB}),
                pure=True,
                types=frozenset(),
            )
        if sql.query and not sql.result:  # building the query: .filter(), .order_by() … (its
            return _with_parts(base, args)  # .update() or .delete() after is a write)
        return Val(pure=True, origin=frozenset({DB}), inner=frozenset({DB}))
    if name in _WRITTEN_OUT:  # (``.suffix_with(", f()")``: the words given are SQL written out)
        args = Args([statement("literal_column", Args([a], {})) or a if str in (a.types or ())
                     else a for a in args.pos], args.kw)
    return _with_parts(base, args)  # building a statement: .where(), .values(), .order_by() …


_WRITTEN_OUT = frozenset({"prefix_with", "suffix_with", "with_hint", "with_statement_hint"})
"""A statement's methods that put the text they are given into its SQL as it is written."""


def _parts_do(args: Args) -> list[tuple[EffectKind, str]]:
    """What the SQL text given to build a statement does as a part of it (`Sql.within`)."""
    return list(parts_do(args.every()))


def parts_do(given: Iterable[Val]) -> tuple[tuple[EffectKind, str], ...]:
    """What the SQL among `given` does as a part of a statement or an expression built of it
    (`Sql.within`): its text's, and a statement's (a subquery, a CTE that writes)."""
    done: dict[tuple[EffectKind, str], None] = {}
    for value in given:
        if value.sql is not None and not value.sql.result:
            done.update(dict.fromkeys(value.sql.within))
        elif value.sql is None:
            for obj in value.objs:
                done.update(dict.fromkeys(object_does(obj)))
            if not value.objs and value.types and any(_written_out(t) for t in value.types):
                done.update(dict.fromkeys(UNREAD))  # (``TEXTS["k"]``: SQL text not known)
    return tuple(done)


_STATEMENT_CLASSES: tuple[type, ...] = (sql_selectable.Select, sql_selectable.CompoundSelect,
                                        sql_dml.UpdateBase)


def function_reads(name: str) -> bool:
    """Whether ``func.<name>(…)`` calls a function of the database's known to only read
    (`sqltext.READING_FUNCTIONS`), not one the app registered by that name (a
    ``GenericFunction`` of its own may name any function, or be written out as any SQL)."""
    registered = sql_functions._registry["_default"].get(name.lower())
    if registered is not None and not registered.__module__.startswith("sqlalchemy."):
        return False
    return name.lower() in READING_FUNCTIONS


def mapping_does(cls: type) -> list[tuple[str, tuple[EffectKind, str]]]:
    """What the SQL the mapping of `cls` puts into every statement that loads it does more
    than read (a ``column_property(literal_column("nextval('s')"))``, a relationship joined
    on ``text(…)``), each with where it is (``"Note.ticket"``)."""
    mapper: Any = sqlalchemy.inspect(cls, raiseerr=False)
    if not isinstance(mapper, Mapper):
        return []
    found = [(f"{cls.__name__}.{prop.key}", done) for prop in mapper.column_attrs
             for column in prop.columns if not isinstance(column, sqlalchemy.Column)
             for done in object_does(column)]
    for joined in mapper.relationships:
        parts = (joined.primaryjoin, joined.secondaryjoin, *(joined.order_by or ()))
        found += [(f"{cls.__name__}.{joined.key}", done) for part in parts if part is not None
                  for done in object_does(part)]
    return found


def _written_out(kind: type) -> bool:
    """Whether an object of `kind` is SQL written out as text (``text(…)``,
    ``literal_column(…)``), whose text a value not known one by one does not show."""
    return issubclass(kind, sql_elements.TextClause) or kind is sql_elements.ColumnClause


def is_expression(obj: Any) -> bool:
    """Whether `obj` is a SQLAlchemy expression or statement (whose SQL `parts_do` reads)."""
    return isinstance(obj, sql_elements.ClauseElement)


def object_does(obj: Any) -> tuple[tuple[EffectKind, str], ...]:
    """What a SQLAlchemy expression or statement known as an object (a module's ``text(…)``,
    a default's, a class attribute's) does as a part of a statement, read off its SQL: what
    it more than reads (`Sql.within`); nothing for any other object."""
    if not isinstance(obj, sql_elements.ClauseElement):
        return ()
    try:
        if isinstance(obj, sql_elements.TextClause):
            written, alone = obj.text, False
        else:
            written, alone = str(obj), isinstance(obj, _STATEMENT_CLASSES)
    except Exception:  # (what cannot be written out as SQL cannot be read)
        return UNREAD
    found = sql_effects(written if alone else f"SELECT {written}")
    return tuple((k, table_record(t)) for k, t in found if (k, t) != (EffectKind.READS, ""))


def held(frame: Scope, given: Iterable[Val], node: ast.AST | None, *, what: str = "") -> None:
    """SQL among `given` put in a container (``case((c, literal_column("f()")))``, ``in_([…])``,
    a dict, an attribute, a class): what it does as a part counts where it is put, the
    container not being followed to the statement it may be built into. `what`: where, in the
    path (else `node`'s text)."""
    for kind, target in parts_do(given):
        frame.add(kind, target, (what or call_text(frame, node),),
                  "" if target else "holds SQL text that may do more than read")


def carried(made: Val, given: Iterable[Val]) -> Val:
    """`made`, an expression built of `given` (``and_(…)``, ``column == text(…)``, ``x + y``),
    carrying what the SQL among them does as a part (`Sql.within`) to the statement it is put
    in: nothing is lost on the way."""
    within = parts_do(given)
    if not within:
        return made
    if made.sql is None:
        return replace(made, sql=Sql(within=within, reason=_UNREAD_WHY if (
            EffectKind.EXTERNAL, "") in within else ""))
    more = tuple(done for done in within if done not in made.sql.within)
    return replace(made, sql=replace(made.sql, within=made.sql.within + more)) if more else made


def _with_parts(base: Val, args: Args) -> Val:
    """The statement `base`, built on with `args`: what SQL text among them does counts."""
    assert base.sql is not None
    more = tuple(done for done in _parts_do(args) if done not in base.sql.effects)
    if not more:
        return base
    unread = _UNREAD_WHY if (EffectKind.EXTERNAL, "") in more else base.sql.reason
    within = base.sql.within + tuple(d for d in _as_part(more) if d not in base.sql.within)
    return replace(base, sql=replace(base.sql, effects=base.sql.effects + more, reason=unread,
                                     within=within))


_RAW_DRIVER = frozenset(
    {"connection", "dbapi_connection", "driver_connection", "raw_connection", "exec_driver_sql_raw"}
)
"""Ways from a session or connection to the database driver itself, which SQL can be sent through
unseen (``session.connection().connection.cursor()``)."""


def session_attribute(frame: Scope, base: Val, cls: type, attr: str, node: ast.AST | None) -> Val:
    """``session.attr`` or ``connection.attr``: its methods are judged by `session_method`; the
    driver connection underneath is a way around everything the analysis can see."""
    if attr in _RAW_DRIVER and not (attr == "connection" and issubclass(cls, _HAS_CONNECTION_METHOD)):
        what = call_text(frame, node) if node is not None else f".{attr}"
        reason = f"reaches the database driver through .{attr}, which the analysis cannot follow"
        return frame.unknown(what, reason, node)
    method = BuiltinMethod(name=attr, self_val=base, qual=f"{qualified_name(cls)}.{attr}")
    return Val(types=frozenset(), calls=(method,))


def session_method(frame: Scope, method: BuiltinMethod, args: Args, node: ast.AST | None) -> Val:
    """A method of a SQLAlchemy session or connection, by what it does to records."""
    name = method.name
    what = call_text(frame, node)
    first = args.pos[0] if args.pos else None
    if name in ("add", "add_all", "merge", "delete"):
        value = first or Val()
        kinds = value.elem if name == "add_all" else value.types
        records = [record_named(k) for k in kinds or () if is_record(k)]
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
        loaded: type | None = next((o for o in (first.objs if first else ()) if is_record(o)), None)
        if loaded is None:
            frame.add(EffectKind.READS, "", (what,))
            return Val(origin=frozenset({DB}), inner=frozenset({DB}))
        frame.add(EffectKind.READS, record_named(loaded), (what,))
        sql = Sql(effects=((EffectKind.READS, record_named(loaded)),), row=loaded, query=True)
        if name == "query":
            return Val(sql=sql, pure=True, types=frozenset())
        return rows_of(sql)
    if name in ("execute", "scalars", "scalar", "stream", "stream_scalars", "exec_driver_sql"):
        result = run_sql(frame, first, what)
        if name in ("scalars", "scalar", "stream_scalars") and result.parts:
            result = replace(result, row=result.parts[0], parts=())  # (the first's)
        if name == "scalar":
            return rows_of(result)
        return Val(sql=result, origin=frozenset({DB}), inner=frozenset({DB}), pure=True, types=frozenset())
    if name in _NEUTRAL_SESSION:
        if name in ("connection", "connect"):
            return Val(types=frozenset(connection_types()))
        return method.self_val
    frame.add(
        EffectKind.CHANGES,
        "",
        (what,),
        f"calls {name} on a database session, which the analysis cannot classify",
    )
    return Val(origin=frozenset({DB}), inner=frozenset({DB}))


def is_record(cls: Any) -> bool:
    """Whether `cls` is an app record type."""
    return isinstance(cls, type) and issubclass(cls, RecordBase) and hasattr(cls, "__table__")


def past_the_sql(cls: type, attr: str) -> bool:
    """Whether ``attr`` of a mapped class's column (``Tag.price``, of type `cls`) reaches past
    the SQL it builds: its descriptor's ``__set__``/``__delete__`` change a record, and its
    ``impl``, ``comparator``, ``parent``… hand out the ORM's own machinery (and through it
    any code). Its operators and public expression methods (``in_``, ``desc``, ``label``)
    only build SQL."""
    if not (isinstance(cls, type) and issubclass(cls, _COLUMN_ATTRIBUTE)):
        return False
    if attr.startswith("__") and attr.endswith("__"):
        return attr not in _OPERATOR_DUNDERS
    return attr.startswith("_") or attr in _ORM_MACHINERY


_COLUMN_ATTRIBUTE: type = sqlalchemy.orm.QueryableAttribute
_OPERATOR_DUNDERS = frozenset(
    name for cls in sqlalchemy.sql.operators.ColumnOperators.__mro__ if cls is not object
    for name in vars(cls)
    if name.startswith("__") and name.endswith("__") and name not in (
        "__init__", "__new__", "__dict__", "__module__", "__doc__", "__slots__",
        "__weakref__", "__class_getitem__", "__init_subclass__", "__getattr__",
        "__getattribute__", "__setattr__", "__delattr__", "__reduce__", "__reduce_ex__",
        "__annotations__", "__qualname__", "__parameters__", "__orig_bases__", "__firstlineno__",
        "__static_attributes__", "__subclasshook__", "__sa_operate__", "__class__",
        "__getstate__", "__setstate__", "__copy__", "__deepcopy__"))
"""The operators of a column (``==``, ``+``, ``[]``…): each builds a SQL expression."""
_ORM_MACHINERY = frozenset({"impl", "comparator", "parent", "class_", "property", "prop",
                            "dispatch", "entity", "mapper", "manager", "adapter", "info"})
"""A column attribute's members that are the ORM's own objects, not SQL."""


def record_name(val: Val) -> str:
    """The record type of a value, if it is one."""
    for cls in val.types or ():
        if is_record(cls):
            return record_named(cls)
    return ""


def record_targets(val: Val) -> list[str]:
    """The record types a change of `val` is a change of ("" for other state)."""
    names = [record_named(c) for c in val.types or () if is_record(c)]
    return names or [val.rec]


BINARY_EXPRESSION: type = sql_elements.BinaryExpression
"""What an operator makes of a SQL expression."""


def is_sql_expression(value: Val) -> bool:
    """Whether `value` is a SQL expression being built (a column, ``func.count(…)``, ``a * b``):
    an operator on it builds another."""
    return bool(value.types) and all(
        str(getattr(t, "__module__", "")).startswith(("sqlalchemy.sql.", "sqlalchemy.orm.attributes"))
        for t in value.types or ())


def rows_of(sql: Sql) -> Val:
    """One row of a result: a record loaded from the database."""
    row = sql.row
    db = frozenset({DB})
    if sql.parts:  # a tuple of records, one of each class selected
        shape = Typed(types=frozenset({tuple}), parts=tuple(
            Typed(types=frozenset({part})) for part in sql.parts))
        return shape.on(Val(origin=db, inner=db))
    if row is None:
        return Val(origin=db, inner=db, pure=True)
    return Val(origin=db, inner=db, types=frozenset({row}), rec=record_named(row))


def table_record(table: str) -> str:
    """The record type whose table is `table` (or the table's own name): SQL text names a
    table, not a class, so every record class of that name whose table it is (two apps' alike)
    is one it may be."""
    found: list[type] = []
    stack: list[type] = list(RecordBase.__subclasses__())
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        mapped = getattr(cls, "__table__", None)
        if mapped is not None and getattr(mapped, "name", "").lower() == table.lower():
            found.append(cls)
    if not found:
        return table
    name = found[0].__name__
    return RecordName(name, [cls for cls in found if cls.__name__ == name])


class RecordName(str):
    """A record type's name as effects show it (``"Ticket"``), knowing which classes it is of:
    two record classes of one name (two apps', an app's and a test's) stay apart where what
    the mapping and listeners of the one an action uses do is followed (`records_of`). In all
    else it is the name: compared, hashed and written out as it. (It has no way of its own to
    be copied: a class that has, deriving ``str``, may run code wherever text is copied.)"""

    _records: tuple[weakref.ref[type], ...]

    def __new__(cls, name: str, records: Iterable[type] = ()) -> RecordName:
        made = super().__new__(cls, name)
        made._records = tuple(weakref.ref(record) for record in records)  # (not kept alive)
        return made


def record_named(cls: type) -> str:
    """The name effects give the record type `cls` (``"Ticket"``), knowing it is of `cls`."""
    return RecordName(cls.__name__, (cls,))


def records_of(target: str) -> list[type] | None:
    """The record classes `target`, a record type's name in an effect, is of, when it knows
    (`RecordName`); None when it is a name alone."""
    if not isinstance(target, RecordName):
        return None
    return [cls for cls in (ref() for ref in target._records) if cls is not None]


def user_inits(cls: type) -> list[Any]:
    """A record class's own ``__init__`` (not SQLAlchemy's)."""
    found = []
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if isinstance(init, types.FunctionType) and not init.__module__.startswith("sqlalchemy"):
            found.append(init)
            break
    return found

@functools.cache
def session_types() -> tuple[type, ...]:
    """The SQLAlchemy session, connection and engine classes (asyncio's too, when installed)."""
    return (*_SESSIONS, *_async_types()[0])


@functools.cache
def connection_types() -> tuple[type, ...]:
    """The SQLAlchemy connection classes."""
    return (Connection, *_async_types()[1])


@functools.cache
def _async_types() -> tuple[tuple[type, ...], tuple[type, ...]]:
    # Without greenlet, importing SQLAlchemy's asyncio module fails the first time and, from the
    # half-made module it leaves behind, "succeeds" the next: ask for greenlet first, and once.
    if importlib.util.find_spec("greenlet") is None:
        return (), ()
    try:
        from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession
    except ImportError:  # the asyncio extra is not installed
        return (), ()
    return (AsyncSession, AsyncConnection, AsyncEngine), (AsyncConnection,)


def is_session_types(kinds: frozenset[type]) -> bool:
    """Whether a value of these types is a database session or connection."""
    sessions = session_types()
    return any(issubclass(k, sessions) for k in kinds)


def sql_constructor(obj: Any) -> str | None:
    """``"select"`` … ``"text"`` when `obj` is one of SQLAlchemy's statement constructors."""
    return _STATEMENTS.get(id(obj))
