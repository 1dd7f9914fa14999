"""An action may take parameters positional-only (before a ``/``): a caller and a model still
give every value by its parameter's name, and the run passes those by position."""

from __future__ import annotations

from typing import Annotated

import pytest
from sqlalchemy.orm import Session

from signoff import App, Provided
from signoff.actions.results import ActionOutcome
from signoff.security.acting import SYSTEM


@pytest.fixture
def app() -> App:
    """An app with actions whose first parameters are positional-only."""
    app = App("t", database="sqlite://")

    @app.action
    def scale(n: int, by: int = 2, /, plus: int = 0, *, note: str = "") -> str:
        """Plain data: run without a session."""
        return f"{n * by + plus} {note}".strip()

    @app.action
    def counted(session: Annotated[Session, Provided("session")], n: int, /) -> str:
        """A context parameter positional-only too: run in a session."""
        return f"{n} in {type(session).__name__}"

    return app


def test_positional_only_parameters_are_described_by_name(app: App) -> None:
    """The schema names each parameter, positional-only or not, as a member of one object."""
    schema = app.actions.info("scale").parameters_schema
    assert list(schema["properties"]) == ["n", "by", "plus", "note"]
    assert schema["required"] == ["n"]


@pytest.mark.parametrize(("values", "said"), [
    ({"n": 3}, "6"),
    ({"n": 3, "by": 3, "plus": 1, "note": "ok"}, "10 ok"),
    ({"n": 3, "plus": 1}, "7"),
])
def test_positional_only_values_are_given_by_name_and_passed_by_position(
    app: App, values: dict[str, object], said: str
) -> None:
    """Values given by name reach the function in their places; a default left out stays."""
    result = app.actions.run("scale", values, as_=SYSTEM)
    assert (result.outcome, result.said) == (ActionOutcome.DONE, said)


def test_positional_only_values_from_a_models_json(app: App) -> None:
    """A model's tool call, one JSON object by name, runs an action with a ``/``."""
    values = app.actions.values_from_json("scale", '{"n": 5, "by": 10}')
    assert app.actions.run("scale", values, as_=SYSTEM).said == "50"
    assert app.actions.check("scale", {"by": 1}) != ""


def test_a_provided_parameter_may_be_positional_only(app: App) -> None:
    """A context parameter before the ``/`` is filled and passed by position too."""
    result = app.actions.run("counted", {"n": 4}, as_=SYSTEM)
    assert (result.outcome, result.said) == (ActionOutcome.DONE, "4 in RuledSession")


def test_a_positional_only_action_is_still_called_from_python(app: App) -> None:
    """Calling the marked function from Python calls it as it is."""
    scale = app.actions.get("scale").function
    assert scale(2, 5, plus=1) == "11"
