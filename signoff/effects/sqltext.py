"""SQL text read by its verbs: which tables a statement reads, creates in, changes or deletes from.

Used for ``text("...")`` and raw SQL strings handed to a session or connection. A verb it cannot
read (DDL, ``PRAGMA``, ``SET``, anything else) counts as a change of something unknown.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from signoff.effects.effect import EffectKind

__all__ = ["SIDE_EFFECT_FUNCTIONS", "sql_effects"]

_SQL_STATEMENT = re.compile(
    r"^\s*(?:\(\s*)*(SELECT|INSERT|UPDATE|DELETE|REPLACE|WITH|UPSERT|MERGE)\b", re.IGNORECASE
)
_SQL_TABLE = {
    EffectKind.CREATES: re.compile(r"\bINSERT\s+(?:OR\s+\w+\s+)?INTO\s+[\"`]?(\w+)", re.I),
    EffectKind.CHANGES: re.compile(r"\bUPDATE\s+(?:OR\s+\w+\s+)?[\"`]?(\w+)", re.I),
    EffectKind.DELETES: re.compile(r"\bDELETE\s+FROM\s+[\"`]?(\w+)", re.I),
    EffectKind.READS: re.compile(r"\bFROM\s+[\"`]?(\w+)", re.I),
}
_SQL_WRITE_VERBS = re.compile(r"\b(INSERT|UPDATE|DELETE|REPLACE|MERGE|UPSERT)\b", re.I)


SIDE_EFFECT_FUNCTIONS = re.compile(
    r"""(?<![\w$])"?(set_config|pg_advisory_\w*|pg_try_advisory_\w*|pg_notify|nextval|setval
    |lo_import|lo_export|lo_create|lo_creat|lo_unlink|lo_put|lo_from_bytea|lo_truncate
    |pg_terminate_backend|pg_cancel_backend|pg_reload_conf|pg_rotate_logfile|pg_switch_wal
    |pg_create_restore_point|pg_logical_emit_message|pg_stat_reset\w*|dblink\w*|load_extension
    )"?\s*\(""",
    re.I | re.X,
)
"""Functions that change the server, the session or the outside even when called in a SELECT
(PostgreSQL's settings, advisory locks, notifications, sequences, large objects; SQLite's
extensions)."""


def sql_effects(sql: str) -> list[tuple[EffectKind, str]]:
    """The effects of SQL text by its verbs: ``[(CHANGES, "repair")]``; a verb it cannot read
    (DDL, PRAGMA, anything else) is a change of unknown target."""
    found: list[tuple[EffectKind, str]] = []
    for statement in (s for s in sql.split(";") if s.strip()):
        head = _SQL_STATEMENT.match(statement)
        if head is None:
            found.append((EffectKind.CHANGES, ""))
            continue
        verb = head.group(1).upper()
        if verb == "SELECT" or (verb == "WITH" and not _SQL_WRITE_VERBS.search(statement)):
            found.extend((EffectKind.READS, t) for t in _tables(EffectKind.READS, statement))
            if SIDE_EFFECT_FUNCTIONS.search(statement):
                found.append((EffectKind.CHANGES, ""))
            continue
        writes = [
            (kind, table)
            for kind in (EffectKind.CREATES, EffectKind.CHANGES, EffectKind.DELETES)
            for table in _SQL_TABLE[kind].findall(statement)
        ]
        found.extend(writes)
        if verb in {"REPLACE", "MERGE", "UPSERT"} or not writes:
            found.append((EffectKind.CHANGES, ""))
    return found


def _tables(kind: EffectKind, statement: str) -> Iterable[str]:
    return _SQL_TABLE[kind].findall(statement) or [""]
