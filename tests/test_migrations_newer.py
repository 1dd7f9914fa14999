"""A database a newer signoff upgraded is refused by an older one in words, and left as it is."""

from __future__ import annotations

import pytest
from sqlalchemy import String, create_engine, inspect, text
from sqlalchemy.orm import Mapped, mapped_column

from signoff import App, UserError
from signoff.store.migrate import VERSION_TABLE


def _tables(url: str) -> tuple[list[str], list[tuple[str, ...]]]:
    """The tables at `url`, and the revision signoff's are at."""
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            return (sorted(inspect(connection).get_table_names()),
                    [tuple(r) for r in connection.execute(text(
                        f"SELECT version_num FROM {VERSION_TABLE}"))])
    finally:
        engine.dispose()


def test_a_database_a_newer_signoff_upgraded_is_refused_saying_how_to_come_back(
        database: str) -> None:
    """Stamped at a revision this signoff lacks (a newer release upgraded it, then the package
    was downgraded), the database is refused in a sentence that says how to come back to this
    version (take the tables back with the newer one installed); nothing is written to it,
    not even the table of a record class declared since."""
    first = App("shop", database=database)
    first.people.add("noor@x.example", "Noor")
    first.database.dispose()
    engine = create_engine(database)
    try:
        with engine.begin() as connection:
            connection.execute(text(f"UPDATE {VERSION_TABLE} SET version_num = '0099_later'"))
    finally:
        engine.dispose()
    before = _tables(database)
    app = App("shop", database=database)

    class Repair(app.Record):  # type: ignore[name-defined, misc]
        """A record class the database has no table for yet."""

        ticket: Mapped[str] = mapped_column(String(20))

    try:
        with pytest.raises(UserError, match=r"at revision '0099_later', which this version of "
                           r"signoff does not know .*take the tables back with that one "
                           r"installed \(`signoff db downgrade REVISION`"):
            app.people.all()
    finally:
        app.database.dispose()
    assert _tables(database) == before
    assert "repair" not in before[0]
