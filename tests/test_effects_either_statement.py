"""A value that is one statement or another (``select(Box) if x else update(Box)``) does, when
run, what either does: the first alone was taken for it, so that an action that may wipe every
box was found to only read (run directly, or handed to a helper that runs it)."""

from __future__ import annotations

from typing import Annotated, Any

import pytest
from sqlalchemy import String, select, update
from sqlalchemy.orm import Mapped, Session, mapped_column

from signoff import App, Provided, UserError, allow


def _rows(session: Any, stmt: Any) -> int:
    return int(session.execute(stmt).rowcount)


def _boxes() -> tuple[App, Any]:
    app = App("boxes", database="sqlite://", key=b"k" * 32)

    class Box(app.Record):  # type: ignore[name-defined, misc]
        label: Mapped[str] = mapped_column(String(40), default="")
        __security__ = [allow("read", "update", "create")]

    return app, Box


def test_a_statement_that_may_be_an_update_changes_its_records() -> None:
    """Run in the action, or in a helper it hands the statement to, the choice of a SELECT or an
    UPDATE of Box changes Box; such an action is refused as a query, and runs (wiping) when not
    one."""
    app, box = _boxes()

    @app.action("Count or wipe")
    def count_or_wipe(session: Annotated[Session, Provided("session")], wipe: bool) -> str:
        """Count the boxes, or wipe their labels."""
        stmt = select(box) if not wipe else update(box).values(label="")
        return str(session.execute(stmt).rowcount)

    @app.action("Count or wipe, in a helper")
    def count_or_wipe_helped(session: Annotated[Session, Provided("session")], wipe: bool) -> str:
        """Count the boxes, or wipe their labels."""
        stmt = select(box) if not wipe else update(box).values(label="")
        return str(_rows(session, stmt))

    for name in ("count_or_wipe", "count_or_wipe_helped"):
        effects = app.actions.info(name).effects
        assert not effects.only_reads, name
        assert "Box" in effects.changes, name
    with pytest.raises(UserError, match="does more than read"):
        @app.action("Peek", query=True)
        def peek(session: Annotated[Session, Provided("session")], wipe: bool) -> str:
            """Peek."""
            stmt = select(box) if not wipe else update(box).values(label="")
            return str(_rows(session, stmt))
    with app.session(as_=app.system) as s:
        s.add(box(label="kept"))
    assert app.actions.run("count_or_wipe_helped", {"wipe": True}, as_=app.system).done
    with app.session(as_=app.system) as s:
        assert s.scalars(select(box.label)).all() == [""]
