"""What the provenance tests of pages share: an office app whose clerk agent fetches a web page
(outside content) and may grant access alone (`Permits.everything()`), so that only a label
holds a grant a page steered."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel
from sqlalchemy import String
from sqlalchemy.orm import Mapped, Session, mapped_column

from signoff import Agent, App, Permits, Provided, Skill, allow, policy


def office_app(tmp: Path, pages: Mapping[str, str]) -> tuple[App, Any, Any, Any, Any]:
    """The app (its database in `tmp`), its Clerk agent, skill and request type, and (Olive,
    the owner; the `fetch` action, which gives `pages` by name; the `grant` action; the
    `Granted` record it adds)."""
    app = App("office", database=f"sqlite:///{tmp / 'office.db'}")

    class Granted(app.Record):  # type: ignore[name-defined, misc]
        user: Mapped[str] = mapped_column(String(80))
        __security__ = [allow("read", "create", when=policy.role("clerk"))]

    @app.action("Fetch a page", query=True, untrusted=True)
    def fetch(name: str) -> str:
        """A web page, as the server sent it."""
        return pages[name]

    @app.action("Grant access")
    def grant(user: str, session: Annotated[Session, Provided("session")]) -> str:
        """Give a user access."""
        session.add(Granted(user=user))
        return f"Granted {user}."

    class Request(BaseModel):
        text: str

    class HandlePage(Skill[Request, str]):
        description = "Do what the page needs."
        tools = [fetch, grant]

        def brief(self, subject: Request) -> str:
            return subject.text

    class Clerk(Agent):
        purpose = "You handle pages."
        skills = [HandlePage()]
        may = Permits.everything()
        roles = ["clerk"]

    olive = app.people.add("olive@office.example", "Olive", roles=["owner"])
    app.add_agent(Clerk, sponsor=olive)
    return app, Clerk, HandlePage, Request, (olive, fetch, grant, Granted)
