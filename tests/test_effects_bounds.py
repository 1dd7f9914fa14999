"""How far an analysis goes. The examples' ``main()`` — an app's whole demo — were taken to do
anything because the analysis met Python's recursion limit (*"could not follow this code
(RecursionError(…))"*): reading an action's effects (`app.actions.catalog()`, a run) may find
them again, and the analysis followed that call into its own code, written to follow any code,
which nests deeper than Python lets a walk go. The analysis is known to only read, and is not
walked; and a walk that nests too deep stops at a bound of its own, saying so (in the effects and
the log), the same whoever called it, not where Python's stack happened to run out."""

from __future__ import annotations

import importlib.util
import logging
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from examples import bakery, crane, workshop
from signoff.effects import Effects, analyse, analyse_again
from signoff.effects.bounds import DEEPEST


def _found_again(fn: Callable[..., Any]) -> Effects:
    return analyse_again(fn, name="again")


def test_the_effect_analysis_called_by_code_analysed_only_reads() -> None:
    """Code that has an action's effects found (as `signoff.actions` does as they are read) is
    found to only read, without walking the analysis's own code."""
    effects = analyse(_found_again, name="finding")
    assert [e.reason for e in effects.effects] == []
    assert effects.only_reads


def test_the_examples_demos_are_followed_to_what_they_do() -> None:
    """Each example's ``main()``, analysed one after another, is followed into what it runs:
    the records it creates are found, and no effect says the analysis stopped or could not
    follow it."""
    created = {}
    for example in (workshop, bakery, crane):
        effects = analyse(example.main, name="main")
        assert [e.reason for e in effects.effects
                if "could not follow" in e.reason or "stopped" in e.reason] == []
        created[example.__name__] = effects.creates
    assert "Repair" in created["examples.workshop"]
    assert {"Order", "Shelf"} <= created["examples.bakery"]
    assert "Crane" in created["examples.crane"]


def _chain(length: int) -> str:
    """Source of `length` functions, each calling the next; the last fills the list given."""
    made = "\n".join(f"def step_{i}(items: list[str]) -> None:\n    step_{i + 1}(items)\n"
                     for i in range(length - 1))
    return f"{made}\ndef step_{length - 1}(items: list[str]) -> None:\n    items.append('x')\n"


@pytest.fixture
def chains(tmp_path: Path) -> Iterator[ModuleType]:
    """A module of two chains of calls: ``short_0`` 30 deep, ``long_0`` 80 deep."""
    source = _chain(30).replace("step_", "short_") + _chain(80).replace("step_", "long_")
    path = tmp_path / "signoff_test_chains_of_calls.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    yield module
    del sys.modules[spec.name]


def test_a_chain_of_calls_within_the_bound_is_followed(chains: ModuleType) -> None:
    """A function reaching its effect 30 calls deep is followed there: it changes what it is
    given, and nothing else."""
    effects = analyse(chains.short_0, name="short")
    assert {e.kind.value for e in effects.effects} == {"changes"}
    assert [e.reason for e in effects.effects if e.reason] == []


def test_a_chain_of_calls_too_deep_stops_at_the_bound_and_says_so(
        chains: ModuleType, caplog: pytest.LogCaptureFixture) -> None:
    """A function whose calls nest 80 deep is taken to do anything, because its calls nest past
    the bound (named, with the ends of the path), and the log says so — not a RecursionError."""
    with caplog.at_level(logging.WARNING, logger="signoff.effects"):
        effects = analyse(chains.long_0, name="long")
    assert not effects.only_reads
    reasons = {e.reason for e in effects.effects}
    assert reasons == {f"the analysis stopped: the code it reaches calls more than {DEEPEST} "
                       "functions deep (signoff_test_chains_of_calls.long_0 > "
                       "signoff_test_chains_of_calls.long_1 > signoff_test_chains_of_calls.long_2 "
                       "> … > signoff_test_chains_of_calls.long_38 > "
                       "signoff_test_chains_of_calls.long_39 > signoff_test_chains_of_calls.long_40)"}
    assert [r.getMessage() for r in caplog.records] == [
        f"The effects of long could not all be found, so it is taken to do anything: {reason}."
        for reason in reasons]
