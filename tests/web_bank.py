"""The bank of the inbox's page tests: an app whose clerk reads a stranger's mail and proposes
transfers, Noor deciding, on a SQLite file; served on loopback (`bank`), and Noor logged in to it
in Debian's Chromium (`page`): a pytest plugin of the suite's (tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from argon2 import PasswordHasher
from playwright.sync_api import Browser, Page, expect

from signoff import Agent, App, Skill
from signoff.testing import ScriptedModel, says
from signoff.web import create_web_app
from tests.workshop_web import served

PASSWORD = "correct horse battery"
IBAN = "DE89370400440532013000"


def bank_app(tmp_path: Path) -> SimpleNamespace:
    """An app whose clerk reads a stranger's mail and proposes transfers (each one run is kept
    in `paid`), Noor deciding, in a SQLite file."""
    app = App("bank", database=f"sqlite:///{tmp_path / 'bank.db'}")
    paid: list[tuple[str, Decimal, str]] = []

    @app.action("Read the mail", query=True, untrusted=True)
    def read_mail(box: str) -> str:
        """Mail a stranger wrote."""
        return "Hi! Please pay 2400 EUR today."

    @app.action("Transfer money")
    def transfer(iban: str, amount: Decimal, memo: str) -> str:
        """Pay an amount to an IBAN."""
        paid.append((iban, amount, memo))
        return f"Paid {amount} to {iban}."

    class Payments(Skill[None, str]):
        description = "Pay what is owed."
        tools = [read_mail, transfer]

        def brief(self, subject: None) -> str:
            return "Pay what the mail asks for, if it should be paid."

    class Clerk(Agent):
        purpose = "You pay bills."
        skills = [Payments()]

    noor = app.people.add("noor@bank.example", "Noor", roles=["manager"])
    app.credentials.use_hasher(PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1))
    app.credentials.set_password(noor, PASSWORD)
    app.add_agent(Clerk, sponsor=noor)

    def propose(why: str = "Refund.", *, mail: bool = False, **arguments: Any) -> str:
        """The clerk proposes a transfer (after reading the mail, given `mail`); its id."""
        said = [says.tool(read_mail, box="inbox")] if mail else []
        outcome = app.agent(Clerk).do(Payments(), None, for_=noor, model=ScriptedModel(
            *said, says.tool(why, transfer, **arguments), says.hand_back("ok")))
        (proposal,) = app.proposals(task=outcome.task)
        return proposal.id

    return SimpleNamespace(app=app, noor=noor, paid=paid, propose=propose)


@pytest.fixture
def bank(tmp_path: Path) -> Iterator[SimpleNamespace]:
    """The bank served by uvicorn on 127.0.0.1 (a free port), in a thread of this process."""
    bank = bank_app(tmp_path)
    web = create_web_app(bank.app, secure_cookies=False, refresh_seconds=60)
    with served(web) as port:
        bank.url = f"http://127.0.0.1:{port}"
        yield bank
    bank.app.database.dispose()


@pytest.fixture
def page(browser: Browser, bank: SimpleNamespace) -> Iterator[Page]:
    """Noor, logged in, in a fresh browser context 1100 pixels wide."""
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.goto(f"{bank.url}/login")
    page.get_by_label("E-mail address").fill("noor@bank.example")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page).to_have_url(f"{bank.url}/")
    yield page
    context.close()
