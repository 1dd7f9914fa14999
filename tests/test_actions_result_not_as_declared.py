"""An action that returns what its return annotation does not declare has still done its work:
its caller is told what it truly returned, and the app's log, not a raw pydantic warning, tells
the developer that the declaration was broken."""

from __future__ import annotations

import enum
import logging
import warnings
from decimal import Decimal

import pytest

from signoff import App
from signoff.actions.results import ActionOutcome
from signoff.agents.calling import answer_of
from signoff.security.acting import SYSTEM


class Rush(enum.Enum):
    """How soon."""

    NORMAL = "Normal"
    SAME_DAY = "Same day"


@pytest.fixture
def app() -> App:
    """An app whose actions break their return annotations, and one that keeps it."""
    app = App("t", database="sqlite://")

    @app.action
    def count() -> int:
        """Says it counts; writes text."""
        return "three"  # type: ignore[return-value]  # (the point)

    @app.action
    def numbers() -> list[int]:
        """A list with one member that is no number."""
        return [1, "two", 3]  # type: ignore[list-item]  # (the point)

    @app.action
    def rush() -> Rush:
        """An enum declared; its value returned."""
        return "Same day"  # type: ignore[return-value]  # (the point)

    @app.action
    def rush_or_text() -> Rush | str:
        """A union whose second member is what it returns."""
        return "later"

    @app.action
    def price() -> Decimal:
        """Keeps its declaration."""
        return Decimal("4.50")

    return app


@pytest.mark.parametrize(("action", "value", "where"), [
    ("count", "three", "Where it expected int, it found 'three' (str)."),
    ("numbers", [1, "two", 3], "Where it expected int, it found 'two' (str)."),
    ("rush", "Same day", "Where it expected Rush, it found 'Same day' (str)."),
])
def test_a_result_not_as_declared_is_told_as_it_is_and_logged(
    app: App, caplog: pytest.LogCaptureFixture, action: str, value: object, where: str
) -> None:
    """The run is Done with the value it returned; the log names the action, the annotation
    and what was wrong; no warning is raised. (An action that keeps its declaration, or returns
    a later member of a union it declares, is told by it, and logs nothing.)"""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with caplog.at_level(logging.WARNING, logger="signoff.actions"):
            result = app.actions.run(action, {}, as_=SYSTEM)
            assert app.actions.run("price", {}, as_=SYSTEM).value == "4.50"
            assert app.actions.run("rush_or_text", {}, as_=SYSTEM).value == "later"
    assert result.outcome is ActionOutcome.DONE
    assert result.value == value
    assert answer_of(result) in (value, str(value).replace("'", '"'))
    (record,) = [r for r in caplog.records if r.name == "signoff.actions"]
    assert record.levelno == logging.WARNING
    assert f"Action {action} returned" in record.getMessage()
    assert "is not what its return annotation" in record.getMessage()
    assert record.getMessage().endswith(where)
    assert "Pydantic" not in record.getMessage()
