"""How a task that ended without a result reads on its page and on the Tasks page, in a real
browser: its problem after its status, as a sentence that does not say the status again
("Halted — Halted: it reached …" it read), and its receipt's entries labelled in words ("model
call", not the code ``model_call``)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from signoff.models import Price
from signoff.testing import ScriptedModel, says
from tests.workshop_web import PASSWORD, open_workshop, served_shop


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SimpleNamespace]:
    """The workshop served on 127.0.0.1 (a free port), in a thread of this process."""
    with served_shop(open_workshop(tmp_path, monkeypatch, passwords=True)) as shop:
        yield shop


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(10_000)
    yield page
    context.close()


def _ended(shop: SimpleNamespace, how: str) -> Any:
    """A task for Mia that ended `how`: at its step limit, at its budget, or with its model
    failed."""
    estimator = shop.app.agent(shop.Estimator)
    look = says.tool(shop.parts_for, fault="rear brake does not bite")
    if how == "steps":
        return estimator.do(shop.EstimateRepair(), shop.repair, for_=shop.mia, max_steps=1,
                            model=ScriptedModel(look, look))
    if how == "budget":
        return estimator.do(shop.EstimateRepair(), shop.repair, for_=shop.mia,
                            budget_usd=0.000001, model=ScriptedModel(
                                look, price=Price(input_per_mtok=1, output_per_mtok=1)))
    return estimator.do(shop.EstimateRepair(), shop.repair, for_=shop.mia, model=ScriptedModel())


@pytest.mark.parametrize(("how", "status", "problem"), [
    ("steps", "Halted", "It reached its limit of 1 step."),
    ("budget", "Halted", "The next model call could cost up to $"),
    ("failed", "Failed", "The model failed: The script has 0 turn(s)")])
def test_a_tasks_problem_reads_after_its_status(shop: SimpleNamespace, page: Page, how: str,
                                                status: str, problem: str) -> None:
    """Halted at its step limit, at its budget, or failed: the task's page and the Tasks page
    say the status once, then the problem as a sentence; the receipt's labels are words."""
    outcome = _ended(shop, how)
    assert outcome.status.value == status
    page.goto(f"{shop.url}/login")
    page.get_by_label("E-mail address").fill("mia@workshop.example")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page).to_have_url(f"{shop.url}/")
    page.goto(f"{shop.url}/tasks")
    expect(page.locator("#tasks tbody tr .why")).to_have_text(re.compile("^" + re.escape(problem)))
    page.goto(f"{shop.url}/tasks/{outcome.task}")
    expect(page.locator("#task-status")).to_have_text(status)
    expect(page.locator("#problem")).to_have_text(re.compile("^" + re.escape(problem)))
    said = page.locator("p", has=page.locator("#task-status")).inner_text()
    assert f"{status} — {status}" not in said, said
    assert f"{status}: " not in said, said
    labels = page.locator("#receipt li .muted").all_inner_texts()
    assert labels, page.content()
    assert not any("_" in label for label in labels), labels
    assert any(label.endswith("model call") for label in labels) or how != "steps", labels
