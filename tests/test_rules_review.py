"""Standing rules hold only while they could be made, and after a crash as much as before
(DESIGN "Standing rules"; invariant 2: nothing runs alone that no one who may let it has let).

A rule stands for its maker's yes to every call of its tool: it lets a call run alone only while
its maker could still make it (they still widen agents' autonomy, supervise for a rule for
everybody, may run the action, and the skill's route lets them say yes to it), and an outside
call cut off by a crash under a rule runs again only as it would run now. A crash is a forked
child SIGKILLing itself at a named point (`signoff.store.points`), as in test_guarantees.
"""

from __future__ import annotations

import functools
import operator
import os
import signal
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from pydantic import BaseModel
from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

from signoff import (
    Agent,
    AgentRefused,
    App,
    Outcome,
    Permits,
    ProposalStatus,
    Route,
    Skill,
    TaskStatus,
    allow,
    policy,
)
from signoff.security.principals import Principal
from signoff.store import points
from signoff.testing import ScriptedModel, says


class Out(BaseModel):
    ok: bool


def _world(tmp_path: Path, *, updates: tuple[str, ...] = ("bot", "editor")) -> SimpleNamespace:
    """An app on a SQLite file: a board whose headline the roles `updates` may change; an
    idempotent outside action that posts a headline (to a file) and keeps it on the board,
    which only editors and the agent may run; an agent (role "bot") whose declaration proposes
    it; Noor and Sam, managers who supervise agents (only managers make rules), and Ola, an
    editor. The skill routes `publish` to whoever `route["to"]` names (None: not routed)."""
    app = App("rules-review", database=f"sqlite:///{tmp_path / 'rules.db'}", key=b"r" * 32)
    manager = policy.role("manager")
    app.oversight.supervises_agents = manager
    app.oversight.widens_agent_autonomy = manager | policy.role("editor")
    posted = tmp_path / "posted.txt"
    route: dict[str, Principal | None] = {"to": None}

    class Board(app.Record):
        headline: Mapped[str] = mapped_column(String(80), default="")
        __security__ = [allow("read", when=policy.anyone),
                        allow("update", when=functools.reduce(
                            operator.or_, (policy.role(r) for r in updates)))]

    @app.action("Publish a headline", idempotent=True,
                authorize=policy.role("editor") | policy.role("bot"))
    def publish(board: Board, text: str) -> str:
        """Post the headline outside (safe to post again), and keep it on the board."""
        with posted.open("a", encoding="utf-8") as file:
            file.write(text + "\n")
        board.headline = text
        return "Published."

    class Publish(Skill[Board, Out]):
        description = "Publish the headline."
        tools = [publish]

        def brief(self, board: Board) -> str:
            return f"The board's id is {board.id}."

        def decided_by(self, action: str) -> Route | None:
            to = route["to"]
            return Route.to_person(to) if to is not None and action == "publish" else None

    class Publisher(Agent):
        purpose = "You publish headlines."
        skills = [Publish()]
        may = Permits()  # everything proposed, unless a standing rule lets it run alone
        roles = ["bot"]

    noor = app.people.add("noor@rules.example", "Noor", roles=["manager", "editor"])
    sam = app.people.add("sam@rules.example", "Sam", roles=["manager", "editor"])
    ola = app.people.add("ola@rules.example", "Ola", roles=["editor"])
    app.add_agent(Publisher, sponsor=noor)
    with app.session(as_=app.system) as s:
        board = Board()
        s.add(board)

    def headline() -> str:
        with app.session(as_=app.system) as s:
            found = s.get(Board, board.id)
            assert found is not None
            return found.headline

    def lines() -> list[str]:
        return posted.read_text(encoding="utf-8").splitlines() if posted.exists() else []

    def run(text: str, for_: Principal) -> Outcome:
        model = ScriptedModel(says.tool(publish, board=board.id, text=text),
                              says.hand_back(Out(ok=True)))
        return app.agent(Publisher).do(Publish(), board, for_=for_, model=model)

    return SimpleNamespace(app=app, Board=Board, board=board, publish=publish, Publish=Publish,
                           Publisher=Publisher, noor=noor, sam=sam, ola=ola, route=route,
                           headline=headline, lines=lines, run=run)


def _crashed_while_running(world: SimpleNamespace, text: str, for_: Principal) -> str:
    """Start the task in a forked child that SIGKILLs itself once `publish` is marked running
    (before it runs); the task's id (the newest)."""
    world.app.database.dispose()  # no pooled connection crosses the fork
    pid = os.fork()
    if pid == 0:  # the child: it dies with the call marked running
        def die(reached: str, _where: dict[str, Any]) -> None:
            if reached == "loop.call_marked":
                os.kill(os.getpid(), signal.SIGKILL)

        try:
            with points.pausing(die):
                world.run(text, for_)
        finally:
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == -signal.SIGKILL
    with world.app.database.connect() as db:
        return str(db.exec_driver_sql(
            "SELECT id FROM signoff_tasks ORDER BY created_at DESC LIMIT 1").scalar_one())


def _resumed(world: SimpleNamespace, task: str) -> Outcome:
    return world.app.agent(world.Publisher).resume(
        task, model=ScriptedModel(says.hand_back(Out(ok=True))))


# -- after a crash ---------------------------------------------------------------------------


def test_a_call_cut_off_under_a_rule_since_revoked_is_proposed_not_run_alone(
        tmp_path: Path) -> None:
    """An idempotent outside call a standing rule let run alone is cut off by a crash; its
    rule is revoked; the task goes on: the call does not run again alone (as the agent, with
    no rule), but is put to a person, as it would be now."""
    world = _world(tmp_path)
    rule = world.app.allow_alone("publisher", world.publish, by=world.noor, for_everybody=True)
    task = _crashed_while_running(world, "CUT OFF", world.noor)
    world.app.revoke(rule.id, by=world.noor, why="No more headlines alone.")
    outcome = _resumed(world, task)
    assert outcome.status is TaskStatus.WAITING, world.app.receipt(task).words
    assert (world.headline(), world.lines()) == ("", [])
    (proposal,) = world.app.proposals(task=task)
    assert (proposal.action, proposal.status) == ("publish", ProposalStatus.WAITING)
    words = world.app.receipt(task).words
    assert "The work stopped while publish ran, before its outcome was recorded." in words
    assert "Publisher proposed publish to Noor" in words
    assert "ran publish alone" not in words
    world.app.database.dispose()


def test_a_call_cut_off_under_a_rule_that_holds_runs_again_as_its_maker_and_the_agent(
        tmp_path: Path) -> None:
    """Cut off under a rule that still holds, the call runs again under it, as the rule's
    maker and the agent together (as it did before the crash), not as the agent alone: only
    the agent may change the board, so it is Denied, as an uninterrupted run is."""
    world = _world(tmp_path, updates=("bot",))
    world.app.allow_alone("publisher", world.publish, by=world.noor, for_everybody=True)
    control = world.run("control", world.noor)
    assert "as Noor and itself: Denied" in world.app.receipt(control.task).words
    task = _crashed_while_running(world, "CUT OFF", world.noor)
    _resumed(world, task)
    words = world.app.receipt(task).words
    assert ("Publisher did not run publish alone (a standing rule of Noor's let it run alone), "
            "as Noor and itself: Denied — Noor may not change Board") in words, words
    assert "as itself: Done" not in words
    assert world.headline() == ""
    world.app.database.dispose()


# -- a rule's maker who could no longer make it --------------------------------------------


def _no_manager(world: SimpleNamespace) -> None:
    world.app.people.set_roles(world.noor, ["editor"])


def _disabled(world: SimpleNamespace) -> None:
    world.app.people.disable(world.noor)


def _no_editor(world: SimpleNamespace) -> None:
    world.app.people.set_roles(world.noor, ["manager"])


@pytest.mark.parametrize(("lost", "why"), [
    (_no_manager, "Only a supervisor may let Publisher run publish alone for everybody."),
    (_disabled, "Noor's account is disabled, and a disabled account lets nothing run."),
    (_no_editor, "Noor may not publish a headline, so Noor cannot let Publisher do it alone."),
], ids=["no longer a supervisor", "disabled", "may no longer run the action"])
def test_a_rule_whose_maker_could_no_longer_make_it_lets_nothing_run_alone(
        tmp_path: Path, lost: Callable[[SimpleNamespace], None], why: str) -> None:
    """A rule for everybody made by a supervisor who has since lost what making it takes (the
    supervisor's role, their account, the right to run the action) no longer lets the call
    run alone: it is proposed, and the receipt says which rule no longer holds, and why."""
    world = _world(tmp_path)
    world.app.allow_alone("publisher", world.publish, by=world.noor, for_everybody=True)
    lost(world)
    outcome = world.run("Hello", world.ola)
    assert outcome.status is TaskStatus.WAITING
    assert (world.headline(), world.lines()) == ("", [])
    words = world.app.receipt(outcome.task).words
    assert ("Publisher proposed publish to Ola, giving no reason. A standing rule of Noor's "
            f"would have let it run alone, but no longer holds: {why}") in words, words
    (rule,) = world.app.rules()
    assert rule.used == 0
    world.app.database.dispose()


def test_a_rule_in_anothers_work_lapses_when_its_maker_may_no_longer_decide_there(
        tmp_path: Path) -> None:
    """Noor, a supervisor, says "always" to a call in Ola's work: the rule covers Ola's work.
    Once Noor is a supervisor no more, she may not decide Ola's proposals, and her rule there
    lets nothing run alone (it went on running Ola's calls alone, as Noor and the agent)."""
    world = _world(tmp_path)
    first = world.run("First", world.ola)
    (proposal,) = world.app.proposals(task=first.task)
    assert world.app.approve(proposal, by=world.noor, always_like_this=True).rule is not None
    assert world.run("Alone", world.ola).status is TaskStatus.DONE  # while it holds
    _no_manager(world)
    outcome = world.run("Later", world.ola)
    assert outcome.status is TaskStatus.WAITING
    assert world.headline() == "Alone"
    assert ("would have let it run alone, but no longer holds: it covers another's work, whose "
            "proposals Noor may no longer decide (only the person it is for, or a supervisor, "
            "may).") in world.app.receipt(outcome.task).words
    world.app.database.dispose()


def test_a_rule_lapses_when_its_maker_may_no_longer_decide_agents_proposals(
        tmp_path: Path) -> None:
    """Ola says "always" to a call in her own work, then the app's oversight no longer lets her
    decide agents' proposals: her rule lets nothing run alone (it did), and she may make no
    other."""
    world = _world(tmp_path)
    first = world.run("First", world.ola)
    (proposal,) = world.app.proposals(task=first.task)
    assert world.app.approve(proposal, by=world.ola, always_like_this=True).rule is not None
    world.app.oversight.decides_agent_proposals = policy.role("manager")
    outcome = world.run("Later", world.ola)
    assert outcome.status is TaskStatus.WAITING
    assert world.headline() == "First"
    said = "Ola may not decide agents' proposals, so Ola cannot let Publisher run publish alone"
    assert said in world.app.receipt(outcome.task).words
    with pytest.raises(AgentRefused, match=said):
        world.app.allow_alone("publisher", world.publish, by=world.ola)
    world.app.database.dispose()


def test_an_agents_own_account_makes_no_rule(tmp_path: Path) -> None:
    """An agent's account that holds a role that widens what agents do alone still makes no
    standing rule (it made one): rules stand for a person's yes."""
    world = _world(tmp_path)
    account = world.app.agent(world.Publisher).registered.account
    account = world.app.people.set_roles(account, ["bot", "editor"])
    with pytest.raises(AgentRefused, match="Publisher is an agent's own account, and agents "
                                           "never let agents do more on their own"):
        world.app.allow_alone("publisher", world.publish, by=account)
    assert world.app.rules() == []
    world.app.database.dispose()


def test_a_rule_made_before_the_skill_routed_its_tool_elsewhere_no_longer_holds(
        tmp_path: Path) -> None:
    """Ola's rule for her own work, made before the skill routed `publish` to Noor, no longer
    lets it run alone once the route exists (Ola could not make it now): the call is put to
    Noor."""
    world = _world(tmp_path)
    world.app.allow_alone("publisher", world.publish, by=world.ola)
    world.route["to"] = world.noor
    outcome = world.run("Hello", world.ola)
    assert outcome.status is TaskStatus.WAITING
    assert outcome.waiting_on == ("a decision from Noor",)
    assert world.headline() == ""
    assert ("publish's proposals in publish are decided by Noor, as the skill routes them: Ola "
            "may not let Publisher run it alone.") in world.app.receipt(outcome.task).words
    world.route["to"] = None  # the route gone again, the rule holds again
    again = world.run("Again", world.ola)
    assert again.status is TaskStatus.DONE
    assert world.headline() == "Again"
    world.app.database.dispose()


def test_a_rule_that_holds_is_used_when_an_older_one_no_longer_does(tmp_path: Path) -> None:
    """Of two rules that match, the older no longer holds (its maker lost the supervisor's
    role) and the newer does: the call runs alone under the newer, as its maker and the
    agent."""
    world = _world(tmp_path)
    world.app.allow_alone("publisher", world.publish, by=world.noor, for_everybody=True)
    world.app.allow_alone("publisher", world.publish, by=world.sam, for_everybody=True)
    _no_manager(world)
    outcome = world.run("Hello", world.ola)
    assert outcome.status is TaskStatus.DONE
    assert world.headline() == "Hello"
    assert ("Publisher ran publish alone (a standing rule of Sam's let it run alone), as Sam "
            "and itself: Done.") in world.app.receipt(outcome.task).words
    assert [(r.made_by, r.used) for r in world.app.rules()] == [
        (world.noor.id, 0), (world.sam.id, 1)]
    world.app.database.dispose()
