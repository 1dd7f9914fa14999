"""A standing rule taken back while a call it let run alone has not yet run lets it run no more:
the call is put to a person, as it would be now (invariant 2: nothing runs alone that no one who
may let it has let).

The race is made certain at the named point ``loop.rule_held`` (`signoff.store.points`): the
step has found the rule to hold, and runs the call under it next. There, another thread takes
the rule back, and its revoke commits. Before, the call ran alone all the same, as the rule's
maker and the agent, and counted a use of a rule already revoked: a person who had just said
"no more" saw it done. Now whoever runs a call under a rule reads the rule in the very
transaction that runs the call (an outside call: the one that marks it running, before it
starts), its row locked on PostgreSQL, so that a revoke is either seen or waits until the call
has run under a rule that stood when it ran.
"""

from __future__ import annotations

import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from pydantic import BaseModel
from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

from signoff import Agent, App, Outcome, Permits, ProposalStatus, Skill, TaskStatus, allow, policy
from signoff.store import points
from signoff.testing import ScriptedModel, says


class Out(BaseModel):
    ok: bool


def _world(database: str, tmp_path: Path) -> SimpleNamespace:
    """An app on `database`: a board anyone reads and the agent (role "bot") changes; an
    idempotent outside action that posts a headline (to a file) and keeps it on the board, and
    a record-only one that keeps it on the board alone; an agent whose declaration proposes
    both; Noor, a manager who supervises agents (and may make rules for everybody)."""
    app = App("rules-taken-back", database=database, key=b"t" * 32)
    app.oversight.supervises_agents = policy.role("manager")
    app.oversight.widens_agent_autonomy = policy.role("manager")
    posted = tmp_path / "posted.txt"

    class Board(app.Record):
        headline: Mapped[str] = mapped_column(String(80), default="")
        __security__ = [allow("read", when=policy.anyone),
                        allow("update", when=policy.role("bot") | policy.role("manager"))]

    @app.action("Publish a headline", idempotent=True)
    def publish(board: Board, text: str) -> str:
        """Post the headline outside (safe to post again), and keep it on the board."""
        with posted.open("a", encoding="utf-8") as file:
            file.write(text + "\n")
        board.headline = text
        return "Published."

    @app.action("Retitle the board")
    def retitle(board: Board, text: str) -> str:
        """Keep the headline on the board."""
        board.headline = text
        return "Retitled."

    class Publish(Skill[Board, Out]):
        description = "Publish the headline."
        tools = [publish, retitle]

        def brief(self, board: Board) -> str:
            return f"The board's id is {board.id}."

    class Publisher(Agent):
        purpose = "You publish headlines."
        skills = [Publish()]
        may = Permits()  # everything proposed, unless a standing rule lets it run alone
        roles = ["bot"]

    noor = app.people.add("noor@rules.example", "Noor", roles=["manager"])
    app.add_agent(Publisher, sponsor=noor)
    with app.session(as_=app.system) as s:
        board = Board()
        s.add(board)
    actions = {"publish": publish, "retitle": retitle}

    def headline() -> str:
        with app.session(as_=app.system) as s:
            found = s.get(Board, board.id)
            assert found is not None
            return found.headline

    def run(tool: str, text: str) -> Outcome:
        model = ScriptedModel(says.tool(actions[tool], board=board.id, text=text),
                              says.hand_back(Out(ok=True)))
        return app.agent(Publisher).do(Publish(), board, for_=noor, model=model)

    def posts() -> list[str]:
        return posted.read_text(encoding="utf-8").splitlines() if posted.exists() else []

    return SimpleNamespace(app=app, Publisher=Publisher, noor=noor, actions=actions,
                           headline=headline, run=run, posts=posts)


@pytest.mark.parametrize("tool", ["publish", "retitle"], ids=["outside", "record-only"])
def test_a_rule_taken_back_before_its_call_runs_lets_it_run_no_more(
        database: str, tmp_path: Path, tool: str) -> None:
    """The rule lets the first task's call run alone (it stands throughout). In the second
    task, it is found to hold, then taken back before the call runs: the call is proposed to
    Noor, saying so, and nothing of it is done — the headline is as the first task left it, nothing more
    was posted, and the rule counts the first task's use alone."""
    world = _world(database, tmp_path)
    rule = world.app.allow_alone(world.Publisher, world.actions[tool], by=world.noor)
    first = world.run(tool, "FIRST")
    assert first.status is TaskStatus.DONE, world.app.receipt(first.task).words
    assert "alone (a standing rule of Noor's let it run alone)" in world.app.receipt(
        first.task).words
    taken_back: list[str] = []

    def take_back(point: str, where: dict[str, Any]) -> None:
        if point != "loop.rule_held" or taken_back:
            return
        taken_back.append(where["rule"])
        # (another thread, as another person's revoke is: its transaction commits first)
        revoking = threading.Thread(target=world.app.revoke, args=(rule,),
                                    kwargs={"by": world.noor, "why": "No more alone."})
        revoking.start()
        revoking.join(timeout=30)
        assert not revoking.is_alive()

    with points.pausing(take_back):
        second = world.run(tool, "SECOND")
    assert taken_back == [rule.id]
    words = world.app.receipt(second.task).words
    assert second.status is TaskStatus.WAITING, words
    (proposal,) = world.app.proposals(task=second.task)
    assert (proposal.action, proposal.status) == (tool, ProposalStatus.WAITING)
    assert (f"Publisher proposed {tool} to Noor, giving no reason. A standing rule of Noor's "
            "would have let it run alone, but was taken back before it ran.") in words, words
    assert f"ran {tool} alone" not in words, words
    assert world.headline() == "FIRST"
    assert world.posts() == (["FIRST"] if tool == "publish" else [])
    (now,) = world.app.rules()
    assert (now.active, now.used) == (False, 1)
    world.app.database.dispose()
