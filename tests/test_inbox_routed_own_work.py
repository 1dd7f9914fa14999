"""A person who supervises agents and is also the person the work is for sees, under "To decide",
only what they may decide: their own work that its skill routes (to them, here) waits on
another's decision, and is shown apart, to read (DESIGN "The gate and proposals": the person
the work is for does not decide a routed proposal). It was listed under "To decide" — on the
inbox's page, by the REST API and by ``signoff proposals`` — though her yes was refused.

On a real server on loopback (a SQLite file), the page in Debian's Chromium, the command line
in a process of its own.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest
from playwright.sync_api import Browser, expect

from signoff import AgentRefused, ProposalStatus
from signoff.inbox import Inbox
from signoff.web import create_web_app
from tests.workshop_web import PASSWORD, ROOT, bearer, open_workshop, price, served


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SimpleNamespace]:
    """The workshop, Mia a mechanic and its one manager (so she supervises agents): her fleet
    price is routed to her, the person it is for (`shop.routed`); then Kai becomes a manager
    too (he decides it). Her ordinary estimate's price is hers to decide (`shop.hers`)."""
    shop = open_workshop(tmp_path, monkeypatch, passwords=True)
    shop.app.people.set_roles(shop.mia, ["mechanic", "manager"])
    shop.app.people.set_roles(shop.noor, ["mechanic"])
    (shop.routed,) = shop.app.proposals(task=price(shop, fleet=True).task)
    assert (shop.routed.routed, shop.routed.decide_person_id) == (True, shop.mia.id)
    (shop.hers,) = shop.app.proposals(task=price(shop).task)
    shop.kai = shop.app.people.add("kai@workshop.example", "Kai", roles=["manager"])
    shop.app.credentials.set_password(shop.kai, PASSWORD)
    shop.tokens["Kai"] = shop.app.credentials.issue_token(shop.kai, "tests")
    web = create_web_app(shop.app, secure_cookies=False, refresh_seconds=60)
    with served(web) as port:
        shop.url = f"http://127.0.0.1:{port}"
        yield shop
    shop.app.database.dispose()


def test_the_inbox_lists_as_to_decide_only_what_the_person_may_decide(shop: SimpleNamespace) -> None:
    """Mia's waiting proposals are her own estimate's price alone; her routed fleet price is
    waiting on others (her yes to it is refused); Kai decides both. Any status still lists
    every one she may see."""
    inbox = Inbox(shop.app)
    assert [p.id for p in inbox.proposals(shop.mia).items] == [shop.hers.id]
    assert [p.id for p in inbox.waiting_on_others(shop.mia).items] == [shop.routed.id]
    assert not inbox.decidable(shop.mia, shop.routed)
    with pytest.raises(AgentRefused):
        shop.app.approve(shop.routed, by=shop.mia)
    assert {p.id for p in inbox.proposals(shop.kai).items} == {shop.hers.id, shop.routed.id}
    assert inbox.waiting_on_others(shop.kai).items == []
    assert {p.id for p in inbox.proposals(shop.mia, status=None).items} == {shop.hers.id, shop.routed.id}
    assert {p.id for p in shop.app.proposals_for(shop.mia)} == {shop.hers.id}


def test_the_api_lists_as_waiting_only_what_the_person_may_decide(shop: SimpleNamespace) -> None:
    """``GET /api/proposals`` (waiting) for Mia is her estimate's price alone; for Kai, both;
    Mia still reads her routed price by its id."""
    with httpx.Client(base_url=shop.url, timeout=30) as http:
        mine = http.get("/api/proposals", headers=bearer(shop, "Mia")).json()
        assert [p["id"] for p in mine["items"]] == [shop.hers.id]
        kais = http.get("/api/proposals", headers=bearer(shop, "Kai")).json()
        assert {p["id"] for p in kais["items"]} == {shop.hers.id, shop.routed.id}
        shown = http.get(f"/api/proposals/{shop.routed.id}", headers=bearer(shop, "Mia"))
        assert shown.json()["status"] == "Waiting"


def test_signoff_proposals_lists_only_what_the_person_may_decide(shop: SimpleNamespace) -> None:
    """``signoff proposals --json`` as Mia is her estimate's price alone."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "signoff.cli",
            "proposals",
            "--app",
            str(ROOT / "examples" / "workshop.py"),
            "--token",
            shop.tokens["Mia"],
            "--json",
        ],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert [p["id"] for p in json.loads(done.stdout)] == [shop.hers.id]


def test_the_inbox_page_shows_her_routed_work_apart_to_read(browser: Browser, shop: SimpleNamespace) -> None:
    """Mia's inbox page lists her estimate's price under "To decide", and her fleet price under
    a heading of its own, saying another decides it, with no buttons; Kai's lists both to
    decide, and nothing apart."""

    def inbox_of(handle: str) -> object:
        page = browser.new_context().new_page()
        page.set_default_timeout(10_000)
        page.goto(f"{shop.url}/login")
        page.get_by_label("E-mail address").fill(handle)
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Log in").click()
        expect(page).to_have_url(f"{shop.url}/")
        return page

    mia = inbox_of("mia@workshop.example")
    expect(mia.get_by_role("heading", level=1)).to_have_text("To decide")
    expect(mia.locator("#proposals tbody tr")).to_have_count(1)
    expect(mia.locator(f'#proposals a[href="/proposals/{shop.hers.id}"]')).to_have_count(1)
    apart = mia.locator("#waiting-on-others")
    expect(apart.get_by_role("heading", level=2)).to_have_text("Your work, waiting on another's decision")
    expect(apart.locator("tbody tr")).to_have_count(1)
    expect(apart.locator(f'a[href="/proposals/{shop.routed.id}"]')).to_have_count(1)
    expect(apart.locator(".decider")).to_contain_text("someone else who supervises agents")
    expect(apart.locator("button, form")).to_have_count(0)
    kai = inbox_of("kai@workshop.example")
    expect(kai.locator("#proposals tbody tr")).to_have_count(2)
    expect(kai.locator("#waiting-on-others")).to_have_count(0)
    assert shop.app.proposal(shop.routed.id).status is ProposalStatus.WAITING
