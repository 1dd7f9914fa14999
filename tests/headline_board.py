"""The headline board of the tests of proposals, standing rules and the inbox's attention: a
board whose headline an editor agent proposes to set."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from pydantic import BaseModel
from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

from signoff import Agent, App, Outcome, Permits, Skill, allow, policy
from signoff.testing import ScriptedModel, says


class Out(BaseModel):
    """What the editor hands back."""

    ok: bool


def headline_board(app: App) -> SimpleNamespace:
    """Declared on `app`: Board (a record whose headline anyone may read and change),
    `set_headline`, the Headline skill with it, and Editor, an agent with that skill proposing
    every call (unless a standing rule lets it run alone). The test adds the agent, its sponsor
    and a board."""

    class Board(app.Record):  # type: ignore[name-defined, misc]
        headline: Mapped[str] = mapped_column(String(80), default="")
        __security__ = [allow("read", "update", when=policy.anyone)]

    @app.action("Set the headline")
    def set_headline(board: Board, text: str) -> str:
        """Put a headline on the board."""
        board.headline = text
        return "Set."

    class Headline(Skill[Board, Out]):
        description = "Set the headline."
        tools = [set_headline]

        def brief(self, board: Board) -> str:
            return f"The board's id is {board.id}."

    class Editor(Agent):
        purpose = "You set headlines."
        skills = [Headline()]
        may = Permits()  # everything proposed, unless a standing rule lets it run alone

    return SimpleNamespace(Board=Board, set_headline=set_headline, Headline=Headline, Editor=Editor)


def headline_task(app: App, parts: SimpleNamespace, board: Any, text: str, **do: Any) -> Outcome:
    """The editor's task of setting `board`'s headline to `text` (`do`: more of what the task
    is given, such as whom it is for)."""
    model = ScriptedModel(
        says.tool(parts.set_headline, board=board.id, text=text), says.hand_back(Out(ok=True))
    )
    return app.agent(parts.Editor).do(parts.Headline(), board, model=model, **do)
