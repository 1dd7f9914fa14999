"""A handle of the kind an agent's account has (``estimator@agents``) is no person's: the app
took whoever had it for that agent's account and gave them the agent's roles, so a person added
under it before the agent's account was made acted as the agent."""

from __future__ import annotations

from pathlib import Path

import pytest

from signoff import Agent, App, Skill
from signoff.exceptions import UserError
from signoff.security.principals import Principal, PrincipalKind


class Estimate(Skill[None, str]):
    """Estimate (no tools: only the agent's account matters here)."""

    description = "Estimate."
    tools = []


class Estimator(Agent):
    """An agent whose account is all that matters here."""

    purpose = "You estimate."
    skills = [Estimate()]
    roles = ["manager"]


def _app(tmp_path: Path) -> App:
    return App("agents", database=f"sqlite:///{tmp_path / 'agents.db'}", key=b"k" * 32)


@pytest.mark.parametrize("handle", ["estimator@agents", "Estimator@AGENTS", "eve@agents"])
def test_no_person_is_added_under_an_agents_handle(tmp_path: Path, handle: str) -> None:
    app = _app(tmp_path)
    with pytest.raises(UserError, match="a handle of the kind an agent's account has"):
        app.people.add(handle, "Eve", roles=["manager"])
    assert app.people.all() == []
    app.add_agent(Estimator)
    account = app.agent(Estimator).registered.account
    assert (account.handle, account.kind, account.name) == (
        "estimator@agents", PrincipalKind.AGENT, "Estimator")
    app.database.dispose()


def test_a_person_already_under_an_agents_handle_is_not_taken_for_its_account(
        tmp_path: Path) -> None:
    """A database from before the refusal, holding a person under the agent's handle: the agent
    is refused in a sentence, the person's roles left as they were."""
    app = _app(tmp_path)
    eve = Principal(id="0f6c8d5e-0000-4000-8000-000000000001", handle="estimator@agents",
                    name="Eve", kind=PrincipalKind.PERSON, roles=frozenset())
    app.people._insert(eve)  # (as an earlier signoff let `people.add` do)
    app.add_agent(Estimator)
    with pytest.raises(UserError, match=r"is a person's \(Eve\)"):
        app.agent(Estimator)
    assert app.people.get("estimator@agents").roles == frozenset()
    app.database.dispose()
