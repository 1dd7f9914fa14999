"""What an action returns reaches its caller (and a model) as JSON whether or not it declares a
return type: an action that declares none, or ``Any``, loses nothing it returned."""

from __future__ import annotations

import datetime as dt
import enum
import uuid
from decimal import Decimal
from typing import Annotated, Any

import pytest
from sqlalchemy import String
from sqlalchemy.orm import Mapped, Session, mapped_column

from signoff import App, Provided, allow
from signoff.agents.calling import answer_of
from signoff.security.acting import SYSTEM


class Rush(enum.Enum):
    """How soon."""

    NORMAL = "Normal"
    SAME_DAY = "Same day"


class Opaque:
    """A value no type describes."""

    def __str__(self) -> str:
        return "an opaque thing"


def build_app() -> App:
    """An app whose actions return values without saying their type."""
    app = App("t", database="sqlite://")

    class Order(app.Record):  # type: ignore[name-defined, misc]
        """An order."""

        code: Mapped[str] = mapped_column(String(20))
        __security__ = [allow("read", "create")]

    @app.action
    def summary():  # type: ignore[no-untyped-def]  # (the point: no return type)
        """A dict of values JSON has no type for."""
        return {"at": dt.datetime(2026, 9, 4, 14, 30), "price": Decimal("4.50"),
                "rush": Rush.SAME_DAY, "tags": {"a"}, "id": uuid.UUID(int=1),
                "pair": (1, "two"), Rush.NORMAL: "by name"}

    @app.action
    def anything() -> Any:
        """A value declared as Any."""
        return [Decimal("1.10"), dt.date(2026, 1, 2)]

    @app.action
    def open_order(session: Annotated[Session, Provided("session")]):  # type: ignore[no-untyped-def]
        """A record, undeclared."""
        order = Order(code="A-1")
        session.add(order)
        session.flush()
        return {"order": order}

    @app.action
    def opaque():  # type: ignore[no-untyped-def]
        """A value no type describes."""
        return Opaque()

    @app.action
    def raw() -> bytes:
        """Bytes that are not UTF-8 text."""
        return b"\xff\x00\x01"

    return app


@pytest.fixture(scope="module")
def app() -> App:
    """The app of undeclared results."""
    return build_app()


def test_an_undeclared_result_reaches_the_caller_as_json(app: App) -> None:
    """Dates, decimals, enums (by name), sets, ids and tuples in an undeclared result are JSON."""
    result = app.actions.run("summary", {}, as_=SYSTEM)
    assert result.done
    assert result.value == {"at": "2026-09-04T14:30:00", "price": "4.50", "rush": "SAME_DAY",
                            "tags": ["a"], "id": str(uuid.UUID(int=1)), "pair": [1, "two"],
                            "NORMAL": "by name"}
    assert app.actions.info("summary").result_schema is None
    assert "2026-09-04T14:30:00" in answer_of(result)


def test_a_result_declared_any_reaches_the_caller_as_json(app: App) -> None:
    """``-> Any`` is no less than no declaration: the value is written by each member's type."""
    result = app.actions.run("anything", {}, as_=SYSTEM)
    assert result.value == ["1.10", "2026-01-02"]
    assert app.actions.info("anything").result_schema is None


def test_an_undeclared_record_is_its_id_and_values(app: App) -> None:
    """A record returned without a declared type is written as a declared one is."""
    result = app.actions.run("open_order", {}, as_=SYSTEM)
    assert result.done, result.problem
    order = result.value["order"]
    assert order["code"] == "A-1"
    assert uuid.UUID(order["id"])


def test_a_value_no_type_describes_is_its_text(app: App) -> None:
    """What pydantic cannot write is given as its text, not dropped."""
    result = app.actions.run("opaque", {}, as_=SYSTEM)
    assert (result.done, result.value) == (True, "an opaque thing")


def test_bytes_that_are_not_text_are_base64(app: App) -> None:
    """A bytes result is written in URL-safe base64, as its schema says, so bytes that are not
    UTF-8 text do not fail the run."""
    result = app.actions.run("raw", {}, as_=SYSTEM)
    assert (result.done, result.value) == (True, "_wAB")
    assert app.actions.info("raw").result_schema == {"format": "base64url", "type": "string"}
