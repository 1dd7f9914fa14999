"""A person's inbox asks them only what they can still decide (DESIGN "The gate and proposals":
a proposal whose tool the declaration has since ruled out does not run, whoever says yes).

An open inbox polled a stamp that was the newest waiting proposal's id alone: one older,
decided by another supervisor, stayed listed as waiting until the person reloaded. And a
proposal whose tool the agent's declaration had since ruled out, or of an agent whose own
account was disabled, was shown "Still fresh" with its Approve buttons, though no yes could run
it.
"""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace

import pytest

from signoff import App, Outcome, Permits, ProposalStatus, policy
from signoff.inbox import Inbox
from tests.headline_board import headline_board, headline_task


def _world(url: str) -> SimpleNamespace:
    """A board whose headline an agent proposes to set, in work for nobody: Noor and Kai
    supervise agents (both see and decide every proposal)."""
    app = App("inbox-attention", database=url, key=b"a" * 32)
    app.oversight.supervises_agents = policy.role("manager")
    parts = headline_board(app)
    noor = app.people.add("noor@attention.example", "Noor", roles=["manager"])
    kai = app.people.add("kai@attention.example", "Kai", roles=["manager"])
    app.add_agent(parts.Editor, sponsor=noor)
    with app.session(as_=app.system) as s:
        board = parts.Board()
        s.add(board)

    def propose(text: str) -> Outcome:
        return headline_task(app, parts, board, text)

    return SimpleNamespace(app=app, set_headline=parts.set_headline, noor=noor, kai=kai,
                           propose=propose, Editor=parts.Editor)


@pytest.fixture
def world(database: str) -> Iterator[SimpleNamespace]:
    made = _world(database)
    yield made
    made.app.database.dispose()


@pytest.mark.parametrize("database", ["sqlite"], indirect=True)
def test_an_open_inbox_is_told_when_an_older_proposal_is_decided_elsewhere(
        world: SimpleNamespace) -> None:
    """Kai decides the older of two proposals waiting: the stamp Noor's open inbox polls
    changes (her page reloads, and no longer lists it as waiting); nothing changing, it does
    not; nothing waiting, it is empty."""
    app, inbox = world.app, Inbox(world.app)
    older = world.propose("First").task
    world.propose("Second")
    before = inbox.stamp(world.noor)
    assert before
    assert inbox.stamp(world.noor) == before
    app.reject(app.proposals(task=older)[0], by=world.kai, reason="Not this one.")
    after = inbox.stamp(world.noor)
    assert after != before
    assert [p.shown["text"] for p in inbox.proposals(world.noor).items] == ["Second"]
    app.reject(inbox.proposals(world.noor).items[0], by=world.kai, reason="Nor this.")
    assert inbox.stamp(world.noor) == ""


@pytest.mark.parametrize("database", ["sqlite"], indirect=True)
def test_a_proposal_whose_tool_was_ruled_out_since_is_not_shown_fresh(
        world: SimpleNamespace) -> None:
    """The declaration now says never: the inbox says a yes will not run it (not "still
    fresh"), and a yes withdraws it, as it says."""
    app, inbox = world.app, Inbox(world.app)
    task = world.propose("Ruled out").task
    proposal = app.proposals(task=task)[0]
    assert inbox.freshness(proposal).fresh
    world.Editor.may = Permits(never=[world.set_headline])
    fresh = inbox.freshness(proposal)
    assert not fresh.fresh
    assert fresh.words == ("Editor's declaration no longer lets it use set_headline here: this "
                           "will not run, whoever says yes; a yes withdraws it, and the agent "
                           "is told.")
    assert app.approve(proposal, by=world.noor).status is ProposalStatus.WITHDRAWN


@pytest.mark.parametrize("database", ["sqlite"], indirect=True)
def test_a_proposal_of_an_agent_whose_account_is_disabled_is_not_shown_fresh(
        world: SimpleNamespace) -> None:
    """The agent's own account is disabled: the inbox says a yes will not run it while it
    is; enabled again, it is fresh, and a yes runs it."""
    app, inbox = world.app, Inbox(world.app)
    proposal = app.proposals(task=world.propose("Paused").task)[0]
    account = app.agent(world.Editor).account
    app.people.disable(account)
    fresh = inbox.freshness(proposal)
    assert not fresh.fresh
    assert fresh.words == ("Editor's own account is disabled: a yes will not run this while "
                           "it is. Say no, or have the account enabled first.")
    app.people.enable(account)
    assert inbox.freshness(proposal).fresh
    assert app.approve(proposal, by=world.noor).status is ProposalStatus.DONE
