"""A function that cannot be offered by name is refused at registration with a sentence that
says what to write instead, and never one that asks for what Python cannot do."""

from __future__ import annotations

import warnings
from typing import Annotated, Any

import pytest
from pydantic import Field

from signoff import App, UserError
from signoff.security.acting import SYSTEM


def _star(*things: str) -> str:
    return ", ".join(things)


def _star_star(**things: str) -> str:
    return ", ".join(things)


def _keyword(class_: Annotated[str, Field(alias="class")]) -> str:
    return class_


def _union(n: int | str) -> str:
    return str(n)


def _optional_union(n: int | str | None = None) -> str:
    return str(n)


@pytest.mark.parametrize(("fn", "says"), [
    (_star, r"parameter things: \*args and \*\*kwargs cannot be offered by name .*give each "
            r"value it takes a parameter of its own, or take them together as one structure "
            r"\(`things: dict\[str, str\]`"),
    (_star_star, r"parameter things: .*`things: dict\[str, str\]`"),
    (_keyword, r"parameter class_: .*alias \('class'\), and 'class' is a Python keyword, which "
               r"no parameter can be named: take the alias out of its Field, and say how it "
               r"reads with a label: `class_: Annotated\[\.\.\., Label\('Class'\)\]`"),
    (_union, r"parameter n: it takes a value of one of several types \(int \| str\).*take one "
             r"type \(an Enum or a Literal for one of several choices\), or give the union as "
             r"a field of a pydantic model"),
    (_optional_union, r"parameter n: it takes a value of one of several types"),
])
def test_what_cannot_be_offered_is_refused_with_what_to_write(fn: Any, says: str) -> None:
    """Each refusal names the parameter and a fix that can be written."""
    app = App("t", database="sqlite://")
    with pytest.raises(UserError, match=says) as refused:
        app.actions.register(fn)
    assert "name the parameter class." not in str(refused.value)


def _wrong_default(n: int = "five") -> str:  # type: ignore[assignment]  # (the point)
    return str(n)


def test_a_default_the_parameter_would_refuse_is_refused_at_registration() -> None:
    """A default not of its parameter's type would be offered in the schema to a caller who
    may not give it: refused, naming it."""
    app = App("t", database="sqlite://")
    with pytest.raises(UserError, match=r"parameter n: its default 'five' is not an integer, "
                                        r"which the parameter takes.*Make the default a value"):
        app.actions.register(_wrong_default)


_NOT_GIVEN = object()
"""An app's own marker for "left out"."""


def _marked(n: int = _NOT_GIVEN) -> str:  # type: ignore[assignment]  # (the point)
    return "left out" if n is _NOT_GIVEN else str(n)


def test_a_default_no_json_writes_is_given_as_itself_and_not_shown() -> None:
    """A sentinel default registers without a warning: the schema shows no default, and the
    action is given the sentinel itself when the value is left out."""
    app = App("t", database="sqlite://")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        app.actions.register(_marked)
    schema = app.actions.info("_marked").parameters_schema
    assert schema["properties"]["n"] == {"title": "N", "type": "integer"}
    assert "required" not in schema
    assert app.actions.run("_marked", {}, as_=SYSTEM).said == "left out"
    assert app.actions.run("_marked", {"n": 3}, as_=SYSTEM).said == "3"
