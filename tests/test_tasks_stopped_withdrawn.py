"""A proposal withdrawn with its task, or ruled out since, is told as withdrawn when a person
decides it afterwards, not as decided.

Before, a yes to a proposal of a task a person had stopped was refused with "This proposal was
already decided (Withdrawn)": nobody had decided it, and nothing said that its task had been
stopped, or by whom.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from signoff import Permits, ProposalStatus, TaskStatus
from signoff.cli import main
from signoff.exceptions import AgentRefused
from tests.deadlines_app import build, runs, script

AT = r" at \d{4}-\d\d-\d\d \d\d:\d\d UTC"
STOPPED = (rf"This proposal was withdrawn{AT}, not decided: its task stopped before anyone "
           r"decided it \(Mia stopped it: The customer took the bike back\), and it can no "
           r"longer be decided\. If what it asked is still wanted, ask for the work again\.")


def test_a_yes_or_a_no_to_a_proposal_of_a_stopped_task_is_told_that_it_was_stopped(
        database: str) -> None:
    """Noor's yes, and her no, to what Mia's stopped task proposed: each refused, saying it was
    withdrawn when the task was stopped, by whom and why; nothing runs."""
    shop = build(database)
    try:
        outcome = shop.app.agent(shop.Clerk).do(shop.PriceTicket(), None, for_=shop.mia,
                                                model=script(shop))
        assert outcome.status is TaskStatus.WAITING
        (proposal,) = shop.app.proposals(task=outcome.task)
        shop.app.stop(outcome.task, by=shop.mia, reason="The customer took the bike back.")

        for decide in (lambda: shop.app.approve(proposal, by=shop.noor),
                       lambda: shop.app.reject(proposal, by=shop.noor, reason="Too dear.")):
            with pytest.raises(AgentRefused) as refused:
                decide()
            assert re.fullmatch(STOPPED, str(refused.value)), str(refused.value)
            assert "already decided" not in str(refused.value)
        assert shop.app.proposal(proposal).status is ProposalStatus.WITHDRAWN
        assert runs(shop) == 0
    finally:
        shop.app.database.dispose()


def test_the_command_tells_a_yes_to_a_stopped_tasks_proposal_that_it_was_stopped(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`signoff approve` of a proposal of a task stopped with `signoff stop`: exit 1, the
    sentence saying it was withdrawn when Mia stopped the task, without "Error: already
    decided"."""
    url = f"sqlite:///{tmp_path / 'stop.db'}"
    shop = build(url)
    try:
        outcome = shop.app.agent(shop.Clerk).do(shop.PriceTicket(), None, for_=shop.mia,
                                                model=script(shop))
        (proposal,) = shop.app.proposals(task=outcome.task)
        mias, noors = (shop.app.credentials.issue_token(p, label="stop")
                       for p in (shop.mia, shop.noor))
    finally:
        shop.app.database.dispose()
    monkeypatch.setenv("DEADLINES_DATABASE", url)
    app = f"{Path(__file__).parent / 'deadlines_app.py'}:app"
    stopped = CliRunner().invoke(main, ["stop", outcome.task, "--reason",
                                        "The customer took the bike back.", "--app", app,
                                        "--token", mias])
    assert stopped.exit_code == 0, stopped.output
    approved = CliRunner().invoke(main, ["approve", proposal.id, "--app", app, "--token", noors])
    assert approved.exit_code == 1, approved.output
    said = " ".join(approved.output.split())
    assert re.search(STOPPED, said), said
    assert "already decided" not in said


def test_a_second_yes_to_a_proposal_ruled_out_since_says_the_declaration_withdrew_it(
        database: str) -> None:
    """A proposal whose tool the declaration has since ruled out is withdrawn at the first
    yes; a second yes is told why, not that it was decided."""
    shop = build(database)
    try:
        outcome = shop.app.agent(shop.Clerk).do(shop.PriceTicket(), None, for_=shop.mia,
                                                model=script(shop))
        (proposal,) = shop.app.proposals(task=outcome.task)
        shop.Clerk.may = Permits(never=[shop.set_price])
        assert shop.app.approve(proposal, by=shop.noor).status is ProposalStatus.WITHDRAWN
        with pytest.raises(AgentRefused) as refused:
            shop.app.approve(proposal, by=shop.noor)
        assert re.fullmatch(rf"This proposal was withdrawn{AT}, not decided: the agent's "
                            r"declaration no longer lets it use set_price, whoever says yes\.",
                            str(refused.value)), str(refused.value)
        assert runs(shop) == 0
    finally:
        shop.app.database.dispose()
