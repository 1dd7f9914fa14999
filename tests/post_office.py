"""The post office the tests of outside calls share: an agent who posts one letter with the app's
`post_letter` action (what the action does — a line of a file, a copy filed, a wait — is each
test's own), sponsored by Noor, and a model that posts "hello" and hands back."""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from pydantic import BaseModel

from signoff import Agent, App, Permits, Skill
from signoff.security.principals import Principal
from signoff.testing import ScriptedModel, says


class Report(BaseModel):
    summary: str


def postie(app: App, post_letter: Callable[..., Any], may: Permits,
           noor: Principal | None = None) -> SimpleNamespace:
    """The postie of `app` (Noor, its sponsor, added unless given), allowed `may`: its class,
    its skill, Noor, and a model that asks for one letter and hands back."""
    class Post(Skill[None, Report]):
        description = "Post a letter."
        tools = [post_letter]

        def brief(self, subject: None) -> str:
            return "Post one letter."

    class Postie(Agent):
        purpose = "You post letters."
        skills = [Post()]

    Postie.may = may
    noor = noor or app.people.add("noor@post.example", "Noor")
    app.add_agent(Postie, sponsor=noor)
    model = ScriptedModel(says.tool(post_letter, text="hello"),
                          says.hand_back(Report(summary="Posted.")))
    return SimpleNamespace(agent=Postie, skill=Post(), noor=noor, model=model)
