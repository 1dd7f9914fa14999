"""An app built, analysed and dropped is let go: the analysis keeps nothing that names an app's
objects past the analysis that found it. Its process-wide cache kept summaries keyed by each
app's functions, whose globals and closures hold the app, so a test suite that builds an app per
test grew by thousands of objects per app, without bound."""

from __future__ import annotations

import gc
import runpy
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import pytest
from sqlalchemy import String, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from signoff import App, Provided
from signoff.effects import analyse

TheSession = Annotated[Session, Provided("session")]
WORKSHOP = Path(__file__).resolve().parents[1] / "examples" / "workshop.py"


def describe(thing: Any) -> str:  # (unannotated: summarised for each app's record class)
    return str(thing.title).strip()


def _shop() -> list[object]:
    """An app as a test suite builds one per test (its records and actions made anew): the app,
    its record class and an action's function."""
    app = App("shop", database="sqlite://")

    class LentBike(app.Record):  # type: ignore[name-defined,misc]
        title: Mapped[str] = mapped_column(String(40), default="")

    def titled(session: Session, title: str) -> list[Any]:
        return list(session.scalars(select(LentBike).where(LentBike.title == title)))

    @app.action
    def find(session: TheSession, title: str) -> list[str]:
        """Find bikes by title."""
        return [describe(bike) for bike in titled(session, title)]

    @app.action
    def lend(session: TheSession, title: str) -> str:
        """Lend a bike."""
        bike = LentBike(title=title)
        session.add(bike)
        return describe(bike)

    assert app.actions.info("lend").effects.effects  # (analysed as it was registered)
    return [app, LentBike, lend]


def _workshop() -> list[object]:
    """The workshop example, loaded from its file afresh (as ``--app examples/workshop.py``):
    the app and its actions' functions. (Not its record class: its skill's ``Skill[Repair,
    Estimate]`` is kept by typing's own cache of subscripted generics, of the last 128.)"""
    made = runpy.run_path(str(WORKSHOP), run_name="workshop_again")
    for info in made["app"].actions.catalog():
        assert info.effects is not None
    return [made["app"], made["note_repair"], made["set_price"], made["parts_for"]]


@pytest.mark.parametrize("build", [_shop, _workshop], ids=["made in a function", "the workshop"])
def test_apps_built_and_dropped_are_let_go(build: Callable[[], list[object]]) -> None:
    """Twenty apps built (their actions' effects found as they registered) and dropped: none
    of them, nor their record classes or actions' functions, is alive after a collection; one
    built after them is analysed as before."""
    dropped = [[weakref.ref(each) for each in build()] for _ in range(20)]
    gc.collect()
    alive = [repr(ref()) for refs in dropped for ref in refs if ref() is not None]
    assert not alive, f"{len(alive)} still alive, such as {alive[:3]}"

    app, _, _ = _shop()
    assert isinstance(app, App)
    assert {(e.kind.value, e.target) for e in app.actions.info("lend").effects.effects} >= {
        ("creates", "LentBike")}


def test_a_function_analysed_and_dropped_is_let_go() -> None:
    """A function analysed on its own (`analyse`), then dropped, is let go with what it held."""

    class Held:
        pass

    def made() -> Callable[[], str]:
        held = Held()

        def show() -> str:
            return describe(held)

        return show

    shown = [made() for _ in range(20)]
    for fn in shown:
        analyse(fn, name="show")
    dropped = [weakref.ref(fn) for fn in shown]
    del shown, fn
    gc.collect()
    assert not any(ref() is not None for ref in dropped)
