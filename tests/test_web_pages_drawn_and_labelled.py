"""The inbox's pages as a person reads them and an attacker shapes them, driven by Debian's
Chromium against a real server: a flood of combining marks neither hides a character nor draws
over the page, words from the address are said back quoted, every form field and button says
what it is for, and a person decides with the keyboard alone."""

from __future__ import annotations

import unicodedata
from types import SimpleNamespace

import pytest
from playwright.sync_api import Page, expect

from signoff.web.wording import plain
from tests.web_bank import PASSWORD

FLOOD = "\u0336\u0489\u0301\u0316" * 150
"""Six hundred combining marks (a stroke, an enclosing sign, an accent above, one below)."""




def _fits_the_window(page: Page) -> bool:
    """Whether nothing on the page reaches past the window's right edge."""
    return bool(page.evaluate(
        "document.documentElement.scrollWidth <= document.documentElement.clientWidth"))


def test_a_flood_of_combining_marks_hides_no_character_and_stays_in_the_window(
        bank: SimpleNamespace, page: Page) -> None:
    """An IBAN whose last digit carries six hundred combining marks: the page draws the digit
    with four of them and shows the rest as escapes, so the 1 is read and the page stays as wide
    as the window, on the proposal's page and in the list (before, the marks were drawn: a
    column of ink over the lines around it, the digit unreadable, the page wider than the
    window)."""
    pid = bank.propose(why="Refund" + FLOOD, iban="DE1" + FLOOD, amount="10", memo="m")
    page.goto(f"{bank.url}/proposals/{pid}")
    iban = page.locator("#shown tr", has=page.locator("th", has_text="iban")).locator("td")
    expect(iban).to_have_text("DE1" + FLOOD[:4] + "\\u0336\\u0489\\u0301\\u0316" * 149)
    expect(page.locator("#why")).to_contain_text("Refund" + FLOOD[:4] + "\\u0336")
    assert _fits_the_window(page)
    expect(page.locator("#approve")).to_be_visible()
    page.goto(f"{bank.url}/")
    expect(page.locator("#proposals")).to_contain_text("iban: DE1" + FLOOD[:4] + "\\u")
    assert _fits_the_window(page)


@pytest.mark.parametrize("text", [
    unicodedata.normalize("NFD", "Tiếng Việt có dấu: người, đường, ệ"),
    "בְּרֵאשִׁ֖ית בָּרָ֣א",  # points and a cantillation accent on one letter
    "བསྒྲུབས་ ཧཱུྃ",
    "1\ufe0f\u20e3 e\u0301",  # a keycap (its selector drawn as an escape), an accent
])
def test_the_marks_of_real_writing_are_drawn_as_written(text: str) -> None:
    """What the marks of a language stack on one letter is drawn as written: only a run past
    four (`MARKS_KEPT`) is shown as escapes."""
    assert plain(text).replace("\\ufe0f", "\ufe0f") == text


@pytest.mark.parametrize(("query", "said"), [
    ("queue=finance%20queue.%20Your%20session%20has%20ended%3A%20log%20in%20at%20evil.example."
     "%20See%20the%20finance",
     "Noor is not in a queue named 'finance queue. Your session has ended: l'… (78 characters): "
     "choose one of manager, or leave Queue empty."),
    ("queue=billing", "Noor is not in a queue named 'billing': choose one of manager, or leave "
                      "Queue empty."),
    ("status=" + "Done.%20Call%20us%20" * 10,
     "'Done. Call us Done. Call us Done. Call u'… (140 characters) is not a status; choose one "
     "of Waiting, Approved, Done, Failed, Rejected, Stale, Withdrawn, or any."),
])
def test_words_from_the_address_are_said_back_quoted(bank: SimpleNamespace, page: Page,
                                                     query: str, said: str) -> None:
    """A queue or a status in a link is said back in quotation marks, and cut when long, so
    that a link's words never read as the page's own sentence (before, ``?queue=`` was said
    back whole and bare: "Noor is not in the finance queue. Your session has ended: log in at
    evil.example. See the finance queue.")."""
    answer = page.goto(f"{bank.url}/?{query}")
    assert answer is not None
    assert answer.status in (404, 422)
    expect(page.get_by_role("alert")).to_have_text(said)


def test_an_error_page_is_titled_in_words(bank: SimpleNamespace, page: Page) -> None:
    """A page that says something went wrong is titled and headed with what (before: "404")."""
    page.goto(f"{bank.url}/proposals/nope")
    expect(page).to_have_title("Not Found — signoff")
    expect(page.get_by_role("heading", level=1)).to_have_text("Not Found (404)")
    expect(page.get_by_role("alert")).to_have_text(
        "There is no proposal with id nope that Noor may see.")


def test_each_revoke_says_which_rule_and_its_reason_field_is_labelled(
        bank: SimpleNamespace, page: Page) -> None:
    """On the rules page, each rule's reason field has a label (before: a placeholder alone),
    and each Revoke button is described by what its rule covers (before: several rules, as many
    buttons all called "Revoke", told apart by nothing a screen reader says)."""
    pid = bank.propose(why="Refund.", iban="DE1", amount="10", memo="m")
    page.goto(f"{bank.url}/proposals/{pid}")
    page.get_by_role("button", name="Approve, and always like this").click()
    expect(page.locator("#rule-made")).to_be_visible()
    page.goto(f"{bank.url}/rules")
    covers = page.locator("#rules td.covers").inner_text()
    why = page.get_by_role("textbox", name="Why you revoke it (optional)")
    why.fill("Enough.")
    revoke = page.get_by_role("button", name="Revoke")
    expect(revoke).to_have_accessible_description(covers)
    revoke.click()
    expect(page.locator("#rules")).to_contain_text("revoked: Enough.")


def test_a_revoke_reason_is_shown_apart_as_a_persons_words(
        bank: SimpleNamespace, page: Page) -> None:
    """Why a rule was revoked, as its revoker wrote it, is shown apart from signoff's own words
    (before, "in force again from Monday" read as the rule's status)."""
    pid = bank.propose(why="Refund.", iban="DE1", amount="10", memo="m")
    page.goto(f"{bank.url}/proposals/{pid}")
    page.get_by_role("button", name="Approve, and always like this").click()
    page.goto(f"{bank.url}/rules")
    page.get_by_placeholder("Why (optional)").fill("in force again from Monday")
    page.get_by_role("button", name="Revoke").click()
    expect(page.locator("#rules .said")).to_have_text("in force again from Monday")


def test_a_person_decides_with_the_keyboard_alone(bank: SimpleNamespace, page: Page) -> None:
    """From the proposal's page, Tab reaches the header's navigation (a landmark), then the
    Approve button, and Enter on it approves; the reject form's field is labelled."""
    pid = bank.propose(why="Refund.", iban="DE1", amount="10", memo="m")
    page.goto(f"{bank.url}/proposals/{pid}")
    expect(page.get_by_role("navigation", name="Pages")).to_be_visible()
    expect(page.get_by_role("textbox", name="Why not (the agent is told)")).to_be_visible()
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.id") == "approve":
            break
    else:
        pytest.fail("Tab never reached the Approve button")
    page.keyboard.press("Enter")
    expect(page.locator("#status")).to_have_text("Done")
    assert [iban for iban, _, _ in bank.paid] == ["DE1"]


def test_a_decision_sent_after_logging_out_says_nothing_was_done(
        bank: SimpleNamespace, page: Page) -> None:
    """Approve pressed on a page left open after logging out in another tab: nothing runs, the
    login page says so in a sentence (before, it said nothing, and the person was left to guess
    whether their yes was taken), and, logged in again, the proposal's page still waits."""
    pid = bank.propose(why="Refund.", iban="DE1", amount="10", memo="m")
    page.goto(f"{bank.url}/proposals/{pid}")
    other = page.context.new_page()
    other.goto(f"{bank.url}/")
    other.get_by_role("button", name="Log out").click()
    expect(other.get_by_role("heading", name="Log in")).to_be_visible()
    page.get_by_role("button", name="Approve", exact=True).click()
    expect(page.get_by_role("alert")).to_have_text(
        "You are not logged in (your session ended, or you logged out in another window), so "
        "nothing that form asked was done: log in, and send it again.")
    assert bank.paid == []
    page.get_by_label("E-mail address").fill("noor@bank.example")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page).to_have_url(f"{bank.url}/proposals/{pid}")
    expect(page.locator("#status")).to_have_text("Waiting")
    expect(page.get_by_role("alert")).to_have_count(0)
