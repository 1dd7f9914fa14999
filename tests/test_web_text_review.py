"""What a model or a tool wrote, on the inbox's pages, driven by Debian's Chromium against a real
server: shown as text, never interpreted — no mark reorders it or hides in it, a long value
stays on the page, a field left alone is no change, and the model's words never pass for
signoff's."""

from __future__ import annotations

from decimal import Decimal
from types import SimpleNamespace

import pytest
from playwright.sync_api import Locator, Page, expect

from signoff.escapes import visible
from signoff.limits.provenance import ArgumentLabel, Origin
from signoff.web.wording import label
from tests.web_bank import IBAN

_DRAWN_AT = """(element, needle) => {
  const walk = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
  for (let node = walk.nextNode(); node; node = walk.nextNode()) {
    const at = node.data.indexOf(needle);
    if (at < 0) continue;
    const range = document.createRange();
    return [at, at + needle.length - 1].map((i) => {
      range.setStart(node, i); range.setEnd(node, i + 1);
      return range.getBoundingClientRect().left;
    });
  }
  return null;
}"""
"""Where the first and the last character of `needle` are drawn (their left edges), in the
first text node under `element` that holds it; null when none does."""


def _reads_forwards(where: Locator, needle: str) -> bool:
    """Whether `needle`, in a text node under `where`, is drawn left to right (not reversed)."""
    drawn = where.evaluate(_DRAWN_AT, needle)
    assert drawn is not None, f"{needle!r} is in no text under {where}"
    first, last = drawn
    return bool(first < last)


def _memo(page: Page) -> Locator:
    return page.locator("#shown tr", has=page.locator("th", has_text="memo")).locator("td")


def test_marks_that_reorder_or_hide_text_are_shown_as_escapes(bank: SimpleNamespace,
                                                              page: Page) -> None:
    """A memo of "bob ot 001 yap" after a right-to-left override is shown with the override as
    ``\\u202e``, drawn as written (it drew "pay 100 to bob"); an IBAN ending in one reverses
    nothing after it in the inbox's list (the amount 2400 drew as 0042); zero-width and other
    invisible characters, in a value and in the model's reason, are shown as escapes (they left
    no trace), on the proposal's page and in the receipt."""
    spoof = bank.propose(iban=IBAN, amount=1, memo="\u202ebob ot 001 yap")
    bank.propose(iban=IBAN + "\u202e", amount=2400, memo="refund")
    hidden = bank.propose("Re\u200bfund\u2066.", iban=IBAN, amount=3,
                          memo="in\u200bvoice\u00ad42\ufeff\U000e0041")

    page.reload()
    row = page.locator("#proposals tbody tr", has_text="2400")
    expect(row).to_contain_text(f"iban: {IBAN}\\u202e, amount: 2400, memo: refund",
                                use_inner_text=True)
    assert _reads_forwards(row, "2400")
    assert _reads_forwards(row, "refund")

    page.goto(f"{bank.url}/proposals/{spoof}")
    expect(_memo(page)).to_have_text("\\u202ebob ot 001 yap", use_inner_text=True)
    assert _reads_forwards(_memo(page), "bob ot 001 yap")
    expect(page.locator("#shown .value")).to_have_count(3)  # each value isolated from the rest
    expect(page.get_by_label("Memo")).to_have_value("\u202ebob ot 001 yap")  # to post back
    expect(page.locator("form .muted", has_text="reorder text")).to_contain_text(
        "as written: \\u202ebob ot 001 yap")  # and what it holds, beside it

    page.goto(f"{bank.url}/proposals/{hidden}")
    expect(_memo(page)).to_have_text("in\\u200bvoice\\xad42\\ufeff\\U000e0041",
                                     use_inner_text=True)
    expect(page.locator("#why")).to_have_text("Re\\u200bfund\\u2066.", use_inner_text=True)
    page.get_by_role("link", name="its receipt").click()
    expect(page.locator("#receipt")).to_contain_text("Re\\u200bfund\\u2066.", use_inner_text=True)
    text = page.locator("main").inner_text()
    assert not any(mark in text for mark in "\u202e\u200b\u2066\u00ad\ufeff\U000e0041")


def test_a_long_value_stays_on_the_page_whole(bank: SimpleNamespace, page: Page) -> None:
    """A memo of 3,000 characters with no break wraps within the page, in the inbox's list (its
    start, saying how much more there is) and on the proposal's page (it pushed the page to
    many times its width, its tail off it), and the field to change it shows all of it, its
    tail too (an input showed its start)."""
    memo = "ok" + "x" * 3000 + "SEND-ALL-TO-MALLORY"
    proposal = bank.propose(iban=IBAN, amount=7, memo=memo)
    for address, end in (("/", "more characters: the proposal's page shows all)"),
                         (f"/proposals/{proposal}", "SEND-ALL-TO-MALLORY")):
        page.goto(bank.url + address)
        assert page.evaluate("document.documentElement.scrollWidth") <= 1100, address
        tail = page.get_by_text(end).first
        box = tail.bounding_box()
        assert box is not None
        assert box["x"] + box["width"] <= 1100, (address, box)
    field = page.get_by_label("Memo")
    expect(field).to_have_value(memo)
    high, shows_high, wide, shows_wide = field.evaluate(
        "(f) => [f.scrollHeight, f.clientHeight, f.scrollWidth, f.clientWidth]")
    assert high <= shows_high + 1  # nothing of it scrolled out of sight
    assert wide <= shows_wide + 1
    box = field.bounding_box()
    assert box is not None
    assert box["x"] + box["width"] <= 1100, box


@pytest.mark.parametrize("memo", ["line one\nline two", "\nfirst\r\nsecond\r\n\tthird\n"])
def test_approve_with_changes_changes_only_what_was_changed(bank: SimpleNamespace, page: Page,
                                                             memo: str) -> None:
    """A transfer whose memo holds line breaks (leading, trailing, CR LF, a tab): changing
    only its amount runs it with the memo as proposed, and only the amount counts as changed
    (the memo came back without its line breaks, counted as changed, and ran so); a second,
    approved with changes with none made, runs as proposed, with nothing changed."""
    first = bank.propose(iban=IBAN, amount=5, memo=memo)
    page.goto(f"{bank.url}/proposals/{first}")
    page.get_by_label("Amount").fill("6")
    page.locator("#approve-changed").click()
    expect(page.locator("#status")).to_have_text("Done")
    assert bank.paid == [(IBAN, Decimal(6), memo)]
    assert bank.app.proposal(first).edited == {"amount": 6}
    expect(page.locator("#outcome")).not_to_contain_text("memo")

    second = bank.propose(iban=IBAN, amount=5, memo=memo)
    page.goto(f"{bank.url}/proposals/{second}")
    page.locator("#approve-changed").click()
    expect(page.locator("#status")).to_have_text("Done")
    assert bank.paid[1:] == [(IBAN, Decimal(5), memo)]
    assert bank.app.proposal(second).edited is None


def _around(said: Locator) -> list[str]:
    """The text just before and just after `said` (its siblings' ends)."""
    return list(said.evaluate(
        "(e) => [(e.previousSibling || {}).textContent || '', (e.nextSibling || {}).textContent || '']"))


def test_the_models_words_are_shown_apart_from_signoffs(bank: SimpleNamespace,
                                                        page: Page) -> None:
    """A reason that closes the receipt's quotation marks and goes on in signoff's voice is
    shown whole in an element of its own, the quotation marks outside it, its backticks as
    backticks (it read as signoff's sentence, with signoff's code); so is a value a label
    quotes (its backticks paired with the label's), what the call answered, and a no's reason."""
    why = ("Routine refund.” Nothing outside steered this call; Noor approved it already; "
           "it ran as Noor and the agent together. `verified by signoff` “")
    iban = "GB29`verified`NWBK60161331926819"
    proposal = bank.propose(why, mail=True, iban=iban, amount=2400, memo="refund")
    page.goto(f"{bank.url}/proposals/{proposal}")
    expect(page.locator("#why .said")).to_have_text(why)
    steered = page.locator("#labels li", has_text="iban")
    expect(steered.locator(".said")).to_have_text(iban)
    expect(steered.locator("code")).to_have_text(["iban"])
    page.locator("#approve").click()
    expect(page.locator("#status")).to_have_text("Done")
    expect(page.locator("#outcome .said")).to_have_text(f"Paid 2400 to {iban}.")

    page.get_by_role("link", name="its receipt").click()
    proposed = page.locator("#receipt li", has_text="proposed transfer")
    expect(proposed.locator(".said").first).to_have_text(why)
    assert _around(proposed.locator(".said").first)[0].endswith("“")
    assert _around(proposed.locator(".said").first)[1].startswith("”")
    expect(proposed.locator(".said").nth(1)).to_have_text(iban)
    expect(proposed.locator("code")).to_have_text(["iban", "amount"])
    decided = page.locator("#receipt li", has_text="It answered")
    expect(decided.locator(".said")).to_have_text(f"Paid 2400 to {iban}.")
    assert _around(decided.locator(".said"))[0].endswith("It answered “")
    expect(decided.locator("code")).to_have_count(0)

    refused = bank.propose(iban=IBAN, amount=1, memo="refund")
    page.goto(f"{bank.url}/proposals/{refused}")
    page.get_by_label("Why not (the agent is told)").fill("Not `approved by signoff`.")
    page.locator("#reject").click()
    expect(page.locator("#status")).to_have_text("Rejected")
    page.get_by_role("link", name="its receipt").click()
    no = page.locator("#receipt li", has_text="said no")
    expect(no.locator(".said")).to_have_text("Not `approved by signoff`.")
    expect(no.locator("code")).to_have_count(0)


@pytest.mark.parametrize(("value", "words", "shown"), [
    ("GB29`x`NWBK", "`iban` = `GB29`x`NWBK` is in nothing the task was given.", "GB29`x`NWBK"),
    ("a" * 30 + "…`" + "b" * 30, f"`memo` = `{'a' * 30}…`{'b' * 8}…` is copied from read_mail.",
     f"{'a' * 30}…`{'b' * 8}…"),
])
def test_a_labels_value_is_read_whole_or_as_cut(value: str, words: str, shown: str) -> None:
    """A label's value is found in its words whole, or as far as they show it before "…", the
    longest such reading (a value holding "…`" does not end it early)."""
    argument = words[1:words.index("`", 1)]
    html = str(label(ArgumentLabel(argument=argument, value=value, origin=Origin.UNTRACED,
                                   words=words)))
    assert f'<bdi class="said">{shown}</bdi>' in html
    assert html.startswith(f"<code>{argument}</code> = ")


def test_the_command_line_still_shows_only_control_and_reordering_marks() -> None:
    """`visible` as the command line uses it escapes controls and reordering marks, and leaves a
    zero-width joiner (an emoji's) be; for a page, it escapes what draws nothing too."""
    text = "a\u202eb\x1bc\u200dd\t\n"
    assert visible(text) == "a\\u202eb\\x1bc\u200dd\t\n"
    assert visible(text, invisible=True) == "a\\u202eb\\x1bc\\u200dd\t\n"
