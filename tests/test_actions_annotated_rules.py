"""What ``Annotated`` adds to a parameter for pydantic (``Field(le=10)``, a validator) is part of
the action: its schema shows it, every call is checked by it, and a refusal is told in its
words. Declarations signoff cannot honour are refused when the action is registered."""

from __future__ import annotations

import json
from typing import Annotated

import pytest
from pydantic import AfterValidator, Field
from typing_extensions import TypedDict

from signoff import App, Label, UserError
from signoff.actions import ActionOutcome
from signoff.security.acting import SYSTEM


def _not_bad(text: str) -> str:
    if text == "bad":
        raise ValueError("“bad” is a word this shop does not print")
    return text


class Address(TypedDict):
    """Where a parcel goes."""

    street: str


def build_app() -> App:
    """An app whose actions carry pydantic rules in their parameters' annotations."""
    app = App("t", database="sqlite://")

    @app.action
    def count(n: Annotated[int, Field(ge=0, le=10, description="How many, at most ten")]) -> int:
        """A bounded integer."""
        return n

    @app.action
    def print_word(word: Annotated[str, Field(max_length=12), AfterValidator(_not_bad)]) -> str:
        """A word checked by the app's own validator."""
        return word

    @app.action
    def maybe_count(n: Annotated[int, Field(ge=0), Label("How many")] | None = None) -> str:
        """An optional bounded integer, its rules and label inside the ``| None``."""
        return str(n)

    @app.action
    def weigh(kilos: float) -> float:
        """A float."""
        return kilos

    @app.action
    def send_to(address: Address) -> str:
        """A TypedDict."""
        return address["street"]

    return app


@pytest.fixture(scope="module")
def app() -> App:
    """The app of annotated rules."""
    return build_app()


def _run(app: App, name: str, values: dict[str, object]) -> tuple[ActionOutcome, str]:
    result = app.actions.run_json(name, json.dumps(values), as_=SYSTEM)
    return result.outcome, result.problem


def test_field_constraints_are_in_the_schema(app: App) -> None:
    """The bounds and description of ``Field(...)`` in ``Annotated`` reach the JSON Schema."""
    shown = app.actions.info("count").parameters_schema["properties"]["n"]
    assert shown["minimum"] == 0
    assert shown["maximum"] == 10
    assert shown["description"] == "How many, at most ten"
    assert app.actions.info("print_word").parameters_schema["properties"]["word"][
        "maxLength"] == 12


@pytest.mark.parametrize(("name", "values", "problem"), [
    ("count", {"n": 50}, "N: input should be less than or equal to 10 — 50 is not."),
    ("count", {"n": -1}, "N: input should be greater than or equal to 0 — -1 is not."),
    ("print_word", {"word": "bad"},
     "Word: “bad” is a word this shop does not print — “bad” is not."),
    ("print_word", {"word": "a" * 13},
     "Word: string should have at most 12 characters — “aaaaaaaaaaaaa” is not."),
    ("maybe_count", {"n": -3}, "How many: input should be greater than or equal to 0 — -3 is not."),
])
def test_a_value_the_rules_refuse_is_invalid_in_their_words(
    app: App, name: str, values: dict[str, object], problem: str
) -> None:
    """A value of the right kind that a declared rule refuses does not run, and the reason is
    the rule's, not a claim that the value is of the wrong kind."""
    assert _run(app, name, values) == (ActionOutcome.INVALID, problem)
    assert app.actions.check(name, values) == problem


def test_values_the_rules_accept_run(app: App) -> None:
    """Within the rules, the calls run as declared."""
    assert app.actions.run("count", {"n": 10}, as_=SYSTEM).value == 10
    assert app.actions.run("print_word", {"word": "good"}, as_=SYSTEM).said == "good"
    assert app.actions.run("maybe_count", {}, as_=SYSTEM).said == "None"
    assert app.actions.run("maybe_count", {"n": None}, as_=SYSTEM).said == "None"


def test_annotated_inside_optional_keeps_its_label(app: App) -> None:
    """``Annotated[int, Label(...)] | None`` is offered, labelled as it says."""
    (n,) = app.actions.info("maybe_count").parameters
    assert (n.label, n.optional, n.nullable) == ("How many", True, True)
    assert app.actions.info("maybe_count").parameters_schema["properties"]["n"]["title"] == (
        "How many")


@pytest.mark.parametrize("given", ["NaN", "nan", "Infinity", "-inf"])
def test_a_float_written_as_nan_or_infinity_text_is_refused(app: App, given: str) -> None:
    """"NaN" as text is refused as the bare NaN of JSON is: no number JSON keeps."""
    outcome, problem = _run(app, "weigh", {"kilos": given})
    assert outcome is ActionOutcome.INVALID
    assert problem.startswith("Kilos is a number, like 4.50 — “")


def test_a_member_a_structure_does_not_take_is_named_as_its_own(app: App) -> None:
    """An extra member inside a TypedDict is told as that member, not as an unknown parameter."""
    assert _run(app, "send_to", {"address": {"street": "Main", "town": "X"}}) == (
        ActionOutcome.INVALID, "Address, at town: there is no such member; leave it out.")


def test_an_aliased_parameter_is_refused_at_registration() -> None:
    """A value is given by its parameter's name: an alias in its Field is refused up front."""
    app = App("t", database="sqlite://")

    def count(n: Annotated[int, Field(alias="how_many")]) -> int:
        return n

    with pytest.raises(UserError, match=r"parameter n: .*alias \('how_many'\)"):
        app.actions.register(count)


@pytest.mark.parametrize("name", ["model_config", "model_extra", "model_dump"])
def test_a_parameter_named_as_pydantic_keeps_for_itself_is_refused(name: str) -> None:
    """A parameter pydantic's model would drop or reject (``model_config``) is refused as a
    misdeclaration, in signoff's words, not registered to be refused at every call."""
    app = App("t", database="sqlite://")
    namespace: dict[str, object] = {}
    exec(f"def act({name}: str) -> str:\n    return {name}\n", namespace)
    with pytest.raises(UserError, match=rf"parameter {name}: the name is one pydantic"):
        app.actions.register(namespace["act"])  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["json", "copy", "schema", "dict"])
def test_a_parameter_named_as_a_model_attribute_runs_without_a_warning(name: str) -> None:
    """``json`` or ``copy`` is a fine parameter name: registered without a warning (tests run
    with warnings as errors), and its value reaches the action."""
    app = App("t", database="sqlite://")
    namespace: dict[str, object] = {}
    exec(f"def act({name}: str) -> str:\n    return {name}\n", namespace)
    app.actions.register(namespace["act"])  # type: ignore[arg-type]
    assert app.actions.run("act", {name: "hi"}, as_=SYSTEM).said == "hi"
