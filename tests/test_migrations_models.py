"""What the migrations make is what tables.py declares, server defaults and types compared too."""

from __future__ import annotations

from typing import Any

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine

import signoff.app  # noqa: F401 — every table of signoff's is declared on the metadata
from signoff.store.migrate import VERSION_TABLE, _signoffs, upgrade
from signoff.store.tables import metadata


def _named(diff: Any) -> tuple[str, str, str]:
    """A difference Alembic found, as (what, table, column)."""
    change = diff[0] if isinstance(diff, list) else diff
    return (change[0], change[2], change[3]) if change[0].startswith("modify_") else (
        change[0], "", str(change[1]))


def test_the_migrated_tables_match_the_declared_ones_in_every_detail(database: str) -> None:
    """Upgraded to the newest revision on SQLite and PostgreSQL, Alembic's compare (types,
    nullability, indexes, constraints and server defaults) finds no difference from tables.py
    (the server defaults of 0 revision 0003 gave two columns were not declared there)."""
    engine = create_engine(database)
    try:
        with engine.begin() as connection:
            upgrade(connection)
        with engine.connect() as connection:
            context = MigrationContext.configure(connection, opts={
                "version_table": VERSION_TABLE, "compare_type": True,
                "compare_server_default": True, "include_name": _signoffs})
            found = {_named(d) for d in compare_metadata(context, metadata)}
    finally:
        engine.dispose()
    expected: set[tuple[str, str, str]] = set()
    if database.startswith("sqlite"):  # read back as "('')", the declared "" ('' in SQL)
        expected.add(("modify_default", "signoff_proposals", "call_id"))
    assert found == expected
