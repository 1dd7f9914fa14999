"""Queries: declared to only read, refused at registration when their code does more, and run
enforced read-only, so that what the analysis cannot see is stopped at run time."""

from __future__ import annotations

import functools
import logging
import sqlite3
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import String, create_engine, text
from sqlalchemy.orm import Mapped, Session, mapped_column

from signoff import FAILED_TEXT, ActionOutcome, App, UserError, allow
from signoff.security.principals import Principal
from tests.unseen import unseen

WRITTEN = Path("/tmp/signoff-query-test.txt")
LOG = logging.getLogger("signoff.tests.queries")


def _write_it() -> None:
    with open(WRITTEN, "a") as file:
        file.write("x")


def _hidden(*args: Any) -> None:
    """Does nothing: what the analysis reads as a query is registered. A test puts a writing
    attempt in its place after that (code swapped in once the effects were found, which they
    do not follow: only the run-time guard stands in the way)."""


@dataclass
class Loud:
    """Turning it into text writes a file."""

    n: int = 0

    def __str__(self) -> str:
        _write_it()
        return str(self.n)


def test_a_query_that_writes_is_refused_at_registration_with_its_path() -> None:
    """query=True on code that writes is a UserError naming the effect and the call path."""
    app = App("t", database="sqlite://")
    with pytest.raises(UserError) as refused:

        @app.action(query=True)
        def peek(x: int) -> int:
            """Peek, and write."""
            _write_it()
            return x

    assert str(refused.value).startswith("Action peek is declared query=True, but it does more "
                                         "than read: external builtins.open: peek -> ")
    assert "_write_it -> builtins.open(mode='a')" in str(refused.value)


def test_formatting_a_value_counts_what_its_class_does() -> None:
    """An f-string runs the value's __format__ / __str__: the analysis follows it, so a query
    whose formatting writes is refused at registration."""

    app = App("t", database="sqlite://")
    with pytest.raises(UserError, match=r"show -> test_queries.Loud.__str__ -> test_queries._write_it"):

        @app.action(query=True)
        def show(thing: Loud) -> str:
            """Show a thing."""
            return f"{thing}"


def test_what_the_analysis_cannot_see_is_stopped_at_run_time(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A query whose hidden write gets past the analysis ends Failed; the file is not written,
    and the log says what it tried."""
    WRITTEN.unlink(missing_ok=True)
    app = App("t", database="sqlite://")

    @app.action(query=True)
    def show(n: int) -> str:
        """Say whether a number is a known one."""
        try:
            _hidden()
        except Exception:
            return "swallowed"
        return "known" if n == 2 else "new"

    unseen(app, "show")
    monkeypatch.setattr(sys.modules[__name__], "_hidden", _write_it)
    someone = app.people.add("a@x.example", "Ann")
    with caplog.at_level(logging.ERROR, logger="signoff.actions"):
        result = app.actions.run("show", {"n": 1}, as_=someone)
    assert (result.outcome, result.problem) == (ActionOutcome.FAILED, FAILED_TEXT)
    assert not WRITTEN.exists()
    assert "it tried to open /tmp/signoff-query-test.txt for writing" in caplog.text


def test_a_query_writing_through_its_session_is_refused_at_registration() -> None:
    """Code that writes records through the session it is given is no query: declared one, it
    is refused at registration (what the analysis cannot see, the read-only session refuses at
    run time: tests/test_readonly.py)."""
    app = App("t", database="sqlite://")

    class Box(app.Record):  # type: ignore[name-defined, misc]
        label: Mapped[str] = mapped_column(String(20), unique=True)
        __security__ = [allow("read", "update", "create")]

    def relabel_quietly(box: Box, session: Session) -> str:
        session.execute(Box.__table__.update().values(label="changed"))
        return box.label

    app.add_action(relabel_quietly, provided={"session": "session"})
    assert app.actions.info("relabel_quietly").query is False
    with pytest.raises(UserError, match="declared query=True, but it does more than read: "):
        app.add_action(relabel_quietly, name="peek_box", query=True,
                       provided={"session": "session"})


def _box_app(url: str) -> tuple[App, Any, Principal]:
    """An app with a Box labelled "kept", the query ``label_of`` and Ann, who may read it."""
    app = App("t", database=url)

    class Box(app.Record):  # type: ignore[name-defined, misc]
        label: Mapped[str] = mapped_column(String(20), unique=True)
        __security__ = [allow("read", "create")]

    @app.action(query=True)
    def label_of(box: Box) -> str:
        """Read a label."""
        return box.label

    ann = app.people.add("a@x.example", "Ann")
    with app.session(as_=ann) as s:
        box = Box(label="kept")
        s.add(box)
    return app, box, ann


def test_a_query_reads_as_usual() -> None:
    """An honest query runs Done and reads records as its caller."""
    app, box, ann = _box_app("sqlite://")
    result = app.actions.run("label_of", {"box": box}, as_=ann)
    assert (result.outcome, result.said) == (ActionOutcome.DONE, "kept")
    assert app.actions.info("label_of").query is True


def test_a_query_does_not_keep_writers_waiting(tmp_path: Path) -> None:
    """On a SQLite file, a query's transaction begins as readers do: it runs while another
    process holds the write lock (beginning as writers do, it would wait for that lock until the
    busy timeout and fail)."""
    import sqlite3

    app, box, ann = _box_app(f"sqlite:///{tmp_path / 'q.db'}")
    writer = sqlite3.connect(tmp_path / "q.db", isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")  # another process writes for as long as the query runs
    try:
        result = app.actions.run("label_of", {"box": box}, as_=ann)
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert (result.outcome, result.said) == (ActionOutcome.DONE, "kept")
    app.database.dispose()


def test_a_query_may_log() -> None:
    """Logging through a module's logger is the app's own log stream: a query may do it."""
    app = App("t", database="sqlite://")

    @app.action(query=True)
    def peek(x: int) -> int:
        """Peek, and say so in the log."""
        LOG.info("peeking at %s", x)
        return x

    assert app.actions.info("peek").effects.explain() == []
    assert app.actions.run("peek", {"x": 3}, as_=app.people.add("a@x.example", "Ann")).value == 3


@dataclass
class Meter:
    """Adding to it or comparing it writes a file."""

    n: int = 0

    def __add__(self, other: int) -> int:
        _write_it()
        return self.n + other

    def __lt__(self, other: int) -> bool:
        _write_it()
        return self.n < other


def peek_sum(thing: Meter) -> int:
    """Add one to a meter."""
    return thing + 1


def peek_less(thing: Meter) -> bool:
    """Whether a meter reads under three."""
    return thing < 3


@pytest.mark.parametrize(("fn", "method"), [(peek_sum, "Meter.__add__"),
                                            (peek_less, "Meter.__lt__")])
def test_operators_count_what_their_special_methods_do(fn: object, method: str) -> None:
    """`a + b` runs a.__add__, `a < b` runs a.__lt__: the analysis follows both to the file."""
    from signoff.effects import analyse

    found = analyse(fn, name="peek")  # type: ignore[arg-type]
    assert f"peek -> test_queries.{method} -> test_queries._write_it -> builtins.open" in (
        " ".join(found.explain()))


# --- Writing attempts: each refused at registration where the analysis sees it, and at run time
# where it does not; nothing written, and the pooled connection as it was -------------------------

INSERT = "INSERT INTO attempt_log (note) VALUES ('written')"
ATTEMPT_LOGGER = logging.getLogger("signoff.tests.attempts")


def _raw(session: Session) -> Any:
    """The driver's own cursor, reached from the query's session."""
    return session.connection().connection.cursor()


def _driver(session: Session) -> Any:
    """The driver's own connection, reached from the query's session."""
    return session.connection().connection.driver_connection


def pragma_off_then_insert(session: Session, where: str) -> None:
    cursor = _raw(session)
    cursor.execute("PRAGMA query_only=OFF")
    cursor.execute(INSERT)


def commit_then_insert(session: Session, where: str) -> None:
    cursor = _raw(session)
    cursor.execute("COMMIT")
    cursor.execute(INSERT)


def commit_hidden_in_quotes(session: Session, where: str) -> None:
    # E'\'' is one quote to PostgreSQL; read as a plain string, COMMIT and INSERT look quoted
    _raw(session).execute(f"SELECT E'\\''; COMMIT; {INSERT}")


def commit_hidden_in_a_dollar_quote(session: Session, where: str) -> None:
    _raw(session).execute(f"SELECT $$'$$; COMMIT; {INSERT}; SELECT $$'$$")


def driver_commit_then_insert(session: Session, where: str) -> None:
    driver = _driver(session)
    driver.commit()
    driver.cursor().execute(INSERT)


def autocommit_then_insert(session: Session, where: str) -> None:
    driver = _driver(session)
    driver.autocommit = True
    driver.cursor().execute(INSERT)


def read_write_then_commit(session: Session, where: str) -> None:
    cursor = _raw(session)
    cursor.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE")
    cursor.execute("COMMIT")
    cursor.execute(INSERT)


def authorizer_off_then_insert(session: Session, where: str) -> None:
    driver = _driver(session)
    driver.set_authorizer(None)
    driver.execute("PRAGMA query_only=OFF")
    driver.execute(INSERT)


def pragma_through_sqlalchemy(session: Session, where: str) -> None:
    session.connection().exec_driver_sql("PRAGMA query_only=OFF")
    session.connection().exec_driver_sql(INSERT)


def attach_a_file(session: Session, where: str) -> None:
    cursor = _raw(session)
    cursor.execute(f"ATTACH DATABASE '{where}' AS other")
    cursor.execute("CREATE TABLE other.t (x INTEGER)")


def set_config_for_the_session(session: Session, where: str) -> None:
    session.execute(text("SELECT set_config('signoff.attempt', 'on', false)"))


def advisory_lock(session: Session, where: str) -> None:
    session.execute(text("SELECT pg_advisory_lock(4242)"))


def notify(session: Session, where: str) -> None:
    session.execute(text("SELECT pg_notify('signoff_attempt', 'hello')"))


def next_in_sequence(session: Session, where: str) -> None:
    session.execute(text("SELECT nextval('attempt_seq')"))


def new_connection_then_insert(session: Session, where: str) -> None:
    with session.get_bind().connect() as connection:
        connection.exec_driver_sql(INSERT)
        connection.commit()


def raw_connection_then_insert(session: Session, where: str) -> None:
    raw = session.get_bind().raw_connection()
    try:
        raw.cursor().execute(INSERT)
        raw.commit()
    finally:
        raw.close()


def engine_of_its_own_then_insert(session: Session, where: str) -> None:
    engine = create_engine(session.get_bind().url.render_as_string(hide_password=False))
    try:
        with engine.begin() as connection:
            connection.exec_driver_sql(INSERT)
    finally:
        engine.dispose()


def sqlite_connect_then_insert(session: Session, where: str) -> None:
    database = sqlite3.connect(str(session.get_bind().url.database))
    try:
        database.execute(INSERT)
        database.commit()
    finally:
        database.close()


def vacuum_into_a_file(session: Session, where: str) -> None:
    _raw(session).execute(f"VACUUM INTO '{where}'")


def user_version(session: Session, where: str) -> None:
    session.execute(text("PRAGMA user_version = 7"))


def autocommit_connection_then_insert(session: Session, where: str) -> None:
    with session.get_bind().connect() as connection:
        connection.execution_options(isolation_level="AUTOCOMMIT")
        connection.exec_driver_sql(INSERT)


def insert_then_commit(session: Session, where: str) -> None:
    session.execute(text(INSERT))
    session.commit()


def set_a_timeout(session: Session, where: str) -> None:
    _raw(session).execute("SET statement_timeout = 1")


def listen(session: Session, where: str) -> None:
    _raw(session).execute("LISTEN signoff_attempt")


def prepare_a_statement(session: Session, where: str) -> None:
    _raw(session).execute(f"PREPARE signoff_attempt AS {INSERT}")


def hold_a_cursor(session: Session, where: str) -> None:
    _raw(session).execute("DECLARE signoff_attempt CURSOR WITH HOLD FOR SELECT 1")


def set_a_sequence(session: Session, where: str) -> None:
    session.execute(text("SELECT setval('attempt_seq', 100)"))


def large_object(session: Session, where: str) -> None:
    session.execute(text("SELECT lo_from_bytea(0, 'written')"))


def copy_to_a_file(session: Session, where: str) -> None:
    _raw(session).execute(f"COPY (SELECT 1) TO '{where}'")


def log_to_a_new_file(session: Session, where: str) -> None:
    handler = logging.FileHandler(where, delay=True)
    ATTEMPT_LOGGER.addHandler(handler)
    try:
        ATTEMPT_LOGGER.warning("written")
    finally:
        ATTEMPT_LOGGER.removeHandler(handler)
        handler.close()


SQLITE_ATTEMPTS = [pragma_off_then_insert, commit_then_insert, driver_commit_then_insert,
                   autocommit_then_insert, authorizer_off_then_insert, pragma_through_sqlalchemy,
                   attach_a_file, new_connection_then_insert, raw_connection_then_insert,
                   engine_of_its_own_then_insert, sqlite_connect_then_insert, vacuum_into_a_file,
                   user_version, autocommit_connection_then_insert, insert_then_commit,
                   log_to_a_new_file]
POSTGRES_ATTEMPTS = [commit_then_insert, commit_hidden_in_quotes, commit_hidden_in_a_dollar_quote,
                     driver_commit_then_insert, autocommit_then_insert,
                     read_write_then_commit, set_config_for_the_session, advisory_lock, notify,
                     next_in_sequence, new_connection_then_insert, raw_connection_then_insert,
                     engine_of_its_own_then_insert, autocommit_connection_then_insert,
                     insert_then_commit, set_a_timeout, listen, prepare_a_statement, hold_a_cursor,
                     set_a_sequence, large_object, copy_to_a_file, log_to_a_new_file]


_POSTGRES_STATE = {
    "statement timeout": "SHOW statement_timeout",
    "listening": "SELECT count(*) FROM pg_listening_channels()",
    "prepared": "SELECT count(*) FROM pg_prepared_statements WHERE from_sql",
    "held cursors": "SELECT count(*) FROM pg_cursors WHERE is_holdable",
    "large objects": "SELECT count(*) FROM pg_largeobject_metadata",
}
"""What a query could leave on a PostgreSQL connection or server, read from the pooled one."""


@dataclass
class Attempts:
    """An app on one database with a log table, a sequence and Ann, who may run its queries."""

    app: App
    ann: Principal
    url: str
    where: Path

    def seen(self) -> dict[str, Any]:
        """What a writing attempt could have left: rows, the sequence, the file, the settings."""
        with self.app.database.engine.connect() as connection:
            found = {
                "rows": connection.exec_driver_sql("SELECT count(*) FROM attempt_log").scalar(),
                "file": self.where.exists(),
            }
            if connection.dialect.name == "sqlite":
                found["query_only"] = connection.exec_driver_sql("PRAGMA query_only").scalar()
                found["user version"] = connection.exec_driver_sql("PRAGMA user_version").scalar()
            else:
                found["setting"] = connection.exec_driver_sql(
                    "SELECT current_setting('signoff.attempt', true)").scalar()
                found["sequence"] = connection.exec_driver_sql(
                    "SELECT last_value FROM attempt_seq").scalar()
                found["advisory locks"] = connection.exec_driver_sql(
                    "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'").scalar()
                found["read only"] = connection.exec_driver_sql(
                    "SHOW default_transaction_read_only").scalar()
                for what, sql in _POSTGRES_STATE.items():
                    found[what] = connection.exec_driver_sql(sql).scalar()
            return found


def _attempts(dialect: str, request: pytest.FixtureRequest, tmp_path: Path) -> Attempts:
    """An `Attempts` app on a SQLite file, or on a database of the tests' PostgreSQL server."""
    if dialect == "sqlite":
        url = f"sqlite:///{tmp_path / 'attempts.db'}"
    else:
        url = request.getfixturevalue("postgres_database")
    app = App("t", database=url)
    request.addfinalizer(app.database.dispose)
    ann = app.people.add("a@x.example", "Ann")
    with app.database.engine.begin() as connection:
        connection.exec_driver_sql("CREATE TABLE attempt_log (note VARCHAR(20))")
        if connection.dialect.name == "postgresql":
            connection.exec_driver_sql("CREATE SEQUENCE attempt_seq")
            connection.exec_driver_sql("SELECT nextval('attempt_seq')")
    return Attempts(app=app, ann=ann, url=url, where=tmp_path / "written.txt")


def _attempts_for(dialect: str) -> list[Any]:
    return [pytest.param(dialect, a, id=f"{dialect}-{a.__name__}")
            for a in (SQLITE_ATTEMPTS if dialect == "sqlite" else POSTGRES_ATTEMPTS)]


ALL_ATTEMPTS = _attempts_for("sqlite") + _attempts_for("postgresql")


@pytest.mark.parametrize(("dialect", "attempt"), ALL_ATTEMPTS)
def test_a_writing_attempt_in_a_query_is_refused_at_registration(dialect: str, attempt: Any) -> None:
    """Written in the query's own code, each writing attempt is seen by the analysis: declared
    query=True, the action is refused at registration, naming what it found."""
    app = App("t", database="sqlite://")
    with pytest.raises(UserError, match="declared query=True, but it does more than read"):
        app.add_action(attempt, query=True, provided={"session": "session"})


@pytest.mark.parametrize(("dialect", "attempt"), ALL_ATTEMPTS)
def test_a_hidden_writing_attempt_is_refused_at_run_time(
    dialect: str, attempt: Any, request: pytest.FixtureRequest, tmp_path: Path,
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Hidden where the analysis does not look, each writing attempt is refused as it runs: the
    query ends Failed, nothing is written, and the pooled connection is as it was (settings,
    locks, read-write) for the next session, which writes as usual."""
    setup = _attempts(dialect, request, tmp_path)
    before = setup.seen()

    def peek(session: Session, where: str) -> str:
        """Look, and try to write where the analysis cannot see."""
        try:
            _hidden(session, where)
        except Exception:
            return "swallowed"
        return "looked"

    setup.app.add_action(peek, query=True, provided={"session": "session"})
    unseen(setup.app, "peek")
    monkeypatch.setattr(sys.modules[__name__], "_hidden", attempt)
    with caplog.at_level(logging.ERROR, logger="signoff.actions"):
        result = setup.app.actions.run("peek", {"where": str(setup.where)}, as_=setup.ann)
    assert result.outcome is ActionOutcome.FAILED
    assert "tried more than reading" in caplog.text
    assert setup.seen() == before
    with setup.app.database.engine.begin() as connection:  # the pool's connection writes again
        connection.exec_driver_sql(INSERT)
    assert setup.seen()["rows"] == before["rows"] + 1


@pytest.mark.parametrize("dialect", ["sqlite", "postgresql"])
def test_a_query_reads_through_a_connection_it_opens(
    dialect: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """Reading through a connection the query takes from the pool itself, or through its
    session's connection, is still reading: the query runs Done."""
    setup = _attempts(dialect, request, tmp_path)

    def count_notes(session: Session) -> int:
        """Count the notes, three ways."""
        with session.get_bind().connect() as connection:
            counted = connection.exec_driver_sql("SELECT count(*) FROM attempt_log").scalar()
        cursor = session.connection().exec_driver_sql("SELECT count(*) FROM attempt_log")
        return int(counted or 0) + int(cursor.scalar() or 0)

    setup.app.add_action(count_notes, query=True, provided={"session": "session"})
    result = setup.app.actions.run("count_notes", {}, as_=setup.ann)
    assert (result.outcome, result.value) == (ActionOutcome.DONE, 0)


def test_a_query_reads_a_full_text_table(tmp_path: Path) -> None:
    """Reading an FTS5 table prepares (and never runs) an update of SQLite's schema table: a query
    reading one through its session, on a fresh connection, runs Done."""
    app = App("t", database=f"sqlite:///{tmp_path / 'notes.db'}")
    ann = app.people.add("a@x.example", "Ann")
    with app.database.engine.begin() as connection:
        connection.exec_driver_sql("CREATE VIRTUAL TABLE notes USING fts5(body)")
        connection.exec_driver_sql("INSERT INTO notes (body) VALUES ('the pads are worn')")
    app.database.engine.dispose()  # the query's connection opens the table afresh

    def notes_with(session: Session, word: str) -> int:
        """Count the notes that have a word."""
        found = session.execute(text("SELECT rowid FROM notes WHERE notes MATCH :word"), {"word": word})
        return len(found.all())

    app.add_action(notes_with, query=True, provided={"session": "session"})
    result = app.actions.run("notes_with", {"word": "pads"}, as_=ann)
    assert (result.outcome, result.value) == (ActionOutcome.DONE, 1)
    app.database.dispose()


def test_a_query_whose_code_cannot_be_read_is_refused_saying_to_put_it_in_a_file() -> None:
    """A query typed in an interactive session (here: run by exec, as a REPL runs it) has no
    code signoff can read: it is refused saying so, and what to do (it was refused as doing
    "more than read", with a path through code it could not read, which told nothing)."""
    app = App("t", database="sqlite://")
    typed = ("@app.action('Count the beds', query=True)\n"
             "def count_beds() -> int:\n"
             "    return 3\n")
    with pytest.raises(UserError, match="signoff cannot read its code") as refused:
        exec(compile(typed, "<stdin>", "exec"), {"app": app})
    assert "Define it in a module or a script, and run that." in str(refused.value)
    assert "count_beds" not in app.actions


def _add(a: int, b: int) -> int:
    """The sum of a and b."""
    return a + b


class _Adder:
    def __call__(self, a: int) -> int:
        return a


@pytest.mark.parametrize(("given", "name", "shown", "what"), [
    (functools.partial(_add, b=5), "add_five", "add_five", "a functools.partial"),
    (functools.partial(_add, b=5), None, "A partial of _add", "a functools.partial"),
    (_Adder(), "adder", "adder", "an instance of _Adder"),
    (len, None, "len", "a built-in function"),
])
def test_what_is_not_a_function_is_refused_as_an_action_saying_to_define_one(
        given: Any, name: str | None, shown: str, what: str) -> None:
    """A partial, a callable object or a built-in has no code of its own for signoff to read:
    refused as such, saying to define the action with def (a partial was refused as having
    "annotations that cannot be resolved", told to define its types at module level, or failed
    with AttributeError when not named), whether marked as a query or not."""
    app = App("t", database="sqlite://")
    for query in (True, False):
        with pytest.raises(UserError) as refused:
            app.action("Add", name=name, query=query)(given)
        assert str(refused.value).startswith(f"{shown} cannot be an action: it is {what}, ")
        assert "Define the action with def" in str(refused.value)
    assert len(app.actions) == 0


def test_a_query_sends_one_read_only_transaction_and_on_postgresql_one_reset(
        database: str) -> None:
    """What the driver sends for a query run by name: one transaction, read-only, that reads
    who runs it and ends rolled back; on PostgreSQL, then, the reset of what a query may leave
    on its connection (advisory locks), one statement on its own (on SQLite, the connection is
    made read-only before and writable after, by settings). The reset was a transaction
    of its own: BEGIN, the statement and ROLLBACK, two round trips more a query."""
    from tests.driver_trace import tracing

    app = App("q", database=database)

    @app.action(query=True)
    def double(n: int) -> int:
        """Twice n."""
        return 2 * n

    ann = app.people.add("ann@example.org", "Ann")
    try:
        with tracing(app.database.engine) as trace:
            app.people.find("ann@example.org")  # (the connection opened and traced outside)
            app.actions.run("double", {"n": 1}, as_=ann)  # (and the functions the app gave
            trace.take()  # SQLite's connection read: once a connection, as it is first held)
            ran = app.actions.run("double", {"n": 21}, as_=ann)
            sent = trace.take()
    finally:
        app.database.dispose()
    assert ran.value == 42
    words = [s.split()[0].upper() for s in sent.statements if s.strip(" ;")]
    if app.database.engine.dialect.name == "postgresql":
        assert words == ["BEGIN", "SET", "SELECT", "ROLLBACK", "SELECT"], sent.statements
        assert sent.statements[-1] == "SELECT pg_advisory_unlock_all()"
    else:
        assert words == ["PRAGMA", "BEGIN", "SELECT", "ROLLBACK", "PRAGMA"], sent.statements
    assert (sent.transactions, sent.rolled_back) == (
        2 if app.database.engine.dialect.name == "postgresql" else 1, 1)


_GIVEN_CALLED: list[str] = []
"""What the functions an app gives SQLite were called with."""


def test_a_function_the_app_gave_sqlite_is_refused_where_only_reading_may_run(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """An app may give its SQLite connections functions of its own (``create_function``, even
    under a name of SQLite's: ``lower``): their code is Python no analysis read, which a query
    would run past its hold (the name is one known to only read). The read-only hold refuses a
    statement calling one; SQLite's own functions, its extensions' and SQLAlchemy's ``regexp``
    run as ever."""
    from sqlalchemy import event

    app = App("t", database=f"sqlite:///{tmp_path / 't.db'}")

    @event.listens_for(app.database.engine, "connect")
    def give(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.create_function("lower", 1, lambda s: _GIVEN_CALLED.append(s) or s)
        dbapi_connection.create_function("archived", 0, lambda: _GIVEN_CALLED.append("") or 0)

    app.database.engine.dispose()  # (connections made from here on are given them)

    def run(sql: str) -> Any:
        def look(session: Session) -> str:
            """Look."""
            return str(session.execute(text(sql)).scalar())
        name = f"look_{len(app.actions)}"
        app.add_action(look, name=name, query=True, provided={"session": "session"})
        return app.actions.run(name, {}, as_=app.system)

    with caplog.at_level(logging.ERROR, logger="signoff.actions"):
        lowered = run("SELECT lower('ABC')")
        plain = run("SELECT upper('abc') || ('abc' REGEXP 'b') || length('abc')")
    assert lowered.outcome is ActionOutcome.FAILED
    assert "call lower(), a function the app gave the database" in caplog.text
    assert _GIVEN_CALLED == []
    assert (plain.outcome, plain.value) == (ActionOutcome.DONE, "ABC13")
    app.database.dispose()


_FIRST_QUERY = '''
import sys
from signoff import Agent, App, Skill, TaskStatus
from signoff.testing import ScriptedModel, says

app = App("q", database=f"sqlite:///{sys.argv[1]}")


@app.action(query=True)
def double(n: int) -> int:
    """Twice n."""
    return 2 * n


ann = app.people.add("ann@example.org", "Ann", roles=["clerk"])


class Doubling(Skill[None, int]):
    description = "Double."
    tools = [double]


class Doubler(Agent):
    purpose = "You double."
    skills = [Doubling()]


app.add_agent(Doubler, sponsor=ann)
done = app.agent(Doubler).do(Doubling(), None, for_=ann, model=ScriptedModel(
    says.tool(double, n=21), says.hand_back(42)))
assert done.status is TaskStatus.DONE, done.problem
app.people.add("bo@example.org", "Bo")  # (a write on the connection the query had)
print("written")
'''


def test_the_first_query_of_a_process_leaves_its_connection_writable(tmp_path: Path) -> None:
    """In a fresh process, the first query (an agent's tool) makes its connection read-only
    and gives it back writable: what it first reads of the connection (the functions the app
    gave it) is read past its own hold. (Reading them opened a connection the hold refused, and the pooled
    connection stayed read-only: the next write failed, "attempt to write a readonly
    database".)"""
    import subprocess

    script = tmp_path / "first_query.py"
    script.write_text(_FIRST_QUERY)
    ran = subprocess.run([sys.executable, str(script), str(tmp_path / "q.db")],
                         capture_output=True, text=True, timeout=120, check=False)
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert ran.stdout.strip() == "written"
