"""The workshop example (what users copy) refuses a negative price in its own words: `set_price`
of -5 ran ("T-7 costs -5."), by name or by an agent's proposal someone said yes to."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from signoff import ActionOutcome, ProposalStatus
from tests.workshop_web import open_workshop, price, repair_price

SAID = "A price cannot be negative, and -5 is: give what the repair costs, 0 or more."


def test_a_negative_price_is_refused_by_name_in_the_workshops_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run by name as Noor (who may set prices), -5 is Invalid with the workshop's sentence, and
    T-7's price is as it was; 0 and 45 are set."""
    shop = open_workshop(tmp_path, monkeypatch)
    result = shop.app.actions.run("set_price", {"repair": shop.repair, "price": Decimal(-5)}, as_=shop.noor)
    assert (result.outcome, result.problem) == (ActionOutcome.INVALID, SAID)
    assert repair_price(shop) == 0
    for fine in (Decimal(0), Decimal(45)):
        done = shop.app.actions.run("set_price", {"repair": shop.repair, "price": fine}, as_=shop.noor)
        assert done.outcome is ActionOutcome.DONE, done.problem
    assert repair_price(shop) == 45


def test_a_yes_to_a_negative_price_proposed_does_not_set_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The estimator proposes -5; Noor's yes does not set it: the decision says the workshop's
    sentence, and the price is as it was."""
    shop = open_workshop(tmp_path, monkeypatch)
    (proposal,) = shop.app.proposals(task=price(shop, price=-5).task)
    decision = shop.app.approve(proposal, by=shop.noor)
    assert decision.status is not ProposalStatus.DONE
    assert SAID in decision.said
    assert repair_price(shop) == 0
