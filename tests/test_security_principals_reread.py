"""Who a run is for is read from the directory at every run, even when the row read is the one
read last time (the principal is then reused, not made again): a change made elsewhere — by
another process, on the same database — is seen at the very next run."""

from __future__ import annotations

from pathlib import Path

from signoff import App, policy
from signoff.actions.results import ActionOutcome


def _apps(tmp_path: Path) -> tuple[App, App]:
    url = f"sqlite:///{tmp_path}/shop.db"
    here, elsewhere = App("shop", database=url), App("shop", database=url)
    for app in (here, elsewhere):

        @app.action("Add two numbers", name="add", authorize=policy.role("clerk"))
        def add(a: int, b: int) -> int:
            """The sum."""
            return a + b

    return here, elsewhere


def test_a_principal_disabled_elsewhere_is_refused_at_the_next_run(tmp_path: Path) -> None:
    here, elsewhere = _apps(tmp_path)
    ann = here.people.add("ann@shop.example", "Ann", roles=["clerk"])
    for _ in range(3):  # read again and again, unchanged
        assert here.actions.run("add", {"a": 1, "b": 2}, as_=ann).outcome is ActionOutcome.DONE
    elsewhere.people.disable(elsewhere.people.get(ann.id))
    refused = here.actions.run("add", {"a": 1, "b": 2}, as_=ann)
    assert refused.outcome is ActionOutcome.DENIED
    assert refused.problem == "Ann is disabled and may not do anything."
    elsewhere.people.enable(elsewhere.people.get(ann.id))
    assert here.actions.run("add", {"a": 1, "b": 2}, as_=ann).outcome is ActionOutcome.DONE


def test_roles_taken_away_elsewhere_are_missed_at_the_next_run(tmp_path: Path) -> None:
    here, elsewhere = _apps(tmp_path)
    ann = here.people.add("ann@shop.example", "Ann", roles=["clerk"])
    assert here.actions.run("add", {"a": 1, "b": 2}, as_=ann).outcome is ActionOutcome.DONE
    elsewhere.people.take_away(elsewhere.people.get(ann.id), "clerk")
    assert here.actions.run("add", {"a": 1, "b": 2}, as_=ann).outcome is ActionOutcome.DENIED
    assert here.people.find_each([ann.id])[ann.id].roles == frozenset()
    elsewhere.people.grant(elsewhere.people.get(ann.id), "clerk")
    assert here.actions.run("add", {"a": 1, "b": 2}, as_=ann).outcome is ActionOutcome.DONE
    assert here.people.find_each([ann.id])[ann.id].roles == frozenset({"clerk"})
