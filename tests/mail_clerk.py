"""The mail clerk the provenance tests run: an agent that may do everything (so that only the
labels of what it read can put a call to a person), with one skill whose subject is the
request's text, its brief, over the tools a test gives it; Olive, whose work it is."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from signoff import Agent, App, Permits, Skill


class Request(BaseModel):
    """What the clerk is asked, in words."""

    text: str


def mail_clerk(app: App, tools: list[Any]) -> tuple[type[Agent], type[Skill[Any, Any]], Any]:
    """The clerk agent of `app` with its skill over `tools`, added with Olive (an owner) as its
    sponsor: the agent, the skill and Olive."""

    class HandleMail(Skill[Request, str]):
        description = "Handle the mail."

        def brief(self, subject: Request) -> str:
            return subject.text

    HandleMail.tools = tools

    class Clerk(Agent):
        purpose = "You handle mail."
        skills = [HandleMail()]
        may = Permits.everything()
        roles = ["clerk"]

    olive = app.people.add("olive@office.example", "Olive", roles=["owner"])
    app.add_agent(Clerk, sponsor=olive)
    return Clerk, HandleMail, olive
