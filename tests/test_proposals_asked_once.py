"""A person says no to a call once (DESIGN "The gate and proposals"; a proposal whose task has
ended is withdrawn): the very same call a task put to them before, and they said no to, is not
put to them again; and a task that stops leaves nothing of it waiting in an inbox.

Asked again after a no, the very same call was put to the person again, their reason unread;
and a call proposed before another of its turn failed the task waited on, its yes running it
for work that had stopped.
"""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace

import pytest
from pydantic import BaseModel
from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

from signoff import (
    Agent,
    AgentRefused,
    App,
    Permits,
    ProposalStatus,
    Skill,
    TaskStatus,
    allow,
    policy,
)
from signoff.inbox import Inbox
from signoff.testing import ScriptedModel, says


class Out(BaseModel):
    ok: bool


def _world(url: str) -> SimpleNamespace:
    """A board whose headline and footer an agent proposes to set, in work for nobody (Noor,
    its sponsor, decides); the skill's `names` fails for a footer when told to."""
    app = App("asked-once", database=url, key=b"a" * 32)
    app.oversight.supervises_agents = policy.role("manager")
    broken = {"names": False}

    class Board(app.Record):
        headline: Mapped[str] = mapped_column(String(80), default="")
        footer: Mapped[str] = mapped_column(String(80), default="")
        __security__ = [allow("read", "update", when=policy.anyone)]

    @app.action("Set the headline")
    def set_headline(board: Board, text: str) -> str:
        """Put a headline on the board."""
        board.headline = text
        return f"Headline: {text}."

    @app.action("Set the footer")
    def set_footer(board: Board, text: str) -> str:
        """Put a footer on the board."""
        board.footer = text
        return "Set."

    class Headline(Skill[Board, Out]):
        description = "Set the headline."
        tools = [set_headline, set_footer]

        def brief(self, board: Board) -> str:
            return f"The board's id is {board.id}."

        def names(self, action: str, argument: str, value: str) -> str:
            if broken["names"] and action == "set_footer":
                raise RuntimeError("the footer's names broke")
            return value

    class Editor(Agent):
        purpose = "You set headlines."
        skills = [Headline()]
        may = Permits()  # everything proposed

    noor = app.people.add("noor@once.example", "Noor", roles=["manager"])
    app.add_agent(Editor, sponsor=noor)
    with app.session(as_=app.system) as s:
        board = Board()
        s.add(board)

    def do(script: ScriptedModel) -> str:
        return app.agent(Editor).do(Headline(), board, model=script).task

    def headline() -> str:
        with app.session(as_=app.system) as s:
            found = s.get(Board, board.id)
            assert found is not None
            return found.headline

    return SimpleNamespace(app=app, set_headline=set_headline, set_footer=set_footer,
                           noor=noor, board=board, do=do, broken=broken, headline=headline)


@pytest.fixture
def world(database: str) -> Iterator[SimpleNamespace]:
    made = _world(database)
    yield made
    made.app.database.dispose()


def _told(script: ScriptedModel, turn: int) -> list[str]:
    return [m.text for m in script.seen.messages[turn] if m.role == "tool"]


@pytest.mark.parametrize("database", ["sqlite"], indirect=True)
def test_the_same_call_asked_again_after_a_no_is_not_put_to_the_person_again(
        world: SimpleNamespace) -> None:
    """Noor says no; the agent asks the very same again: it is told her no, and nothing waits
    on her; another headline is put to her."""
    app, w = world.app, world
    script = ScriptedModel(
        says.tool(w.set_headline, board=w.board.id, text="Closed"),
        says.tool(w.set_headline, board=w.board.id, text="Closed"),
        says.tool(w.set_headline, board=w.board.id, text="Closed for lunch"),
        says.hand_back(Out(ok=True)),
    )
    task = w.do(script)
    app.reject(app.proposals(task=task)[0], by=w.noor, reason="We are open.")
    assert _told(script, 2)[-1:] == [
        "Noor already said no to set_headline with these very arguments: We are open. It was "
        "not put to them again: propose something else, or go on without it."]
    waiting = Inbox(app).proposals(w.noor).items
    assert [p.shown["text"] for p in waiting] == ["Closed for lunch"]


@pytest.mark.parametrize("database", ["sqlite"], indirect=True)
def test_a_call_proposed_before_its_turn_failed_the_task_is_withdrawn(
        world: SimpleNamespace) -> None:
    """The headline is proposed; the footer of the same turn fails the task (the skill's
    `names` raised): the headline no longer waits in Noor's inbox, and her yes runs nothing."""
    app, w = world.app, world
    w.broken["names"] = True
    task = w.do(ScriptedModel(
        says.tools(says.tool(w.set_headline, board=w.board.id, text="Sale"),
                   says.tool(w.set_footer, board=w.board.id, text="Today")),
        says.hand_back(Out(ok=True)),
    ))
    assert app.outcome(task).status is TaskStatus.FAILED
    assert Inbox(app).proposals(w.noor).items == []
    headline = app.proposals(task=task)[0]
    assert headline.status is ProposalStatus.WITHDRAWN
    with pytest.raises(AgentRefused):
        app.approve(headline, by=w.noor)
    assert w.headline() == ""
    said = [e.words for e in app.receipt(task).entries if e.kind == "decision"]
    assert said == ["set_headline was withdrawn: its task stopped before anyone decided it "
                    "(Headline.names or version_of raised RuntimeError: the footer's names "
                    "broke, so set_footer could not be put to anyone (who decides it, or how "
                    "it reads, is not known). Nothing was proposed, and the task stops; the "
                    "app's log has the traceback)."]
