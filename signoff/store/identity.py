"""A database's identity: a random id, made once, the first time anything asks for it, and kept
in the database itself (`signoff_database`).

An app's name says which app a database holds, not which database it is: two shops both called
``App("shop")``, or a test database beside the production one, share the name. What lives outside
the database and must not mix them (a Temporal task queue) is named with this id too.
A copy of a database (a backup restored as a second database) keeps the id of the original:
`forget_identity` gives it one of its own.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from sqlalchemy import delete, insert, select

from signoff.exceptions import StoreError
from signoff.store.database import Database
from signoff.store.tables import database_identity

__all__ = ["database_id", "forget_identity"]

_SLOT = 1
"""The key of the table's one row."""


def database_id(database: Database) -> str:
    """This database's id (36 characters, a UUID's), made and kept the first time it is asked
    for. Processes asking at once for the first time all get the one that was kept."""
    found = _kept(database)
    if found is not None:
        return found
    try:
        with database.connect() as db:
            db.execute(insert(database_identity).values(
                slot=_SLOT, id=str(uuid.uuid4()), made_at=datetime.now(UTC)))
    except StoreError:  # another process kept its own first (the key is taken): that one stands
        found = _kept(database)
        if found is None:
            raise
        return found
    kept = _kept(database)
    assert kept is not None  # written just now
    return kept


def forget_identity(database: Database) -> None:
    """Forget this database's id: the next to ask makes a new one. For a copy of a database
    that is to live beside the original, so that its Temporal workers poll a queue of their
    own (stop the copy's processes first: a process keeps the id it read)."""
    with database.connect() as db:
        db.execute(delete(database_identity))


def _kept(database: Database) -> str | None:
    with database.reading() as db:
        found = db.scalar(select(database_identity.c.id).where(
            database_identity.c.slot == _SLOT))
    return str(found) if found is not None else None
