"""SQL text read by its verbs: which tables a statement reads, creates in, changes or deletes from.

Used for ``text("...")`` and raw SQL strings handed to a session or connection. A verb it cannot
read (DDL, ``PRAGMA``, ``SET``, anything else) counts as a change of something unknown.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from signoff.effects.effect import EffectKind

__all__ = ["SIDE_EFFECT_FUNCTIONS", "sql_effects", "statements"]

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


_SPECIAL = re.compile(r"--|/\*|['\";$`\[]")
_DOLLAR_TAG = re.compile(r"\$(?:[^\W\d]\w*)?\$")
_NAME_CHAR = re.compile(r"[\w$]")
_PLAIN_NAME = re.compile(r"\w+")


def statements(sql: str, *, postgresql: bool, backslash_escapes: bool = False) -> list[str] | None:
    """`sql` split into its statements as the database splits them, comments made spaces and the
    insides of string literals and dollar quotes made empty (``''``), so that no word or semicolon
    inside one is taken for SQL; None when a quote or comment is left open, or a name or string is
    written with ``U&`` escapes (which could spell anything).

    `postgresql` reads dollar quotes, ``E'…'`` strings and nested comments as PostgreSQL does
    (else brackets and backquotes quote names, as in SQLite); `backslash_escapes` reads every
    string as PostgreSQL reads it with ``standard_conforming_strings`` off.
    """
    found: list[str] = []
    out: list[str] = []
    at = 0
    while (special := _SPECIAL.search(sql, at)) is not None:
        start = special.start()
        out.append(sql[at:start])
        mark = special.group()
        before = sql[start - 1] if start else ""
        if mark == ";":
            found.append("".join(out))
            out = []
            at = start + 1
            continue
        if mark == "--":
            end = sql.find("\n", start)
            at = len(sql) if end < 0 else end
            out.append(" ")
            continue
        if mark == "/*":
            at = _comment_end(sql, start, nested=postgresql)
            out.append(" ")
        elif mark in "'\"" and before == "&" and start >= 2 and sql[start - 2] in "uU":
            return None
        elif mark == "'":
            escape_string = postgresql and before in ("e", "E") and not _in_name(sql, start - 1)
            escapes = backslash_escapes or escape_string
            at = _quote_end(sql, start, "'", escapes=escapes)
            out.append("''")
        elif mark == "$":
            tag = _DOLLAR_TAG.match(sql, start) if postgresql and not _in_name(sql, start) else None
            if tag is None:
                out.append(mark)
                at = start + 1
                continue
            close = sql.find(tag.group(), tag.end())
            at = -1 if close < 0 else close + len(tag.group())
            out.append("''")
        elif mark in "\"`" or (mark == "[" and not postgresql):
            at = _quote_end(sql, start, "]" if mark == "[" else mark, escapes=False)
            name = sql[start + 1 : at - 1] if at > 0 else ""
            out.append(f'"{name}"' if _PLAIN_NAME.fullmatch(name) else '""')
        else:  # a bracket in PostgreSQL: an array subscript
            out.append(mark)
            at = start + 1
            continue
        if at < 0:
            return None
    out.append(sql[at:])
    found.append("".join(out))
    return [statement for statement in found if statement.strip()]


def _in_name(sql: str, at: int) -> bool:
    """Whether the character before `at` belongs to a name (so `at` continues it)."""
    return at > 0 and _NAME_CHAR.match(sql, at - 1) is not None


def _comment_end(sql: str, start: int, *, nested: bool) -> int:
    """Where the comment opened at `start` ends (PostgreSQL nests them), or -1 if it never does."""
    depth, at = 0, start
    while True:
        opens = sql.find("/*", at) if nested or depth == 0 else -1
        closes = sql.find("*/", at + 2 if at == start else at)
        if closes < 0:
            return -1
        if opens >= 0 and opens < closes:
            depth += 1
            at = opens + 2
            continue
        depth -= 1
        at = closes + 2
        if depth == 0:
            return at


def _quote_end(sql: str, start: int, quote: str, *, escapes: bool) -> int:
    """Just past the quote closing the one at `start` (doubled, it stands for itself), or -1."""
    at = start + 1
    while True:
        close = sql.find(quote, at)
        if close < 0:
            return -1
        if escapes:
            backslash = sql.find("\\", at, close)
            if backslash >= 0:
                at = backslash + 2
                continue
        if sql.startswith(quote, close + 1) and quote != "]":
            at = close + 2
            continue
        return close + 1
