"""Two record classes of one name in one process (two apps', an app's and a test's) are two
record types to the analysis: what the mapping and the listeners of the one do is not the
other's. A test app whose record had a column of ``nextval(…)`` made every other app's record
of its name be analysed as reaching outside, and a proposal made in one process was found Stale
in another that had loaded other apps."""

from __future__ import annotations

import urllib.request
from collections.abc import Callable
from typing import Annotated, Any

import pytest
from sqlalchemy import String, event, literal_column, select
from sqlalchemy.orm import Mapped, Session, column_property, mapped_column

from signoff import App, Provided
from signoff.effects import EffectKind, analyse

TheSession = Annotated[Session, Provided("session")]


def _listened_on_load(cls: type) -> None:
    @event.listens_for(cls, "load")
    def announce(target: Any, context: Any) -> None:
        urllib.request.urlopen("http://127.0.0.1:9/loaded")


def _listened_on_insert(cls: type) -> None:
    @event.listens_for(cls, "after_insert")
    def announce(mapper: Any, connection: Any, target: Any) -> None:
        urllib.request.urlopen("http://127.0.0.1:9/inserted")


def _twins(other_does: Callable[[type], None] | None, *, numbered: bool = False
           ) -> tuple[App, type, type]:
    """App `plain`'s record `Twinned`, and another app's record also called `Twinned`, which
    `other_does` listens to (or whose mapping gives a column of SQL that writes)."""
    other = App("other", database="sqlite://")

    class Twinned(other.Record):  # type: ignore[name-defined,misc]
        body: Mapped[str] = mapped_column(String(40), default="")
        if numbered:
            number = column_property(literal_column("nextval('twinned')"))

    if other_does is not None:
        other_does(Twinned)
    others = Twinned
    plain = App("plain", database="sqlite://")

    class Twinned(plain.Record):  # type: ignore[name-defined,misc,no-redef]
        body: Mapped[str] = mapped_column(String(40), default="")

    return plain, Twinned, others


@pytest.mark.parametrize(("other_does", "numbered"), [
    (_listened_on_load, False),
    (None, True),
], ids=["a listener of loading", "a column of SQL that writes"])
def test_reading_a_record_runs_nothing_of_another_record_of_its_name(
        other_does: Callable[[type], None] | None, numbered: bool) -> None:
    """An action reading the plain app's `Twinned` only reads, though another app's `Twinned`
    has a listener of loading that reaches outside (or a column of ``nextval``); the same read
    of the other's does not only read."""
    plain, twinned, others = _twins(other_does, numbered=numbered)

    @plain.action
    def count(session: TheSession) -> int:
        """Count them."""
        return len(session.scalars(select(twinned)).all())

    effects = plain.actions.info("count").effects
    assert effects.only_reads, effects.explain()
    assert [(e.kind, e.target) for e in effects.effects] == [(EffectKind.READS, "Twinned")]

    def count_others(session: TheSession) -> int:
        return len(session.scalars(select(others)).all())

    found = analyse(count_others, name="count_others")
    assert not found.only_reads, found.explain()
    assert {e.target for e in found.effects if e.kind is EffectKind.READS} == {"Twinned"}


def test_creating_a_record_runs_no_listener_of_another_record_of_its_name() -> None:
    """An action creating the plain app's `Twinned` reaches nothing outside, though another
    app's `Twinned` has a listener of its insert that does; creating the other's does."""
    plain, twinned, others = _twins(_listened_on_insert)

    @plain.action
    def make(session: TheSession, body: str) -> None:
        """Make one."""
        session.add(twinned(body=body))

    effects = plain.actions.info("make").effects
    assert not any(e.kind is EffectKind.EXTERNAL for e in effects.effects), effects.explain()
    assert (EffectKind.CREATES, "Twinned") in {(e.kind, e.target) for e in effects.effects}

    def make_other(session: TheSession, body: str) -> None:
        session.add(others(body=body))

    found = analyse(make_other, name="make_other")
    assert any(e.kind is EffectKind.EXTERNAL for e in found.effects), found.explain()
