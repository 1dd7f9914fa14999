"""An action's effects are the same whatever the process analysed before it. Library code's
summaries are kept for the process's life, and where a walk meets a recursion (SQLAlchemy's
relationship properties reading their memoized attributes, which read others) the path it kept
for each effect was the first it met, so it depended on where the recursion was first entered:
`examples.workshop.setup` analysed after `examples.bakery.setup` told nine of its effects by
other paths (and raises by others) than analysed alone. And the code of a package installed
among the libraries was kept as a library's when another package's action reached it first, and
used so after an action of that package (an app installed with ``pip install .``) made it the
app's: the names its code resolved (what tells that an action's effects must be found again)
were left out. A function asking the class of a class (``type(cls)``) could not be followed
once a module compiled by Cython was loaded (SQLAlchemy's are), whose metaclass's
``__module__`` is a descriptor, not a name: it was taken to do anything."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import inflection
import pytest

from examples import bakery, crane, workshop
from signoff.effects import analyse, raises
from signoff.effects.analyser import clear_caches, forget_summaries


def _told(fn: Callable[..., Any], name: str) -> tuple[list[str], list[str]]:
    return (sorted(repr(e) for e in analyse(fn, name=name).effects),
            sorted(repr(r) for r in raises(fn, name=name)))


@pytest.mark.parametrize(("before", "after"), [
    (bakery.setup, workshop.setup),
    (workshop.setup, bakery.setup),
], ids=["bakery-then-workshop", "workshop-then-bakery"])
def test_an_action_analysed_after_another_tells_what_it_tells_alone(
        before: Callable[..., Any], after: Callable[..., Any]) -> None:
    """What a function's analysis tells (each effect with its path, each raise with its path)
    does not depend on which function the process analysed first."""
    forget_summaries()
    alone = _told(after, "after")
    forget_summaries()
    _told(before, "before")
    assert _told(after, "after") == alone


def test_the_examples_tell_the_same_analysed_in_either_order() -> None:
    """The examples' apps' set-ups and an action of one, analysed one after another in one
    process, tell the same as analysed in the reverse order."""
    functions = [(f"{fn.__module__}.{fn.__qualname__}", fn) for fn in (
        bakery.setup, crane.setup, workshop.setup, workshop.revise)]
    forget_summaries()
    forward = {name: _told(fn, name) for name, fn in functions}
    forget_summaries()
    backward = {name: _told(fn, name) for name, fn in reversed(functions)}
    assert [name for name, _ in functions if forward[name] != backward[name]] == []


def _reaching_an_installed_package() -> str:
    return inflection.underscore("DeskLamp")


def _of_an_installed_app() -> str:
    return inflection.underscore("DeskLamp")


_of_an_installed_app.__module__ = "inflection"  # (an action of an app installed as a package)


def test_an_installed_apps_code_reached_before_its_action_is_found_again_as_the_apps() -> None:
    """An action of a package installed among the libraries resolves the same names in that
    package's code whether or not another package's action reached that code before it."""
    try:
        clear_caches()
        alone = analyse(_of_an_installed_app, name="lamp").resolved
        clear_caches()
        analyse(_reaching_an_installed_package, name="reach")
        after = analyse(_of_an_installed_app, name="lamp").resolved
        assert sorted(b.where for b in after) == sorted(b.where for b in alone)
        assert "inflection.re" in {b.where for b in alone}
    finally:
        clear_caches()  # (the package is no app's for the tests after)


def _kind_of_a_class(cls: type) -> str:
    return type(cls).__name__


def test_the_class_of_a_class_is_followed_beside_an_extensions_metaclass() -> None:
    """``type(cls)`` of any class is followed (and only reads) though a metaclass of an
    extension's, whose ``__module__`` is no name, is among the classes it may give."""
    effects = analyse(_kind_of_a_class, name="kind")
    assert [e.reason for e in effects.effects] == []
    assert effects.only_reads
