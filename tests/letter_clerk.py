"""The clerk of the Temporal tests that post letters: a skill whose one tool is the app's
`post_letter` (each test's own, for how long the post office holds a letter is what it tests),
and the agent posting with it, sponsored by Me."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from signoff import Agent, App, Permits, Skill


def letter_clerk(app: App, post_letter: Any, *, folder: str, me: str, alone: bool) -> SimpleNamespace:
    """Around `app`'s `post_letter` action: Posting, the skill with it as its one tool, and
    Clerk, the agent with that skill, posting `alone` (or proposing each letter), sponsored by
    Me (the person `me`, added the first time); `folder` is where the letters go."""

    class Posting(Skill[None, str]):
        """Post a letter."""

        description = "Post a letter."
        tools = [post_letter]

    class Clerk(Agent):
        """Posts letters, alone or once someone says yes."""

        purpose = "You post letters."
        skills = [Posting()]
        may = Permits(alone=[post_letter]) if alone else Permits()

    person = app.people.find(me) or app.people.add(me, "Me")
    app.add_agent(Clerk, sponsor=person)
    return SimpleNamespace(
        app=app, post_letter=post_letter, Posting=Posting, Clerk=Clerk, me=person, folder=Path(folder)
    )
