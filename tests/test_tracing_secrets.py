"""Secrets on spans (signoff.agents.tracing): with content exported, a value an action or a skill's
result declares secret (a pydantic `SecretStr`) is ``***`` on every span, the rest as it was."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import BaseModel, SecretStr

from signoff import Agent, App, Permits, Skill, TaskStatus
from signoff.agents.tracing import CAPTURE_CONTENT
from signoff.testing import ScriptedModel, says
from tests.spans_in_memory import traced_in_memory

PASSWORD = "hunter2-correct-horse"
TOKEN = "tok-9f8e7d6c5b4a"


class Login(BaseModel):
    """A user's login to a supplier's site."""

    user: str
    password: SecretStr
    backup: SecretStr | None = None


class Account(BaseModel):
    """An account made, with its API token."""

    name: str
    token: SecretStr


class Opening(Skill[None, Account]):
    """Open an account."""

    description = "Open an account at a supplier."


class Opener(Agent):
    """Opens accounts."""

    purpose = "You open accounts."
    skills = [Opening()]
    may = Permits.everything()


@pytest.fixture
def opener(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """An app in memory whose opener logs in with `sign_in` (it reads) to open an account."""
    monkeypatch.delenv(CAPTURE_CONTENT, raising=False)
    app = App("opening", database="sqlite://")

    @app.action("Sign in", query=True)
    def sign_in(logins: list[Login], site: str) -> str:
        """Sign in at a supplier's site."""
        return f"Signed in at {site} as {logins[0].user}."

    Opening.tools = [sign_in]
    me = app.people.add("me@opening.example", "Me")
    app.add_agent(Opener, sponsor=me)
    app.me, app.sign_in = me, sign_in
    yield app
    app.database.dispose()


def test_secret_arguments_and_results_are_hidden_on_every_span(opener: Any) -> None:
    """The password in a call's arguments and the token in the result handed back are ``***``
    on the tool calls' and the model calls' spans; the user, the site and the name are kept."""
    memory = traced_in_memory(opener, include_content=True)
    script = ScriptedModel(
        says.tool(opener.sign_in, logins=[{"user": "bob", "password": PASSWORD,
                                           "backup": PASSWORD}], site="parts.example"),
        says.hand_back(Account(name="bob at parts", token=SecretStr(TOKEN))),
    )
    outcome = opener.agent(Opener).do(Opening(), None, for_=opener.me, model=script, budget_usd=1)
    assert outcome.status is TaskStatus.DONE
    spans = memory.get_finished_spans()
    exported = json.dumps([[dict(s.attributes or {}), [dict(e.attributes or {}) for e in s.events]]
                           for s in spans])
    assert PASSWORD not in exported
    assert TOKEN not in exported
    (call,) = [s for s in spans if s.name == "execute_tool sign_in"]
    assert json.loads(str((call.attributes or {})["gen_ai.tool.call.arguments"])) == {
        "logins": [{"user": "bob", "password": "***", "backup": "***"}], "site": "parts.example"}
    (handed,) = [s for s in spans if s.name == "execute_tool hand_back"]
    assert json.loads(str((handed.attributes or {})["gen_ai.tool.call.arguments"])) == {
        "name": "bob at parts", "token": "***"}
    chats = [s for s in spans if s.name == "chat scripted"]
    assert "parts.example" in str((chats[0].attributes or {})["gen_ai.output.messages"])
    assert "bob at parts" in str((chats[1].attributes or {})["gen_ai.output.messages"])
