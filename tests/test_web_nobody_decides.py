"""A proposal nobody may decide as things stand — routed by its skill to the person the work is
for, with no one else supervising agents — is said so on its page, in Debian's Chromium against a
real server (the page said only that it waited on her, who may not decide it)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from playwright.sync_api import Browser, Page, expect

from signoff import ProposalStatus
from signoff.inbox import Inbox
from signoff.web import create_web_app
from tests.workshop_web import PASSWORD, open_workshop, price, served


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SimpleNamespace]:
    """The workshop, Mia its one manager (so the one who supervises agents): her fleet price is
    routed to her, the person it is for; served on 127.0.0.1."""
    shop = open_workshop(tmp_path, monkeypatch, passwords=True)
    shop.app.people.set_roles(shop.mia, ["mechanic", "manager"])
    shop.app.people.set_roles(shop.noor, ["mechanic"])
    outcome = price(shop, fleet=True)
    assert outcome.waiting_on == ("a decision from Mia",)
    (shop.proposal,) = shop.app.proposals()
    web = create_web_app(shop.app, secure_cookies=False, refresh_seconds=60)
    with served(web) as port:
        shop.url = f"http://127.0.0.1:{port}"
        yield shop
    shop.app.database.dispose()


def _as(browser: Browser, shop: SimpleNamespace, handle: str) -> Page:
    page = browser.new_context().new_page()
    page.set_default_timeout(10_000)
    page.goto(f"{shop.url}/login")
    page.get_by_label("E-mail address").fill(handle)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page).to_have_url(f"{shop.url}/")
    page.goto(f"{shop.url}/proposals/{shop.proposal.id}")
    return page


def test_a_proposal_nobody_may_decide_says_so_until_someone_may(
        browser: Browser, shop: SimpleNamespace) -> None:
    """Mia sees her price waiting on her, no buttons, and why nobody may decide it; once Noor
    is a manager again, the page no longer says so, and Noor decides it."""
    page = _as(browser, shop, "mia@workshop.example")
    expect(page.locator("#status")).to_have_text("Waiting")
    expect(page.locator("#approve")).to_have_count(0)
    expect(page.locator("#nobody")).to_have_text(
        "Nobody may decide it as things stand: the skill routes it to Mia, the person the work "
        "is for, who does not decide a routed proposal, and nobody else supervises agents. It "
        "waits until someone is given the right to decide it.")
    shop.app.people.set_roles(shop.noor, ["manager"])
    page.reload()
    expect(page.locator("#status")).to_have_text("Waiting")
    expect(page.locator("#nobody")).to_have_count(0)
    assert Inbox(shop.app).nobody_decides(shop.proposal) == ""
    noor = _as(browser, shop, "noor@workshop.example")
    noor.locator("#approve").click()
    expect(noor.locator("#status")).to_have_text("Done")
    assert shop.app.proposal(shop.proposal.id).status is ProposalStatus.DONE
