"""The app's listeners of SQLAlchemy's events run as an action uses records, without the
action's calling them by name: what they do is the action's. A listener of a record's loading
that starts a process made an action that only reads records look as if it only read (it ran
alone, and its hold refused it as it ran); one of a record's update that posts to a server made
an action that changes records look as if it reached nothing outside (proposed as a change of
records alone, and run again after a crash as one)."""

from __future__ import annotations

import subprocess
import urllib.request
from pathlib import Path
from typing import Annotated, Any

from sqlalchemy import String, event, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from signoff import Agent, App, Provided, Skill, TaskStatus
from signoff.testing import ScriptedModel, says

TheSession = Annotated[Session, Provided("session")]


def _found(app: App, action: str) -> set[tuple[str, str]]:
    return {(e.kind.value, e.target) for e in app.actions.info(action).effects.effects}


def _app(tmp_path: Path) -> tuple[App, type, type, type]:
    app = App("t", database=f"sqlite:///{tmp_path / 't.db'}")

    class SealedNote(app.Record):  # type: ignore[name-defined,misc]
        body: Mapped[str] = mapped_column(String(40), default="")

    class WatchedOrder(app.Record):  # type: ignore[name-defined,misc]
        total: Mapped[int] = mapped_column(default=0)

    class PlainMemo(app.Record):  # type: ignore[name-defined,misc]
        body: Mapped[str] = mapped_column(String(40), default="")

    @event.listens_for(SealedNote, "load")
    def unseal(target: Any, context: Any) -> None:
        subprocess.run(["touch", str(tmp_path / "unsealed")], check=False)

    @event.listens_for(WatchedOrder, "after_update")
    def announce(mapper: Any, connection: Any, target: Any) -> None:
        urllib.request.urlopen("http://127.0.0.1:9/orders")

    return app, SealedNote, WatchedOrder, PlainMemo


def test_a_listener_of_loading_a_record_is_run_by_reading_it(tmp_path: Path) -> None:
    """Reading a record whose loading a listener of the app's listens to runs that listener:
    an action that only reads such records reaches outside, and its path names the event;
    reading records nobody listens to still only reads."""
    app, sealed, _, plain = _app(tmp_path)

    @app.action
    def read_note(session: TheSession) -> int:
        """Count the notes."""
        return len(session.scalars(select(sealed)).all())

    @app.action
    def read_memo(session: TheSession) -> int:
        """Count the memos."""
        return len(session.scalars(select(plain)).all())

    assert ("external", "subprocess.run") in _found(app, "read_note")
    assert not app.actions.info("read_note").effects.only_reads
    assert any("on load of SealedNote" in line
               for line in app.actions.info("read_note").effects.explain())
    assert app.actions.info("read_memo").effects.only_reads
    app.database.dispose()


def test_a_listener_of_a_records_update_is_run_by_changing_it(tmp_path: Path) -> None:
    """Changing a record whose update a listener posts about reaches outside (as well as
    changing the record); changing one nobody listens to changes it and nothing more."""
    app, _, watched, plain = _app(tmp_path)

    @app.action
    def raise_total(order: watched, by: int) -> str:  # type: ignore[valid-type]
        """Raise an order's total."""
        order.total += by  # type: ignore[attr-defined]
        return "Raised."

    @app.action
    def rewrite(memo: plain, body: str) -> str:  # type: ignore[valid-type]
        """Rewrite a memo."""
        memo.body = body  # type: ignore[attr-defined]
        return "Rewritten."

    found = _found(app, "raise_total")
    assert ("external", "urllib.request.urlopen") in found, found
    assert ("changes", "WatchedOrder") in found
    assert app.actions.info("raise_total").effects.external
    assert not app.actions.info("rewrite").effects.external
    app.database.dispose()


def test_a_listener_of_every_sessions_statements_is_run_by_any_use_of_records(
        tmp_path: Path) -> None:
    """A listener on every session (``Session``'s ``do_orm_execute``) runs with each statement
    an action's session sends: an action that reads any record reaches what it reaches. One
    that uses no record is left alone."""
    app, _, _, plain = _app(tmp_path)

    def audit(state: Any) -> None:
        subprocess.run(["logger", "read"], check=False)

    event.listen(Session, "do_orm_execute", audit)
    try:
        @app.action
        def read_memo(session: TheSession) -> int:
            """Count the memos."""
            return len(session.scalars(select(plain)).all())

        @app.action
        def add(a: int, b: int) -> int:
            """Add two numbers."""
            return a + b

        assert ("external", "subprocess.run") in _found(app, "read_memo")
        assert app.actions.info("add").effects.only_reads
    finally:
        event.remove(Session, "do_orm_execute", audit)
    app.database.dispose()


def test_an_agent_proposes_a_read_whose_listener_reaches_outside(tmp_path: Path) -> None:
    """The agent, free to do alone what only reads, proposes the read whose record's loading
    starts a process, and nothing starts before a person says yes."""
    app, sealed, _, _ = _app(tmp_path)

    @app.action
    def read_note(session: TheSession) -> int:
        """Count the notes."""
        return len(session.scalars(select(sealed)).all())

    with app.session(as_=app.system) as session:
        session.add(sealed(body="x"))

    class Reading(Skill[None, str]):
        description = "Read."
        tools = [read_note]

    class Reader(Agent):
        purpose = "You read."
        skills = [Reading()]

    noor = app.people.add("noor@t.example", "Noor")
    app.add_agent(Reader, sponsor=noor)
    outcome = app.agent(Reader).do(Reading(), None, for_=noor, model=ScriptedModel(
        says.tool(read_note), says.hand_back("Read.")))
    assert outcome.status is TaskStatus.WAITING
    assert [p.action for p in app.proposals(task=outcome.task)] == ["read_note"]
    assert not (tmp_path / "unsealed").exists()
    app.database.dispose()
