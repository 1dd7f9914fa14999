"""The guard in front of hostile MCP servers: hints it does not believe are not served on to
the client, a tool whose name is too long to keep is left out (the guard starts all the same),
and an answer too large to keep is cut, saying so."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from types import SimpleNamespace

import anyio
import pytest
from mcp import Client

from signoff.mcp.config import GuardConfig
from signoff.mcp.guard import open_guard_app
from signoff.security.credentials import TokenPurpose
from tests.mcp_servers import (
    ROOT,
    TRANSPORTS,
    connected,
    environment,
    free_port,
    guard_config,
    http_server,
    over_http,
    serving,
    stdio_answers,
    stdio_server,
)

FILES = str(ROOT / "tests" / "mcp_upstream_files.py")
HOSTILE = str(ROOT / "tests" / "mcp_upstream_hostile.py")


@contextmanager
def _guard(tmp: Path, *, long_name: bool = False) -> Iterator[SimpleNamespace]:
    """A guard config in front of a trusted file server, an untrusted one that says its deleting
    tool only reads, and a trusted hostile server reached over streamable HTTP (running while
    this is open; its answers vouched for, so that no call of it is held back; with `long_name`,
    listing a tool whose name is too long to keep); Noor's client token."""
    for server in ("files", "liar"):
        (tmp / server).mkdir()
    port = free_port()
    env = environment()
    hostile_env = environment(HOSTILE_LONG_NAME="1" if long_name else "0")
    with serving([sys.executable, HOSTILE, "--http", str(port)], hostile_env, port) as hostile:
        config = guard_config(
            tmp, stdio_server("files", FILES, env={"FILES_ROOT": str(tmp / "files")}, trusted=True),
            stdio_server("liar", FILES, env={"FILES_ROOT": str(tmp / "liar"), "FILES_LIE": "1"}),
            f'\n[servers.hostile]\nurl = "{hostile}/mcp"\ntrusted = true\noutside = false\n')
        app = open_guard_app(GuardConfig.load(config))
        noor = app.people.find("noor@example.com")
        yield SimpleNamespace(config=config, env=env, client=app.credentials.issue_token(
            noor, "tests' client", purpose=TokenPurpose.CLIENT))


@asynccontextmanager
async def _client(guard: SimpleNamespace, transport: str) -> AsyncIterator[Client]:
    if transport == "stdio":
        async with connected("stdio", ["mcp", "guard", str(guard.config)], guard.env) as client:
            yield client
        return
    port = free_port()
    with http_server(["mcp", "guard", str(guard.config), "--http", f"127.0.0.1:{port}"],
                     guard.env, port) as url:
        async with over_http(url, token=guard.client) as client:
            yield client


def test_hints_of_a_server_the_guard_does_not_trust_are_not_served_on(tmp_path: Path) -> None:
    """The untrusted server says its deleting tool only reads, destroys nothing: the guard
    proposes it, and does not tell the client those hints either (a client may take a
    read-only tool for one it need not ask about); a trusted server's hints are served as
    given."""

    async def scenario() -> dict[str, object]:
        with _guard(tmp_path) as guard:
            async with _client(guard, "stdio") as client:
                return {t.name: t.annotations for t in (await client.list_tools()).tools}

    hints = anyio.run(scenario)
    lying = hints["liar_delete_file"]
    assert lying is None or (lying.read_only_hint is not True
                             and lying.destructive_hint is not False)
    assert hints["liar_list_files"] is None or hints["liar_list_files"].read_only_hint is not True
    trusted = hints["files_list_files"]
    assert trusted is not None
    assert trusted.read_only_hint is True


def test_a_tool_whose_name_is_too_long_to_keep_is_left_out_and_the_guard_starts(
        tmp_path: Path) -> None:
    """A server lists a tool of 260 characters: served as hostile_…, its name would be longer
    than a proposal, rule or receipt keeps. The guard starts all the same, serving every other
    tool, and calls them."""

    async def scenario() -> tuple[list[str], str]:
        with _guard(tmp_path, long_name=True) as guard:
            async with _client(guard, "stdio") as client:
                names = [t.name for t in (await client.list_tools()).tools]
                answer = await client.call_tool("hostile_huge_text", {"chars": 3})
                return names, answer.content[0].text

    names, said = anyio.run(scenario)
    assert "hostile_huge" in names
    assert "files_list_files" in names
    assert not [name for name in names if name.startswith("hostile_read_very")]
    assert said == "yyy"


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_an_answer_too_large_to_keep_is_cut_and_says_so(tmp_path: Path, transport: str) -> None:
    """Three million characters: the client is told the first million and that the rest is
    left out, though the call ran — as an error for a tool with an output schema (no structured
    content is left to fit it), as an ordinary result for one without; a small answer is whole."""

    async def scenario() -> list[tuple[bool, str]]:
        with _guard(tmp_path) as guard:
            async with _client(guard, transport) as client:
                told = []
                for tool, chars in (("hostile_huge", 3_000_000), ("hostile_huge_text", 3_000_000),
                                    ("hostile_huge", 10)):
                    answer = await client.call_tool(tool, {"chars": chars})
                    told.append((bool(answer.is_error), answer.content[0].text))
                return told

    (structured, text, small) = anyio.run(scenario)
    for (_, said), letter in ((structured, "x"), (text, "y")):
        assert said.startswith(letter * 1_000_000 + "\n[The server hostile answered the call of ")
        assert said.endswith("the rest of its answer is left out (its structured content and "
                             "other blocks too). The call ran.]")
        assert len(said) < 1_001_000
    assert structured[0] is True
    assert text[0] is False
    assert small == (False, "x" * 10)


def test_a_call_giving_an_argument_twice_is_refused_before_it_goes_upstream(
        tmp_path: Path) -> None:
    """Over stdio, a call to the guard whose arguments give a member twice is answered with an
    invalid-params error naming it, and nothing reaches the upstream (the SDK took the last
    value given: the file written was the second name's)."""
    line = ('{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": '
            '"files_write_file", "arguments": {"name": "n.txt", "name": "m.txt", "text": "x"}, '
            '"_meta": {"signoff/wait": 0}}}')
    with _guard(tmp_path) as guard:
        answers = stdio_answers(["mcp", "guard", str(guard.config)], guard.env, [
            {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "raw", "version": "1"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"}, line,
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}], last=2)
    told = {a["id"]: a.get("error") for a in answers if a.get("id")}
    assert told[1] == {"code": -32602, "message": (
        "The arguments of \"files_write_file\" give “name” twice in one object (name): give "
        "each member once, with the one value meant. Nothing was run, and nothing was "
        "proposed.")}
    assert told[2] is None
    assert sorted(p.name for p in (tmp_path / "files").iterdir()) == []
