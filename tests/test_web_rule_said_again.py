"""The inbox's page after "approve, and always like this" says the rule that stands, when the
yes gave back a rule its decider had made already (docs/concepts/rules.md: a rule said again is
the rule that stands)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from signoff import ProposalStatus
from tests.test_web_hostile_input import _browser, shop
from tests.workshop_web import price

__all__ = ["shop"]  # (the fixture, used by name)


@pytest.mark.parametrize("database", ["sqlite"], indirect=True)
def test_the_page_after_always_said_again_names_the_rule_that_stands(
        shop: SimpleNamespace) -> None:
    """Noor says "always" to two fleet prices that waited in Mia's work: the second yes gives
    back the rule the first made (it made a twin, which taking the first back left standing),
    and that yes's page says what the rule covers."""
    price(shop, fleet=True)
    price(shop, fleet=True, price=50)
    first, second = sorted(shop.app.proposals(status=ProposalStatus.WAITING),
                           key=lambda p: p.arguments["price"])
    made = shop.app.approve(first, by=shop.noor, always_like_this=True).rule
    again = shop.app.approve(second, by=shop.noor, always_like_this=True).rule
    assert made is not None
    assert again is not None
    assert again.id == made.id
    with _browser(shop, shop.noor) as noor:
        page = noor.get(f"/proposals/{second.id}?rule={again.id}")
    assert 'id="rule-made"' in page.text
