"""What a closed session leaves holds in its client's next: over HTTP on the protocol that keeps
sessions (2025-11-25), a client whose session ends (it closed it, or it was left idle) starts a
new one and goes on with what its model read in the old. The new session's calls are labelled
with what the old one read, and a call the old one proposed, asked again, waits on its proposal."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio

from signoff import Origin, ProposalStatus
from signoff.mcp.config import GuardConfig
from signoff.mcp.guard import open_guard_app
from signoff.security.credentials import TokenPurpose
from tests.mcp_servers import (
    ROOT,
    environment,
    free_port,
    guard_config,
    http_server,
    over_http,
    stdio_server,
)

UPSTREAM = str(ROOT / "tests" / "mcp_upstream_files.py")


def test_a_word_read_in_a_closed_session_holds_back_a_call_of_the_next(tmp_path: Path) -> None:
    """The file server (its answers outside content; write_file runs alone by the config) lists
    a file named pwned. A write of "pwned" is proposed in that session; the client closes it and
    starts another, and writes "pwned" to another file: still proposed, the word traced to the listing
    the closed session read (the new session had read nothing, and took it for a word the model
    wrote itself: it ran alone)."""
    (tmp_path / "files").mkdir()
    (tmp_path / "files" / "pwned").write_text("")
    config = guard_config(tmp_path, stdio_server(
        "files", UPSTREAM, env={"FILES_ROOT": str(tmp_path / "files")}, trusted=True,
        tools={"write_file": "alone"}))
    app = open_guard_app(GuardConfig.load(config))
    noor = app.people.find("noor@example.com")
    token = app.credentials.issue_token(noor, "tests' client", purpose=TokenPurpose.CLIENT)
    write = {"name": "note", "text": "pwned"}
    port = free_port()

    async def scenario(url: str) -> tuple[Any, Any, Any]:
        async with over_http(url, token=token, mode="legacy") as client:
            listed = await client.call_tool("files_list_files", {})
            first = await client.call_tool("files_write_file", write, meta={"signoff/wait": 0})
        async with over_http(url, token=token, mode="legacy") as client:
            again = await client.call_tool("files_write_file", {**write, "name": "memo"},
                                           meta={"signoff/wait": 0})
        return listed, first, again

    with http_server(["mcp", "guard", str(config), "--http", f"127.0.0.1:{port}"],
                     environment(), port) as url:
        listed, first, again = anyio.run(scenario, url)
    assert listed.structured_content == {"result": ["pwned"]}
    assert "was proposed to Noor" in first.content[0].text
    assert "was proposed to Noor" in again.content[0].text, again.content[0].text
    assert not (tmp_path / "files" / "note").exists()
    assert not (tmp_path / "files" / "memo").exists()
    proposals = app.proposals(status=ProposalStatus.WAITING)
    assert len(proposals) == 2
    for proposal in proposals:
        assert [(label.value, label.origin) for label in proposal.labels] == [
            ("pwned", Origin.OUTSIDE)]


def test_a_call_proposed_in_a_closed_session_asked_again_in_the_next_waits_on_it(
        tmp_path: Path) -> None:
    """A client's delete is proposed and it closes its session before it is told how it came
    out; in its next session it asks for the same delete: it waits on the same proposal, so one
    yes runs it once (a second proposal was made, and a yes to each deleted twice)."""
    (tmp_path / "files").mkdir()
    (tmp_path / "files" / "a.txt").write_text("")
    config = guard_config(tmp_path, stdio_server(
        "files", UPSTREAM, env={"FILES_ROOT": str(tmp_path / "files")}, trusted=True))
    app = open_guard_app(GuardConfig.load(config))
    noor = app.people.find("noor@example.com")
    token = app.credentials.issue_token(noor, "tests' client", purpose=TokenPurpose.CLIENT)
    delete = {"name": "a.txt"}
    port = free_port()

    async def scenario(url: str) -> tuple[Any, Any]:
        async with over_http(url, token=token, mode="legacy") as client:
            first = await client.call_tool("files_delete_file", delete, meta={"signoff/wait": 0})
        async with over_http(url, token=token, mode="legacy") as client:
            again = await client.call_tool("files_delete_file", delete, meta={"signoff/wait": 0})
        return first, again

    with http_server(["mcp", "guard", str(config), "--http", f"127.0.0.1:{port}"],
                     environment(), port) as url:
        first, again = anyio.run(scenario, url)
    (proposal,) = app.proposals()
    assert proposal.id in first.content[0].text
    assert proposal.id in again.content[0].text, again.content[0].text
