"""Where a keyboard and a screen reader are left after a decision, and what a page left open
does when its person can no longer use it: driven by Debian's Chromium against a real server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.web_bank import PASSWORD, bank_app
from tests.workshop_web import served


def _focused(page: Page) -> str:
    """The id of what has the keyboard's focus ("" for none, or the page itself)."""
    return str(page.evaluate("document.activeElement ? document.activeElement.id : ''"))


def test_after_a_decision_the_focus_is_on_what_came_of_it(bank: SimpleNamespace,
                                                          page: Page) -> None:
    """Approve pressed with the keyboard: the page that follows puts the focus on what came of
    it, a status a screen reader reads (before, the focus was back at the top of the page, and
    nothing said the yes was taken); opened again later, the page leaves the focus alone."""
    pid = bank.propose(why="Refund.", iban="DE1", amount="10", memo="m")
    page.goto(f"{bank.url}/proposals/{pid}")
    page.get_by_role("button", name="Approve", exact=True).focus()
    page.keyboard.press("Enter")
    expect(page.locator("#status")).to_have_text("Done")
    outcome = page.get_by_role("status")
    expect(outcome).to_contain_text("Noor approved")
    expect(outcome).to_be_focused()
    page.reload()
    expect(page.locator("#status")).to_have_text("Done")
    assert _focused(page) != "outcome"


def test_a_refused_decision_puts_the_focus_on_why(bank: SimpleNamespace, page: Page) -> None:
    """A no sent with a reason of 100 KB (the field's limit is 4000 characters): the page that
    follows puts the focus on the alert saying why (before, at the top of the page), and
    nothing is decided."""
    pid = bank.propose(why="Refund.", iban="DE1", amount="10", memo="m")
    page.goto(f"{bank.url}/proposals/{pid}")
    page.get_by_role("textbox", name="Why not (the agent is told)").fill("x" * 100_000)
    page.get_by_role("button", name="Reject").press("Enter")
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("at most 4,000 characters")
    expect(alert).to_be_focused()
    expect(page.locator("#status")).to_have_text("Waiting")


def test_a_stale_form_sent_twice_says_it_was_decided(bank: SimpleNamespace,
                                                     page: Page) -> None:
    """The same proposal's page open in two tabs, approved in one, then rejected in the other:
    the second is refused in a sentence that has the focus, and the yes stands."""
    pid = bank.propose(why="Refund.", iban="DE1", amount="10", memo="m")
    page.goto(f"{bank.url}/proposals/{pid}")
    other = page.context.new_page()
    other.goto(f"{bank.url}/proposals/{pid}")
    other.get_by_role("button", name="Approve", exact=True).click()
    expect(other.locator("#status")).to_have_text("Done")
    page.get_by_role("textbox", name="Why not (the agent is told)").fill("Not now.")
    page.get_by_role("button", name="Reject").click()
    expect(page.get_by_role("alert")).to_have_text(
        "This proposal was already decided (Done): a proposal is decided once.")
    expect(page.get_by_role("alert")).to_be_focused()
    expect(page.locator("#status")).to_have_text("Done")
    assert [iban for iban, _, _ in bank.paid] == ["DE1"]


@pytest.fixture
def quick_bank(tmp_path: Path) -> Iterator[SimpleNamespace]:
    """The bank served on loopback, its inbox looking for something new every 0.2 seconds."""
    from signoff.web import create_web_app

    bank = bank_app(tmp_path)
    with served(create_web_app(bank.app, secure_cookies=False, refresh_seconds=0.2)) as port:
        bank.url = f"http://127.0.0.1:{port}"
        yield bank
    bank.app.database.dispose()


def test_an_inbox_left_open_by_a_person_disabled_goes_to_the_login_form(
        quick_bank: SimpleNamespace, browser: Browser) -> None:
    """Noor's inbox is open when she is disabled: at its next look for news, the page goes to
    the login form (before, it went on showing her proposals, looking every few seconds and
    told nothing)."""
    context = browser.new_context()
    try:
        page = context.new_page()
        page.set_default_timeout(10_000)
        page.goto(f"{quick_bank.url}/login")
        page.get_by_label("E-mail address").fill("noor@bank.example")
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Log in").click()
        expect(page.get_by_role("heading", name="To decide")).to_be_visible()
        quick_bank.app.people.disable(quick_bank.noor)
        expect(page.get_by_role("heading", name="Log in")).to_be_visible()
    finally:
        context.close()
