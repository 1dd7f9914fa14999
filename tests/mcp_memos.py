"""An app for the MCP tests whose memos only the boss (and the keeper agent, a helper) may read:
served for a clerk, who may read none of them. Its data lives where ``MEMOS_DATABASE`` says."""

from __future__ import annotations

import os

from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

from signoff import Agent, App, Permits, Skill, allow, policy

app = App("memos", database=os.environ.get("MEMOS_DATABASE", "sqlite://"))
is_boss = policy.role("boss")
is_helper = policy.role("helper")


class Memo(app.Record):  # type: ignore[name-defined, misc]
    """A memo: the boss's, and the agent's to keep."""

    title: Mapped[str] = mapped_column(String(80))
    __security__ = [
        allow("read", "update", when=is_boss | is_helper),
        allow("create", when=is_boss),
    ]


@app.action("Read a memo", query=True)
def read_memo(memo: Memo) -> str:
    """A memo's title."""
    return memo.title


@app.action("Retitle a memo")
def retitle(memo: Memo, title: str) -> str:
    """Give a memo another title."""
    memo.title = title
    return f"Now {title}."


class KeepMemos(Skill[None, str]):
    """Keep the memos."""

    description = "Keep the memos."
    tools = [read_memo, retitle]

    def brief(self, subject: None) -> str:
        return ""


class Keeper(Agent):
    """Keeps memos."""

    purpose = "You keep memos."
    skills = [KeepMemos()]
    may = Permits()
    roles = ["helper"]


app.add_agent(Keeper, sponsor="boss@memos.example")


def setup() -> dict[str, object]:
    """The boss, a clerk (who may read no memo), and the boss's memo "Layoffs"."""
    boss = app.people.add("boss@memos.example", "Bo", roles=["boss"])
    clerk = app.people.add("clerk@memos.example", "Cy", roles=["clerk"])
    with app.session(as_=boss) as s:
        memo = Memo(title="Layoffs")
        s.add(memo)
    return {"boss": boss, "clerk": clerk, "memo": memo}
