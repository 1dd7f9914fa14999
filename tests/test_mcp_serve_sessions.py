"""Which session an MCP call belongs to, and what a client cannot change of it: over the
protocol that keeps no sessions (2026-07-28), a person's calls are one session whatever
``Mcp-Session-Id`` the client sends; a call whose client goes while its turn is taken is still
remembered as proposed (this held before: it guards it)."""

from __future__ import annotations

import uuid
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from sqlalchemy import select

from signoff.store.tables import tasks
from tests.mcp_servers import http_server, workshop_served
from tests.ports import free_port


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    """The workshop in a SQLite file the served process shares."""
    return workshop_served(tmp_path, monkeypatch)


async def _a_new_session_id_each_request(request: Any) -> None:
    request.headers["mcp-session-id"] = uuid.uuid4().hex


def test_a_session_id_the_client_makes_up_is_not_a_session_of_its_own(
        shop: SimpleNamespace) -> None:
    """On the protocol that keeps no sessions the SDK checks no session id: a client sending a
    new one with each request made each call a work of its own (forgetting what it had read,
    with calls of its own to make); its calls are one work, as its person's are."""
    port = free_port()

    async def scenario(url: str) -> None:
        hooks = {"request": [_a_new_session_id_each_request]}
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {shop.clients['Noor']}"},
                                      event_hooks=hooks, timeout=30) as http, \
                Client(streamable_http_client(f"{url}/mcp", http_client=http),
                       mode="auto") as client:
            for _ in range(3):
                ran = await client.call_tool("parts_for", {"fault": "rear brake"})
                assert ran.structured_content == {"result": ["brake pads", "cable"]}

    with http_server([*shop.serve, "--http", f"127.0.0.1:{port}"], shop.env, port) as url:
        anyio.run(scenario, url)
    with shop.app.database.reading() as db:
        works = db.execute(select(tasks.c.work_id).where(tasks.c.agent == "estimator")
                           ).scalars().all()
    assert len(works) >= 1
    assert len(set(works)) == 1, works


def test_a_call_whose_client_went_while_its_turn_was_taken_is_still_one_proposal(
        tmp_path: Path) -> None:
    """The client cancels a call (or its HTTP request is cut) while its turn is being taken,
    and the turn proposes it all the same: asked again, the call is told that proposal, not
    proposed a second time (a yes to each would post twice)."""
    import threading

    from signoff import Agent, App, Skill, sends
    from signoff.mcp.served import ServedAgent

    entered, release, blocking = threading.Event(), threading.Event(), threading.Event()
    app = App("poster", database=f"sqlite:///{tmp_path / 'poster.db'}")

    @sends
    def post(text: str) -> None:
        """Post `text` (nothing here: it is what a send looks like)."""

    @app.action("Post a message")
    def post_message(text: str) -> str:
        """Post a message."""
        post(text)
        return "Posted."

    class Posting(Skill[None, str]):
        description = "Post messages."
        tools = [post_message]

        def version_of(self, action: str, arguments: dict[str, Any]) -> str:
            if blocking.is_set():  # (as the proposal is made, in the turn)
                entered.set()
                release.wait(30)
            return ""

    class Poster(Agent):
        purpose = "You post messages."
        skills = [Posting()]
        roles: list[str] = []

    noor = app.people.add("noor@example.com", "Noor")
    app.add_agent(Poster, sponsor=noor)
    served = ServedAgent(app, Poster, for_=noor, wait_seconds=0)

    async def scenario() -> Any:
        blocking.set()
        async with anyio.create_task_group() as group:
            group.start_soon(served.call_tool, "post_message", {"text": "hello"})
            await anyio.to_thread.run_sync(lambda: entered.wait(30))
            group.cancel_scope.cancel()  # the client went, as the turn proposes
            release.set()
        blocking.clear()
        return await served.call_tool("post_message", {"text": "hello"})

    try:
        again = anyio.run(scenario)
        (proposal,) = app.proposals()
        assert again.structured_content["proposal"] == proposal.id, again
    finally:
        app.database.dispose()
