"""Sessions that act as someone: every load and flush checked against the record rules."""

from __future__ import annotations

from sqlalchemy.orm import Session

from signoff.security.acting import ActingAs
from signoff.security.enforcement import RuledSession, enforce_rules_on
from signoff.store.database import Database

__all__ = ["open_session"]


def open_session(database: Database, acting: ActingAs) -> Session:
    """A new SQLAlchemy session on `database` acting as `acting`.

    Objects stay readable after a commit (``expire_on_commit=False``) so that a caller can use
    what an action returned once its transaction is over.
    """
    database.ensure_schema()
    # In a transaction joined (`Database.joining`), its connection: the session works in that
    # transaction and ends none of it. Else a loop's own connection, between its transactions.
    joined, held = database.joined_connection(), database.held_connection()
    bind = joined if joined is not None else held if held is not None else database.engine
    session = RuledSession(bind, expire_on_commit=False, autoflush=True)
    return enforce_rules_on(session, acting)
