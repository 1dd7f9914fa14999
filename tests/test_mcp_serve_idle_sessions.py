"""An MCP session over HTTP whose client went without ending it: the SDK forgets it once it has
been idle, and its tasks end as when the client ends it, their receipts saying so."""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from signoff.agents.tasks import TaskStatus
from signoff.mcp.served import ServedAgent
from signoff.mcp.transport import http_app
from tests.workshop_web import open_workshop, served


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    """The workshop in a SQLite file."""
    return open_workshop(tmp_path, monkeypatch)


async def _call(url: str, token: str, repair: str, *, end: bool) -> Any:
    """Note on T-7 as the client of `token`, over the protocol that keeps sessions; `end`:
    whether the client ends its session as it goes."""
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"},
                                  timeout=30) as http, \
            Client(streamable_http_client(f"{url}/mcp", http_client=http,
                                          terminate_on_close=end),
                   mode="legacy", cache=None) as client:
        return await client.call_tool("note_repair", {"repair": repair, "note": "Worn pads."})


def test_a_session_its_client_left_open_ends_once_the_sdk_forgot_it(
        shop: SimpleNamespace) -> None:
    """Noor's client goes without ending its session; once it has been idle past the server's
    idle time (and the SDK has forgotten it), the next request the server takes ends its task,
    whose receipt says the session ended (before, it stayed Running, its lease renewed, until
    the server stopped)."""
    agent = ServedAgent(shop.app, shop.Estimator, subject=shop.repair)
    with served(http_app(agent, shop.app, host="127.0.0.1", idle_seconds=0.5),
                lifespan="on") as port:  # (the MCP endpoint's sessions need its lifespan)
        url = f"http://127.0.0.1:{port}"
        repair = str(shop.repair.id)
        noted = anyio.run(lambda: _call(url, shop.clients["Noor"], repair, end=False))
        assert not noted.is_error, noted
        (task,) = _tasks(shop)
        assert shop.app.outcome(task).status is TaskStatus.RUNNING
        time.sleep(2.0)  # idle past 0.5 s and the margin after it
        anyio.run(lambda: _call(url, shop.clients["Mia"], repair, end=True))
        outcome = shop.app.outcome(task)
    assert outcome.status is TaskStatus.HALTED, outcome
    assert "The MCP session ended" in shop.app.receipt(task).words


def _tasks(shop: SimpleNamespace) -> list[str]:
    from sqlalchemy import text

    with shop.app.database.connect() as db:
        return [str(t) for t in db.execute(text("select id from signoff_tasks")).scalars()]
