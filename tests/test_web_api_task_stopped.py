"""`POST /api/tasks/{id}/stop`: the API stops a task as `app.stop` does — whoever the work is
for (Mia), a supervisor (Noor); one who may not see it is answered as for a task that is not
there (404); one ended, 409; the body may be left out."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from fastapi.testclient import TestClient

from signoff.web import create_web_app
from tests.workshop_web import bearer, open_workshop, price

PROBLEM = "application/problem+json"


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    shop = open_workshop(tmp_path, monkeypatch)
    shop.client = TestClient(create_web_app(shop.app, secure_cookies=False))
    return shop


def test_a_waiting_task_is_stopped_through_the_api(shop: SimpleNamespace) -> None:
    task = price(shop).task
    (proposal,) = shop.app.proposals(task=task)
    url = f"/api/tasks/{task}/stop"

    hidden = shop.client.post(url, json={"reason": "x"}, headers=bearer(shop, "Ola"))
    assert hidden.status_code == 404, hidden.text
    assert hidden.headers["content-type"] == PROBLEM
    too_long = shop.client.post(url, json={"reason": "x" * 100_000}, headers=bearer(shop, "Mia"))
    assert too_long.status_code == 422, too_long.text
    typed = shop.client.post(url, content=b"Not needed.", headers={
        **bearer(shop, "Mia"), "Content-Type": "text/plain"})
    assert typed.status_code == 415, typed.text
    assert shop.app.outcome(task).status.value == "Waiting"  # none of it stopped it

    stopped = shop.client.post(url, json={"reason": "The customer took the bike back."},
                               headers=bearer(shop, "Mia"))
    assert stopped.status_code == 200, stopped.text
    assert (stopped.json()["status"], stopped.json()["problem"]) == (
        "Halted", "Mia stopped it: The customer took the bike back.")
    assert shop.app.proposal(proposal).status.value == "Withdrawn"

    again = shop.client.post(url, headers=bearer(shop, "Mia"))
    assert again.status_code == 409, again.text
    assert "has already ended (Halted)" in again.json()["detail"]


def test_a_supervisor_stops_anothers_task_with_no_body(shop: SimpleNamespace) -> None:
    task = price(shop, fleet=True).task
    stopped = shop.client.post(f"/api/tasks/{task}/stop", headers=bearer(shop, "Noor"))
    assert stopped.status_code == 200, stopped.text
    assert stopped.json()["problem"] == "Noor stopped it."
