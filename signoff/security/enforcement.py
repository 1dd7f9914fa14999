"""The library enforces record rules itself: on every load (read) and flush (create, update,
delete) of a session that acts as someone. An action's author writes no checks."""

from __future__ import annotations

import contextlib
import logging
import re
import weakref
from collections.abc import Iterable, Iterator
from typing import Any

from sqlalchemy import Insert, Update, event, inspect, text
from sqlalchemy.exc import InvalidRequestError
from sqlalchemy.orm import (
    ColumnProperty,
    ORMExecuteState,
    RelationshipProperty,
    Session,
    object_session,
)
from sqlalchemy.orm.base import NO_VALUE
from sqlalchemy.sql import visitors
from sqlalchemy.sql.dml import UpdateBase
from sqlalchemy.sql.elements import ClauseElement, TextClause
from sqlalchemy.sql.selectable import Alias, TableClause
from sqlalchemy.sql.util import find_tables

from signoff.exceptions import NotAuthorized, NotFound, UserError
from signoff.security.acting import ActingAs
from signoff.security.records import KEPT_IN, RecordBase, record_tables
from signoff.security.rules import Operation, check, refusal

__all__ = ["RuledSession", "acting_of", "enforce_rules_on", "may", "own_text", "running_action"]

_ACTING = "signoff.acting"

log = logging.getLogger("signoff.security")


def acting_of(session: Session) -> ActingAs | None:
    """Who `session` acts as (None for a session signoff did not make)."""
    acting = session.info.get(_ACTING)
    return acting if isinstance(acting, ActingAs) else None


class RuledSession(Session):
    """A session whose loads and flushes are checked against the record rules whenever it acts
    as someone (the checks are registered once, on the class).

    While an action's own code runs (`running_action`), it may not end the transaction of the
    run it was given the session of (commit, roll back or close it): the run commits it when
    the action returns and rolls it back when it raises. Ended from inside, a run would keep
    what the action had written though it was told as failed (and, committed, what the run
    had written of the task's step with it)."""

    def commit(self) -> None:
        self._refuse_ending("commit")
        super().commit()

    def rollback(self) -> None:
        self._refuse_ending("roll back")
        super().rollback()

    def close(self) -> None:
        self._refuse_ending("close")
        super().close()

    def merge(self, instance: Any, *, load: bool = True, options: Any = None) -> Any:
        # With ``load=False`` the values given are taken as the record's stored ones, unread:
        # no read rule would see the record, and a flush would check its rules against them.
        acting = acting_of(self)
        if not load and acting is not None and not acting.system and isinstance(
                instance, RecordBase):
            record_type = type(instance).__name__
            raise _refusal(
                f"{acting.names} may not merge {_a(record_type)} without reading it (load=False):"
                f" merge it as it is stored (session.merge({record_type.lower()})), so that the "
                "record rules are checked.",
                "read", _a(record_type), acting)
        return super().merge(instance, load=load, options=options)

    # The bulk methods write rows without a flush, so no record rule would see them (as an
    # UPDATE, DELETE or INSERT statement would not: `_refuse_bulk_writes`).
    def bulk_save_objects(self, objects: Iterable[object], *args: Any, **kwargs: Any) -> None:
        given = list(objects)
        for each in given:
            self._refuse_bulk(type(each), "create or change")
        super().bulk_save_objects(given, *args, **kwargs)

    def bulk_insert_mappings(self, mapper: Any, *args: Any, **kwargs: Any) -> None:
        self._refuse_bulk(mapper, "create")
        super().bulk_insert_mappings(mapper, *args, **kwargs)

    def bulk_update_mappings(self, mapper: Any, *args: Any, **kwargs: Any) -> None:
        self._refuse_bulk(mapper, "change")
        super().bulk_update_mappings(mapper, *args, **kwargs)

    def _refuse_bulk(self, mapper: Any, verb: str) -> None:
        acting = acting_of(self)
        found = inspect(mapper, raiseerr=False)
        record_type = getattr(found, "class_", None)
        if acting is None or acting.system or not (
                isinstance(record_type, type) and issubclass(record_type, RecordBase)):
            return
        what = f"{record_type.__name__} records"
        raise _refusal(
            f"{acting.names} may not {verb} {what} in bulk: {verb} them one by one through the "
            "session, so that the record rules are checked.",
            "create" if verb == "create" else "update", what, acting)

    def _refuse_ending(self, verb: str) -> None:
        action = self.info.get(_RUNNING)
        if action:
            raise UserError(
                f"The action {action} tried to {verb} the session of its run. An action does not "
                "end its run's transaction: signoff commits it when the action returns, and rolls "
                "it back when the action raises (for a part that may fail on its own, use "
                "session.begin_nested()). Nothing of the run was kept.")


@contextlib.contextmanager
def running_action(session: Session, action: str) -> Iterator[None]:
    """While action `action`'s own code runs with `session`, the session's transaction is the
    run's: the action may not end it (see `RuledSession`)."""
    session.info[_RUNNING] = action
    try:
        yield
    finally:
        session.info.pop(_RUNNING, None)


_RUNNING = "signoff.running_action"


def enforce_rules_on(session: Session, acting: ActingAs) -> Session:
    """Make `session` act as `acting`: every load and flush is checked against the record rules."""
    session.info[_ACTING] = acting
    if not acting.system and not isinstance(session, RuledSession):
        event.listen(session, "before_flush", _check_flush)
        event.listen(session, "loaded_as_persistent", _check_load)
        event.listen(session, "detached_to_persistent", _check_attach)
        event.listen(session, "do_orm_execute", _refuse_unchecked)
    return session


def may(acting: ActingAs, operation: Operation, record: Any) -> bool:
    """Whether `acting` may do `operation` (read, create, update, delete) on `record`. A rule
    that fails as it is asked admits nobody (its failure is logged)."""
    rules = getattr(type(record), "__security__", [])
    try:
        return refusal(acting, operation, rules, record) is None
    except Exception:
        log.exception("A rule of %s failed as it was checked for %s to %s one; taken as a no",
                      type(record).__name__, acting.names, operation)
        return False


def _check_load(session: Session, instance: object) -> None:
    _check_read(session, instance)


def _check_read(session: Session, instance: object, *, held: bool = False) -> None:
    """Refuse `instance`, just read from the database, unless whoever `session` acts as may
    read it; `held`, a record its caller already holds (one it refreshed, or brought into the
    session), whose values just read are taken from it again before it is refused."""
    acting = acting_of(session)
    if acting is None or acting.system or not isinstance(instance, RecordBase):
        return
    try:
        refused = refusal(acting, "read", type(instance).__security__, instance)
    except Exception:
        # A read rule that fails as it is asked admits nobody (nothing is allowed unless a
        # rule allows it), told in words, its failure in the log.
        log.exception("A read rule of %s failed as it was checked for %s; the record was "
                      "taken as one they may not read", type(instance).__name__, acting.names)
        refused = _refusal(
            f"{acting.names} may not read {_a(type(instance).__name__)}: a rule of "
            f"{type(instance).__name__} failed as it was checked (the app's log has the details).",
            "read", _a(type(instance).__name__), acting)
    if refused is None:
        return
    if held:
        session.expire(instance)
    # Out of the identity map too, so that no later query hands it back unchecked.
    session.expunge(instance)
    if session.info.get(_RUNNING):
        raise _unreadable(type(instance), refused)
    raise refused


def _check_refresh(instance: object, context: Any, _attributes: Any) -> None:
    # A record already in the session read again from the database — `session.refresh`, an
    # expired value read, a query with ``populate_existing`` — is not loaded anew, so
    # `_check_load` does not see it: its read rule is asked of what was read.
    session = getattr(context, "session", None)
    if isinstance(session, Session):
        _check_read(session, instance, held=True)


event.listen(RecordBase, "refresh", _check_refresh, propagate=True)


def _check_attach(session: Session, instance: object) -> None:
    # A record brought into a session from outside it (`session.add` of one another session
    # loaded, or one made up with an id and its values) holds values no read rule saw, which a
    # flush would take as the record's own: as someone, it is read again as it is stored now,
    # and checked, before it is any part of the session — and refused if it holds changes.
    acting = acting_of(session)
    if acting is None or acting.system or not isinstance(instance, RecordBase):
        return
    record_type = type(instance).__name__
    if inspect(instance).modified:
        session.expunge(instance)
        raise _refusal(
            f"{acting.names} may not bring {_a(record_type)} changed outside this session into "
            f"it: merge it (session.merge({record_type.lower()})), which reads it as it is "
            "stored and takes the changes onto that, so that the record rules are checked.",
            "update", _a(record_type), acting)
    try:
        session.refresh(instance)
    except InvalidRequestError:  # (no row: a record that is not there)
        if instance in session:
            session.expunge(instance)
        raise _NotThere(f"{_a(record_type, capital=True)} this reads is not there: it does not "
                        "exist, or whoever this runs as cannot read it.") from None


class _NotThere(NotFound):
    """A record brought into a session whose row is not there, told as one not readable is."""


class _Unreadable(NotFound, NotAuthorized):
    """A record an action's own code read (``session.get``, a query, a relationship loaded
    lazily) that whoever the run is for may not read: told as a record that is not there is
    (`NotFound`, outcome Gone) and in words that say nothing of it — neither its values nor
    its id — while still a rule's refusal of a read (`NotAuthorized`, with its principal and
    operation) to code that asks."""


def _unreadable(record_type: type, refused: NotAuthorized) -> _Unreadable:
    """`refused` as a run's caller and its model are told it: the words of a record that does
    not exist, naming no value of it (its label is the record's own text)."""
    return _Unreadable(
        f"{_a(record_type.__name__, capital=True)} this reads is not there: it does not exist, "
        "or whoever this runs as cannot read it.",
        principal=refused.principal, operation="read", record=_a(record_type.__name__))


def _a(noun: str, *, capital: bool = False) -> str:
    """`noun` with its indefinite article: "a Shelf", "an Order" ("An Order", `capital`)."""
    article = "an" if noun[:1].lower() in "aeiou" else "a"
    return f"{article.capitalize() if capital else article} {noun}"


def _refuse_unchecked(state: ORMExecuteState) -> None:
    """Refuse the statements whose rows no rule would see, in a session acting as someone."""
    _refuse_text_on_records(state)
    if state.is_select and not state.is_relationship_load:
        # (a relationship's own load — ``selectinload``'s, ``subqueryload``'s — selects its
        # records whole beside the keys it joins them by: each is checked as it loads)
        _refuse_writes_within(state)
        _refuse_loose_columns(state)
        _refuse_conditions_on_unread(state)
    else:
        _refuse_bulk_writes(state)


def _refuse_text_on_records(state: ORMExecuteState) -> None:
    # SQL written as text names tables, not records: what it reads or writes of a record's
    # table no rule sees. A session acting as someone may run text that names none (``SET
    # TRANSACTION …``, a function of the database), never one that names a record's table —
    # the whole statement, or a piece of one (``select(text("label")).select_from(text("box"))``,
    # ``text(…).columns()``), nor a stand-in for its table (``table("box")``).
    acting = acting_of(state.session)
    if acting is None or acting.system or state.statement in _OWN_TEXT:
        return
    record_type = _written_on_a_record(state.statement, state.session.info.get(KEPT_IN))
    if record_type is not None:
        what = f"{record_type.__name__} records"
        raise _refusal(
            f"{acting.names} may not run SQL written as text on the table of {what} (no record "
            "rule can see what it reads or writes): read and write them through the session "
            f"(select({record_type.__name__}), then its values), or run such SQL as the app "
            "(app.system).",
            "read" if state.is_select else "update", what, acting)


_WRITTEN: weakref.WeakKeyDictionary[
    Any, dict[tuple[int, ...] | None, type[RecordBase] | None]] = weakref.WeakKeyDictionary()


def _written_on_a_record(statement: Any, kept_in: Any = None) -> type[RecordBase] | None:
    """The record type whose table a piece of `statement` written as text names, or which a
    stand-in for its table names (``table("box")``, a ``Table`` of other metadata: not the
    record's own), of the apps whose metadata is `kept_in` (else of every app): worked out once
    per statement and app, which a run's record loads reuse."""
    of_app = tuple(id(m) for m in kept_in) if kept_in is not None else None
    try:
        found = _WRITTEN.get(statement, {})
    except TypeError:  # a statement that cannot be weakly referenced: worked out each time
        found = {}
    if of_app in found:
        return found[of_app]
    parts = _parts_of(statement)
    texts = [p.text for p in parts if isinstance(p, TextClause)]
    named_tables = [p for p in parts if isinstance(p, TableClause)]
    named: type[RecordBase] | None = None
    if texts or named_tables:  # (the records' tables are looked through only then)
        tables = record_tables(kept_in)  # (the session's own app's, when it says which)
        own = {table for table, _ in tables}
        by_name = {table.name.lower(): cls for table, cls in tables}
        named = next((by_name[t.name.lower()] for t in named_tables
                      if t.name.lower() in by_name and _plain(t) not in own), None) or next(
            (cls for name, cls in by_name.items() for sql in texts if re.search(
                rf"(?<![\w$]){re.escape(name)}(?![\w$])", sql, re.IGNORECASE)), None)
    with contextlib.suppress(TypeError):
        _WRITTEN[statement] = {**found, of_app: named}
    return named


_PARTS: weakref.WeakKeyDictionary[Any, tuple[Any, ...]] = weakref.WeakKeyDictionary()


def _parts_of(statement: Any) -> tuple[Any, ...]:
    """Every piece of `statement`, subqueries' too: walked once per statement, for the checks
    that look through them (`_written_on_a_record`, `_unread`)."""
    try:
        found = _PARTS.get(statement)
    except TypeError:  # a statement that cannot be weakly referenced: walked each time
        return tuple(visitors.iterate(statement))
    if found is None:
        found = _PARTS[statement] = tuple(visitors.iterate(statement))
    return found


_OWN_TEXT: weakref.WeakSet[TextClause] = weakref.WeakSet()


def own_text(sql: str) -> TextClause:
    """SQL of signoff's own, written as text, that a session acting as someone runs whatever
    record tables it names (``SET TRANSACTION ISOLATION LEVEL …`` beside a record named
    Transaction)."""
    statement = text(sql)
    _OWN_TEXT.add(statement)
    return statement


def _refuse_loose_columns(state: ORMExecuteState) -> None:
    # Values selected column by column never load their record, so its read rule never sees
    # them: a session acting as someone reads records whole (and then any of their values).
    acting = acting_of(state.session)
    if acting is None or acting.system:
        return
    for record_type, name in _loose_columns(state.statement):
        what = f"{record_type.__name__} records"
        raise _refusal(
            f"{acting.names} may not read the {name or 'values'} of {what} column by column: "
            f"select whole records (select({record_type.__name__})) and read their values, so "
            "that the record rules are checked.",
            "read", what, acting)


_LOOSE: weakref.WeakKeyDictionary[Any, tuple[tuple[type[RecordBase], str], ...]] = (
    weakref.WeakKeyDictionary())


def _loose_columns(statement: Any) -> tuple[tuple[type[RecordBase], str], ...]:
    """The record columns `statement` selects one by one, not as whole records (their record
    type and name): worked out once per statement, which a run's record loads reuse."""
    try:
        found = _LOOSE.get(statement)
    except TypeError:  # a statement that cannot be weakly referenced: worked out each time
        found = None
    if found is not None:
        return found
    loose = []
    whole = False
    for column in getattr(statement, "column_descriptions", ()):
        entity = column.get("entity")
        mapper = inspect(entity, raiseerr=False) if entity is not None else None
        record_type = getattr(mapper, "class_", None)
        if entity is None:  # a table's column (select(Box.__table__.c.label)), not the ORM's
            record_type = _record_type_of(getattr(column.get("expr"), "table", None))
        if not (isinstance(record_type, type) and issubclass(record_type, RecordBase)):
            continue
        if entity is not None and column.get("expr") is entity:
            whole = True
            continue  # the whole record: its read rule is checked as it loads
        loose.append((record_type, _column_name(column)))
    for column in getattr(statement, "column_descriptions", ()):
        # A value worked out of records' rows beside whole records (a scalar subquery, a
        # count: select(Owner, select(func.count(Secret.id)).where(…).scalar_subquery())).
        expr = column.get("expr")
        if isinstance(expr, ClauseElement) and not isinstance(expr, TableClause) and (
                column.get("entity") is None or column.get("expr") is not column.get("entity")):
            loose.extend((t, _column_name(column)) for t in map(_record_type_of, find_tables(
                expr, include_selects=True, include_aliases=True)) if t is not None)
    if not whole and not loose:
        # Nothing selected is a record's column, yet its rows come from records' tables
        # (select(func.count()).select_from(Box)): what it tells of them no rule sees.
        # (within a subquery too: ``select(exists().where(Box.label == "secret"))``)
        tables = find_tables(statement, include_selects=True, include_joins=True,
                             include_aliases=True)
        loose.extend((t, "") for t in map(_record_type_of, tables) if t is not None)
    found = tuple(dict.fromkeys(loose))
    with contextlib.suppress(TypeError):
        _LOOSE[statement] = found
    return found


def _refuse_conditions_on_unread(state: ORMExecuteState) -> None:
    # A query's conditions on records it does not load — joined, or in a subquery:
    # select(Owner).where(Owner.secrets.any(Secret.text.startswith("4"))) — tell, by which
    # records come back, of values of those records no read rule saw. Refused unless whoever
    # the session acts as may read every record of that type (a rule that admits them whatever
    # the record).
    acting = acting_of(state.session)
    if acting is None or acting.system:
        return
    for record_type in _unread(state.statement):
        reads = [r for r in record_type.__security__ if "read" in r.operations]
        if not any(r.when.reads_record for r in reads) and refusal(
                acting, "read", reads, None) is None:
            continue
        name = record_type.__name__
        what = f"{name} records"
        raise _refusal(
            f"{acting.names} may not select by the values of {what} without reading them (no "
            "record rule sees the ones it looks at): select them too, whole "
            f"(select(…, {name})), and test their values, so that the record rules are "
            "checked.",
            "read", what, acting)


_UNREAD: weakref.WeakKeyDictionary[Any, tuple[type[RecordBase], ...]] = (
    weakref.WeakKeyDictionary())


def _unread(statement: Any) -> tuple[type[RecordBase], ...]:
    """The record types whose tables `statement` reads (joins, or looks into in a subquery)
    without loading their records whole: worked out once per statement."""
    try:
        found = _UNREAD.get(statement)
    except TypeError:  # a statement that cannot be weakly referenced: worked out each time
        found = None
    if found is not None:
        return found
    loaded: set[Any] = set()
    for column in getattr(statement, "column_descriptions", ()):
        entity = column.get("entity")
        mapper = inspect(entity, raiseerr=False) if entity is not None else None
        if mapper is not None and column.get("expr") is entity:
            loaded.update(_plain(t) for t in getattr(mapper, "mapper", mapper).tables)
    found = ()
    if loaded:  # (a select of no whole record is refused, or let be, by `_loose_columns`)
        tables = {_plain(p) for p in _parts_of(statement) if isinstance(p, TableClause)}
        found = tuple(dict.fromkeys(t for t in map(_record_type_of, tables - loaded)
                                    if t is not None))
    with contextlib.suppress(TypeError):
        _UNREAD[statement] = found
    return found


def _column_name(column: dict[str, Any]) -> str:
    """The name a selected column is known by, "" for one with none of its own."""
    name = column.get("name") or ""
    return "" if name.startswith(("_no_label", "anon_")) else name


def _refuse_bulk_writes(state: ORMExecuteState) -> None:
    # An UPDATE, DELETE or INSERT statement on a record table writes rows that no rule has seen:
    # a session acting as someone writes records one by one, through the flush.
    if not (state.is_insert or state.is_update or state.is_delete):
        return
    mapper = state.bind_mapper
    record_type = (
        mapper.class_ if mapper is not None and issubclass(mapper.class_, RecordBase)
        else _record_type_of(getattr(state.statement, "table", None))
    )
    acting = acting_of(state.session)
    if acting is None or acting.system:
        return
    if record_type is None:
        # A statement writing elsewhere what it reads of records' rows (an INSERT … SELECT
        # into a table of no record, an UPDATE whose values are a subquery of one).
        read = _read_by_write(state.statement)
        if read is None:
            return
        what = f"{read.__name__} records"
        raise _refusal(
            f"{acting.names} may not read {what} in a statement that writes (no record rule "
            f"can see what it reads): select whole records (select({read.__name__})) and write "
            "what it needs of their values.",
            "read", what, acting)
    operation: Operation = (
        "create" if state.is_insert else "update" if state.is_update else "delete")
    raise _in_bulk(acting, operation, record_type)


def _refusal(words: str, operation: Operation, record: str, acting: ActingAs) -> NotAuthorized:
    """The refusal of `operation` on `record` to whom `acting` runs as, told in `words`."""
    return NotAuthorized(words, principal=acting.principals[0].name if acting.principals else "",
                         operation=operation, record=record)


def _in_bulk(acting: ActingAs, operation: Operation, record_type: type) -> NotAuthorized:
    """The refusal of a statement that does `operation` to records of `record_type` in bulk."""
    verb = {"create": "create", "update": "change", "delete": "delete"}[operation]
    what = f"{record_type.__name__} records"
    return _refusal(
        f"{acting.names} may not {verb} {what} in bulk: {verb} them one by one through the "
        "session, so that the record rules are checked.",
        operation, what, acting)


def _refuse_writes_within(state: ORMExecuteState) -> None:
    # A SELECT may hold a statement that writes, in a CTE (PostgreSQL's ``WITH u AS (UPDATE
    # secret … RETURNING …) SELECT …``): refused as that statement is on its own.
    acting = acting_of(state.session)
    if acting is None or acting.system:
        return
    for part in _parts_of(state.statement):
        if isinstance(part, UpdateBase):
            record_type = _record_type_of(getattr(part, "table", None))
            if record_type is not None:
                operation: Operation = ("create" if isinstance(part, Insert) else
                                        "update" if isinstance(part, Update) else "delete")
                raise _in_bulk(acting, operation, record_type)


_READ_BY_WRITE: weakref.WeakKeyDictionary[Any, type[RecordBase] | None] = (
    weakref.WeakKeyDictionary())


def _read_by_write(statement: Any) -> type[RecordBase] | None:
    """The first record type whose table `statement`, which writes a table of no record, reads
    from: worked out once per statement."""
    try:
        if statement in _READ_BY_WRITE:
            return _READ_BY_WRITE[statement]
    except TypeError:  # a statement that cannot be weakly referenced: worked out each time
        pass
    read = next((t for t in map(_record_type_of, find_tables(
        statement, include_selects=True, include_aliases=True, include_joins=True))
        if t is not None), None) if isinstance(statement, ClauseElement) else None
    with contextlib.suppress(TypeError):
        _READ_BY_WRITE[statement] = read
    return read


def _plain(table: Any) -> Any:
    """`table` itself, not the ORM's annotated copy of it (as a record type holds it), nor an
    alias of it (``Box.__table__.alias()``)."""
    while isinstance(table, Alias):
        table = table.element
    plain = getattr(table, "_deannotate", None)
    return plain() if callable(plain) else table


def _record_type_of(table: Any) -> type[RecordBase] | None:
    if table is None:
        return None
    table = _plain(table)
    pending: list[type] = [RecordBase]
    while pending:
        cls = pending.pop()
        if cls.__dict__.get("__table__") is table:
            return cls
        pending.extend(cls.__subclasses__())
    return None


# A second line behind the flush check: mapper events see what the flush itself works out after
# `before_flush` — foreign keys synchronised from relationships, orphans deleted by a cascade.
def _check_row(operation: Operation) -> Any:
    def listener(_mapper: Any, _connection: Any, target: object) -> None:
        session = object_session(target)
        acting = acting_of(session) if session is not None else None
        if acting is None or acting.system or not isinstance(target, RecordBase):
            return
        _check_change(acting, operation, target)

    return listener


def _check_change(acting: ActingAs, operation: Operation, record: RecordBase) -> None:
    """Raise `NotAuthorized` unless `acting` may do `operation` to `record`: a new one as it
    is; a changed one as it is stored, and as it will be (so that a rule about whose it is
    holds of the record taken, as of the one given: nobody takes another's record by writing
    their own name into it, nor gives theirs away); a deleted one as it is stored."""
    rules = type(record).__security__
    if operation == "create":
        check(acting, "create", rules, record)
        return
    changed = [a.key for a in inspect(record).attrs if a.history.has_changes()]
    with _as_stored(record):
        check(acting, operation, rules, record, fields=changed)
    if operation == "update":
        check(acting, "update", rules, record, fields=changed)


@contextlib.contextmanager
def _as_stored(record: RecordBase) -> Iterator[None]:
    """While it lasts, `record` holds its values as they were read from the database (or as
    made, new) in place of those changed since: its columns and the records it refers to one
    by one (a value never read, changed unread, keeps the new one)."""
    state = inspect(record)
    given: dict[str, Any] = {}
    for key, stored in list(state.committed_state.items()):
        attribute = state.mapper.attrs.get(key)
        if stored is NO_VALUE or key not in state.dict or not (
                isinstance(attribute, ColumnProperty) or (
                    isinstance(attribute, RelationshipProperty) and not attribute.uselist)):
            continue
        given[key] = state.dict[key]
        state.dict[key] = stored
    try:
        yield
    finally:
        state.dict.update(given)


event.listen(RecordBase, "before_insert", _check_row("create"), propagate=True)
event.listen(RecordBase, "before_update", _check_row("update"), propagate=True)
event.listen(RecordBase, "before_delete", _check_row("delete"), propagate=True)


def _check_flush(session: Session, _context: Any, _instances: Any) -> None:
    acting = acting_of(session)
    if acting is None or acting.system:
        return
    for instance in session.new:
        if isinstance(instance, RecordBase):
            _check_change(acting, "create", instance)
    for instance in session.dirty:
        if isinstance(instance, RecordBase) and session.is_modified(instance):
            _check_change(acting, "update", instance)
    for instance in session.deleted:
        if isinstance(instance, RecordBase):
            _check_change(acting, "delete", instance)


event.listen(RuledSession, "before_flush", _check_flush)
event.listen(RuledSession, "loaded_as_persistent", _check_load)
event.listen(RuledSession, "detached_to_persistent", _check_attach)
event.listen(RuledSession, "do_orm_execute", _refuse_unchecked)
