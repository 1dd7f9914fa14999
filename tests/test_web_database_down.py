"""The inbox when the app's database cannot be used, driven by Debian's Chromium against a real
server: a page that says so in a sentence, never the server's bare "Internal Server Error"."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from playwright.sync_api import Browser, Page, expect

from signoff import ProposalStatus
from signoff.web import create_web_app
from tests.workshop_web import PASSWORD, open_workshop, price, served

DOWN = ("The app's database cannot be used now, so nothing was done: try again later (the "
        "server's log says why).")


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SimpleNamespace]:
    """The workshop, its SQLite file in a folder of its own (taken away to take the database
    away), served on 127.0.0.1; a price waits for Mia."""
    (tmp_path / "data").mkdir()
    shop = open_workshop(tmp_path / "data", monkeypatch, passwords=True)
    price(shop)
    web = create_web_app(shop.app, secure_cookies=False, refresh_seconds=60)
    with served(web) as port:
        shop.url = f"http://127.0.0.1:{port}"
        shop.folder = tmp_path / "data"
        yield shop
    shop.app.database.dispose()


@pytest.fixture
def page(browser: Browser, shop: SimpleNamespace) -> Iterator[Page]:
    """Mia, logged in, in a fresh browser context."""
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.goto(f"{shop.url}/login")
    page.get_by_label("E-mail address").fill("mia@workshop.example")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page).to_have_url(f"{shop.url}/")
    yield page
    context.close()


def _take_the_database_away(shop: SimpleNamespace) -> Path:
    """Close the server's connections and move the database's folder away: no connection can
    be opened to it. Where it went."""
    shop.app.database.dispose()
    gone = shop.folder.with_name("data-gone")
    shop.folder.rename(gone)
    return gone


def test_a_logged_in_person_is_told_the_database_cannot_be_used(shop: SimpleNamespace,
                                                                page: Page) -> None:
    """With the database gone, a logged-in person's inbox, a proposal's page, and an Approve
    from a page loaded before each answer 503 with a page that says so (each was a bare 500,
    "Internal Server Error": the page telling the problem looked up who was logged in, in the
    same database); nothing was decided, and once the database is back the inbox works."""
    (proposal,) = shop.app.proposals()
    page.goto(f"{shop.url}/proposals/{proposal.id}")
    expect(page.locator("#approve")).to_be_visible()
    gone = _take_the_database_away(shop)
    try:
        page.locator("#approve").click()
        expect(page.get_by_role("alert")).to_have_text(DOWN)
        for path in ("/", f"/proposals/{proposal.id}", "/tasks", "/rules", "/agents"):
            answer = page.goto(f"{shop.url}{path}")
            assert answer is not None
            assert answer.status == 503, path
            expect(page.get_by_role("alert")).to_have_text(DOWN)
            assert "Internal Server Error" not in page.content()
    finally:
        gone.rename(shop.folder)
    page.goto(f"{shop.url}/")
    expect(page.locator("#proposals tbody tr")).to_have_count(1)
    assert shop.app.proposal(proposal.id).status is ProposalStatus.WAITING
