"""The guard bounded against its upstream servers: a slow listing holds no writer of the
guard's database for its whole delay, a pattern in a tool's input schema cannot stall the
guard's event loop, and a server that says its list of tools changed is listed again, the
guard's clients told so."""

from __future__ import annotations

from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from signoff import ProposalStatus
from signoff.mcp import upstreams
from signoff.mcp.config import GuardConfig
from signoff.mcp.guard import open_guard
from signoff.mcp.served import ServedAgent
from tests.mcp_servers import connected, environment, guard_config, stdio_server, writer_told

_SHIFTING = r'''import sys
from pathlib import Path

import anyio
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.types import ToolAnnotations

HERE = Path(sys.argv[1])
PATTERNS = {"spell": r"^(a+)+$", "twice": r"^(\w+) \1$"}


class Shifting(MCPServer):
    async def list_tools(self):
        if (HERE / "slow").exists():  # it lists nothing until the test puts `go` there
            (HERE / "listing").write_text("")
            with anyio.move_on_after(60):
                while not (HERE / "go").exists():
                    await anyio.sleep(0.05)
        tools = await super().list_tools()
        for tool in tools:
            if tool.name in PATTERNS:
                tool.input_schema["properties"]["word"]["pattern"] = PATTERNS[tool.name]
            if tool.name == "spell" and (HERE / "respelt").exists():
                tool.description = "Say whether a word is spelt right, in British English."
        return tools


server = Shifting("shifting", log_level="WARNING")
READS = ToolAnnotations(read_only_hint=True)


@server.tool(annotations=READS)
def spell(word: str) -> str:
    """Say whether a word is spelt right."""
    return f"{word} is spelt right."


@server.tool(annotations=READS)
def twice(word: str) -> str:
    """Say a word said twice."""
    return f"{word}, said."


@server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True))
def delete_file(name: str) -> str:
    """Delete a file."""
    (HERE / "deleted.log").open("a").write(name + "\n")
    return f"Deleted {name}."


def added_later() -> str:
    """A tool the server adds as it runs."""
    return "added later."


@server.tool(annotations=READS)
async def shift(ctx: Context) -> str:
    """Add the tool added_later, and tell the client the list of tools changed."""
    server.add_tool(added_later, annotations=READS)
    await ctx.notify_tools_changed()
    return "shifted."


@server.tool(annotations=READS)
def shift_quietly() -> str:
    """Add the tool added_later and change spell's description, telling nobody."""
    server.add_tool(added_later, annotations=READS)
    (HERE / "respelt").write_text("")
    return "shifted."


@server.tool(annotations=READS)
async def flood(times: int, ctx: Context) -> str:
    """Tell the client the list of tools changed, `times` times over."""
    for _ in range(times):
        await ctx.notify_tools_changed()
    return "flooded."


if __name__ == "__main__":
    server.run()
'''
"""An MCP server written with the SDK (its protocol the newest), in the folder its first
argument names: spell and twice check a word against a pattern in their input schemas
(``^(a+)+$``, which backtracks catastrophically, and one with a back-reference); delete_file
writes to deleted.log; shift adds the tool added_later and tells its listeners the list
changed, shift_quietly adds it and changes spell's description telling nobody, flood tells them
its list changed as many times as it is told. While a file `slow` is there, it lists its
tools only once `go` is (`listing` says a listing waits)."""


def _config(tmp: Path) -> Path:
    server = tmp / "shifting.py"
    server.write_text(_SHIFTING)
    return guard_config(tmp, stdio_server("up", server, args=[str(tmp)], outside=False, tools={
        "spell": "alone", "twice": "alone", "shift": "alone", "added_later": "alone",
        "shift_quietly": "alone", "flood": "alone"}))


def test_a_slow_listing_as_a_yes_is_claimed_keeps_no_writer_waiting_on_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Noor says yes to a delete while its server takes as long as the test likes to list its
    tools: another writer of the guard's database gets its turn before the server has answered
    (the claim held SQLite's write lock for as long as the guard waited on the listing, ten
    seconds, and a writer waiting less was told "database is locked"); the yes finds the call
    stale, and nothing is deleted."""
    config = _config(tmp_path)
    writer_waits = (upstreams.LIST_IN_CLAIM_SECONDS + upstreams.LIST_NOW_SECONDS) / 2
    monkeypatch.setattr(upstreams, "LISTED_FRESH_SECONDS", 0.0)  # (the claim asks, whatever)

    def write_now() -> str:
        return writer_told(tmp_path / "guard.db", waits=writer_waits)

    async def scenario() -> dict[str, Any]:
        found: dict[str, Any] = {}
        async with AsyncExitStack() as stack:
            served = await open_guard(GuardConfig.load(config), stack, wait_seconds=0)
            called = await served.call_tool("up_delete_file", {"name": "a.txt"})
            assert "proposed to Noor" in called.content[0].text
            app = served.app
            (proposal,) = app.proposals(status=ProposalStatus.WAITING)
            noor = app.people.find("noor@example.com")
            (tmp_path / "slow").write_text("")

            async def approve() -> None:
                found["decision"] = await anyio.to_thread.run_sync(
                    lambda: app.approve(proposal, by=noor))

            async with anyio.create_task_group() as group:
                group.start_soon(approve)
                with anyio.fail_after(60):
                    while not (tmp_path / "listing").exists():
                        await anyio.sleep(0.05)
                found["write"] = await anyio.to_thread.run_sync(write_now)
                (tmp_path / "go").write_text("")  # the server answers only now
        return found

    found = anyio.run(scenario)
    assert found["write"] == "written"
    assert found["decision"].status is ProposalStatus.STALE
    assert not (tmp_path / "deleted.log").exists()


def test_a_catastrophic_pattern_in_an_input_schema_does_not_stall_the_guard(
        tmp_path: Path) -> None:
    """spell's input schema gives the pattern ``^(a+)+$``; a call with forty a's and a "!"
    is told the word does not match (matched by Python's backtracking engine, it took 2⁴⁰
    steps, the guard's event loop stalled throughout), and the guard goes on: a word that fits
    runs. A pattern the guard cannot match without backtracking (a back-reference) is refused
    in words, and the call not made."""
    config = _config(tmp_path)

    async def scenario() -> dict[str, Any]:
        async with connected("stdio", ["mcp", "guard", str(config)], environment()) as client:
            with anyio.fail_after(60):
                return {"long": await client.call_tool("up_spell", {"word": "a" * 40 + "!"}),
                        "fits": await client.call_tool("up_spell", {"word": "aaa"}),
                        "twice": await client.call_tool("up_twice", {"word": "la la"})}

    found = anyio.run(scenario)
    assert found["long"].is_error
    assert found["long"].content[0].text == (
        f"Invalid: word: '{'a' * 40}!' does not match '^(a+)+$'. Nothing was run or proposed.")
    assert found["fits"].content[0].text == "aaa is spelt right."
    assert found["twice"].is_error
    told = found["twice"].content[0].text
    assert "cannot be matched in bounded time" in told
    assert "back-references" in told
    assert "the call is not made" in told


def test_a_servers_list_changed_is_taken_and_told_to_the_guards_clients(
        tmp_path: Path) -> None:
    """The server adds a tool and says its list changed: the guard lists it again by itself
    (it kept serving its first listing until a client asked for the tools again), offers the
    added tool, and tells its own clients listening that its list changed."""
    config = _config(tmp_path)

    async def scenario() -> dict[str, Any]:
        found: dict[str, Any] = {}
        async with AsyncExitStack() as stack:
            served = await open_guard(GuardConfig.load(config), stack, wait_seconds=0)
            client = await stack.enter_async_context(Client(served, cache=None))
            heard = anyio.Event()

            async def listen() -> None:
                async with client.listen(tools_list_changed=True) as events:
                    listening.set()
                    async for _ in events:
                        heard.set()
                        return

            listening = anyio.Event()
            async with anyio.create_task_group() as group:
                group.start_soon(listen)
                await listening.wait()
                found["shifted"] = await client.call_tool("up_shift", {})
                with anyio.fail_after(60):
                    await heard.wait()
            found["guarded"] = set(served.guarded)
            found["called"] = await client.call_tool("up_added_later", {})
        return found

    found = anyio.run(scenario)
    assert found["shifted"].content[0].text == "shifted."
    assert "up_added_later" in found["guarded"]
    assert found["called"].content[0].text == "added later."


def test_a_listing_with_a_changed_tool_and_an_added_one_offers_the_added_one(
        tmp_path: Path) -> None:
    """The server changes spell's description and adds a tool, telling nobody: the guard's next
    listing takes both — spell's change, and the added tool offered (a listing with a changed
    tool did not look for added ones, so that it was offered only at the listing after)."""
    config = _config(tmp_path)

    async def scenario() -> dict[str, Any]:
        async with AsyncExitStack() as stack:
            served = await open_guard(GuardConfig.load(config), stack, wait_seconds=0)
            await served.call_tool("up_shift_quietly", {})
            listed = {t.name: t for t in await served.list_tools()}
            return {"listed": listed,
                    "called": await served.call_tool("up_added_later", {})}

    found = anyio.run(scenario)
    assert "British English" in (found["listed"]["up_spell"].description or "")
    assert "up_added_later" in found["listed"]
    assert found["called"].content[0].text == "added later."


def test_a_server_saying_its_list_changed_again_and_again_is_listed_once_at_a_time(
        tmp_path: Path) -> None:
    """The server says its list changed fifty times at once while the guard takes its first
    change: the guard takes one change at a time, and once more after it for all those said
    meanwhile (it took each at once: fifty listings, every client of the guard told each)."""
    config = _config(tmp_path)

    async def scenario() -> dict[str, Any]:
        found: dict[str, Any] = {"runs": 0}
        gate = anyio.Event()
        async with AsyncExitStack() as stack:
            opened = upstreams.Upstreams(GuardConfig.load(config))
            await opened.open(stack)

            async def changed(server: str) -> None:
                found["runs"] += 1
                await gate.wait()

            opened.changed = changed
            found["flood"] = await opened.call("up", "flood", {"times": 50})
            with anyio.fail_after(60):
                while found["runs"] == 0:
                    await anyio.sleep(0.05)
            await opened.call("up", "spell", {"word": "aaa"})  # (after the flood's messages)
            await anyio.sleep(0.5)  # (the notifications heard are taken meanwhile)
            found["while"] = found["runs"]
            gate.set()
            with anyio.fail_after(60):
                while found["runs"] < 2:
                    await anyio.sleep(0.05)
            await anyio.sleep(0.5)
            found["after"] = found["runs"]
        return found

    found = anyio.run(scenario)
    assert found["flood"].content[0].text == "flooded."
    assert found["while"] == 1
    assert found["after"] == 2


_EARLIER = r'''
import json, sys
from pathlib import Path

HERE = Path(sys.argv[1])
TOOL = {"name": "note", "inputSchema": {"type": "object"},
        "annotations": {"readOnlyHint": True}}
for line in sys.stdin:
    message = json.loads(line)
    ident, method = message.get("id"), message.get("method")
    if method == "initialize":
        result = {"protocolVersion": "2025-06-18", "serverInfo": {"name": "old", "version": "1"},
                  "capabilities": {"tools": {"listChanged": True}}}
    elif method == "tools/list":
        more = [{**TOOL, "name": "added_later"}] if (HERE / "shifted").exists() else []
        result = {"tools": [TOOL, *more]}
    elif method == "tools/call":
        (HERE / "shifted").write_text("")
        print(json.dumps({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}),
              flush=True)
        result = {"content": [{"type": "text", "text": "shifted."}]}
    elif ident is None:
        continue
    else:
        result = {}
    print(json.dumps({"jsonrpc": "2.0", "id": ident, "result": result}), flush=True)
'''
"""An MCP server of the 2025-06-18 protocol, in JSON-RPC lines: its tool note, once called,
adds the tool added_later and says so in a ``notifications/tools/list_changed``."""


def test_a_list_changed_notification_of_an_earlier_protocol_is_taken(tmp_path: Path) -> None:
    """A server of an earlier protocol says its list changed in a notification, not on a
    stream: the guard lists it again by itself, and offers the tool it added."""
    server = tmp_path / "old.py"
    server.write_text(_EARLIER)
    config = guard_config(tmp_path, stdio_server("old", server, args=[str(tmp_path)],
                                                 outside=False, trusted=True))

    async def scenario() -> dict[str, Any]:
        async with AsyncExitStack() as stack:
            served = await open_guard(GuardConfig.load(config), stack, wait_seconds=0)
            called = await served.call_tool("old_note", {})
            with anyio.fail_after(60):  # (offered without listing the server again)
                while "old_added_later" not in {
                        t.name for t in await ServedAgent.list_tools(served)}:
                    await anyio.sleep(0.05)
            return {"called": called, "ran": await served.call_tool("old_added_later", {})}

    found = anyio.run(scenario)
    assert found["called"].content[0].text == "shifted."
    assert found["ran"].content[0].text == "shifted."
