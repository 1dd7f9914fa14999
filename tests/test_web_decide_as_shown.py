"""What runs is what the page showed when the person decided, driven by Debian's Chromium against
a real server: a value changed in the form is never dropped by pressing the other Approve, and a
double-click, a second tab or the back button decides nothing twice."""

from __future__ import annotations

import re
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace

import pytest
from playwright.sync_api import Browser, Page, expect

from signoff import ProposalStatus
from signoff.web import create_web_app
from tests.workshop_web import PASSWORD, open_workshop, price, repair_price, served


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SimpleNamespace]:
    """The workshop served on 127.0.0.1; a price of 45 waits for Mia, whom Noor supervises."""
    shop = open_workshop(tmp_path, monkeypatch, passwords=True)
    price(shop)
    (shop.proposal,) = shop.app.proposals()
    web = create_web_app(shop.app, secure_cookies=False, refresh_seconds=60)
    with served(web) as port:
        shop.url = f"http://127.0.0.1:{port}"
        shop.page_url = f"{shop.url}/proposals/{shop.proposal.id}"
        yield shop
    shop.app.database.dispose()


@pytest.fixture
def page(browser: Browser, shop: SimpleNamespace) -> Iterator[Page]:
    """Noor, logged in, on the proposal's page."""
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.goto(f"{shop.url}/login")
    page.get_by_label("E-mail address").fill("noor@workshop.example")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page).to_have_url(f"{shop.url}/")
    page.goto(shop.page_url)
    yield page
    context.close()


@pytest.mark.parametrize("button", ["#approve", "#approve-always"])
def test_a_changed_value_is_not_dropped_by_the_approve_as_proposed(
        shop: SimpleNamespace, page: Page, button: str) -> None:
    """Noor types a new price, then presses Approve (or Approve, and always like this), not
    "Approve with these changes": nothing runs, and the page says which button runs her change,
    keeping it typed (the price she had typed was dropped, and 45 ran, the page saying only
    that she approved); she then presses that one, and her price is what runs."""
    page.get_by_label("Price").fill("40")
    page.locator(button).click()
    expect(page).to_have_url(shop.page_url)
    expect(page.locator("#error")).to_contain_text(
        "You changed Price, but pressed “Approve")
    expect(page.locator("#error")).to_contain_text("“Approve with these changes”")
    expect(page.locator("#status")).to_have_text("Waiting")
    expect(page.get_by_label("Price")).to_have_value("40")
    assert shop.app.proposal(shop.proposal.id).status is ProposalStatus.WAITING
    assert shop.app.rules() == []
    page.locator("#approve-changed").click()
    expect(page.locator("#outcome")).to_contain_text("with price changed to 40")
    assert repair_price(shop) == Decimal(40)


def test_enter_in_a_changed_field_runs_the_change(shop: SimpleNamespace, page: Page) -> None:
    """Keyboard alone: a new price typed, then Enter, approves with that change (the form's
    first button is "Approve with these changes")."""
    page.get_by_label("Price").fill("41")
    page.get_by_label("Price").press("Enter")
    expect(page.locator("#outcome")).to_contain_text("with price changed to 41")
    assert repair_price(shop) == Decimal(41)


def test_approve_untouched_runs_as_proposed(shop: SimpleNamespace, page: Page) -> None:
    """The values left as shown, Approve runs the call as proposed."""
    page.locator("#approve").click()
    expect(page.locator("#status")).to_have_text("Done")
    expect(page.locator("#outcome")).not_to_contain_text("changed")
    assert repair_price(shop) == Decimal(45)


def test_a_double_click_a_second_tab_and_the_back_button_decide_once(
        shop: SimpleNamespace, page: Page) -> None:
    """Approve double-clicked runs once; a second tab left open on the page, approving after,
    is told it was decided already; back to the page, it shows it done, with no form."""
    second = page.context.new_page()
    second.goto(shop.page_url)
    page.locator("#approve").dblclick()
    expect(page.locator("#status")).to_have_text("Done")
    assert repair_price(shop) == Decimal(45)
    second.locator("#approve").click()
    expect(second.locator("#error")).to_have_text(
        "This proposal was already decided (Done): a proposal is decided once.")
    page.goto(f"{shop.url}/")
    page.go_back()
    expect(page).to_have_url(re.compile(re.escape(shop.page_url)))
    expect(page.locator("#status")).to_have_text("Done")
    expect(page.locator("#approve")).to_have_count(0)
    receipt = shop.app.receipt(shop.proposal.task).words
    assert receipt.count("Noor approved set_price") == 1
