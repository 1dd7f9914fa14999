"""An id is a UUID however it is written: in capitals, or without its dashes (as a person may
copy it from a log or type it), it names the same task or proposal in the library, the REST API
and the inbox's pages — the pages and the library answered 404 and NotFound, though the command
line took it."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from fastapi.testclient import TestClient

from signoff.web import create_web_app
from tests.workshop_web import bearer, open_workshop, price


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    shop = open_workshop(tmp_path, monkeypatch)
    shop.client = TestClient(create_web_app(shop.app, secure_cookies=False))
    return shop


def written_otherwise(an_id: str) -> list[str]:
    return [an_id.upper(), an_id.replace("-", ""), an_id.upper().replace("-", "")]


def test_the_library_takes_an_id_written_otherwise(shop: SimpleNamespace) -> None:
    outcome = price(shop)
    (proposal,) = shop.app.proposals(task=outcome.task)
    for task in written_otherwise(outcome.task):
        assert shop.app.outcome(task).task == outcome.task
        assert shop.app.receipt(task).task == outcome.task
        assert [p.id for p in shop.app.proposals(task=task)] == [proposal.id]
    for named in written_otherwise(proposal.id):
        assert shop.app.proposal(named).id == proposal.id


def test_the_api_and_the_pages_take_an_id_written_otherwise(shop: SimpleNamespace) -> None:
    outcome = price(shop)
    (proposal,) = shop.app.proposals(task=outcome.task)
    for task in written_otherwise(outcome.task):
        shown = shop.client.get(f"/api/tasks/{task}", headers=bearer(shop, "Mia"))
        assert shown.status_code == 200, shown.text
        assert shown.json()["task"] == outcome.task
        assert shop.client.get(f"/api/tasks/{task}/receipt",
                               headers=bearer(shop, "Mia")).status_code == 200
    for named in written_otherwise(proposal.id):
        shown = shop.client.get(f"/api/proposals/{named}", headers=bearer(shop, "Mia"))
        assert (shown.status_code, shown.json()["id"]) == (200, proposal.id)
    # Another person's task is not found however its id is written.
    assert shop.client.get(f"/api/tasks/{outcome.task.upper()}",
                           headers=bearer(shop, "Ola")).status_code == 404
