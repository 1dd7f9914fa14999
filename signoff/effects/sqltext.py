"""SQL text read by its verbs: which tables a statement reads, creates in, changes or deletes from.

Used for ``text("...")`` and raw SQL strings handed to a session or connection. A verb it cannot
read (DDL, ``PRAGMA``, ``SET``, anything else) counts as a change of something unknown.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from signoff.effects.effect import EffectKind

__all__ = ["READING_FUNCTIONS", "UNREAD", "sql_effects", "statements", "unknown_function"]

_SQL_STATEMENT = re.compile(
    r"^\s*(?:\(\s*)*(SELECT|INSERT|UPDATE|DELETE|REPLACE|WITH|UPSERT|MERGE)\b", re.IGNORECASE
)
_SQL_TABLE = {
    EffectKind.CREATES: re.compile(r"\bINSERT\s+(?:OR\s+\w+\s+)?INTO\s+[\"`]?(\w+)", re.I),
    EffectKind.CHANGES: re.compile(r"\bUPDATE\s+(?:OR\s+\w+\s+)?[\"`]?(\w+)", re.I),
    EffectKind.DELETES: re.compile(r"\bDELETE\s+FROM\s+[\"`]?(\w+)", re.I),
    EffectKind.READS: re.compile(r"\bFROM\s+[\"`]?(\w+)", re.I),
}
_UPSERT = re.compile(r"\b(?:DO|KEY)\s+$", re.I)
"""What comes before an UPDATE that changes the row an INSERT would have inserted (``ON CONFLICT
… DO UPDATE SET``, ``ON DUPLICATE KEY UPDATE``): it names no table."""
_SQL_WRITE_VERBS = re.compile(r"\b(INSERT|UPDATE|DELETE|REPLACE|MERGE|UPSERT)\b", re.I)


READING_FUNCTIONS = frozenset("""
count sum avg min max total group_concat string_agg array_agg json_agg jsonb_agg
json_object_agg jsonb_object_agg bool_and bool_or every bit_and bit_or stddev stddev_pop
stddev_samp variance var_pop var_samp percentile_cont percentile_disc mode corr covar_pop
covar_samp row_number rank dense_rank percent_rank cume_dist ntile lag lead first_value
last_value nth_value abs ceil ceiling floor round trunc sign sqrt cbrt power pow exp ln log
log10 log2 mod div greatest least pi degrees radians sin cos tan asin acos atan atan2 random
width_bucket lower upper length char_length character_length octet_length bit_length substr
substring trim ltrim rtrim btrim replace concat concat_ws position strpos instr left right
lpad rpad repeat reverse split_part initcap format printf quote quote_ident quote_literal
quote_nullable md5 sha256 hex unhex unicode char chr ascii regexp_replace regexp_matches
regexp_match regexp_like regexp_split_to_array regexp_split_to_table regexp_count
regexp_substr translate to_hex encode decode starts_with glob like soundex string_to_array
array_to_string overlay coalesce nullif ifnull iif now date time datetime julianday strftime
unixepoch timediff date_trunc date_part date_bin extract age to_char to_date to_timestamp
to_number make_date make_time make_timestamp make_timestamptz make_interval clock_timestamp
statement_timestamp transaction_timestamp timeofday justify_days justify_hours
justify_interval isfinite timezone json jsonb json_extract json_array json_object json_type
json_valid json_array_length json_each json_tree json_group_array json_group_object
json_quote json_insert json_replace json_set json_remove json_patch jsonb_extract_path
json_extract_path jsonb_extract_path_text json_extract_path_text jsonb_array_elements
json_array_elements jsonb_array_elements_text json_array_elements_text jsonb_each
jsonb_each_text json_each_text jsonb_object_keys json_object_keys jsonb_build_object
json_build_object jsonb_build_array json_build_array to_json to_jsonb jsonb_typeof
json_typeof jsonb_set jsonb_insert jsonb_strip_nulls json_strip_nulls jsonb_pretty
row_to_json array_to_json jsonb_array_length jsonb_path_query jsonb_path_query_array
jsonb_path_query_first jsonb_path_exists jsonb_path_match jsonb_contains array_length
cardinality unnest array_position array_positions array_append array_prepend array_cat
array_remove array_replace array_dims array_lower array_upper array_ndims generate_series
generate_subscripts cast typeof pg_typeof current_setting version current_database
current_schema current_schemas sqlite_version changes last_insert_rowid total_changes
likely unlikely likelihood zeroblob randomblob gen_random_uuid uuid_generate_v4
to_tsvector to_tsquery plainto_tsquery phraseto_tsquery websearch_to_tsquery ts_rank
ts_rank_cd ts_headline setweight strip bm25 highlight snippet offsets matchinfo
varchar char character varying numeric decimal float double real timestamp timestamptz
timetz interval bit varbit nvarchar nchar current_date current_time current_timestamp localtime
localtimestamp current_user session_user user aggregate_strings grouping_sets cube rollup
""".split())  # noqa: SIM905 (words read best as words)
"""SQL functions (and types, as ``CAST(x AS varchar(20))`` writes them) of SQLite and PostgreSQL
known to only compute or read. Any other a statement calls — a function the database was
given, which may write (``SELECT archive_notes()``), or one that changes the server, the session
or the outside (``set_config``, ``nextval``, ``pg_notify``, advisory locks) — is taken to
change something unknown."""

_WORDS_BEFORE_PARENTHESES = frozenset("""
in exists values as on using over filter within any all some not and or select from where
join into with array row lateral grouping case when then else by partition order group
having limit offset union except intersect is between like ilike similar escape distinct
recursive materialized cube rollup sets table returning set
""".split())  # noqa: SIM905
"""SQL's own words that an opening parenthesis may follow: no function is called."""

_CALLED = re.compile(r'(?<![\w$])"?([^\W\d][\w$]*)"?\s*\(')


def unknown_function(statement: str) -> str:
    """The first function `statement` (its quotes emptied: `statements`) calls that is not known
    to only read (`READING_FUNCTIONS`), by its name as written, or "". The names of a leading
    WITH's common table expressions, before their columns (``WITH owed(customer, total) AS
    (…)``), and an alias's before its columns (``… AS t(a, b)``), call nothing."""
    listing = _table_expressions(statement)
    for called in _CALLED.finditer(statement):
        name = called.group(1)
        if name.lower() in READING_FUNCTIONS or name.lower() in _WORDS_BEFORE_PARENTHESES:
            continue
        before = statement[:called.start()].split()
        if called.start() in listing or (before and before[-1].lower() == "as"):
            continue
        return name
    return ""


_WITH = re.compile(r"\s*WITH\s+(?:RECURSIVE\s+)?", re.I)
_NAMED = re.compile(r'\s*("?[^\W\d][\w$]*"?)\s*', re.I)
_AS_QUERY = re.compile(r"\s*AS\s+(?:NOT\s+)?(?:MATERIALIZED\s*)?\(", re.I)
_NEXT = re.compile(r"\s*,", re.I)


def _table_expressions(statement: str) -> set[int]:
    """Where the names of the common table expressions a statement begins with stand, each
    followed by its columns (``WITH owed(customer, total) AS (…), days(d) AS (…)``)."""
    found: set[int] = set()
    opened = _WITH.match(statement)
    at = opened.end() if opened else -1
    while at >= 0:
        named = _NAMED.match(statement, at)
        if named is None:
            break
        after = named.end()
        if statement.startswith("(", after):
            found.add(named.start(1))
            after = _closing(statement, after + 1)
        query = _AS_QUERY.match(statement, after)
        if query is None:
            break
        following = _NEXT.match(statement, _closing(statement, query.end()))
        at = following.end() if following else -1
    return found


def _closing(statement: str, at: int) -> int:
    """Just past the parenthesis closing the one opened before `at` (the end, if none does)."""
    depth = 1
    for i in range(at, len(statement)):
        if statement[i] == "(":
            depth += 1
        elif statement[i] == ")":
            depth -= 1
            if depth == 0:
                return i + 1
    return len(statement)


def sql_effects(sql: str) -> list[tuple[EffectKind, str]]:
    """The effects of SQL text by its verbs: ``[(CHANGES, "repair")]``; a verb it cannot read
    (DDL, PRAGMA, anything else) is a change of unknown target. The text is read with its
    comments and the insides of its strings made empty, as SQLite and as PostgreSQL read it,
    the latter with ``standard_conforming_strings`` on and off (what any reading finds counts:
    ``'a\\'' ; DELETE …`` hides the DELETE in a string only where a backslash escapes nothing),
    so that no word in one is taken for SQL, and none is hidden by one."""
    readings = [statements(sql, postgresql=postgresql, backslash_escapes=escapes)
                for postgresql, escapes in ((True, False), (True, True), (False, False))]
    found: dict[tuple[EffectKind, str], None] = {}
    for reading in readings:
        if reading is None:  # a quote or comment left open: what it holds cannot be read
            found.update(dict.fromkeys(UNREAD))
            continue
        for statement in (s for s in reading if s.strip()):
            found.update(dict.fromkeys(_statement_effects(statement)))
    return list(found)


UNREAD = ((EffectKind.CHANGES, ""), (EffectKind.EXTERNAL, ""))
"""What SQL the analysis cannot read is taken to do: change anything and reach outside (a
statement of a verb it does not know — ``DO``, ``CALL``, DDL — or a function not known to
only read may run any code the database holds, files and programs included)."""


def _statement_effects(statement: str) -> list[tuple[EffectKind, str]]:
    """The effects of one statement, its comments and strings made empty (`statements`): what
    its verbs do to tables, and what reaches files, programs or servers (`_outside`)."""
    return _table_effects(statement) + _outside(statement)


_OUTSIDE_VERBS = re.compile(r"\s*(ATTACH|COPY|LOAD)\b|\s*(VACUUM)\b[^;]*\bINTO\b", re.I)
"""Statements that reach files, programs or servers: SQLite's ``ATTACH`` (a file made, or
another database written) and ``VACUUM … INTO`` (a file written), PostgreSQL's ``COPY`` (to and
from files and programs) and ``LOAD`` (a library run)."""
_OUTSIDE_FUNCTIONS = frozenset("""
load_extension readfile writefile edit lo_import lo_export pg_read_file pg_read_binary_file
pg_stat_file pg_ls_dir pg_file_write pg_file_rename pg_file_unlink dblink dblink_exec
dblink_connect dblink_open dblink_send_query
""".split())  # noqa: SIM905
"""Functions of SQLite's and PostgreSQL's (and their common extensions') that read or write
files, load code or reach another server."""


def _outside(statement: str) -> list[tuple[EffectKind, str]]:
    """What `statement` reaches outside the database's tables, each as ``SQL VERB``."""
    found = []
    verb = _OUTSIDE_VERBS.match(statement)
    if verb is not None:
        found.append((EffectKind.EXTERNAL, f"SQL {(verb.group(1) or verb.group(2)).upper()}"))
    found += [(EffectKind.EXTERNAL, f"SQL {name.group(1).lower()}()")
              for name in _CALLED.finditer(statement)
              if name.group(1).lower() in _OUTSIDE_FUNCTIONS]
    return found


def _table_effects(statement: str) -> list[tuple[EffectKind, str]]:
    """What one statement's verbs do to tables."""
    head = _SQL_STATEMENT.match(statement)
    if head is None:
        return list(UNREAD)
    verb = head.group(1).upper()
    if verb == "SELECT" or (verb == "WITH" and not _SQL_WRITE_VERBS.search(statement)):
        found = [(EffectKind.READS, t) for t in _tables(EffectKind.READS, statement)]
        if unknown_function(statement):
            found += UNREAD
        elif _SELECT_INTO.search(statement):
            found.append((EffectKind.CHANGES, ""))  # (``SELECT … INTO t`` makes a table)
        return found
    writes = [
        (kind, table)
        for kind in (EffectKind.CREATES, EffectKind.DELETES)
        for table in _SQL_TABLE[kind].findall(statement)
    ]
    for update in _SQL_TABLE[EffectKind.CHANGES].finditer(statement):
        if not _UPSERT.search(statement, 0, update.start()):
            writes.append((EffectKind.CHANGES, update.group(1)))
        else:  # an upsert's: it changes the rows of the tables inserted into
            writes += [(EffectKind.CHANGES, t) for kind, t in list(writes)
                       if kind is EffectKind.CREATES]
    if verb in {"REPLACE", "MERGE", "UPSERT"} or not writes:
        writes.append((EffectKind.CHANGES, ""))
    return writes


_SELECT_INTO = re.compile(r"\bINTO\b", re.I)
"""A SELECT that writes what it selects into a new table (PostgreSQL's ``SELECT … INTO t``)."""


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
