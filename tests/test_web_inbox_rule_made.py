"""After "Approve, and always like this" the proposal's page says what standing rule the yes
made and how to take it back, linking to that rule on the Rules page, where its Revoke is; once
it is taken back, the page says so. Driven by Debian's Chromium against a real server.

Before, the page said the rule's words and "Rules lists it, with revoke." (a link to the top of
the Rules page), and still said "A standing rule now says: …" of a rule taken back since.
"""

from __future__ import annotations

import re
from types import SimpleNamespace

from playwright.sync_api import Page, expect

from tests.test_web_inbox import _log_in, page, shop
from tests.workshop_web import price

__all__ = ["page", "shop"]  # (the fixtures, used by name)

COVERS = ("from now on estimator runs set_price alone, without proposing it, in "
          "price_fleet_repair, in work for Mia — with any values")


def test_the_page_after_always_says_how_to_take_the_rule_back_and_that_it_was(
        shop: SimpleNamespace, page: Page) -> None:
    """Noor approves the fleet price always: the page names the rule in words and says to take
    it back with Revoke on the Rules page, its link leading to that rule's row; she revokes it
    there, and the same page then says the rule was taken back."""
    price(shop, fleet=True)
    _log_in(page, shop, "noor@workshop.example")
    page.locator("#proposals").get_by_role("link", name="Set the price").click()
    page.locator("#approve-always").click()
    expect(page.locator("#status")).to_have_text("Done")
    expect(page.locator("#rule-made")).to_have_text(
        f"A standing rule now says: {COVERS}. Take it back with Revoke on the Rules page.")
    decided = page.url
    (rule,) = shop.app.rules()

    page.locator("#rule-made").get_by_role("link", name="Rules page").click()
    expect(page).to_have_url(re.compile(rf"/rules#rule-{rule.id}$"))
    row = page.locator(f"#rule-{rule.id}")
    expect(row.locator(".covers")).to_have_text(f"{COVERS[:1].upper()}{COVERS[1:]}.")
    row.get_by_placeholder("Why (optional)").fill("Prices went up.")
    row.get_by_role("button", name="Revoke").click()
    expect(page.locator("#rules")).to_contain_text("revoked: Prices went up.")

    page.goto(decided)
    expect(page.locator("#rule-made")).to_have_text(
        f"The standing rule this yes gave ({COVERS}) has been taken back since, as the Rules "
        "page shows.")
