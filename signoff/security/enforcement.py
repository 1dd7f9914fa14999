"""The library enforces record rules itself: on every load (read) and flush (create, update,
delete) of a session that acts as someone. An action's author writes no checks."""

from __future__ import annotations

from typing import Any

from sqlalchemy import event, inspect
from sqlalchemy.orm import Session

from signoff.security.acting import ActingAs
from signoff.security.records import RecordBase
from signoff.security.rules import Operation, check, refusal

__all__ = ["acting_of", "enforce_rules_on", "may"]

_ACTING = "signoff.acting"


def acting_of(session: Session) -> ActingAs | None:
    """Who `session` acts as (None for a session signoff did not make)."""
    acting = session.info.get(_ACTING)
    return acting if isinstance(acting, ActingAs) else None


def enforce_rules_on(session: Session, acting: ActingAs) -> Session:
    """Make `session` act as `acting`: every load and flush is checked against the record rules."""
    session.info[_ACTING] = acting
    if not acting.system:
        event.listen(session, "before_flush", _check_flush)
        event.listen(session, "loaded_as_persistent", _check_load)
    return session


def may(acting: ActingAs, operation: Operation, record: Any) -> bool:
    """Whether `acting` may do `operation` (read, create, update, delete) on `record`."""
    rules = getattr(type(record), "__security__", [])
    return refusal(acting, operation, rules, record) is None


def _check_load(session: Session, instance: object) -> None:
    acting = acting_of(session)
    if acting is not None and isinstance(instance, RecordBase):
        refused = refusal(acting, "read", type(instance).__security__, instance)
        if refused is not None:
            # Out of the identity map too, so that no later query hands it back unchecked.
            session.expunge(instance)
            raise refused


def _check_flush(session: Session, _context: Any, _instances: Any) -> None:
    acting = acting_of(session)
    if acting is None:
        return
    for instance in session.new:
        if isinstance(instance, RecordBase):
            check(acting, "create", type(instance).__security__, instance)
    for instance in session.dirty:
        if isinstance(instance, RecordBase) and session.is_modified(instance):
            state = inspect(instance)
            changed = [a.key for a in state.attrs if a.history.has_changes()]
            check(acting, "update", type(instance).__security__, instance, fields=changed)
    for instance in session.deleted:
        if isinstance(instance, RecordBase):
            check(acting, "delete", type(instance).__security__, instance)
