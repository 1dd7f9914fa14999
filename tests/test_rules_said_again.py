"""A standing rule said again is the rule that stands, not a twin of it: taking it back takes it
back (DESIGN "Standing rules": `revoke` takes it back from the next step on; invariant 2).

Ola's "always" to each of two proposals that waited made two rules alike; revoking the one the
inbox showed her left the other, and the agent went on running the tool alone.
"""

from __future__ import annotations

import threading
from types import SimpleNamespace
from typing import Any

import pytest

from signoff import App, Outcome, TaskStatus, policy
from signoff.security.principals import Principal
from tests.guarantees_app import Pauses, in_thread, joined
from tests.headline_board import headline_board, headline_task


def _world(url: str) -> SimpleNamespace:
    """A board whose headline an agent proposes to set; Noor supervises agents, Ola edits."""
    app = App("rules-again", database=url, key=b"a" * 32)
    app.oversight.supervises_agents = policy.role("manager")
    app.oversight.widens_agent_autonomy = policy.role("manager") | policy.role("editor")
    parts = headline_board(app)
    noor = app.people.add("noor@again.example", "Noor", roles=["manager"])
    ola = app.people.add("ola@again.example", "Ola", roles=["editor"])
    app.add_agent(parts.Editor, sponsor=noor)
    with app.session(as_=app.system) as s:
        board = parts.Board()
        s.add(board)

    def run(text: str, for_: Principal) -> Outcome:
        return headline_task(app, parts, board, text, for_=for_)

    return SimpleNamespace(app=app, set_headline=parts.set_headline, noor=noor, ola=ola, run=run,
                           board=board, Headline=parts.Headline, Editor=parts.Editor)


@pytest.fixture
def world(database: str) -> Any:
    made = _world(database)
    yield made
    made.app.database.dispose()


@pytest.mark.parametrize("database", ["sqlite"], indirect=True)
def test_always_said_to_two_waiting_proposals_makes_one_rule_and_revoking_it_ends_it(
        world: SimpleNamespace) -> None:
    """Ola says "always" to each of two proposals that waited: both decisions give one rule,
    and once she takes it back the next call is proposed (it ran alone, under the twin)."""
    first, second = world.run("A", world.ola), world.run("B", world.ola)
    rules = [world.app.approve(p, by=world.ola, always_like_this=True).rule
             for p in (*world.app.proposals(task=first.task),
                       *world.app.proposals(task=second.task))]
    assert None not in rules
    assert rules[0].id == rules[1].id
    assert [r.id for r in world.app.rules(active_only=True)] == [rules[0].id]
    world.app.revoke(rules[0], by=world.ola, why="Ask me again.")
    assert world.run("C", world.ola).status is TaskStatus.WAITING


@pytest.mark.parametrize("database", ["sqlite"], indirect=True)
def test_a_rule_said_again_by_its_maker_is_given_back_and_anothers_stands_apart(
        world: SimpleNamespace) -> None:
    """The same rule made twice by Noor is one rule; Ola's for her own work, and Noor's for
    her own (not everybody's), are rules of their own: each holds while its maker could make
    it, and each is taken back alone."""
    made = world.app.allow_alone("editor", world.set_headline, by=world.noor,
                                 for_everybody=True)
    again = world.app.allow_alone("editor", world.set_headline, by=world.noor,
                                  for_everybody=True)
    olas = world.app.allow_alone("editor", world.set_headline, by=world.ola)
    own = world.app.allow_alone("editor", world.set_headline, by=world.noor)
    assert again == made
    assert len({made.id, olas.id, own.id}) == 3
    world.app.revoke(made, by=world.noor)
    remade = world.app.allow_alone("editor", world.set_headline, by=world.noor,
                                   for_everybody=True)
    assert remade.id != made.id  # (a rule taken back is not given back)
    assert remade.active


@pytest.mark.parametrize("database", ["sqlite", "postgres"], indirect=True)
def test_a_rule_said_twice_at_once_is_one_rule(world: SimpleNamespace) -> None:
    """Two "always" by Noor at the same moment (two inbox tabs): the second waits for the
    first, and finds its rule — neither looks for a twin before the other has kept its own."""
    looked, second_done = threading.Event(), threading.Event()

    def hold_first(_where: dict[str, Any]) -> None:
        looked.set()
        second_done.wait(2)  # (the second is held out until the first ends, where it is fixed)

    def make() -> Any:
        return world.app.allow_alone("editor", world.set_headline, by=world.noor,
                                     for_everybody=True)

    def second() -> Any:
        looked.wait(30)
        try:
            return make()
        finally:
            second_done.set()

    pauses = Pauses()
    pauses.at("one", "rules.looked", hold_first)
    with pauses.armed():
        one, two = joined(in_thread("one", make), in_thread("two", second))
    assert one.id == two.id
    assert [r.id for r in world.app.rules()] == [one.id]


def test_a_yes_that_ran_stands_when_the_rule_it_asked_for_cannot_be_made(tmp_path: Any) -> None:
    """The decider's right to make a rule lost while the call ran (a policy that reads what
    changes): the yes that ran is Done and says why no rule was made, and the task goes on."""
    world = _world(f"sqlite:///{tmp_path / 'lost.db'}")
    asked: list[Any] = []
    world.app.oversight.widens_agent_autonomy = policy.where(
        lambda p, _r: asked.append(p) is None and len(asked) == 1, "changes its mind")
    outcome = world.run("A", world.ola)
    (proposal,) = world.app.proposals(task=outcome.task)
    decision = world.app.approve(proposal, by=world.ola, always_like_this=True)
    assert decision.rule is None
    assert "No standing rule was made: " in decision.said
    assert "one follows only a yes that ran" not in decision.said  # (it ran: why, in words)
    assert world.app.outcome(outcome.task).status is TaskStatus.DONE
    assert world.app.rules() == []
    world.app.database.dispose()
