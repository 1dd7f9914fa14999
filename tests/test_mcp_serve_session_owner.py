"""An MCP session over HTTP belongs to the person whose client token opened it: another
person's client, holding its id, can neither call tools in it nor end it."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from sqlalchemy import select

from signoff.store.tables import tasks
from tests.mcp_servers import free_port, http_server, workshop_served


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    """The workshop in a SQLite file the served process shares."""
    return workshop_served(tmp_path, monkeypatch)


def _note(shop: SimpleNamespace) -> str:
    with shop.app.session(as_=shop.app.system) as s:
        return str(s.get(shop.Repair, shop.repair.id).note)


def _people_worked_for(shop: SimpleNamespace) -> set[str]:
    with shop.app.database.reading() as db:
        return {str(p) for p in db.execute(select(tasks.c.for_id)).scalars()}


def test_another_persons_client_can_neither_call_in_a_session_nor_end_it(
        shop: SimpleNamespace) -> None:
    """Noor's client opens a session (the protocol that keeps them); Mia's client, sending a
    valid token of her own and Noor's session id, is answered as for a session that does not
    exist (404), both for a call and for ending it: nothing runs for Mia, and Noor's session
    goes on. (Before, Mia's call ran in Noor's session, and her DELETE ended it.)"""
    port = free_port()
    ids: list[str] = []

    async def session_id(response: Any) -> None:
        if "mcp-session-id" in response.headers:
            ids.append(response.headers["mcp-session-id"])

    async def scenario(url: str) -> tuple[list[httpx.Response], Any]:
        headers = {"Authorization": f"Bearer {shop.clients['Noor']}"}
        async with httpx2.AsyncClient(headers=headers, timeout=30,
                                      event_hooks={"response": [session_id]}) as http, \
                Client(streamable_http_client(f"{url}/mcp", http_client=http),
                       mode="legacy", cache=None) as client:
            await client.call_tool("parts_for", {"fault": "rear brake"})
            assert ids, "the server gave no session id"
            as_mia = {"Authorization": f"Bearer {shop.clients['Mia']}",
                      "Accept": "application/json, text/event-stream",
                      "Mcp-Session-Id": ids[-1], "Mcp-Protocol-Version": "2025-11-25"}
            call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                    "params": {"name": "note_repair",
                               "arguments": {"repair": str(shop.repair.id),
                                             "note": "Mia was here."}}}
            async with httpx.AsyncClient(base_url=url, headers=as_mia, timeout=30) as mia:
                refused = [await mia.post("/mcp", json=call), await mia.delete("/mcp")]
            noted = await client.call_tool("note_repair", {"repair": str(shop.repair.id),
                                                           "note": "Noor's own note."})
        return refused, noted

    with http_server([*shop.serve, "--http", f"127.0.0.1:{port}"], shop.env, port) as url:
        refused, noted = anyio.run(scenario, url)
    assert [answer.status_code for answer in refused] == [404, 404], [
        answer.text for answer in refused]
    assert not noted.is_error, noted
    assert _note(shop) == "Noor's own note."
    assert _people_worked_for(shop) == {shop.noor.id}
