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
