"""The counter of the tracing tests: an app in memory whose agent, the counter, has one tool,
`count`, that each test declares as it needs it."""

from __future__ import annotations

from typing import Any

from signoff import Agent, App, Permits, Skill


class Counting(Skill[None, int]):
    """Count."""

    description = "Count."


class Counter(Agent):
    """Counts."""

    purpose = "You count."
    skills = [Counting()]
    may = Permits.everything()


def counting(app: App, count: Any) -> Any:
    """`app` with `count` (its action) the counter's one tool, and the counter working for Me:
    the app, Me as its `me` and the tool as its `count`."""
    Counting.tools = [count]
    me = app.people.add("me@counting.example", "Me")
    app.add_agent(Counter, sponsor=me)
    app.me, app.count = me, count  # type: ignore[attr-defined]
    return app
