"""Sessions that act as someone: every load and flush checked against the record rules."""

from __future__ import annotations

from sqlalchemy.orm import Session

from signoff.security.acting import ActingAs
from signoff.security.enforcement import RuledSession, enforce_rules_on
from signoff.security.records import KEPT_IN
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
    # Joined, its work is a savepoint of that transaction: the app's code failing inside it
    # (a skill's `version_of` raising in an `app.session()` block) rolls back its own work,
    # not the transaction it joined.
    joined, held = database.joined_connection(), database.held_connection()
    if joined is not None:
        session = RuledSession(joined, expire_on_commit=False, autoflush=True,
                               join_transaction_mode="create_savepoint")
    else:
        session = RuledSession(held if held is not None else database.engine,
                               expire_on_commit=False, autoflush=True)
    session.info[KEPT_IN] = database.metadatas  # (its SQL names the records of this app)
    return enforce_rules_on(session, acting)
