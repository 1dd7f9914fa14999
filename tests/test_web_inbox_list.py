"""The inbox's list as a busy approver reads it, driven by Debian's Chromium against a real
server: what an agent proposed, however long or however it is marked up, is text, and one long
value leaves the list readable (the proposal's own page shows all of it)."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace

import pytest
from playwright.sync_api import Browser, Page, expect

from signoff.web.wording import brief
from tests.web_bank import IBAN, PASSWORD

MARKUP = '<script>alert(1)</script><img src=x onerror=alert(2)>"><svg onload=alert(3)>'



@pytest.fixture
def page(browser: Browser, bank: SimpleNamespace) -> Iterator[Page]:
    """Noor, logged in, 1100 pixels wide; every dialog a script opens is kept in `dialogs`."""
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    page = context.new_page()
    page.set_default_timeout(10_000)
    bank.dialogs = []
    page.on("dialog", lambda dialog: (bank.dialogs.append(dialog.message), dialog.dismiss()))
    page.goto(f"{bank.url}/login")
    page.get_by_label("E-mail address").fill("noor@bank.example")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page).to_have_url(f"{bank.url}/")
    yield page
    context.close()


def test_a_long_value_is_cut_in_the_list_and_whole_on_its_page(bank: SimpleNamespace,
                                                                page: Page) -> None:
    """A memo of 20,000 characters and 400 lines, above a short proposal: the list shows its
    start, says how much more there is, and stays about a screen high (one row took some
    six screens, the short proposal below it); the proposal's page shows every character."""
    memo = MARKUP + "\n" + "word " * 4000 + "\nline" * 400
    bank.propose(iban=IBAN, amount=20, memo="Refund.")
    long_one = bank.propose(iban=IBAN, amount=10, memo=memo)  # the newest: listed first
    page.reload()
    rows = page.locator("#proposals tbody tr")
    expect(rows).to_have_count(2)
    expect(rows.first).to_contain_text("more characters: the proposal's page shows all)")
    expect(rows.first).to_contain_text(MARKUP)  # as text: nothing ran
    expect(rows.nth(1)).to_contain_text("memo: Refund.")
    assert page.evaluate("document.body.scrollHeight") < 1200
    assert rows.nth(1).bounding_box()["y"] < 900  # type: ignore[index]  # on the first screen
    page.goto(f"{bank.url}/proposals/{long_one}")
    assert page.locator("#shown").inner_text().count("word") == 4000
    assert bank.dialogs == []


@pytest.mark.parametrize(("value", "shown"), [
    ("Refund.", "Refund."),
    ("x" * 160, "x" * 160),
    ("x" * 161, "x" * 160 + "… (1 more character: the proposal's page shows all)"),
    ("a\nb\nc\nd", "a\nb\nc… (2 more characters: the proposal's page shows all)"),
])
def test_a_value_in_the_list_is_whole_or_cut_saying_so(value: str, shown: str) -> None:
    """`brief` keeps a short value whole and says how much of a long one is left out."""
    assert brief(value) == shown
