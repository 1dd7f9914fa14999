"""The models signoff makes of an app's action — its parameters' model, the mirror of a
structure that takes its enums by name — are the app's, as the action is: the effect analysis of
signoff's own code (the MCP guard passing on an upstream's answer, which may hold any model of
signoff's) does not count them. Counted as signoff's, an app's structures that hold each other
made every guarded tool of the process "run code the analysis cannot see" (a mirror's validator
is a partial), and its calls a transaction longer."""

from __future__ import annotations

from signoff.effects.pydantic_models import every_app_model
from tests.test_actions_recursive_structures import build_app


def test_an_actions_models_are_of_its_module_and_not_counted_for_signoffs_code() -> None:
    app = build_app([])
    pack = app.actions.get("pack").model
    assert pack.__module__ == build_app.__module__
    made = [m for m in every_app_model("signoff.mcp.guard")
            if m.__name__ in ("Pack", "Build", "Order", "Box", "Part")]
    assert made == [], [(m.__name__, m.__module__) for m in made]
