"""SQL text as the database reads it: statements split past quotes and comments, and what a
query's driver filter lets through."""

from __future__ import annotations

import pytest

from signoff.actions.readonly_driver import reading_refusal
from signoff.effects.sqltext import statements


@pytest.mark.parametrize(
    ("sql", "postgresql", "expected"),
    [
        ("SELECT 1", True, ["SELECT 1"]),
        ("SELECT 'a;b' FROM t", False, ["SELECT '' FROM t"]),
        ("SELECT 'it''s; fine'", False, ["SELECT ''"]),
        ("SELECT E'\\''; COMMIT", True, ["SELECT E''", " COMMIT"]),
        ("SELECT $$'$$; COMMIT; SELECT $$'$$", True, ["SELECT ''", " COMMIT", " SELECT ''"]),
        ("SELECT $tag$ ; $x$ ; $tag$, 2", True, ["SELECT '', 2"]),
        ("SELECT $1, a$b FROM t", True, ["SELECT $1, a$b FROM t"]),
        ("SELECT /* /* */ ; COMMIT */ 1", True, ["SELECT   1"]),
        ("SELECT /* /* */ 1; COMMIT", False, ["SELECT   1", " COMMIT"]),
        ("SELECT x -- ; COMMIT\nFROM t", False, ["SELECT x  \nFROM t"]),
        ('SELECT "set_config"(1) FROM "odd;name"', True, ['SELECT "set_config"(1) FROM ""']),
        ("SELECT [a'b], `c'd` FROM t", False, ['SELECT "", "" FROM t']),
        ("SELECT arr[1] FROM t; SELECT 2", True, ["SELECT arr[1] FROM t", " SELECT 2"]),
        ("SELECT 'open", False, None),
        ("SELECT $$open", True, None),
        ("SELECT 1 /* open", True, None),
        ('SELECT U&"set\\0063onfig"(1)', True, None),
    ],
)
def test_statements_split_as_the_database_splits_them(
    sql: str, postgresql: bool, expected: list[str] | None
) -> None:
    """Words and semicolons inside strings, dollar quotes, quoted names and comments are not SQL;
    what cannot be read for sure (a quote left open, U& escapes) is None."""
    assert statements(sql, postgresql=postgresql) == expected


@pytest.mark.parametrize(
    ("sql", "postgresql", "refusal"),
    [
        ("SELECT count(*) FROM t WHERE note = 'COMMIT; INSERT INTO t'", True, ""),
        ("SELECT $$ INSERT INTO t $$", True, ""),
        ("BEGIN", False, ""),
        ("SAVEPOINT sa_1", True, ""),
        ("ROLLBACK TO SAVEPOINT sa_1", True, ""),
        ("PRAGMA table_info(t)", False, ""),
        ("COMMIT", True, "run COMMIT (COMMIT)"),
        ("SELECT E'\\''; COMMIT; INSERT INTO t VALUES ('x')", True, "run COMMIT"),
        ("SELECT $$'$$; COMMIT; INSERT INTO t VALUES ('x'); SELECT $$'$$", True, "run COMMIT"),
        ("SELECT 'a\\'; COMMIT; SELECT 'b'", True, "run COMMIT"),
        ("SELECT 'C:\\'", True, "cannot be read"),
        ('SELECT U&"set\\0063onfig"(\'a\', \'b\', false)', True, "cannot be read"),
        ("SELECT pg_catalog.\"set_config\"('a', 'b', false)", True, "call set_config()"),
        ("WITH x AS (DELETE FROM t RETURNING *) SELECT * FROM x", True, "write through WITH"),
        ("BEGIN IMMEDIATE", False, "begin a transaction that writes"),
        ("PRAGMA query_only=OFF", False, "change a setting"),
        ("EXPLAIN ANALYZE SELECT 1", True, "write through EXPLAIN"),
        ("ROLLBACK", True, "run ROLLBACK"),
        # a function the database was given may write: only those known to read pass
        ("SELECT archive_notes()", True, "call archive_notes(), a function not known to only read"),
        ('SELECT public."archive"(1) FROM t', True, "call archive()"),
        ("SELECT count(*), lower(name), coalesce(a, b) FROM t WHERE id IN (1, 2)", True, ""),
        ("SELECT CAST(price AS numeric(10, 2)), date_trunc('day', at) FROM t", True, ""),
        ("SELECT rowid, bm25(parts_fts) AS rank FROM parts_fts WHERE parts_fts MATCH 'x'", False,
         ""),
        ("WITH a AS (SELECT 1) SELECT * FROM a, json_each('[1]')", False, ""),
        ("WITH owed(customer, total) AS (SELECT 1, 2), days(d) AS MATERIALIZED (SELECT 3) "
         "SELECT * FROM owed, days", True, ""),
        ("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT i FROM n", False,
         ""),
        ("SELECT n FROM generate_series(1, 3) AS t(n)", True, ""),
        ("SELECT * FROM t, evil(1) AS (x int)", True, "call evil()"),
        ("WITH a(x) AS (SELECT evil(1)) SELECT * FROM a", True, "call evil()"),
        ("SELECT current_date(), current_timestamp()", True, ""),
    ],
)
def test_the_driver_filter_passes_only_reading(sql: str, postgresql: bool, refusal: str) -> None:
    """A statement that only reads passes (whatever its strings say); one that would end the
    transaction, write, change a setting or call a function with side effects is refused, even
    when it hides behind quotes the check could misread."""
    found = reading_refusal(sql, postgresql=postgresql)
    if refusal:
        assert refusal in found
    else:
        assert found == ""
