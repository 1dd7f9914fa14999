"""Steps: an action called on a record with fixed values."""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest
from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

from signoff import App, UserError, allow


@pytest.fixture
def desk() -> SimpleNamespace:
    """An app with tickets and two actions on them."""
    app = App("t", database="sqlite://")

    class Ticket(app.Record):  # type: ignore[name-defined, misc]
        title: Mapped[str] = mapped_column(String(40), unique=True)
        tag: Mapped[str] = mapped_column(String(40), default="")
        __security__ = [allow("read", "update", "create")]

    @app.action
    def tag_ticket(ticket: Ticket, tag: str, loud: bool = False) -> str:
        """Tag a ticket."""
        ticket.tag = tag.upper() if loud else tag
        return ticket.tag

    @app.action
    def close_ticket(ticket: Ticket) -> str:
        """Close it."""
        return "closed"

    @app.action
    def note(text: str) -> str:
        """A note on nothing."""
        return text

    def untagged(ticket: Any, tag: str) -> str:
        return tag

    return SimpleNamespace(app=app, Ticket=Ticket, tag_ticket=tag_ticket,
                           close_ticket=close_ticket, note=note, untagged=untagged)


def test_step_of_reads_the_action_and_its_values(desk: SimpleNamespace) -> None:
    """A lambda calling one action on the record gives (name, values)."""
    tag = desk.tag_ticket
    assert desk.app.actions.step_of(lambda t: tag(t, "urgent")) == ("tag_ticket", {"tag": "urgent"})
    assert desk.app.actions.step_of(lambda t: tag(t, tag="x", loud=True)) == (
        "tag_ticket", {"tag": "x", "loud": True}
    )
    close = desk.close_ticket
    assert desk.app.actions.step_of(lambda t: close(t)) == ("close_ticket", {})


@pytest.mark.parametrize(
    ("make", "why"),
    [
        (lambda d: (lambda t: d.tag_ticket(t, t.title)), "values read the record"),
        (lambda d: (lambda t: d.tag_ticket(t, f"{t}")), "values read the record"),
        (lambda d: (lambda t: [d.tag_ticket(t, "a"), d.close_ticket(t)]), "2 calls"),
        (lambda d: (lambda t: d.untagged(t, "a")), "no action call"),
        (lambda d: (lambda t: (d.tag_ticket(t, "a"), 1)), "more than the call"),
        (lambda d: (lambda t: d.tag_ticket("other", t)), "first argument"),
        (lambda d: (lambda t: d.tag_ticket(t, ["x", t])), "only as the first argument"),
        (lambda d: (lambda t: d.note("hi")), "first argument"),
        (lambda d: (lambda t: d.tag_ticket(t, 5)), "values do not fit"),
        (lambda d: (lambda t: d.tag_ticket(t)), "missing"),
    ],
)
def test_step_of_refuses_what_is_not_one_plain_call(
    desk: SimpleNamespace, make: Callable[[SimpleNamespace], Callable[[Any], Any]], why: str
) -> None:
    """A step reading the record, calling twice, calling no action, or misplacing it: UserError."""
    with pytest.raises(UserError, match=why):
        desk.app.actions.step_of(make(desk))


def test_step_of_refuses_an_action_of_another_app(desk: SimpleNamespace) -> None:
    """A step must call one of this app's actions."""
    other = App("other", database="sqlite://")

    @other.action
    def ping(text: str) -> str:
        """Ping."""
        return text

    with pytest.raises(UserError, match="ping is not one of them"):
        desk.app.actions.step_of(lambda t: ping(t))


def test_reading_a_step_runs_nothing(desk: SimpleNamespace) -> None:
    """step_of captures the call: the action's body does not run."""
    ran: list[str] = []
    app = desk.app

    @app.action
    def shout(ticket: desk.Ticket, word: str) -> str:  # type: ignore[name-defined]
        """Shout."""
        ran.append(word)
        return word

    assert app.actions.step_of(lambda t: shout(t, "hey")) == ("shout", {"word": "hey"})
    assert ran == []
    assert shout(None, "direct") == "direct"
    assert ran == ["direct"]
