"""A model's tool call whose arguments are not one plain JSON object is told what to write
instead, and a value it gave is never dropped without a word."""

from __future__ import annotations

import pytest

from signoff import App, Invalid


@pytest.fixture
def app() -> App:
    """An app with an action taking nothing and one taking a number."""
    app = App("t", database="sqlite://")

    @app.action
    def ping() -> str:
        """Takes nothing."""
        return "pong"

    @app.action
    def count(n: int) -> str:
        """Takes a number."""
        return str(n)

    return app


@pytest.mark.parametrize(("action", "written", "told"), [
    ("ping", "", "The arguments are empty: give one JSON object, with a member per parameter "
                 "({} when there is none to give)."),
    ("ping", "  \n", "The arguments are empty: give one JSON object, with a member per "
                     "parameter ({} when there is none to give)."),
    ("count", '"{\\"n\\": 1}"', "The arguments must be one JSON object, with a member per "
                                "parameter: this is one written as text (in quotes); write the "
                                "object itself."),
    ("count", '{"n": 1, "n": 2}', "The arguments give “n” twice in one object: give each "
                                  "member once, with the one value meant."),
    ("count", '{"n": {"a": 1, "a": 2}}', "The arguments give “a” twice in one object: give "
                                         "each member once, with the one value meant."),
])
def test_arguments_that_are_not_one_plain_object_are_told_what_to_write(
    app: App, action: str, written: str, told: str
) -> None:
    """Each is Invalid with a sentence that says what to write instead."""
    with pytest.raises(Invalid) as refused:
        app.actions.values_from_json(action, written)
    assert refused.value.message == told
