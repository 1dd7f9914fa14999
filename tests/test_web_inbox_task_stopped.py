"""The inbox's task page stops a task (a real Chromium): Mia stops her waiting task with a
reason; a stop pressed on a page shown before the task ended says why nothing was done."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from playwright.sync_api import Browser, Page, expect

from signoff import ProposalStatus, TaskStatus, policy
from signoff.exceptions import UnknownId
from signoff.web import create_web_app
from tests.workshop_web import PASSWORD, open_workshop, price, served


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SimpleNamespace]:
    shop = open_workshop(tmp_path, monkeypatch, passwords=True)
    with served(create_web_app(shop.app, secure_cookies=False)) as port:
        shop.url = f"http://127.0.0.1:{port}"
        yield shop
    shop.app.database.dispose()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    page = context.new_page()
    page.set_default_timeout(10_000)
    yield page
    context.close()


def _log_in(page: Page, shop: SimpleNamespace, handle: str) -> None:
    page.goto(f"{shop.url}/")
    page.get_by_label("E-mail address").fill(handle)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page).to_have_url(f"{shop.url}/")


def test_mia_stops_her_waiting_task_on_its_page(shop: SimpleNamespace, page: Page) -> None:
    task = price(shop).task
    (proposal,) = shop.app.proposals(task=task)
    _log_in(page, shop, "mia@workshop.example")
    page.goto(f"{shop.url}/tasks/{task}")
    expect(page.locator("#task-status")).to_have_text("Waiting")
    page.get_by_label("Why you stop it (optional)").fill("The customer took the bike back.")
    page.get_by_role("button", name="Stop this task").click()
    expect(page).to_have_url(f"{shop.url}/tasks/{task}")
    expect(page.locator("#task-status")).to_have_text("Halted")
    expect(page.locator("#problem")).to_contain_text(
        "Mia stopped it: The customer took the bike back.")
    expect(page.locator("#stop")).to_have_count(0)  # nothing left to stop
    expect(page.locator("#receipt")).to_contain_text("was withdrawn")
    assert shop.app.proposal(proposal).status is ProposalStatus.WITHDRAWN


def test_a_stop_pressed_after_the_task_ended_says_why_nothing_was_done(
        shop: SimpleNamespace, page: Page) -> None:
    task = price(shop).task
    _log_in(page, shop, "mia@workshop.example")
    page.goto(f"{shop.url}/tasks/{task}")
    shop.app.stop(task, by=shop.noor, reason="Stopped at the desk.")  # (meanwhile, elsewhere)
    page.get_by_role("button", name="Stop this task").click()
    expect(page).to_have_url(re.compile(rf"/tasks/{task}$"))
    expect(page.locator("#stop-refused")).to_contain_text(
        f"Task {task} has already ended (Halted): there is nothing to stop.")
    expect(page.locator("#problem")).to_contain_text("Noor stopped it: Stopped at the desk.")
    assert shop.app.outcome(task).status is TaskStatus.HALTED


def test_the_stop_is_offered_only_to_whoever_may_stop_the_task(
        shop: SimpleNamespace, page: Page) -> None:
    """Noor, deciding the fleet's price but supervising no agents here, sees Mia's task without
    a stop she would be refused; Mia, whose work it is, has it (the page offered it to Noor)."""
    shop.app.oversight.supervises_agents = policy.nobody
    task = price(shop, fleet=True).task
    _log_in(page, shop, "noor@workshop.example")
    page.goto(f"{shop.url}/tasks/{task}")
    expect(page.locator("#task-status")).to_have_text("Waiting")
    expect(page.locator("#stop")).to_have_count(0)
    with pytest.raises(UnknownId):  # (what the page no longer offers)
        shop.app.stop(task, by=shop.noor)
    page.context.clear_cookies()
    _log_in(page, shop, "mia@workshop.example")
    page.goto(f"{shop.url}/tasks/{task}")
    expect(page.get_by_role("button", name="Stop this task")).to_be_visible()
