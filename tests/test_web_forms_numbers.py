"""A number changed in the inbox's "approve with changes" is read as written, or refused in a
sentence saying how to write it: "1_000" ran as 1000 (Python reads the underscore), and "1,000"
or "1 000" were told only that they are not a number. Posted as a browser posts the form (the
ASGI app, and Debian's Chromium against a real server)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace

import pytest
from argon2 import PasswordHasher
from fastapi.testclient import TestClient
from playwright.sync_api import Browser, Page, expect

from signoff import ProposalStatus
from signoff.web import create_web_app
from signoff.web.numbers import number_of
from tests import deadlines_app
from tests.workshop_web import PASSWORD, open_workshop, price, repair_price, served


def _logged_in(app: object, handle: str) -> TestClient:
    """A client of `app`'s inbox, logged in as `handle`."""
    client = TestClient(create_web_app(app, secure_cookies=False))  # type: ignore[arg-type]
    csrf = _csrf(client, "/login")
    answer = client.post("/login", data={"handle": handle, "password": PASSWORD, "csrf": csrf},
                         follow_redirects=False)
    assert answer.status_code == 303
    return client


def _csrf(client: TestClient, path: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', client.get(path).text)
    assert found is not None
    return found.group(1)


def _approve_with(client: TestClient, proposal_id: str, **values: str) -> str:
    """Post "approve with these changes" with `values` (as ``set.NAME``); the page it leads
    back to, as text."""
    page = f"/proposals/{proposal_id}"
    data = {"changes": "1", "csrf": _csrf(client, page),
            **{f"set.{name}": value for name, value in values.items()}}
    answer = client.post(f"{page}/approve", data=data, follow_redirects=False)
    assert answer.status_code == 303
    assert answer.headers["location"].startswith(page)
    return client.get(answer.headers["location"]).text


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SimpleNamespace]:
    """The workshop; a price of 45 for T-7 waits, for Mia, and Noor (a manager) decides it."""
    shop = open_workshop(tmp_path, monkeypatch, passwords=True)
    price(shop)
    (shop.proposal,) = shop.app.proposals()
    yield shop
    shop.app.database.dispose()


@pytest.mark.parametrize("typed", ["1_000", "1 000", "1,000", "1.000,50", "1'000", "1e3",
                                   "١٠٠٠", "１０００", "0x10", "4.5.0", "45 EUR", "-5-"])
def test_a_price_not_written_plainly_is_refused_saying_how(shop: SimpleNamespace,
                                                           typed: str) -> None:
    """A price typed with a separator, an exponent, other digits than 0 to 9, or a word beside it
    runs nothing: the page says how a number is written, keeps what was typed, and the proposal
    waits ("1_000" ran as 1000, "1e3" as 1000.0, "١٠٠٠" as 1000)."""
    client = _logged_in(shop.app, "noor@workshop.example")
    page = _approve_with(client, shop.proposal.id, price=typed)
    assert ("Price is a number, written in the digits 0 to 9 with at most one decimal point, "
            "like 1000 or 4.50 (a minus sign first when it is below zero)") in page
    assert "with a point, not a comma, before any decimals. Nothing was decided; the " in page
    assert shop.app.proposal(shop.proposal.id).status is ProposalStatus.WAITING
    assert repair_price(shop) == 0
    field = re.search(r'name="set\.price"[^>]*value="([^"]*)"', page)
    assert field is not None
    assert field.group(1) == typed.replace("'", "&#39;")


@pytest.mark.parametrize("typed", ["abc", "", "-", "NaN", "Infinity", "true", "[]"])
def test_a_price_holding_no_digit_is_refused_as_no_number(shop: SimpleNamespace,
                                                          typed: str) -> None:
    """Text holding no digit is no number however it is written: refused as the call's values
    refuse what does not fit ("true" was read as JSON's true), and nothing runs."""
    client = _logged_in(shop.app, "noor@workshop.example")
    page = _approve_with(client, shop.proposal.id, price=typed)
    assert "Price is a number" in page
    assert shop.app.proposal(shop.proposal.id).status is ProposalStatus.WAITING
    assert repair_price(shop) == 0


@pytest.mark.parametrize(("typed", "runs"), [
    ("1000", Decimal(1000)), (" 1000 ", Decimal(1000)), ("+40", Decimal(40)),
    ("40.50", Decimal("40.50")), (".5", Decimal("0.5")), ("7.", Decimal(7)),
    ("0040", Decimal(40)),
])
def test_a_price_written_plainly_runs_as_written(shop: SimpleNamespace, typed: str,
                                                 runs: Decimal) -> None:
    """Plain digits, one decimal point, a sign, and spaces around them: what runs is the number
    written."""
    client = _logged_in(shop.app, "noor@workshop.example")
    _approve_with(client, shop.proposal.id, price=typed)
    assert shop.app.proposal(shop.proposal.id).status is ProposalStatus.DONE
    assert repair_price(shop) == runs


@pytest.mark.parametrize(("typed", "read"), [
    ("1234567890123456.25", "1234567890123456.25"), ("0.1", 0.1), ("40.50", 40.5),
    ("-7", -7), ("123456789012345678901234567890", 123456789012345678901234567890),
])
def test_a_number_of_more_digits_than_a_float_holds_is_kept_as_written(
        typed: str, read: object) -> None:
    """A decimal a float would round (17 significant digits and more) is passed on as its text,
    which the call's values read exactly; one a float says exactly, and a whole number, as a
    JSON number (the workshop's price column keeps too few digits to show it through a yes)."""
    assert number_of(typed, as_text=False) == read
    assert type(number_of(typed, as_text=False)) is type(read)


@pytest.fixture
def clerk(tmp_path: Path) -> Iterator[SimpleNamespace]:
    """The deadlines app (whose set_price takes a whole number): a price of 45 waits for Noor,
    who has a password."""
    shop = deadlines_app.build(f"sqlite:///{tmp_path / 'clerk.db'}")
    shop.app.credentials.use_hasher(PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1))
    shop.app.credentials.set_password(shop.noor, PASSWORD)
    shop.app.agent(shop.Clerk).do(shop.PriceTicket(), None, for_=shop.mia,
                                  model=deadlines_app.script(shop))
    (shop.proposal,) = shop.app.proposals()
    yield shop
    shop.app.database.dispose()


@pytest.mark.parametrize("typed", ["1_000", "1,000", "1 000", "12.0", "12.5"])
def test_a_whole_number_not_written_in_digits_alone_is_refused(clerk: SimpleNamespace,
                                                                typed: str) -> None:
    """A whole number is the digits alone: a separator or a decimal point is refused, saying
    so, and nothing runs."""
    client = _logged_in(clerk.app, deadlines_app.NOOR)
    page = _approve_with(client, clerk.proposal.id, price=typed)
    assert ("Price is a whole number, written in the digits 0 to 9 alone, like 1000 (a minus "
            "sign first when it is below zero)") in page
    assert clerk.app.proposal(clerk.proposal.id).status is ProposalStatus.WAITING
    assert deadlines_app.runs(clerk) == 0


def test_a_whole_number_in_digits_runs(clerk: SimpleNamespace) -> None:
    """1000, typed as digits, is what runs."""
    client = _logged_in(clerk.app, deadlines_app.NOOR)
    _approve_with(client, clerk.proposal.id, price="1000")
    assert clerk.app.proposal(clerk.proposal.id).status is ProposalStatus.DONE
    with clerk.app.session(as_=clerk.app.system) as s:
        assert s.get(clerk.Ticket, clerk.ticket.id).price == 1000


def test_in_a_browser_1_000_is_refused_then_1000_runs(shop: SimpleNamespace,
                                                      browser: Browser) -> None:
    """Noor, in Chromium, types 1_000 for the price and approves with changes: the page says how
    to write it, the field keeps 1_000, and nothing ran; she writes 1000, and 1000 runs."""
    with served(create_web_app(shop.app, secure_cookies=False)) as port:
        url = f"http://127.0.0.1:{port}"
        context = browser.new_context()
        page: Page = context.new_page()
        page.set_default_timeout(10_000)
        page.goto(f"{url}/login")
        page.get_by_label("E-mail address").fill("noor@workshop.example")
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Log in").click()
        expect(page).to_have_url(f"{url}/")
        page.goto(f"{url}/proposals/{shop.proposal.id}")
        page.get_by_label("Price").fill("1_000")
        page.locator("#approve-changed").click()
        expect(page.locator("#error")).to_contain_text(
            "Price is a number, written in the digits 0 to 9 with at most one decimal point")
        expect(page.locator("#error")).to_contain_text("“1_000” is not")
        expect(page.get_by_label("Price")).to_have_value("1_000")
        expect(page.locator("#status")).to_have_text("Waiting")
        assert repair_price(shop) == 0
        page.get_by_label("Price").fill("1000")
        page.locator("#approve-changed").click()
        expect(page.locator("#outcome")).to_contain_text("with price changed to 1000")
        assert repair_price(shop) == Decimal(1000)
        context.close()
