"""The tests' driver trace (tests/driver_trace.py) counts the transactions a driver really sends,
on SQLite and PostgreSQL, however they were begun and ended."""

from __future__ import annotations

from sqlalchemy import text

from signoff.store.database import Database
from tests.driver_trace import tracing


def test_the_trace_counts_the_transactions_the_driver_sends(database: str) -> None:
    """A transaction SQLAlchemy begins and commits is one, and one it rolls back is one rolled
    back; a savepoint rolled back to ends nothing; a statement the driver runs past SQLAlchemy
    is counted (on its own, a transaction of its own), and a commit with nothing open sends
    nothing and counts nothing. The statements are told as sent."""
    store = Database(database)
    engine = store.engine
    with engine.begin() as connection:
        connection.execute(text("CREATE TABLE noted (n INTEGER)"))
    try:
        with tracing(engine) as trace:
            with engine.begin() as connection:
                connection.execute(text("INSERT INTO noted VALUES (1)"))
            committed = trace.take()
            with engine.connect() as connection:
                connection.begin()
                connection.execute(text("INSERT INTO noted VALUES (2)"))
                connection.rollback()
            rolled_back = trace.take()
            with engine.begin() as connection:
                nested = connection.begin_nested()
                connection.execute(text("INSERT INTO noted VALUES (3)"))
                nested.rollback()
            savepoint = trace.take()
            with engine.connect() as connection:
                driver = connection.connection.driver_connection
                assert driver is not None
                cursor = driver.cursor()
                cursor.execute("INSERT INTO noted VALUES (4)")  # SQLite: autocommitted;
                cursor.close()  # PostgreSQL: psycopg begins a transaction
                driver.commit()
                driver.commit()  # nothing open: nothing sent
            past = trace.take()
    finally:
        store.dispose()
    assert (committed.transactions, committed.rolled_back) == (1, 0)
    assert [s.split()[0] for s in committed.statements if s != ";"] == ["BEGIN", "INSERT", "COMMIT"]
    assert (rolled_back.transactions, rolled_back.rolled_back) == (1, 1)
    assert (savepoint.transactions, savepoint.rolled_back) == (1, 0)
    assert any(s.startswith("ROLLBACK TO SAVEPOINT") for s in savepoint.statements)
    assert (past.transactions, past.rolled_back) == (1, 0)
    assert "INSERT INTO noted VALUES (4)" in past.statements
