"""Bringing signoff's own tables to the newest revision, with Alembic."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Connection, inspect

from signoff.exceptions import UserError

if TYPE_CHECKING:
    from alembic.config import Config

__all__ = ["VERSION_TABLE", "current_revision", "downgrade", "upgrade"]

VERSION_TABLE = "signoff_alembic_version"
"""Where Alembic keeps the revision of signoff's tables (apart from any the app keeps)."""

_SCRIPTS = Path(__file__).parent / "migrations"


def _config(connection: Connection) -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(_SCRIPTS))
    config.attributes["connection"] = connection
    return config


def upgrade(connection: Connection, revision: str = "head") -> None:
    """Upgrade signoff's tables on `connection` to `revision` (the newest by default).

    A database whose tables were made before signoff migrated them (by a development version)
    is adopted when what it holds is a part of the first revision: the missing tables and
    indexes are made, and it is stamped. Anything else is a `UserError` saying what to do.
    """
    from alembic import command

    if current_revision(connection) is None and inspect(connection).has_table(_FIRST_TABLE):
        command.stamp(_config(connection), _adopt(connection))
    command.upgrade(_config(connection), revision)


def downgrade(connection: Connection, revision: str) -> None:
    """Take signoff's tables on `connection` back to `revision` (what a database an older
    release made holds)."""
    from alembic import command

    command.downgrade(_config(connection), revision)


_FIRST_TABLE = "signoff_principals"
_FIRST_REVISION = "0001"


_LATER_COLUMNS = {("signoff_tasks", name) for name in ("trace_context", "holder", "held_until",
                                                        "fence", "reserved_usd")}
"""Columns later revisions add: a database adopted without them is stamped at the first
revision, and upgraded."""


def _adopt(connection: Connection) -> str:
    """Complete what an unmigrated database lacks of the first revision; the revision it is
    at."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from signoff.store.tables import metadata

    metadata.create_all(connection)  # the tables it lacks, with their indexes
    context = MigrationContext.configure(connection, opts={"version_table": VERSION_TABLE})
    later = False
    for diff in compare_metadata(context, metadata):
        if isinstance(diff, tuple) and diff[0] == "add_index":
            diff[1].create(connection)
            continue
        if isinstance(diff, tuple) and diff[0] == "add_column" and (
                diff[2], diff[3].name) in _LATER_COLUMNS:
            later = True
            continue
        raise UserError(
            f"This database holds signoff tables made by an earlier development version, which "
            f"differ from the released ones ({diff!r}). Move the database aside (or point the "
            "app at a new one) and start again."
        )
    return _FIRST_REVISION if later else "head"


def current_revision(connection: Connection) -> str | None:
    """The revision signoff's tables are at on `connection` (None: never migrated)."""
    if not inspect(connection).has_table(VERSION_TABLE):
        return None
    row = connection.exec_driver_sql(f"SELECT version_num FROM {VERSION_TABLE}").first()
    return str(row[0]) if row is not None else None
