"""Bringing signoff's own tables to the newest revision, with Alembic.

A database already at the newest revision is left alone without Alembic being imported: the
newest revision is read from the migration scripts' ``revision`` and ``down_revision`` lines
(a few small files), which spares every process that opens an up-to-date database a fifth of a
second of CPU. When the scripts cannot be read that way (not exactly one head), Alembic decides.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Connection, inspect

from signoff.exceptions import UserError

if TYPE_CHECKING:
    from alembic.config import Config
    from alembic.runtime.environment import NameFilterParentNames, NameFilterType

__all__ = ["VERSION_TABLE", "check_going_back", "current_revision", "downgrade", "head_revision",
           "include_name", "is_known", "lock_schema", "upgrade"]

VERSION_TABLE = "signoff_alembic_version"
"""Where Alembic keeps the revision of signoff's tables (apart from any the app keeps)."""

_OURS = "signoff_"
"""What the name of each of signoff's tables (and of its version table) begins with."""

_SCRIPTS = Path(__file__).parent / "migrations"

_MIGRATING = 5_160_228_133
"""The key of the PostgreSQL advisory lock a migration holds until its transaction ends (any
number of 64 bits no one else uses)."""

_RETIRED = {"0008_continues": "0007_issue11"}
"""Revisions a development version of signoff stamped, since replaced, each with the revision
its tables are the same as but for what the newer revisions make anew or leave unused (0008
added ``signoff_tasks.continues_id``, nullable, which 0008_work's ``work_id`` took the place
of: the column is left as it is, unused). A database stamped with one is restamped so, then
brought up to date: it was refused as one "a newer or different version made"."""


def _config(connection: Connection) -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(_SCRIPTS))
    config.attributes["connection"] = connection
    return config


@contextlib.contextmanager
def _alembic_quiet() -> Iterator[None]:
    """While signoff migrates its own tables, Alembic's INFO records (its setup, and each
    revision's whole docstring as it runs) are not logged: an app that logs at INFO saw some
    twenty paragraphs of them the first time it opened a new database. Only when the app has
    not set Alembic's level itself (its own migrations keep whatever it set)."""
    alembic = logging.getLogger("alembic")
    if alembic.level != logging.NOTSET:
        yield
        return
    alembic.setLevel(logging.WARNING)
    try:
        yield
    finally:
        alembic.setLevel(logging.NOTSET)


def upgrade(connection: Connection, revision: str = "head") -> None:
    """Upgrade signoff's tables on `connection` to `revision` (the newest by default).

    A database whose tables were made before signoff migrated them (by a development version)
    is adopted when what it holds is a part of the first revision: the missing tables and
    indexes are made, and it is stamped. Anything else is a `UserError` saying what to do.
    """
    current = current_revision(connection)
    if revision == "head" and current is not None and current == head_revision():
        return
    if lock_schema(connection):  # another process may have migrated while this one waited
        current = current_revision(connection)
        if revision == "head" and current is not None and current == head_revision():
            return
    with _alembic_quiet():  # (importing it logs too)
        from alembic import command
        from alembic.util.exc import CommandError

    try:
        with _alembic_quiet():
            if current is None and inspect(connection).has_table(_FIRST_TABLE):
                command.stamp(_config(connection), _adopt(connection))
            if current in _RETIRED:
                command.stamp(_config(connection), _RETIRED[current], purge=True)
            command.upgrade(_config(connection), revision)
    except CommandError:
        found = current_revision(connection)
        known = _known(connection)
        if revision != "head" and revision not in known:  # (the target, not the database)
            raise UserError(f"There is no revision {revision!r} of signoff's tables to bring "
                            f"them to: they are, oldest first, {', '.join(reversed(known))} "
                            "(or 'head', the newest).") from None
        raise UserError(
            f"This database's signoff tables are at revision {found!r}, which this version of "
            "signoff does not know (a newer or different version made it): use that version, "
            "or point the app at another database. To come back to this version, take the "
            "tables back with that one installed (`signoff db downgrade REVISION`: \"Going "
            "back\" in the guide to upgrading), then install this one."
        ) from None


def lock_schema(connection: Connection) -> bool:
    """On PostgreSQL, wait for any other process changing the schema through signoff, and keep
    the others waiting until the transaction of `connection` ends. True once it holds the
    lock; False on another database (SQLite's own locks keep such changes apart).

    Processes that start at once on a database behind the scripts each migrate: on PostgreSQL
    all but one failed, "duplicate key value violates unique constraint
    pg_type_typname_nsp_index". With the lock, one migrates and the others find the tables at
    the revision it left them at. (SQLite's write lock, which signoff's transactions take as
    they begin, keeps them apart already.)"""
    if connection.dialect.name != "postgresql":
        return False
    connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({_MIGRATING})")
    return True


def downgrade(connection: Connection, revision: str) -> None:
    """Take signoff's tables on `connection` back to `revision` (what a database an older
    release made holds), in the transaction it has begun, or else in one of its own.

    On SQLite with foreign keys on (as signoff opens its files), the downgrade needs a
    connection with no transaction begun: it checks the foreign keys once, at its end, in a
    transaction of its own. A downgrade makes some tables anew (SQLite alters little in place),
    and the rows of other tables refer to the old one until the new one takes its name;
    checked at each statement, that fails on any database that holds a task."""
    with _alembic_quiet():  # (importing it logs too)
        from alembic import command

    if not isinstance(revision, str):
        raise UserError(f"A revision of signoff's tables is named in text ('0007_issue11', or "
                        f"'base'), not {revision!r}.")
    began = connection.in_transaction()
    check_going_back(connection, revision)
    if not began and connection.in_transaction():
        connection.rollback()  # (what the check read began it: the downgrade begins its own)
    driver = connection.connection.driver_connection if connection.dialect.name == "sqlite" else None
    if driver is None or not driver.execute("PRAGMA foreign_keys").fetchone()[0]:
        with _alembic_quiet():
            command.downgrade(_config(connection), revision)
        return
    if connection.in_transaction():
        raise UserError(
            "On SQLite, a downgrade runs in a transaction of its own, with foreign keys checked "
            "once at its end: give it a connection with no transaction begun (a read, such as "
            "current_revision, begins one), as in `with app.database.engine.connect() as connection: "
            "downgrade(connection, revision)`.")
    driver.execute("PRAGMA foreign_keys=OFF")  # SQLite ignores it within a transaction
    try:
        with connection.begin(), _alembic_quiet():
            command.downgrade(_config(connection), revision)
            broken = connection.exec_driver_sql("PRAGMA foreign_key_check").all()
            if broken:  # the transaction is rolled back: nothing was changed
                raise UserError(
                    f"Taken back to {revision}, {len(broken)} rows of signoff's tables would refer "
                    f"to rows that are not there (in {', '.join(sorted({r[0] for r in broken}))}): "
                    "nothing was changed. Report it, with the revision the database is at.")
    finally:
        driver.execute("PRAGMA foreign_keys=ON")


def check_going_back(connection: Connection, revision: str) -> None:
    """`UserError`, saying why, unless signoff's tables on `connection` can be taken back to
    `revision` (a revision of the scripts, 'base', or ``-N``, N revisions back): they are made,
    at a revision this signoff knows, and `revision` is before it."""
    known = _known(connection)
    steps = re.fullmatch(r"-(\d+)", revision)
    if revision != "base" and not steps and revision not in known:
        raise UserError(f"There is no revision {revision!r} of signoff's tables to go back to: "
                        f"they are, oldest first, {', '.join(reversed(known))} (or 'base', "
                        "before the first).")
    current = current_revision(connection)
    if current is None:
        raise UserError("signoff's tables are not made in this database yet: there is nothing "
                        "to take back.")
    if current not in known:
        raise UserError(f"signoff's tables are at revision {current!r}, which this version of "
                        "signoff does not know (a newer one made it): take them back with that "
                        "version installed.")
    behind = len(known) - known.index(current)  # (how many back 'base' is)
    if steps and int(steps[1]) > behind:
        raise UserError(f"signoff's tables are at {current}, {behind} revisions after none: they "
                        f"cannot be taken {steps[1]} back.")
    if revision in known and known.index(revision) < known.index(current):  # (newest first)
        raise UserError(f"signoff's tables are at {current}, which is before {revision}: a "
                        "downgrade only goes back (a newer signoff upgrades them as it opens "
                        "the database).")


def include_name(name: str | None, type_: NameFilterType,
                 parent_names: NameFilterParentNames) -> bool:
    """Whether an app's own Alembic compares `name`: not when it is one of signoff's tables
    (named ``signoff_…``), which signoff migrates itself, nor anything of theirs.

    Given to ``context.configure(include_name=include_name)`` in the app's ``env.py``: without
    it, ``alembic revision --autogenerate`` over the app's records writes a migration that
    drops signoff's tables, which are in the database but not in the app's metadata."""
    table = name if type_ == "table" else parent_names.get("table_name")
    return not (table or "").startswith(_OURS)


def _signoffs(name: str | None, type_: NameFilterType, parent_names: NameFilterParentNames
              ) -> bool:
    """Whether signoff's own Alembic compares `name`: its tables and what is theirs (and the
    schema they are in), not the app's records."""
    return type_ == "schema" or not include_name(name, type_, parent_names)


def is_known(connection: Connection, revision: str) -> bool:
    """Whether `revision` is one of this signoff's scripts (a newer signoff's is not)."""
    return revision in _known(connection)


def _known(connection: Connection) -> list[str]:
    """The revisions of signoff's tables, newest first."""
    from alembic.script import ScriptDirectory

    return [r.revision for r in ScriptDirectory.from_config(_config(connection)).walk_revisions()]


_FIRST_TABLE = "signoff_principals"
_FIRST_REVISION = "0001"


_LATER_COLUMNS = {("signoff_tasks", name) for name in ("trace_context", "holder", "held_until",
                                                        "fence", "reserved_usd")} | {
    ("signoff_tokens", "purpose")}
"""Columns later revisions add: a database adopted without them is stamped at the first
revision, and upgraded."""


def _adopt(connection: Connection) -> str:
    """Complete what an unmigrated database lacks of the first revision; the revision it is
    at."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from signoff.store.tables import metadata

    metadata.create_all(connection)  # the tables it lacks, with their indexes
    context = MigrationContext.configure(connection, opts={  # (the app's records are not ours)
        "version_table": VERSION_TABLE, "include_name": _signoffs})
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


_ASSIGNED = re.compile(r"^(revision|down_revision)\s*(?::[^=]+)?=\s*(.+?)\s*$", re.M)
_QUOTED = re.compile(r"""["']([^"']+)["']""")


@functools.cache
def head_revision() -> str | None:
    """The newest revision of the migration scripts, read from their text (None when they do
    not have exactly one, or a script does not say its revision plainly)."""
    revisions: set[str] = set()
    replaced: set[str] = set()
    for script in (_SCRIPTS / "versions").glob("*.py"):
        found = {m[1]: m[2] for m in _ASSIGNED.finditer(script.read_text(encoding="utf-8"))}
        if script.name == "__init__.py" and not found:
            continue
        names = _QUOTED.findall(found.get("revision", ""))
        if len(names) != 1 or "down_revision" not in found:
            return None
        revisions.add(names[0])
        replaced.update(_QUOTED.findall(found["down_revision"]))
    heads = revisions - replaced
    return heads.pop() if len(heads) == 1 else None


def current_revision(connection: Connection) -> str | None:
    """The revision signoff's tables are at on `connection` (None: never migrated)."""
    if not inspect(connection).has_table(VERSION_TABLE):
        return None
    row = connection.exec_driver_sql(f"SELECT version_num FROM {VERSION_TABLE}").first()
    return str(row[0]) if row is not None else None
