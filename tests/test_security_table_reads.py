"""A session acting as someone refuses reads of records' tables that load no record, so that no
read rule is passed by: a table's columns, and what a select tells of rows it selects nothing
of (a count)."""

from collections.abc import Callable
from typing import Annotated, Any

import pytest
from sqlalchemy import String, func, literal, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from signoff import ActionOutcome, App, NotAuthorized, Provided, allow, policy


def _boxes() -> tuple[App, Any, Any, Any]:
    app = App("boxes", database="sqlite://", key=b"k" * 32)
    owns = policy.where(lambda p, box: box is None or box.owner == p.id, "owns it")

    class Box(app.Record):  # type: ignore[name-defined, misc]
        owner: Mapped[str] = mapped_column(String(40))
        label: Mapped[str] = mapped_column(String(40), default="")
        __security__ = [allow("read", "update", "create", when=owns)]

    ada = app.people.add("ada@boxes.example", "Ada")
    bo = app.people.add("bo@boxes.example", "Bo")
    with app.session(as_=ada) as s:
        s.add(Box(owner=ada.id, label="secret"))
    return app, Box, ada, bo


_READS: list[Any] = [
    pytest.param(lambda box: select(box.__table__), id="the-table"),
    pytest.param(lambda box: select(box.__table__.c.label), id="a-table-column"),
    pytest.param(lambda box: select(func.count()).select_from(box), id="a-count"),
    pytest.param(lambda box: select(literal(1)).where(box.label == "secret"), id="a-filter"),
]


@pytest.mark.parametrize("statement", _READS)
def test_a_read_of_a_records_table_that_loads_no_record_is_refused(
        statement: Callable[[Any], Any]) -> None:
    """Bo, who may read none of Ada's boxes, is refused a select of the boxes' table, of one of
    its columns, a count of its rows, and a select filtered on them (they told Bo Ada's
    label, or that such a box exists); the app itself is not."""
    app, box, _, bo = _boxes()
    with app.session(as_=bo) as s, pytest.raises(NotAuthorized, match="Box records"):
        s.execute(statement(box)).all()
    with app.session(as_=app.system) as s:
        assert s.execute(statement(box)).all()


def test_an_action_reading_a_table_whole_is_denied() -> None:
    """An action run as Bo that selects the boxes' table is Denied, and tells Bo nothing of the
    rows; run as Ada, it is refused too (she reads whole records, so her rules are checked)."""
    app, box, ada, bo = _boxes()

    @app.action("Peek at the boxes", query=True)
    def peek(session: Annotated[Session, Provided("session")]) -> str:
        """Look at every box's label."""
        return str(session.execute(select(box.__table__.c.label)).all())

    for who in (bo, ada):
        result = app.actions.run("peek", {}, as_=who)
        assert result.outcome is ActionOutcome.DENIED, result
        assert "secret" not in result.problem
    with app.session(as_=ada) as s:  # whole records: the rules are checked, and she reads hers
        assert [b.label for b in s.scalars(select(box))] == ["secret"]


_TEXTS: list[Any] = [
    pytest.param("UPDATE box SET label = 'pwned'", id="an-update"),
    pytest.param('SELECT label FROM "box"', id="a-select-quoted"),
    pytest.param("select count(*) from BOX where label = 'secret'", id="a-count-in-capitals"),
    pytest.param("DELETE FROM box", id="a-delete"),
]


@pytest.mark.parametrize("sql", _TEXTS)
def test_sql_written_as_text_on_a_records_table_is_refused(sql: str) -> None:
    """Bo may not run SQL written as text that names the boxes' table (it overwrote Ada's box,
    and read its label, past every rule); Ada's box is as it was; the app itself may."""
    from sqlalchemy import text

    app, box, _, bo = _boxes()
    with app.session(as_=bo) as s, pytest.raises(NotAuthorized, match="SQL written as text"):
        s.execute(text(sql))
    with app.session(as_=app.system) as s:
        assert s.scalars(select(box.label)).all() == ["secret"]
        s.execute(text(sql))


def test_sql_written_as_text_on_no_records_table_runs() -> None:
    """Text that names no record's table (a value of the database's own) runs as Bo."""
    from sqlalchemy import text

    app, _, _, bo = _boxes()
    with app.session(as_=bo) as s:
        assert s.execute(text("SELECT 1 + 1")).scalar() == 2


def test_an_action_running_text_on_a_records_table_is_denied() -> None:
    """An action run as Bo that changes the boxes' table in SQL text is Denied, and Ada's box
    keeps its label."""
    from sqlalchemy import text

    app, box, _, bo = _boxes()

    @app.action("Relabel every box")
    def relabel(session: Annotated[Session, Provided("session")]) -> str:
        """Relabel them all."""
        session.execute(text("UPDATE box SET label = 'pwned'"))
        return "Done."

    result = app.actions.run("relabel", {}, as_=bo)
    assert result.outcome is ActionOutcome.DENIED
    assert "SQL written as text" in (result.problem or "")
    with app.session(as_=app.system) as s:
        assert s.scalars(select(box.label)).all() == ["secret"]


def test_a_record_named_as_signoffs_own_sql_still_runs_as_someone(database: str) -> None:
    """A record type called Transaction (its table named in the ``SET TRANSACTION ISOLATION
    LEVEL`` a record-only run begins with on PostgreSQL) is changed by an action run as Ada."""
    app = App("ledger", database=database, key=b"k" * 32)

    class Transaction(app.Record):  # type: ignore[name-defined, misc]
        amount: Mapped[int] = mapped_column(default=0)
        __security__ = [allow("read", "update", "create")]

    @app.action("Settle a transaction")
    def settle(transaction: Transaction) -> str:
        """Settle it."""
        transaction.amount = 0
        return "Settled."

    ada = app.people.add("ada@ledger.example", "Ada")
    with app.session(as_=app.system) as s:
        made = Transaction(amount=5)
        s.add(made)
    try:
        result = app.actions.run("settle", {"transaction": made.id}, as_=ada)
        assert result.outcome is ActionOutcome.DONE, result.problem
    finally:
        app.database.dispose()


def _wrapped(box: Any) -> list[Any]:
    from sqlalchemy import Column, MetaData, Table, column, exists, literal_column, table, text, update

    return [
        pytest.param(lambda: text("SELECT label FROM box").columns(column("label")),
                     id="text-with-columns"),
        pytest.param(lambda: select(text("label")).select_from(text("box")), id="text-pieces"),
        pytest.param(lambda: select(column("label")).select_from(table("box")),
                     id="a-stand-in-table"),
        pytest.param(lambda: select(literal_column("label")).select_from(table("box")),
                     id="a-literal-column"),
        pytest.param(lambda: update(table("box", column("label"))).values(label="pwned"),
                     id="an-update-of-a-stand-in"),
        pytest.param(lambda: select(column("label")).select_from(table("BOX")),
                     id="a-stand-in-in-capitals"),
        pytest.param(lambda: select(Table("box", MetaData(), Column("label", String)).c.label),
                     id="a-table-of-other-metadata"),
        pytest.param(lambda: select(exists().where(box.label == "secret")), id="exists"),
        pytest.param(lambda: select(literal(1)).where(exists().where(box.label == "secret")),
                     id="a-filter-on-exists"),
    ]


@pytest.mark.parametrize("which", range(9))
def test_text_pieces_stand_in_tables_and_subqueries_are_refused_too(which: int) -> None:
    """The same reads and writes past the rules, written another way — text within a statement,
    a stand-in for the boxes' table (``table("box")``), a filter wrapped in ``exists()`` — are
    refused to Bo; Ada's box keeps its label."""
    app, box, _, bo = _boxes()
    statement = _wrapped(box)[which].values[0]
    with app.session(as_=bo) as s, pytest.raises(NotAuthorized, match="Box records"):
        s.execute(statement())
    with app.session(as_=app.system) as s:
        assert s.scalars(select(box.label)).all() == ["secret"]


def test_text_naming_another_apps_record_runs_in_this_apps_session() -> None:
    """Text is read against the records of the session's own app: another app's record table
    named ``note`` (alive in the same process) does not refuse a column named note in a table
    of this app's database that is no record's."""
    from sqlalchemy import text

    other = App("other", database="sqlite://", key=b"o" * 32)

    class Note(other.Record):  # type: ignore[name-defined, misc]
        body: Mapped[str] = mapped_column(String(40), default="")
        __security__ = [allow("read")]

    app, _, ada, _ = _boxes()
    with app.database.engine.begin() as connection:
        connection.exec_driver_sql("CREATE TABLE attempt_log (note VARCHAR(20))")
    with app.session(as_=ada) as s:
        s.execute(text("INSERT INTO attempt_log (note) VALUES ('written')"))
    assert Note.__tablename__ == "note"
