"""``signoff mcp guard``: the guard in front of file-keeping MCP servers written with the SDK,
reached by the SDK's client over stdio and streamable HTTP on loopback, with Noor deciding
through the guard's REST API."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from mcp import Client
from sqlalchemy import text

from signoff import Origin, ProposalStatus, TaskStatus
from signoff.mcp.config import GuardConfig
from signoff.mcp.guard import open_guard_app
from signoff.security.credentials import TokenPurpose
from tests.mcp_servers import (
    ROOT,
    TRANSPORTS,
    command,
    connected,
    environment,
    free_port,
    guard_config,
    http_server,
    over_http,
    serving,
    stdio_answers,
    stdio_server,
    writer_told,
)

UPSTREAM = str(ROOT / "tests" / "mcp_upstream_files.py")


def _config(tmp: Path, *, delete_says: str = "", web_port: int | None = None,
            outside: bool = True) -> Path:
    """A guard config: a trusted file server (its answers outside content unless `outside` is
    False), and an untrusted one that says its deleting tool only reads; write_file is never
    allowed."""
    files_env = {"FILES_ROOT": str(tmp / "files")}
    if delete_says:
        files_env["FILES_DELETE_SAYS"] = delete_says
    path = guard_config(tmp, stdio_server("files", UPSTREAM, env=files_env, trusted=True,
                                          outside=outside, tools={"write_file": "never"}),
                        stdio_server("liar", UPSTREAM, env={
                            "FILES_ROOT": str(tmp / "liar" / "files"), "FILES_LIE": "1"}))
    if web_port is not None:
        path.write_text(path.read_text() + f'''
[servers.web]
url = "http://127.0.0.1:{web_port}/mcp"
headers = {{ Authorization = "Bearer the-guards-own" }}
trusted = true
''')
    return path


@pytest.fixture
def guard(tmp_path: Path) -> SimpleNamespace:
    """Two file servers' folders with a.txt, b.txt and c.txt, a guard config, and Noor's token."""
    for root in (tmp_path / "files", tmp_path / "liar" / "files"):
        root.mkdir(parents=True)
        for name in ("a.txt", "b.txt", "c.txt"):
            (root / name).write_text(name)
    config = _config(tmp_path)
    app = open_guard_app(GuardConfig.load(config))
    noor = app.people.find("noor@example.com")
    return SimpleNamespace(tmp=tmp_path, config=config, app=app, noor=noor,
                           token=app.credentials.issue_token(noor, "tests"),
                           client=app.credentials.issue_token(noor, "tests' client",
                                                              purpose=TokenPurpose.CLIENT),
                           env=environment())


@asynccontextmanager
async def _guarded(guard: SimpleNamespace, transport: str) -> AsyncIterator[tuple[Client, str]]:
    """A client of the guard and the base URL of its REST API (beside MCP over HTTP; on a port
    of its own over stdio; none over "stdio alone", whose guard serves no inbox)."""
    if transport == "stdio alone":
        async with connected("stdio", ["mcp", "guard", str(guard.config)], guard.env) as client:
            yield client, ""
        return
    if transport == "stdio":
        port = free_port()
        arguments = ["mcp", "guard", str(guard.config), "--inbox", f"127.0.0.1:{port}"]
        async with connected("stdio", arguments, guard.env) as client:
            yield client, f"http://127.0.0.1:{port}"
        return
    port = free_port()
    with http_server(["mcp", "guard", str(guard.config), "--http", f"127.0.0.1:{port}"],
                     guard.env, port) as url:
        async with over_http(url, token=guard.client) as client:
            yield client, url


async def _decide(rest: str, guard: SimpleNamespace, verb: str, body: dict[str, Any]
                  ) -> dict[str, Any]:
    """Wait for Noor's proposal in the guard's REST API; decide it there. The proposal."""
    headers = {"Authorization": f"Bearer {guard.token}"}
    async with httpx.AsyncClient(base_url=rest, headers=headers) as api:
        with anyio.fail_after(60):
            while True:
                try:
                    items = (await api.get("/api/proposals")).json()["items"]
                except httpx.TransportError:  # the inbox is still starting
                    items = []
                if items:
                    break
                await anyio.sleep(0.05)
        (proposal,) = items
        answer = await api.post(f"/api/proposals/{proposal['id']}/{verb}", json=body)
        assert answer.status_code == 200, answer.text
        again = await api.post(f"/api/proposals/{proposal['id']}/{verb}", json=body)
        assert again.status_code == 409  # decided once
        return dict(proposal)


async def _delete_while_deciding(client: Client, rest: str, guard: SimpleNamespace, tool: str,
                                 name: str, body: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    found: dict[str, Any] = {}

    async def call() -> None:
        found["result"] = await client.call_tool(tool, {"name": name},
                                                 meta={"signoff/why": f"{name} is a stale copy."})

    async with anyio.create_task_group() as group:
        group.start_soon(call)
        found["proposal"] = await _decide(rest, guard, "approve", body)
    return found["result"], found["proposal"]


async def _until(happened: Any, seconds: float = 60) -> None:
    """Wait until `happened()` is true (a file the upstream writes, a process gone), looking
    every 50 ms, for at most `seconds`."""
    with anyio.fail_after(seconds):
        while not happened():
            await anyio.sleep(0.05)


def _deleted(guard: SimpleNamespace) -> list[str]:
    log = guard.tmp / "deleted.log"
    return log.read_text().split() if log.exists() else []


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_the_guard_lets_reads_run_and_puts_deleting_to_noor(guard: SimpleNamespace,
                                                            transport: str) -> None:
    """Listing on the trusted server runs alone; deleting is proposed to Noor with its exact
    arguments, server and why, approved once through the REST API, and runs once; the lying
    server's 'read-only' deleting tool is still proposed; the never-tool is neither listed nor
    callable; arguments that do not fit the upstream's schema are told to the client."""

    async def scenario() -> dict[str, Any]:
        async with _guarded(guard, transport) as (client, rest):
            got: dict[str, Any] = {"tools": {t.name: t for t in
                                             (await client.list_tools()).tools}}
            got["listed"] = await client.call_tool("files_list_files", {})
            got["deleted"], got["proposal"] = await _delete_while_deciding(
                client, rest, guard, "files_delete_file", "a.txt", {})
            got["never"] = await client.call_tool("files_write_file",
                                                  {"name": "x.txt", "text": "x"})
            got["unfit"] = await client.call_tool("files_delete_file", {"nme": "b.txt"})
            got["lie"] = await client.call_tool("liar_delete_file", {"name": "a.txt"},
                                                meta={"signoff/wait": 0})
            return got

    got = anyio.run(scenario)
    tools = got["tools"]
    assert "files_write_file" not in tools  # never, on files
    assert "liar_write_file" in tools
    assert tools["liar_delete_file"].annotations is None  # its server's word not served on,
    assert "put to a person" in tools["liar_delete_file"].description  # nor believed
    assert "runs at once" in tools["files_list_files"].description
    assert not got["listed"].is_error
    assert got["listed"].structured_content == {"result": ["a.txt", "b.txt", "c.txt"]}

    proposal = got["proposal"]
    assert proposal["action"] == "files_delete_file"
    assert proposal["arguments"] == {"arguments": {"name": "a.txt"}}
    assert proposal["label"] == "delete_file on files"
    assert proposal["why"] == "a.txt is a stale copy."
    # What Noor reads of its effects: the tool and the server it reaches, in her words, and
    # nothing the analysis assumed nor signoff's own code (it read "external signoff.mcp.
    # upstreams.Upstreams.call_from_thread: files_delete_file -> signoff.mcp.upstreams…").
    assert proposal["effects"] == ["reaches outside: calls delete_file on the MCP server files"]
    assert not any("signoff.mcp" in line for line in proposal["effects"])
    assert not got["deleted"].is_error
    assert got["deleted"].content[0].text == "Deleted a.txt."
    assert _deleted(guard) == ["a.txt"]  # ran once, though approved twice over
    assert not (guard.tmp / "files" / "a.txt").exists()

    assert got["never"].is_error
    assert "may never use" in got["never"].content[0].text
    assert not (guard.tmp / "files" / "x.txt").exists()
    assert got["unfit"].is_error
    assert got["unfit"].content[0].text.startswith("Invalid: the arguments: 'name' is a required")
    assert not got["lie"].is_error
    assert "was proposed to Noor" in got["lie"].content[0].text
    assert (guard.tmp / "liar" / "files" / "a.txt").exists()
    statuses = sorted((p.action, p.status.value) for p in guard.app.proposals())
    assert statuses == [("files_delete_file", "Done"), ("liar_delete_file", "Waiting")]
    entries = guard.app.receipt(guard.app.proposals()[0].task).entries
    receipt = "\n".join(e.words for e in entries)
    assert "McpGuard ran files_list_files alone" in receipt
    assert "Noor approved files_delete_file; it ran as Noor and the agent together." in receipt
    # the receipt's data tells a call's effects in the same words
    (listing,) = [e.data for e in entries if e.data.get("tool") == "files_list_files"]
    assert listing["effects"] == ["reaches outside: calls list_files on the MCP server files"]
    assert "signoff.mcp" not in json.dumps([e.data for e in entries], default=str)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_sessions_task_ends_when_the_client_closes_it(guard: SimpleNamespace,
                                                       transport: str) -> None:
    """A client lists the files (alone) and closes its session: the session's task ends there,
    halted, and its receipt says that the session ended."""

    async def scenario() -> Any:
        async with _guarded(guard, transport) as (client, _):
            return await client.call_tool("files_list_files", {})

    assert not anyio.run(scenario).is_error
    (task,) = _tasks(guard.app)
    outcome = guard.app.outcome(task)
    assert outcome.status is TaskStatus.HALTED
    assert outcome.problem.startswith("The MCP session ended (the client closed it")
    entries = guard.app.receipt(task).entries
    assert [e.kind for e in entries][-2:] == ["tool_call", "ended"]
    assert "McpGuard ran files_list_files alone" in entries[-2].words
    assert entries[-1].words == outcome.problem


def test_an_http_sessions_task_ends_when_the_client_deletes_the_session(
        guard: SimpleNamespace) -> None:
    """Over HTTP on the protocol that keeps sessions (2025-11-25), a client that closes its
    session (DELETE) ends the session's task at once, while the guard goes on serving."""
    port = free_port()
    with http_server(["mcp", "guard", str(guard.config), "--http", f"127.0.0.1:{port}"],
                     guard.env, port) as url:

        async def scenario() -> tuple[Any, TaskStatus]:
            async with over_http(url, token=guard.client, mode="legacy") as client:
                listed = await client.call_tool("files_list_files", {})
            (task,) = _tasks(guard.app)
            with anyio.fail_after(30):
                while (status := guard.app.outcome(task).status) is TaskStatus.RUNNING:
                    await anyio.sleep(0.05)
            return listed, status

        listed, status = anyio.run(scenario)
    assert not listed.is_error
    assert status is TaskStatus.HALTED


def test_an_alone_call_is_one_hold_and_four_transactions(guard: SimpleNamespace) -> None:
    """A call the guard lets run alone takes its task's hold once, and writes in four
    transactions: the task read and held; the client's turn; the call marked running before it
    leaves; its outcome, receipt entry and closed turn, with the task let go. Its answer is not
    read back. (The guard opened in this process, its upstream over stdio.)"""
    from contextlib import AsyncExitStack

    from sqlalchemy import event, text

    from signoff.mcp.guard import open_guard

    async def scenario() -> tuple[list[int], Any, str]:
        async with AsyncExitStack() as stack:
            served = await open_guard(GuardConfig.load(guard.config), stack, wait_seconds=0)
            commits: list[int] = []
            event.listen(served.app.database.engine, "commit", lambda _c: commits.append(1))
            counted = []
            for _ in range(3):
                commits.clear()
                result = await served.call_tool("files_list_files", {})
                counted.append(len(commits))
            (task,) = _tasks(served.app)
            with served.app.database.connect() as db:
                holder = db.execute(text("select holder from signoff_tasks where id = :t"),
                                    {"t": task}).scalar()
            return counted, result, holder

    counted, result, holder = anyio.run(scenario)
    assert counted[1:] == [4, 4]  # the first call also starts the session's task
    assert not result.is_error
    assert result.structured_content == {"result": ["a.txt", "b.txt", "c.txt"]}
    assert holder is None
    (task,) = _tasks(guard.app)
    words = guard.app.receipt(task).words
    assert words.count("McpGuard ran files_list_files alone") == 3


def test_a_call_waiting_on_its_upstream_keeps_no_one_from_writing(guard: SimpleNamespace
                                                                   ) -> None:
    """While a call the guard lets run alone waits on its upstream, the guard's database takes
    other writers at once: the call is admitted in a reader's transaction, and what it did is
    written once it is back (the call used to hold SQLite's write lock all along, so that every
    other person's call answered "database is locked")."""
    from contextlib import AsyncExitStack

    from signoff.mcp.guard import open_guard

    def write_now() -> str:
        return writer_told(guard.tmp / "guard.db", waits=0.5)

    async def scenario() -> dict[str, Any]:
        found: dict[str, Any] = {}
        async with AsyncExitStack() as stack:
            served = await open_guard(GuardConfig.load(guard.config), stack, wait_seconds=0)

            async def call() -> None:
                found["result"] = await served.call_tool("files_wait_for", {"flag": "go"})

            async with anyio.create_task_group() as group:
                group.start_soon(call)
                await _until(lambda: (guard.tmp / "waiting").exists())
                found["write"] = await anyio.to_thread.run_sync(write_now)
                (guard.tmp / "go").write_text("")
        return found

    found = anyio.run(scenario)
    assert found["write"] == "written"
    assert not found["result"].is_error
    assert found["result"].structured_content == {"result": "go came."}
    (task,) = _tasks(guard.app)
    assert "McpGuard ran files_wait_for alone" in guard.app.receipt(task).words


def _stop_upstream(root: Path) -> None:
    """SIGKILL the upstream server that keeps the files in `root`, and wait until it is gone."""
    import os
    import signal
    import time

    wanted = f"FILES_ROOT={root}".encode()
    pids = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and wanted in (entry / "environ").read_bytes().split(b"\0"):
                pids.append(int(entry.name))
        except OSError:  # gone, or not ours
            continue
    assert pids, f"no upstream keeps {root}"
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 30
    while any(Path(f"/proc/{pid}").exists() and "(Z)" not in _state(pid) for pid in pids):
        assert time.monotonic() < deadline, "the upstream did not stop"
        time.sleep(0.05)


def _state(pid: int) -> str:
    try:
        return "(Z)" if Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z" else "running"
    except OSError:
        return "(Z)"


def test_an_upstream_that_stopped_is_told_by_name_and_connected_again(guard: SimpleNamespace
                                                                      ) -> None:
    """When an upstream server stops, the guard still lists every tool (the other servers' as
    they are now, the stopped one's as it listed them before), and the next call of the stopped
    one's tool starts it again and runs, whether or not the tools were listed in between; a
    call out when its connection closed is told by the server's name, with what is known of it
    (before, listing failed for every server, with no name, and every later call of the stopped
    server failed unexplained)."""
    from contextlib import AsyncExitStack

    from signoff.mcp.guard import open_guard

    async def scenario() -> dict[str, Any]:
        found: dict[str, Any] = {}
        async with AsyncExitStack() as stack:
            served = await open_guard(GuardConfig.load(guard.config), stack, wait_seconds=0)
            found["before"] = await served.call_tool("files_list_files", {})
            await anyio.to_thread.run_sync(_stop_upstream, guard.tmp / "files")
            found["listed"] = sorted(t.name for t in await served.list_tools())
            found["after"] = await served.call_tool("files_list_files", {})

            async def wait() -> None:
                found["cut"] = await served.call_tool("files_wait_for", {"flag": "never"})

            async with anyio.create_task_group() as group:
                group.start_soon(wait)
                await _until(lambda: (guard.tmp / "waiting").exists())
                await anyio.to_thread.run_sync(_stop_upstream, guard.tmp / "files")
            found["again"] = await served.call_tool("files_list_files", {})
            await anyio.to_thread.run_sync(_stop_upstream, guard.tmp / "files")
            with anyio.fail_after(30):
                while served.upstreams.is_connected("files"):
                    await anyio.sleep(0.05)
            found["unlisted"] = await served.call_tool("files_list_files", {})
        return found

    found = anyio.run(scenario)
    assert found["before"].structured_content == {"result": ["a.txt", "b.txt", "c.txt"]}
    assert "files_list_files" in found["listed"]
    assert "liar_list_files" in found["listed"]
    assert not found["after"].is_error, found["after"]
    assert found["after"].structured_content == {"result": ["a.txt", "b.txt", "c.txt"]}
    cut = found["cut"].content[0].text
    assert found["cut"].is_error
    assert cut.startswith("Unknown: The connection to the server files closed while the call of "
                          "wait_for was out: whether it ran is not known."), cut
    assert found["again"].structured_content == {"result": ["a.txt", "b.txt", "c.txt"]}
    # a call made on a connection known closed is not sent on it: it is sent on a new one
    assert not found["unlisted"].is_error, found["unlisted"]
    assert found["unlisted"].structured_content == {"result": ["a.txt", "b.txt", "c.txt"]}


def test_an_upstream_that_cannot_be_reached_is_told_unavailable_not_invalid(
        guard: SimpleNamespace, caplog: pytest.LogCaptureFixture) -> None:
    """An upstream over HTTP that stopped: a call its connection may have carried is told as
    of unknown outcome, and the next one, which the guard cannot send, is told and recorded
    Unavailable (nothing was sent, so nothing ran; try again later), with where the server is
    and why it could not be reached in the log only; once it is back the call runs. A server
    that answers with an error is still told Invalid (before, the one that could not be
    reached was told "Invalid: …" too, and a model takes that as its arguments being wrong)."""
    from contextlib import AsyncExitStack, ExitStack

    from signoff.mcp.guard import open_guard

    web_port = free_port()
    _config(guard.tmp, web_port=web_port)
    upstream = [sys.executable, UPSTREAM, "--http", str(web_port)]
    files = environment(FILES_ROOT=str(guard.tmp / "files"))

    async def scenario() -> dict[str, Any]:
        found: dict[str, Any] = {}
        with ExitStack() as running, ExitStack() as again:
            running.enter_context(serving(upstream, files, web_port))
            async with AsyncExitStack() as stack:
                served = await open_guard(GuardConfig.load(guard.config), stack, wait_seconds=0)
                (guard.tmp / "files").rename(guard.tmp / "away")  # its list_files then raises
                found["answered"] = await served.call_tool("web_list_files", {})
                (guard.tmp / "away").rename(guard.tmp / "files")
                await anyio.to_thread.run_sync(running.close)
                found["lost"] = await served.call_tool("web_list_files", {})
                found["down"] = await served.call_tool("web_list_files", {})
                await anyio.to_thread.run_sync(
                    again.enter_context, serving(upstream, files, web_port))
                found["back"] = await served.call_tool("web_list_files", {})
        return found

    with caplog.at_level("WARNING", logger="signoff.mcp"):
        found = anyio.run(scenario)
    answered = found["answered"].content[0].text
    assert found["answered"].is_error
    assert answered.startswith("Invalid: web answered with an error: "), answered
    lost = found["lost"].content[0].text  # it may have gone out on the connection it had
    assert lost.startswith(("Unknown: ", "Unavailable: ")), lost
    down = found["down"].content[0].text
    assert found["down"].is_error
    assert down == ("Unavailable: The server web cannot be reached now, so nothing was sent to "
                    "it and nothing ran there: try again later, as the guard tries to reach it "
                    "again at each call.")
    where = f"http://127.0.0.1:{web_port}/mcp"
    assert where not in lost + down
    assert f"The guard could not reach the server web ({where}): ConnectError" in caplog.text
    assert not found["back"].is_error, found["back"]
    assert found["back"].structured_content == {"result": ["a.txt", "b.txt", "c.txt"]}
    words = guard.app.receipt(_task(guard)).words
    assert "ran web_list_files alone, as itself: Invalid." in words  # the server's error
    assert "ran web_list_files alone, as itself: Unavailable." in words
    assert "ran web_list_files alone, as itself: Done." in words


def test_an_upstreams_json_rpc_error_is_told_as_what_it_is(guard: SimpleNamespace) -> None:
    """A server that answers a call with a JSON-RPC error is told in its own words: invalid
    params as `Invalid` (the arguments were wrong, so a model calls it otherwise), any other
    error as `Failed`, quoting the server; a tool error (a result whose isError is true) is
    `Invalid`, with the server's words. (A JSON-RPC error was told as a failure the app did not
    foresee, and the server's words reached no one.)"""
    answers = [("invalid", -32602, "The name must not hold a slash."),
               ("failed", -32603, "The disk is full."),
               ("tool error", 0, "There is no such file.")]
    told = _told_errors(guard, answers)
    assert told["invalid"] == (True, (
        "Invalid: The server web refused the arguments of answer_error: “The name must not "
        "hold a slash.” — call it again with arguments that fit."))
    assert told["failed"] == (True, (
        "Failed: The server web answered the call of answer_error with the error “The disk is "
        "full.” (JSON-RPC -32603): look at what the tool keeps before calling it again."))
    is_error, tool_error = told["tool error"]
    assert is_error
    assert tool_error.startswith("Invalid: web answered with an error: "), tool_error
    assert "There is no such file." in tool_error
    assert "did not foresee" not in repr(told)
    words = guard.app.receipt(_task(guard)).words
    assert words.count("ran web_answer_error alone, as itself: Invalid.") == 2
    assert words.count("ran web_answer_error alone, as itself: Failed.") == 1


def test_an_upstreams_unknown_tool_answer_is_told_as_the_tool_being_gone(
        guard: SimpleNamespace) -> None:
    """A server that answers a call with invalid params (-32602) saying it has no such tool —
    "Unknown tool: x" or "Tool x not found", as MCP servers answer for a tool removed since it
    was listed — is told as that: the server no longer has the tool, nothing ran (outcome
    Gone), not that the arguments were wrong. Invalid params of another kind is still about the
    arguments. (It was told as "refused the arguments", pointing a model at the arguments.)
    A tool's own error (a result whose isError is true) saying those words, which the SDK
    answers as "Error executing tool answer_error: Unknown tool: …", is still the tool's
    (Invalid): see test_a_tool_its_upstream_no_longer_has_is_told_as_gone for the SDK's own
    answer to a tool it does not have."""
    answers = [("python", -32602, "Unknown tool: answer_error"),
               ("typescript", -32602, "MCP error -32602: Tool answer_error not found"),
               ("arguments", -32602, "The name must not hold a slash."),
               ("its own", 0, "Unknown tool: answer_error"),
               ("another tool", 0, "Unknown tool: hammer")]
    told = _told_errors(guard, answers)
    gone = ("Gone: The server web no longer has the tool answer_error (it answered “{}”), so "
            "nothing ran there: go on without it, or ask for the tools again to see what the "
            "server offers now.")
    assert told["python"] == (True, gone.format("Unknown tool: answer_error"))
    assert told["typescript"] == (True, gone.format(
        "MCP error -32602: Tool answer_error not found"))
    assert told["arguments"][1].startswith(
        "Invalid: The server web refused the arguments of answer_error: “The name must not")
    own = "Invalid: web answered with an error: Error executing tool answer_error: Unknown tool: "
    assert told["its own"] == (True, own + "answer_error")
    assert told["another tool"] == (True, own + "hammer")
    words = guard.app.receipt(_task(guard)).words
    assert words.count("ran web_answer_error alone, as itself: Gone.") == 2
    assert words.count("ran web_answer_error alone, as itself: Invalid.") == 3


def test_a_tool_its_upstream_no_longer_has_is_told_as_gone(guard: SimpleNamespace) -> None:
    """The file server (the SDK's MCPServer) is restarted in a version without a tool the guard
    listed: a call of it, which the SDK answers with a tool error (isError) "Unknown tool:
    count_files", is told as the tool being gone — nothing ran, the server no longer has it
    (outcome Gone) — not as the call being wrong (it was Invalid, as if it were the call's
    fault). A tool's own error is still Invalid, even one that says "Unknown tool" of
    something else."""
    from contextlib import AsyncExitStack

    from signoff.mcp.guard import open_guard

    more = guard.tmp / "more_tools"
    more.write_text("")  # the version with count_files

    async def scenario() -> dict[str, Any]:
        found: dict[str, Any] = {}
        async with AsyncExitStack() as stack:
            served = await open_guard(GuardConfig.load(guard.config), stack, wait_seconds=0)
            found["counted"] = await served.call_tool("files_count_files", {})
            more.unlink()  # the version without it
            await anyio.to_thread.run_sync(_stop_upstream, guard.tmp / "files")
            with anyio.fail_after(30):
                while served.upstreams.is_connected("files"):
                    await anyio.sleep(0.05)
            found["listed"] = sorted(t.name for t in await served.list_tools())
            found["removed"] = await served.call_tool("files_count_files", {})
            found["listed after"] = await served.call_tool("files_list_files", {})
        return found

    found = anyio.run(scenario)
    assert not found["counted"].is_error, found["counted"]
    assert found["counted"].structured_content == {"result": 3}
    assert "files_count_files" in found["listed"]  # (still offered: a call tells what it finds)
    assert found["removed"].is_error
    assert found["removed"].content[0].text == (
        "Gone: The server files no longer has the tool count_files (it answered “Unknown tool: "
        "count_files”), so nothing ran there: go on without it, or ask for the tools again to "
        "see what the server offers now.")
    assert not found["listed after"].is_error, found["listed after"]
    words = guard.app.receipt(_tasks(guard.app)[0]).words
    assert "ran files_count_files alone, as itself: Done." in words
    assert "ran files_count_files alone, as itself: Gone." in words


def test_a_call_its_upstream_does_not_answer_in_time_is_told_unknown(
        guard: SimpleNamespace, monkeypatch: pytest.MonkeyPatch) -> None:
    """A call whose upstream does not answer within the guard's wait is told, and recorded, as
    one whose outcome is unknown, naming the server and the wait (before, it was told as a
    failure the app did not foresee, and the receipt said Failed)."""
    from contextlib import AsyncExitStack

    from signoff.mcp import upstreams
    from signoff.mcp.guard import open_guard

    monkeypatch.setattr(upstreams, "CALL_TIMEOUT_SECONDS", 2.0)

    async def scenario() -> Any:
        async with AsyncExitStack() as stack:
            served = await open_guard(GuardConfig.load(guard.config), stack, wait_seconds=0)
            return await served.call_tool("files_wait_for", {"flag": "never"})

    late = anyio.run(scenario)
    assert late.is_error
    assert late.content[0].text.startswith(
        "Unknown: The server files did not answer the call of wait_for within 2 seconds: "
        "whether it ran is not known"), late.content[0].text
    with guard.app.database.connect() as db:
        (task,) = db.execute(text("select id from signoff_tasks")).scalars()
    assert "ran files_wait_for alone, as itself: Unknown." in guard.app.receipt(task).words


def test_a_tool_an_upstream_adds_is_offered_once_listed(guard: SimpleNamespace) -> None:
    """The file server is restarted in a version with one more tool: the guard's next listing
    offers it, with its leave from the config (the trusted server's read-only hint: alone), and
    a call of it runs (before, it was offered only once the guard restarted, and a call of it
    was refused as no tool of the work); a tool the config rules out is still not offered."""
    from contextlib import AsyncExitStack

    from signoff.mcp.guard import open_guard

    async def scenario() -> dict[str, Any]:
        found: dict[str, Any] = {}
        async with AsyncExitStack() as stack:
            served = await open_guard(GuardConfig.load(guard.config), stack, wait_seconds=0)
            found["before"] = sorted(t.name for t in await served.list_tools())
            (guard.tmp / "more_tools").write_text("")
            await anyio.to_thread.run_sync(_stop_upstream, guard.tmp / "files")
            with anyio.fail_after(30):
                while served.upstreams.is_connected("files"):
                    await anyio.sleep(0.05)
            found["after"] = {t.name: t for t in await served.list_tools()}
            found["counted"] = await served.call_tool("files_count_files", {})
        return found

    found = anyio.run(scenario)
    assert "files_count_files" not in found["before"]
    assert "files_count_files" in found["after"]
    assert "runs at once" in found["after"]["files_count_files"].description
    assert "files_write_file" not in found["after"]
    assert not found["counted"].is_error, found["counted"]
    assert found["counted"].structured_content == {"result": 3}
    (task,) = _tasks(guard.app)
    assert "McpGuard ran files_count_files alone" in guard.app.receipt(task).words


def _pids_with(needle: bytes, part: str) -> list[int]:
    """The processes whose `part` (environ, cmdline) holds `needle` as one of its items."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if (entry.name.isdigit() and needle in (entry / part).read_bytes().split(b"\0")
                    and _state(int(entry.name)) != "(Z)"):
                found.append(int(entry.name))
        except OSError:  # gone, or not ours
            continue
    return found


@pytest.mark.parametrize("transport", [*TRANSPORTS, "stdio alone"])
def test_a_guard_told_to_stop_tells_the_call_out_and_stops_its_upstreams(
        guard: SimpleNamespace, transport: str) -> None:
    """SIGTERM to a guard with a call out upstream: the client is told at once that the guard
    stopped while the call was out and that whether it ran is not known; the guard exits,
    and its upstream servers with it, and the session's task ends (before, over HTTP it
    waited for the call, up to five minutes, and was then ended by the signal, leaving its
    upstreams running; over stdio with no inbox beside it, the signal ended the process, the
    client told only that the connection closed, and its task left Running for good)."""
    import os
    import signal

    config = str(guard.config).encode()
    files = f"FILES_ROOT={guard.tmp / 'files'}".encode()

    async def scenario() -> Any:
        found: dict[str, Any] = {}
        async with _guarded(guard, transport) as (client, _rest):

            async def call() -> None:
                found["cut"] = await client.call_tool("files_wait_for", {"flag": "never"})

            async with anyio.create_task_group() as group:
                group.start_soon(call)
                await _until(lambda: (guard.tmp / "waiting").exists())
                (pid,) = _pids_with(config, "cmdline")
                os.kill(pid, signal.SIGTERM)
                await _until(lambda: not _pids_with(config, "cmdline"))
        return found["cut"]

    cut = anyio.run(scenario)
    assert cut.is_error
    assert cut.content[0].text.startswith(
        "Unknown: The guard stopped while the call of wait_for on files was out: whether it ran "
        "is not known"), cut.content[0].text
    assert _pids_with(files, "environ") == []
    # the receipt records what is known: not that the call was invalid (as it did before)
    with guard.app.database.connect() as db:
        (task,) = db.execute(text("select id from signoff_tasks")).scalars()
    assert "ran files_wait_for alone, as itself: Unknown." in guard.app.receipt(task).words
    assert guard.app.outcome(task).status is TaskStatus.HALTED


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_guard_told_to_stop_answers_a_call_kept_open_for_its_decision(
        guard: SimpleNamespace, transport: str) -> None:
    """SIGTERM to a guard that keeps a proposed call open for Noor's decision: the client is
    answered at once, in words, that the call waits on her (before, over HTTP, the stream ended
    with no answer once the guard gave up waiting); the proposal still waits, for a server
    that can run it."""
    import os
    import signal

    config = str(guard.config).encode()

    async def scenario() -> Any:
        found: dict[str, Any] = {}
        async with _guarded(guard, transport) as (client, _rest):

            async def call() -> None:
                found["held"] = await client.call_tool("files_delete_file", {"name": "a.txt"})

            async with anyio.create_task_group() as group:
                group.start_soon(call)
                with anyio.fail_after(60):
                    while not guard.app.proposals(status=ProposalStatus.WAITING):
                        await anyio.sleep(0.05)
                (pid,) = _pids_with(config, "cmdline")
                os.kill(pid, signal.SIGTERM)
        return found["held"]

    held = anyio.run(scenario)
    (proposal,) = guard.app.proposals(status=ProposalStatus.WAITING)
    assert not held.is_error, held
    assert (f"files_delete_file was proposed to Noor and waits on their decision (proposal "
            f"{proposal.id}). Nothing has run yet.") in held.content[0].text
    assert _deleted(guard) == []


def _tasks(app: Any) -> list[str]:
    from sqlalchemy import text

    with app.database.connect() as db:
        return [str(t) for t in db.execute(text("select id from signoff_tasks")).scalars()]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_guard_told_to_stop_leaves_everything_in_its_database_file(
        guard: SimpleNamespace, transport: str) -> None:
    """SIGTERM to a guard (over stdio with its inbox beside it, or over HTTP) leaves no
    write-ahead log beside its SQLite file: the file copied alone holds the proposal, Noor's no
    said through the REST API, and the client's task ended as the guard stopped (before, over
    HTTP all of it was only in the log beside the file; over stdio, the task's end, written
    after the inbox had closed its connections)."""
    import os
    import signal
    import sqlite3
    from shutil import copyfile

    config = str(guard.config).encode()
    guard.app.database.dispose()  # the test's own connections: the guard's are the last

    async def scenario() -> dict[str, Any]:
        async with _guarded(guard, transport) as (client, rest):
            await client.call_tool("liar_delete_file", {"name": "a.txt"},
                                   meta={"signoff/wait": 0})
            proposal = await _decide(rest, guard, "reject", {"reason": "Keep a.txt."})
            (pid,) = _pids_with(config, "cmdline")
            os.kill(pid, signal.SIGTERM)
            await _until(lambda: not _pids_with(config, "cmdline"))
        return proposal

    proposal = anyio.run(scenario)
    assert not (guard.tmp / "guard.db-wal").exists()
    copyfile(guard.tmp / "guard.db", guard.tmp / "copy.db")
    with sqlite3.connect(guard.tmp / "copy.db") as copy:
        decided = copy.execute("select status, reason from signoff_proposals where id = ?",
                               (proposal["id"],)).fetchone()
        tasks = copy.execute("select status from signoff_tasks").fetchall()
    assert decided == (ProposalStatus.REJECTED.value, "Keep a.txt.")
    assert tasks == [(TaskStatus.HALTED.value,)]


def test_a_changed_description_suspends_the_standing_rule(guard: SimpleNamespace) -> None:
    """Noor approves a delete 'always like this': the next delete runs alone (the config vouches
    for the file server's answers). When the server then changes delete_file's description, the
    rule is suspended (Noor is told what changed, as the rule's reason) and the next delete is
    proposed again."""
    _config(guard.tmp, outside=False)

    async def first() -> tuple[Any, Any]:
        async with _guarded(guard, "stdio") as (client, rest):
            approved, _ = await _delete_while_deciding(client, rest, guard, "files_delete_file",
                                                       "a.txt", {"always": True})
            alone = await client.call_tool("files_delete_file", {"name": "b.txt"})
            return approved, alone

    approved, alone = anyio.run(first)
    assert not approved.is_error
    assert not alone.is_error
    assert alone.content[0].text == "Deleted b.txt."
    assert _deleted(guard) == ["a.txt", "b.txt"]
    (rule,) = guard.app.rules(active_only=True)
    assert rule.used == 1

    _config(guard.tmp, delete_says="Delete a file and every copy of it on every disk.",
            outside=False)

    async def second() -> tuple[Any, Any]:
        async with _guarded(guard, "stdio") as (client, rest):
            tools = {t.name: t for t in (await client.list_tools()).tools}
            called = await client.call_tool("files_delete_file", {"name": "c.txt"},
                                            meta={"signoff/wait": 0})
            async with httpx.AsyncClient(base_url=rest, headers={
                    "Authorization": f"Bearer {guard.token}"}) as api:
                rules = (await api.get("/api/rules")).json()["items"]
            return tools, called, rules

    tools, called, rules = anyio.run(second)
    assert tools["files_delete_file"].description.startswith("Delete a file and every copy")
    assert "was proposed to Noor" in called.content[0].text
    assert _deleted(guard) == ["a.txt", "b.txt"]
    assert guard.app.rules(active_only=True) == []
    (shown,) = rules
    assert "Suspended by the guard" in shown["why"]
    assert "“Delete a file.” to “Delete a file and every copy of it on every disk.”" in shown["why"]


async def _signoff(guard: SimpleNamespace, *arguments: str) -> tuple[int, str]:
    """Run ``signoff mcp …`` in a process of its own; its exit code and what it printed."""
    done = await anyio.run_process(command("mcp", *arguments), env=guard.env, cwd=ROOT,
                                   check=False)
    return done.returncode, (done.stdout + done.stderr).decode()


def test_the_guards_proposals_are_decided_from_the_command_line(guard: SimpleNamespace) -> None:
    """While the client's delete waits, Noor lists it with `signoff mcp proposals` and says yes
    with `signoff mcp approve --always`: it runs once and the call answers with its result, and
    the rule made is told with the guard's own command that takes it back, and `signoff mcp
    rules` lists it in the same words, outside content's caveat and all; a second yes
    is refused in words; a no given with `signoff mcp reject` reaches the next waiting call as
    her reason; a made-up token is told, and decides nothing."""
    config = str(guard.config)
    token = ["--token", guard.token]
    mia = guard.app.people.add("mia@example.com", "Mia")
    mias = ["--token", guard.app.credentials.issue_token(mia, "tests")]

    async def waiting() -> str:
        with anyio.fail_after(60):
            while True:
                found = await anyio.to_thread.run_sync(guard.app.proposals_for, guard.noor)
                if found:
                    return str(found[0].id)
                await anyio.sleep(0.05)

    async def scenario() -> dict[str, Any]:
        got: dict[str, Any] = {}
        async with _guarded(guard, "stdio") as (client, _):

            async def delete(name: str) -> None:
                got[name] = await client.call_tool("files_delete_file", {"name": name})

            async with anyio.create_task_group() as group:
                group.start_soon(delete, "a.txt")
                first = await waiting()
                got["listed"] = await _signoff(guard, "proposals", config, *token)
                got["forged"] = await _signoff(guard, "approve", config, first, "--token",
                                               "so_0123456789abcdef_madeup")
                got["part"] = await _signoff(guard, "approve", config, first[:8], *token)
                got["mia yes"] = await _signoff(guard, "approve", config, first, *mias)
                got["mia no"] = await _signoff(guard, "reject", config, first, "--reason",
                                               "No.", *mias)
                got["yes"] = await _signoff(guard, "approve", config, first, "--always",
                                            *token)
            got["rules"] = await _signoff(guard, "rules", config, *token)
            got["again"] = await _signoff(guard, "approve", config, first, *token)
            async with anyio.create_task_group() as group:
                group.start_soon(delete, "b.txt")
                second = await waiting()
                got["no"] = await _signoff(guard, "reject", config, second, "--reason",
                                           "Keep b.txt.", *token)
            got["first"] = first
        return got

    got = anyio.run(scenario)
    code, part = got["part"]  # (it pointed to `signoff proposals --all`, the app's command)
    assert code == 3, part
    assert (f"A proposal is named by its whole id (36 characters), as `signoff mcp proposals "
            f"{config}` lists it.") in " ".join(part.split())
    code, listed = got["listed"]
    assert code == 0
    assert got["first"] in listed
    assert 'delete_file on files (arguments={"name": "a.txt"}) — to be decided by Noor' in listed
    assert listed.strip().endswith("1 proposal.")
    code, forged = got["forged"]
    assert code == 4
    assert "This token is unknown, revoked or expired" in forged
    for verb in ("mia yes", "mia no"):  # the REST API's answer: not whose it is (that it exists)
        code, told = got[verb]
        assert (code, " ".join(told.split())) == (
            3, f"Error: There is no proposal with id {got['first']} that Mia may see."), verb
    code, yes = got["yes"]
    assert code == 0, yes
    (rule,) = guard.app.rules()  # its words name the guard's own command that takes it back
    assert f"Take it back with `signoff mcp revoke {config} {rule.id}`." in yes
    # ... and say that a call what a server answered may have steered is still proposed
    caveat = ("with any values, except values that outside content it has read may have "
              "steered (such a call is still proposed)")
    assert caveat in " ".join(yes.split())
    code, rules = got["rules"]  # the listing says so too, in the same words (it did not)
    assert code == 0, rules
    assert f"{rule.id} In force, used 0×: from now on mcp_guard runs files_delete_file alone" in (
        " ".join(rules.split()))
    assert caveat in " ".join(rules.split()), "`signoff mcp rules` should say what approve said."
    assert not got["a.txt"].is_error
    assert got["a.txt"].content[0].text == "Deleted a.txt."
    code, again = got["again"]
    assert code == 1
    assert "already decided (Done)" in again
    assert "Traceback" not in forged + again
    assert got["no"][0] == 0
    assert not got["b.txt"].is_error
    assert "Noor said no to files_delete_file: Keep b.txt." in got["b.txt"].content[0].text
    assert _deleted(guard) == ["a.txt"]
    assert (guard.tmp / "files" / "b.txt").exists()
    statuses = sorted(p.status.value for p in guard.app.proposals())
    assert statuses == ["Done", "Rejected"]


def test_with_a_server_down_the_guards_proposals_are_listed_and_refused_but_not_run(
        guard: SimpleNamespace) -> None:
    """While the guard runs, the server a waiting proposal would call cannot be reached from
    the command line: `signoff mcp proposals` still lists what waits for Noor, saying which
    server is down and that freshness is not known; `approve` is refused with that sentence,
    and the proposal still waits; `reject`, which runs nothing, is said, and the client's
    session goes on (the three refused to start at all: every server had to be reached; then
    a no said with the guard's app alone was recorded but told as a failure, the task being
    stepped where its agent was not registered)."""
    config = str(guard.config)
    token = ["--token", guard.token]
    gone = guard.tmp / "gone"

    async def scenario() -> dict[str, Any]:
        async with _guarded(guard, "stdio") as (client, _):
            await client.call_tool("liar_delete_file", {"name": "a.txt"},
                                   meta={"signoff/wait": 0})
            (proposal,) = await anyio.to_thread.run_sync(guard.app.proposals)
            guard.config.write_text(re.sub(  # both its servers: each is started in a folder gone
                r"^(env = \{ FILES_ROOT.*)$", lambda line: line[1] + f'\ncwd = "{gone}"',
                guard.config.read_text(), flags=re.MULTILINE))
            got = {"proposal": proposal,
                   "listed": await _signoff(guard, "proposals", config, *token),
                   "yes": await _signoff(guard, "approve", config, proposal.id, *token),
                   "no": await _signoff(guard, "reject", config, proposal.id, "--reason",
                                        "Not while it is down.", *token)}
            got["again"] = await _signoff(guard, "reject", config, proposal.id, "--reason",
                                          "Still no.", *token)
            got["after"] = await client.call_tool("files_list_files", {})
            return got

    got = anyio.run(scenario)
    proposal = got["proposal"]
    code, listed = got["listed"]
    assert code == 0, listed
    said = " ".join(listed.split())
    assert "The guard could not reach the servers files (" in said
    assert f"; liar ({sys.executable} {UPSTREAM}): FileNotFoundError" in said
    assert "the env a command needs" in said
    assert ("It does not try again by itself: check each one's command or url in the config "
            "and the env a command needs (a server the guard starts sees only its env, beside a "
            "few basics such as PATH and HOME), see that each one it reaches by url is running, "
            "then try again.") in said
    assert "Whether each proposal still reads as it did is not known" in listed
    assert proposal.id in listed
    assert "\n1 proposal.\n" in listed
    code, yes = got["yes"]
    assert code == 5  # could not be done, as with a database that cannot be used
    assert "The guard could not reach the servers files" in yes
    assert "It does not try again by itself" in " ".join(yes.split())
    code, no = got["no"]
    assert code == 0, no
    assert "Noor said no to liar_delete_file: Not while it is down." in no
    code, again = got["again"]  # a second no, with the guard's app alone, is told in words
    assert code == 1, again
    assert "already decided (Rejected)" in again
    assert "Traceback" not in listed + yes + no + again
    (after,) = guard.app.proposals()
    assert after.status is ProposalStatus.REJECTED
    assert after.reason == "Not while it is down."
    assert (guard.tmp / "liar" / "files" / "a.txt").exists()
    assert not got["after"].is_error  # the session goes on
    assert got["after"].structured_content == {"result": ["a.txt", "b.txt", "c.txt"]}


def test_the_guards_tasks_and_receipts_are_read_from_the_command_line(
        guard: SimpleNamespace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`signoff mcp tasks`, `receipt` and `rules` show Noor the guard's work, and `revoke` takes
    a rule back; with no token
    kept for her, --as says how to keep one for the guard (`signoff mcp token … --save`, not
    the app's command, which a guard's config cannot name); once kept, --as works."""
    from contextlib import AsyncExitStack

    from click.testing import CliRunner

    from signoff.cli import main
    from signoff.mcp.guard import open_guard

    async def scenario() -> str:
        async with AsyncExitStack() as stack:
            served = await open_guard(GuardConfig.load(guard.config), stack, wait_seconds=0)
            await served.call_tool("files_list_files", {})
            rule = served.app.allow_alone("mcp_guard", "files_delete_file", by=guard.noor)
            return str(rule.id)

    rule = anyio.run(scenario)
    (task,) = _tasks(guard.app)
    monkeypatch.setenv("SIGNOFF_PROFILE", str(tmp_path / "profile.json"))
    config, noor = str(guard.config), "noor@example.com"
    unsaved = CliRunner().invoke(main, ["mcp", "tasks", config, "--as", noor])
    assert unsaved.exit_code == 4
    assert f"run `signoff mcp token {config} {noor} --save`" in unsaved.output
    # so do the commands that reach the servers (they decide in a thread of their own)
    for asked in (["proposals", config], ["approve", config, "some-id"]):
        told = CliRunner().invoke(main, ["mcp", *asked, "--as", noor])
        assert told.exit_code == 4, told.output
        assert f"run `signoff mcp token {config} {noor} --save`" in told.output
    nobody = CliRunner().invoke(main, ["mcp", "proposals", config])
    assert f"kept in the profile by `signoff mcp token {config} HANDLE --save`" in nobody.output
    saved = CliRunner().invoke(main, ["mcp", "token", config, noor, "--save"])
    assert saved.exit_code == 0, saved.output
    assert "A new token for Noor is kept in" in saved.output
    assert "commands on this guard's database (" in " ".join(saved.output.split())
    assert ") now act as Noor when no --as" in " ".join(saved.output.split())
    listed = CliRunner().invoke(main, ["mcp", "tasks", config, "--as", noor])
    assert listed.exit_code == 0, listed.output
    assert task in listed.output
    assert listed.output.strip().endswith("1 task.")
    receipt = CliRunner().invoke(main, ["mcp", "receipt", config, task, "--as", noor])
    assert receipt.exit_code == 0, receipt.output
    assert "McpGuard ran files_list_files alone, as itself: Done." in receipt.output
    nothing = CliRunner().invoke(main, ["mcp", "receipt", config, "no-such-task", "--as", noor])
    assert nothing.exit_code == 3, nothing.output
    rules = CliRunner().invoke(main, ["mcp", "rules", config, "--as", noor, "--active"])
    assert rules.exit_code == 0, rules.output
    assert f"{rule}  In force, used 0×" in rules.output
    revoked = CliRunner().invoke(main, ["mcp", "revoke", config, rule, "--why", "Ask me.",
                                        "--as", noor])
    assert revoked.exit_code == 0, revoked.output
    assert "Revoked: the guard proposes files_delete_file again." in revoked.output
    after = CliRunner().invoke(main, ["mcp", "rules", config, "--as", noor, "--active"])
    assert after.output.strip().endswith("0 rules.")
    again = CliRunner().invoke(main, ["mcp", "revoke", config, rule, "--as", noor])
    assert again.exit_code == 1, again.output  # taken back already: refused in words
    assert "Traceback" not in again.output
    unknown = CliRunner().invoke(main, ["mcp", "revoke", config, "no-such-rule", "--as", noor])
    assert unknown.exit_code == 3, unknown.output
    # a second guard of the same name, on a database of its own, where Noor is a person too:
    # its token is kept beside the first one's
    other = guard.tmp / "other.toml"
    other.write_text(guard.config.read_text().replace("guard.db", "other.db"))
    kept = CliRunner().invoke(main, ["mcp", "token", str(other), noor, "--save"])
    assert kept.exit_code == 0, kept.output
    for each in (config, str(other)):
        listed = CliRunner().invoke(main, ["mcp", "tasks", each, "--as", noor])
        assert listed.exit_code == 0, listed.output  # (the second save overwrote the first)


def test_an_upstream_answer_holds_back_a_call_it_may_have_steered(guard: SimpleNamespace
                                                                   ) -> None:
    """Upstream answers are outside content: under Noor's standing rule a delete runs alone
    only until the session has read one; a delete of a file the listing named is then proposed,
    and the proposal says the name came from the file server's answer."""

    async def scenario() -> tuple[Any, Any, Any]:
        async with _guarded(guard, "stdio") as (client, rest):
            await _delete_while_deciding(client, rest, guard, "files_delete_file", "a.txt",
                                         {"always": True})
            listed = await client.call_tool("files_list_files", {})
            held = await client.call_tool("files_delete_file", {"name": "c.txt"},
                                          meta={"signoff/wait": 0})
            composed = await client.call_tool("files_delete_file", {"name": "old notes"},
                                              meta={"signoff/wait": 0})
            async with httpx.AsyncClient(base_url=rest, headers={
                    "Authorization": f"Bearer {guard.token}"}) as api:
                shown = (await api.get("/api/proposals", params={"status": "Waiting"})).json()
            return listed, held, composed, shown

    listed, held, composed, shown = anyio.run(scenario)
    assert listed.structured_content == {"result": ["b.txt", "c.txt"]}  # a.txt went first
    assert "was proposed to Noor" in held.content[0].text
    # (words the guard cannot trace are no one's: it never sees the person's request — they
    # were taken for the model's own words, and ran alone)
    assert "was proposed to Noor" in composed.content[0].text
    assert _deleted(guard) == ["a.txt"]
    assert (guard.tmp / "files" / "c.txt").exists()
    (rule,) = guard.app.rules(active_only=True)
    assert rule.used == 0
    later, proposal = guard.app.proposals(status=ProposalStatus.WAITING)
    assert [(label.value, label.origin) for label in later.labels] == [
        ("old notes", Origin.UNTRACED)]
    (label,) = proposal.labels
    assert (label.argument, label.value, label.origin) == ("arguments.name", "c.txt",
                                                           Origin.OUTSIDE)
    assert label.words == ("`arguments.name` = `c.txt` appears in `text` of what files_list_files"
                           ' returned for {"arguments": {}}, from the MCP server files.')
    item = shown["items"][-1]
    assert [shown_label["words"] for shown_label in item["labels"]] == [label.words]


def test_over_http_the_clients_token_never_reaches_an_upstream(guard: SimpleNamespace) -> None:
    """An upstream reached over HTTP is sent the guard's own header from the config, never the
    connecting client's signoff token; a client without a token is refused, and told the
    command that gives a guard's people their tokens (not the app's, which cannot open it)."""
    web_port = free_port()
    _config(guard.tmp, web_port=web_port)
    files = {"FILES_ROOT": str(guard.tmp / "files")}
    with serving([sys.executable, UPSTREAM, "--http", str(web_port)], environment(**files),
                 web_port):

        async def scenario() -> Any:
            async with _guarded(guard, "http") as (client, rest):
                refused = httpx.post(f"{rest}/mcp", json={"jsonrpc": "2.0", "id": 1,
                                                          "method": "tools/list"})
                assert refused.status_code == 401
                assert f"`signoff mcp token {guard.config} HANDLE --client`" in (
                    refused.json()["detail"])
                return await client.call_tool("web_headers_seen", {})

        seen = anyio.run(scenario)
    assert not seen.is_error
    assert seen.content[0].text == "Bearer the-guards-own"
    assert guard.client not in str(guard.app.receipt(_task(guard)).entries)


def _task(guard: SimpleNamespace) -> str:
    from sqlalchemy import text

    with guard.app.database.connect() as db:
        (task,) = db.execute(text("select id from signoff_tasks")).scalars().all()
    return str(task)


def test_the_readmes_guard_config_reads_as_written() -> None:
    """The guard.toml of the MCP guide is a config the guard reads: two servers, one trusted, the
    leaves it names."""
    import re
    import tomllib

    from signoff.agents.permits import Leave

    (block,) = re.findall(r'```toml title="guard.toml"\n(.*?)```',
                          (ROOT / "docs" / "how-to" / "mcp.md").read_text(), flags=re.DOTALL)
    config = GuardConfig.from_dict(tomllib.loads(block))
    files, search = config.servers
    assert (files.name, files.trusted, search.name, search.trusted) == ("files", True, "search",
                                                                         False)
    assert files.tools == {"move_file": Leave.PROPOSE_EVERY_TIME, "write_file": Leave.NEVER}
    assert files.leave_of("read_file", True) is Leave.ALONE
    assert search.leave_of("search", True) is Leave.PROPOSE
    assert search.headers == {"Authorization": "Bearer the-guards-own-key"}
    assert files.env == {"NODE_ENV": "production"}


@pytest.mark.parametrize(("text", "says"), [
    ('name = "g"', "name at least one server"),
    ('[servers.files]\ntrusted = true', "either a command"),
    ('[servers.files]\ncommand = "x"\nurl = "http://x"', "either a command"),
    ('[servers.files]\ncommand = "x"\n[servers.files.tools]\nrm = "sometimes"', "not a leave"),
    ('[servers.files]\ncommand = "x"\ntrusted_hints = true', "unknown setting trusted_hints"),
    ('[servers.files]\ncomand = "x"', "unknown setting comand (did you mean command?); the "
                                       "settings are command, args"),
    ('[servers.files]\ncommand = "x"\noutside = "no"', "`outside` is true or false, not 'no'"),
    ('[servers.files]\ncommand = "x"\ntrusted = 1', "`trusted` is true or false, not 1"),
    ('[servers."no spaces"]\ncommand = "x"', "a short word"),
    ('for = 3\n[servers.files]\ncommand = "x"', "`for` is a person's handle"),
    ('[[people]]\nname = "Noor"\n[servers.files]\ncommand = "x"', "has a handle"),
    ('[[people]]\nhandle = "noor"\n[servers.files]\ncommand = "x"',
     "the [[people]] handle 'noor' is not an e-mail address"),
    ("servers = [", "is not TOML"),
    # values of the wrong kind: refused, not read as their characters, nor failed unforeseen
    ('[[people]]\nhandle = "noor@example.com"\nroles = "manager"\n[servers.files]\n'
     'command = "x"', "noor@example.com's `roles` is a list of texts, e.g. roles = "
                      "[\"manager\"], not 'manager'."),
    ('[servers.files]\ncommand = "python"\nargs = "server.py"',
     "`args` is a list of texts, e.g. args = [\"server.py\"], not 'server.py'."),
    ('[servers.files]\ncommand = "x"\nenv = ["FOO=1"]',
     "`env` is a table of texts, e.g. env = { ROOT = \"/srv\" }, not ['FOO=1']."),
    ('[servers.files]\nurl = "http://x"\nheaders = ["Authorization: x"]', "`headers` is a table"),
    ('[servers.files]\ncommand = ["python", "server.py"]',
     "`command` is a text, e.g. command = \"python\", not ['python', 'server.py'] (a "
     "command's arguments go under `args`)."),
    ('[servers.files]\nurl = 8080', "`url` is a text"),
    # (a misspelt `for` was ignored: the work was nobody's, unsaid)
    ('fro = "noor@example.com"\n[servers.files]\ncommand = "x"',
     "unknown setting fro (did you mean for?); the settings are name, database, for, people, "
     "servers (each server's under [servers.NAME])."),
    ('servers = ["a"]', "`servers` is a table of servers, each [servers.NAME] with a command or "
                        "a url; not ['a']."),
    ('name = 3\n[servers.files]\ncommand = "x"', "`name` is a text, not 3."),
])
def test_a_config_that_is_wrong_is_refused_in_words(tmp_path: Path, text: str, says: str) -> None:
    """Each fault of a guard config is a UserError naming the file and what to write."""
    from signoff.exceptions import UserError

    path = tmp_path / "guard.toml"
    path.write_text(text)
    with pytest.raises(UserError, match=re.escape(says)) as refused:
        GuardConfig.load(path)
    assert str(path) in str(refused.value)


def test_a_config_that_is_no_text_file_is_refused_in_words(tmp_path: Path) -> None:
    """A folder, or a file that is not UTF-8, named as the config: a sentence, exit 2 from the
    command line (each failed "for a reason it did not foresee", exit 5)."""
    from click.testing import CliRunner

    from signoff.cli import main

    binary = tmp_path / "guard.db"
    binary.write_bytes(b"SQLite format 3\x00\xff\xfe")
    for path, says in ((tmp_path, "is a folder: name the guard's config file in it."),
                       (binary, "is not text in UTF-8, so it is no TOML config")):
        told = CliRunner().invoke(main, ["mcp", "guard", str(path)])
        assert told.exit_code == 2, told.output
        assert says in " ".join(told.output.split()), told.output
        assert str(path) in told.output


def test_a_yes_in_the_inbox_form_runs_the_call_while_the_guard_answers(guard: SimpleNamespace
                                                                        ) -> None:
    """Noor approves a delete in the inbox's web form (over HTTP, beside MCP): the decision
    runs in a thread, so the guard's loop, which drives the upstream server, goes on; the
    call runs once, the client gets its answer, and the proposal is Done."""
    guard.app.credentials.set_password(guard.noor, "correct horse battery")

    async def decide_in_the_form(rest: str) -> int:
        csrf = re.compile(r'name="csrf" value="([^"]+)"')
        async with httpx.AsyncClient(base_url=rest, timeout=60) as web:
            headers = {"Authorization": f"Bearer {guard.token}"}
            with anyio.fail_after(60):
                while not (items := (await web.get("/api/proposals", headers=headers)
                                     ).json()["items"]):
                    await anyio.sleep(0.05)
            (proposal,) = items
            page = (await web.get("/login")).text
            await web.post("/login", data={"csrf": csrf.findall(page)[0], "next": "/",
                                           "handle": "noor@example.com",
                                           "password": "correct horse battery"})
            page = (await web.get(f"/proposals/{proposal['id']}")).text
            with anyio.fail_after(30):  # it froze the guard for five minutes, and then failed
                answer = await web.post(f"/proposals/{proposal['id']}/approve",
                                        data={"csrf": csrf.findall(page)[0], "approve": "1"})
            return answer.status_code

    async def scenario() -> tuple[Any, int]:
        found: dict[str, Any] = {}
        async with _guarded(guard, "http") as (client, rest):

            async def call() -> None:
                found["result"] = await client.call_tool("files_delete_file", {"name": "a.txt"})

            async with anyio.create_task_group() as group:
                group.start_soon(call)
                found["status"] = await decide_in_the_form(rest)
        return found["result"], found["status"]

    result, status = anyio.run(scenario)
    assert status == 303
    assert not result.is_error
    assert _deleted(guard) == ["a.txt"]
    (proposal,) = guard.app.proposals()
    assert proposal.status is ProposalStatus.DONE


def test_a_yes_in_the_guards_inbox_while_its_server_is_down_is_not_used_up(
        guard: SimpleNamespace) -> None:
    """While the server a waiting proposal calls cannot be reached, Noor's yes in the guard's
    REST API answers 503 and in its inbox form goes back to the page, each with the sentence
    that says the server could not be reached and to try again later: nothing was sent, so the
    proposal still waits, as after a refused `signoff mcp approve`; once the server is back, a
    yes runs it, once. (Before, the yes was used up: the proposal ended Failed.)"""
    from contextlib import ExitStack

    web_port = free_port()
    _config(guard.tmp, web_port=web_port)
    upstream = [sys.executable, UPSTREAM, "--http", str(web_port)]
    files = environment(FILES_ROOT=str(guard.tmp / "files"))
    guard.app.credentials.set_password(guard.noor, "correct horse battery")
    csrf = re.compile(r'name="csrf" value="([^"]+)"')
    headers = {"Authorization": f"Bearer {guard.token}"}

    async def scenario() -> dict[str, Any]:
        got: dict[str, Any] = {}
        with ExitStack() as running, ExitStack() as again:
            running.enter_context(serving(upstream, files, web_port))
            async with _guarded(guard, "http") as (client, rest), httpx.AsyncClient(
                    base_url=rest, timeout=60) as web:
                await client.call_tool("web_delete_file", {"name": "a.txt"},
                                       meta={"signoff/wait": 0})
                (proposal,) = await anyio.to_thread.run_sync(guard.app.proposals)
                got["id"] = proposal.id
                await anyio.to_thread.run_sync(running.close)
                # Until a call is told Unavailable (the first after may go out on the
                # connection the guard had, and be told Unknown): the guard knows it is down.
                with anyio.fail_after(60):
                    while not (await client.call_tool("web_list_files", {})
                               ).content[0].text.startswith("Unavailable: "):
                        await anyio.sleep(0.05)
                yes = f"/api/proposals/{proposal.id}/approve"
                got["api"] = await web.post(yes, headers=headers, json={})
                got["after api"] = (await web.get(f"/api/proposals/{proposal.id}",
                                                  headers=headers)).json()
                page = (await web.get("/login")).text
                await web.post("/login", data={"csrf": csrf.findall(page)[0], "next": "/",
                                               "handle": "noor@example.com",
                                               "password": "correct horse battery"})
                page = (await web.get(f"/proposals/{proposal.id}")).text
                got["posted"] = await web.post(f"/proposals/{proposal.id}/approve",
                                               data={"csrf": csrf.findall(page)[0],
                                                     "approve": "1"})
                got["form"] = await web.get(got["posted"].headers["location"])
                got["after form"] = await anyio.to_thread.run_sync(guard.app.proposal,
                                                                   proposal.id)
                await anyio.to_thread.run_sync(
                    again.enter_context, serving(upstream, files, web_port))
                got["back"] = await web.post(yes, headers=headers, json={})
        return got

    got = anyio.run(scenario)
    down = ("The server web cannot be reached now, so nothing was sent to it and nothing ran "
            "there: try again later, as the guard tries to reach it again at each call.")
    api = got["api"]
    assert api.status_code == 503, api.text
    assert api.headers["content-type"] == "application/problem+json"
    assert api.json()["detail"] == down
    assert got["after api"]["status"] == "Waiting"
    posted, form = got["posted"], got["form"]  # back to the proposal's page, which says why
    assert posted.status_code == 303, posted.text
    assert posted.headers["location"] == f"/proposals/{got['id']}"
    assert form.status_code == 200, form.text
    assert down in form.text
    assert f'action="/proposals/{got["id"]}/approve"' in form.text  # the page, to decide again
    assert "Traceback" not in api.text + form.text
    assert got["after form"].status is ProposalStatus.WAITING
    back = got["back"]
    assert back.status_code == 200, back.text
    assert back.json()["status"] == "Done"
    assert _deleted(guard) == ["a.txt"]
    (proposal,) = guard.app.proposals()
    assert proposal.status is ProposalStatus.DONE


def test_a_configs_relative_paths_are_found_beside_it(tmp_path: Path) -> None:
    """A guard started from another folder (as an MCP client starts it, in a folder of its
    own choosing) finds its database and runs its servers beside its config, not in the folder
    it was started from. (It made a second, empty database there, and lost its proposals.)"""
    (tmp_path / "guard").mkdir()
    path = tmp_path / "guard" / "guard.toml"
    path.write_text('database = "sqlite:///guard.db"\n'
                    '[servers.files]\ncommand = "python"\nargs = ["files_server.py"]\n'
                    '[servers.tools]\ncommand = "python"\ncwd = "tools"\n'
                    '[servers.far]\ncommand = "python"\ncwd = "/srv/far"\n'
                    '[servers.web]\nurl = "http://127.0.0.1:9/mcp"\n')
    config = GuardConfig.load(path)
    here = path.parent.resolve()
    assert config.database == f"sqlite:///{here / 'guard.db'}"
    assert [s.cwd for s in config.servers] == [str(here), str(here / "tools"), "/srv/far", None]
    for given in ("sqlite:////srv/guard.db", "sqlite://", "postgresql+psycopg://u@h/guard"):
        path.write_text(f'database = "{given}"\n[servers.files]\ncommand = "python"\n')
        assert GuardConfig.load(path).database == given
    path.write_text('name = "notes"\n[servers.files]\ncommand = "python"\n')
    assert GuardConfig.load(path).database == f"sqlite:///{here / 'notes.db'}"


def _told_errors(guard: SimpleNamespace,
                 answers: list[tuple[str, int, str]]) -> dict[str, tuple[bool, str]]:
    """Each of `answers` (a name, a JSON-RPC error code, its message) given by a real upstream
    over HTTP to a call of its `answer_error` tool through the guard: whether the guard told
    the call as an error, and its words. The upstream's answers are not outside content, so no
    call is proposed."""
    from contextlib import AsyncExitStack

    from signoff.mcp.guard import open_guard

    web_port = free_port()
    _config(guard.tmp, web_port=web_port)
    guard.config.write_text(guard.config.read_text() + "outside = false\n")
    upstream = [sys.executable, UPSTREAM, "--http", str(web_port)]
    files = environment(FILES_ROOT=str(guard.tmp / "files"), FILES_ERRORS="1")

    async def scenario() -> dict[str, Any]:
        with serving(upstream, files, web_port):
            async with AsyncExitStack() as stack:
                served = await open_guard(GuardConfig.load(guard.config), stack, wait_seconds=0)
                return {how: await served.call_tool("web_answer_error",
                                                    {"code": code, "message": message})
                        for how, code, message in answers}

    return {how: (result.is_error, result.content[0].text)
            for how, result in anyio.run(scenario).items()}


def test_the_guards_work_for_nobody_is_its_sponsors_to_see_from_the_command_line(
        guard: SimpleNamespace) -> None:
    """A guard whose config names nobody the work is for puts its proposals to its first person,
    Noor, its agent's sponsor: `signoff mcp tasks` and `receipt` show her a task of its that only
    read, as the inbox served beside the guard does (the command line opens the guard's app
    without its servers, and so without its agent: it showed her none)."""
    from contextlib import AsyncExitStack

    from click.testing import CliRunner

    from signoff.cli import main
    from signoff.mcp.guard import open_guard

    guard.config.write_text(guard.config.read_text().replace('for = "noor@example.com"\n', ""))

    async def scenario() -> None:
        async with AsyncExitStack() as stack:
            served = await open_guard(GuardConfig.load(guard.config), stack, wait_seconds=0)
            listed = await served.call_tool("files_list_files", {})
            assert not listed.is_error

    anyio.run(scenario)
    (task,) = _tasks(guard.app)
    with guard.app.database.connect() as db:
        assert db.execute(text("select for_id from signoff_tasks")).scalar_one() is None
    config = str(guard.config)
    listed = CliRunner().invoke(main, ["mcp", "tasks", config, "--token", guard.token])
    assert listed.exit_code == 0, listed.output
    assert task in listed.output
    receipt = CliRunner().invoke(main, ["mcp", "receipt", config, task, "--token", guard.token])
    assert receipt.exit_code == 0, receipt.output
    assert "McpGuard ran files_list_files alone" in receipt.output


_ANSWERS_NO_RESULT = '''
import json, sys, time
from pathlib import Path

if len(sys.argv) > 2 and json.loads(sys.argv[2]) == "mute":  # it never answers at all
    print("Welcome to my server!", flush=True)
    time.sleep(600)
for line in sys.stdin:
    message = json.loads(line)
    ident, method = message.get("id"), message.get("method")
    if method == "initialize":
        result = {"protocolVersion": message["params"]["protocolVersion"],
                  "capabilities": {"tools": {}}, "serverInfo": {"name": "raw", "version": "1"}}
    elif method == "tools/list":
        listing = json.loads(sys.argv[2]) if len(sys.argv) > 2 else [
            {"name": "write_note", "inputSchema": {"type": "object"}}]
        if listing == "never":  # (never answered)
            continue
        result = ({"tools": [], "nextCursor": "again"} if listing == "again" else
                  {"tools": listing})
    elif method == "tools/call":
        with open(Path(sys.argv[1]), "a") as ran:
            ran.write(json.dumps(message["params"].get("arguments")) + "\\n")
        # no content (unless its third argument gives it): no tool result a client can read
        result = json.loads(sys.argv[3]) if len(sys.argv) > 3 else {}
    elif ident is None:
        continue
    else:
        result = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": ident, "result": result}) + "\\n")
    sys.stdout.flush()
'''
"""An MCP server over stdio, in JSON-RPC lines, whose tool runs (it writes a line to the file
its argument names) and answers with what is no tool result; its tools are write_note, or those
its second argument lists (in JSON: "mute", it answers nothing, not even the handshake;
"never", it never answers a listing; "again", its pages never end), and its third, when given,
is what a call is answered."""


def _raw_guard(tmp_path: Path, *, tools: list[dict[str, Any]] | str | None = None,
               answer: Any = None, extra: str = "",
               servers: dict[str, Any] | None = None) -> tuple[Path, Path]:
    """A guard config in front of the `_ANSWERS_NO_RESULT` server, named raw (its `tools` and
    the `answer` to a call, when given; `extra`: more of the config), or of one such server
    for each of `servers` with its tools; and the file it writes each call to."""
    server, ran = tmp_path / "raw_server.py", tmp_path / "ran.log"
    server.write_text(_ANSWERS_NO_RESULT)
    tables = []
    for name, listing in (servers or {"raw": tools or [
            {"name": "write_note", "inputSchema": {"type": "object"}}]}).items():
        given = [json.dumps(each) for each in (listing, answer) if each is not None]
        tables.append(stdio_server(name, server, args=[str(ran), *given], trusted=True,
                                   outside=False))
    config = guard_config(tmp_path, *tables, extra)
    return config, ran


@pytest.mark.parametrize(("answer", "told"), [
    # a JSON-RPC answer whose result is no tool result (no content)
    (None, "Unknown: The server raw answered the call of write_note with what is not a tool "
           "result it can be read as: whether it ran is not known"),
    # no JSON-RPC answer at all (its result a string): the SDK drops it (the guard waited five
    # minutes for an answer, and, over HTTP, every other call of the person waited behind it)
    ("just a string", "Unknown: The server raw answered a call with what is not a JSON-RPC "
                      "message while the call of write_note was out, so its answer cannot be "
                      "read: whether it ran is not known"),
], ids=["no tool result", "no JSON-RPC answer"])
def test_a_call_answered_with_what_is_no_tool_result_is_told_unknown(
        tmp_path: Path, answer: Any, told: str) -> None:
    """An upstream that runs a call, then answers with what the SDK cannot read as a tool
    result: the call is told, and recorded, as of unknown outcome at once, naming the server (it
    was told Invalid, "it did not run", though it ran: a person's yes was used up, and another
    yes would run it twice)."""
    from contextlib import AsyncExitStack

    from signoff.mcp.guard import open_guard

    config, ran = _raw_guard(tmp_path, answer=answer,
                             extra='\n[servers.raw.tools]\nwrite_note = "alone"\n')

    async def scenario() -> Any:
        with anyio.fail_after(60):
            async with AsyncExitStack() as stack:
                served = await open_guard(GuardConfig.load(config), stack, wait_seconds=0)
                return await served.call_tool("raw_write_note", {"text": "hello"})

    result = anyio.run(scenario)
    assert result.is_error
    assert result.content[0].text.startswith(told), result.content[0].text
    assert ran.read_text().splitlines() == ['{"text": "hello"}']  # it ran, once
    app = open_guard_app(GuardConfig.load(config))
    with app.database.connect() as db:
        (task,) = db.execute(text("select id from signoff_tasks")).scalars()
    assert "ran raw_write_note alone, as itself: Unknown." in app.receipt(task).words


def _proposing_wait_for(guard: SimpleNamespace) -> None:
    """The guard's config, with files' wait_for (read-only by its hint) put to Noor."""
    guard.config.write_text(guard.config.read_text().replace(
        'write_file = "never"', 'write_file = "never"\nwait_for = "propose"'))


async def _approve_then_kill(guard: SimpleNamespace, proposal: str) -> None:
    """`signoff mcp approve` of `proposal` in a process of its own, SIGKILLed once its call
    of wait_for has reached the upstream; the upstream then finishes the call (it ran)."""
    process = await anyio.open_process(
        command("mcp", "approve", str(guard.config), proposal, "--token", guard.token),
        env=guard.env, cwd=ROOT)
    await _until(lambda: (guard.tmp / "waiting").exists())
    process.kill()
    await process.wait()
    (guard.tmp / "go").write_text("")  # the orphaned upstream's call ends: it ran


def test_an_approved_call_whose_process_was_killed_is_told_unknown_to_the_client_waiting(
        guard: SimpleNamespace) -> None:
    """Noor's yes is given with `signoff mcp approve`, whose process is SIGKILLed while the
    call is out upstream: the guard, keeping the client's call open for the decision, settles
    it as of unknown outcome and tells the client so (before, the proposal stayed Approved with
    no result, the client was kept waiting until its wait ran out, and was then told it still
    waited: asked again, the call was proposed anew, and a yes would run it twice)."""
    _proposing_wait_for(guard)

    async def scenario() -> Any:
        found: dict[str, Any] = {}
        async with _guarded(guard, "stdio") as (client, _rest):

            async def call() -> None:
                found["told"] = await client.call_tool("files_wait_for", {"flag": "go"})

            async with anyio.create_task_group() as group:
                group.start_soon(call)
                with anyio.fail_after(60):
                    while not (waiting := await anyio.to_thread.run_sync(
                            guard.app.proposals_for, guard.noor)):
                        await anyio.sleep(0.05)
                await _approve_then_kill(guard, str(waiting[0].id))
                with anyio.fail_after(90):
                    while "told" not in found:
                        await anyio.sleep(0.1)
        return found["told"]

    told = anyio.run(scenario)
    assert told.is_error, told
    assert told.content[0].text.startswith(
        "The outcome of files_wait_for is unknown: the work stopped while it ran, after it was "
        "approved; it is not run again blindly."), told.content[0].text
    (proposal,) = guard.app.proposals()
    assert proposal.status is ProposalStatus.FAILED


def test_an_approved_call_whose_process_was_killed_is_settled_as_the_guard_opens(
        guard: SimpleNamespace) -> None:
    """The same SIGKILL, with no client kept waiting on the call: the next command that opens
    the guard (`signoff mcp proposals`) settles it as of unknown outcome, and the receipt says
    so; a second yes is refused, so the call cannot run twice (before, the proposal stayed
    Approved with no result, and the task Waiting on a decision already made, whatever the
    guard or its commands did)."""
    _proposing_wait_for(guard)
    port = free_port()
    config, token = str(guard.config), ["--token", guard.token]

    async def scenario() -> dict[str, Any]:
        got: dict[str, Any] = {}
        with http_server(["mcp", "guard", config, "--http", f"127.0.0.1:{port}"],
                         guard.env, port) as url:
            async with over_http(url, token=guard.client) as client:
                got["asked"] = await client.call_tool("files_wait_for", {"flag": "go"},
                                                      meta={"signoff/wait": 0})
            (proposal,) = await anyio.to_thread.run_sync(guard.app.proposals_for, guard.noor)
            got["id"] = str(proposal.id)
            await _approve_then_kill(guard, got["id"])
            got["listed"] = await _signoff(guard, "proposals", config, *token)
            got["again"] = await _signoff(guard, "approve", config, got["id"], *token)
        return got

    got = anyio.run(scenario)
    assert "waits on their decision" in got["asked"].content[0].text
    code, listed = got["listed"]
    assert code == 0, listed
    assert listed.splitlines() == [
        "0 proposals.", "An approved call whose process stopped while it ran was settled: its "
        "receipt tells what became of it (an outside call's outcome is unknown: check whether it "
        "happened)."], listed
    proposal = guard.app.proposal(got["id"])
    assert proposal.status is ProposalStatus.FAILED
    told = ("The outcome of files_wait_for is unknown: the work stopped while it ran, after it "
            "was approved; it is not run again blindly. Check whether it happened before trying "
            "again.")
    assert told in guard.app.receipt(proposal.task).words
    code, again = got["again"]
    assert (code, "already decided (Failed)" in again) == (1, True), again


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_call_out_upstream_holds_up_no_other_call_of_the_session(
        guard: SimpleNamespace, transport: str) -> None:
    """While a call the guard lets run alone is out upstream (waiting on its flag), another
    call of the same session is taken and answered at once, in a task of its own in the
    session's work; the first answers once its flag comes, and both tasks end with the session
    (before, the session's one turn at a time held the second call up until the first was back,
    up to five minutes; over HTTP, every call of the person, from any client)."""

    async def scenario() -> dict[str, Any]:
        found: dict[str, Any] = {}
        async with _guarded(guard, transport) as (client, _rest):

            async def wait_for() -> None:
                found["waited"] = await client.call_tool("files_wait_for", {"flag": "go"})

            async with anyio.create_task_group() as group:
                group.start_soon(wait_for)
                await _until(lambda: (guard.tmp / "waiting").exists())
                with anyio.fail_after(30):
                    found["listed"] = await client.call_tool("files_list_files", {})
                found["flag came first"] = (guard.tmp / "go").exists()
                (guard.tmp / "go").write_text("")
        return found

    found = anyio.run(scenario)
    assert found["flag came first"] is False
    assert not found["listed"].is_error, found["listed"]
    assert found["waited"].structured_content == {"result": "go came."}
    tasks = _tasks(guard.app)
    assert len(tasks) == 2
    words = " ".join(guard.app.receipt(task).words for task in tasks)
    assert "McpGuard ran files_wait_for alone" in words
    assert "McpGuard ran files_list_files alone" in words
    assert {guard.app.outcome(task).status for task in tasks} == {TaskStatus.HALTED}
    # the listing says they are one session's work (they read as two sessions' tasks)
    from click.testing import CliRunner

    from signoff.cli import main

    listed = CliRunner().invoke(main, ["mcp", "tasks", str(guard.config), "--token",
                                       guard.token, "--json"])
    assert listed.exit_code == 0, listed.output
    (work,) = {t["work"] for t in json.loads(listed.output)}
    assert work is not None
    shown = CliRunner().invoke(main, ["mcp", "tasks", str(guard.config), "--token", guard.token])
    assert shown.output.count(f"(work {work[:8]})") == 2, shown.output


def test_a_tool_whose_input_schema_is_no_json_schema_is_told_and_never_called(
        tmp_path: Path) -> None:
    """An upstream tool whose input schema the guard cannot check arguments against (a type
    that JSON Schema has not, a $ref to nowhere): each call is refused in one sentence naming
    the server and the tool, and nothing reaches the server (the client was told the
    validator's exception text, and the log held its traceback)."""
    from contextlib import AsyncExitStack

    from signoff.mcp.guard import open_guard

    tools = [
        {"name": "odd_type", "inputSchema": {"type": "object", "properties": {
            "x": {"type": "nonsense-type"}}}, "annotations": {"readOnlyHint": True}},
        {"name": "ref_to_nowhere", "inputSchema": {"type": "object", "properties": {
            "x": {"$ref": "#/$defs/nowhere"}}}, "annotations": {"readOnlyHint": True}},
    ]
    config, ran = _raw_guard(tmp_path, tools=tools)

    async def scenario() -> list[Any]:
        async with AsyncExitStack() as stack:
            served = await open_guard(GuardConfig.load(config), stack, wait_seconds=0)
            return [await served.call_tool(f"raw_{tool['name']}", {"x": 1}) for tool in tools]

    for told, tool in zip(anyio.run(scenario), tools, strict=True):
        assert told.is_error
        assert told.content[0].text == (
            f"Invalid: raw gives {tool['name']} an input schema that is not JSON Schema the guard "
            "can check arguments against, so no call of it can be. Nothing was run or "
            "proposed."), told.content[0].text
    assert not ran.exists()


def test_a_url_an_input_schema_refers_to_is_never_fetched(tmp_path: Path) -> None:
    """An upstream tool whose input schema refers to a URL (a ``$ref`` to a listener here): the
    guard fetches nothing, and each call is refused as one it cannot check (its validator
    fetched the URL: a request from the guard's host to wherever a server says, made on the
    guard's event loop, with no timeout)."""
    import socket
    import threading
    from contextlib import AsyncExitStack

    from signoff.mcp.guard import open_guard

    listener = socket.create_server(("127.0.0.1", free_port()))
    listener.settimeout(0.2)
    asked: list[bytes] = []
    done = threading.Event()

    def listen() -> None:
        while not done.is_set():
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                continue
            with connection:
                asked.append(connection.recv(200))
                connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}")

    url = f"http://127.0.0.1:{listener.getsockname()[1]}/schema.json"
    tools = [{"name": "far_ref", "inputSchema": {"type": "object", "properties": {
        "x": {"$ref": url}}}, "annotations": {"readOnlyHint": True}}]
    config, ran = _raw_guard(tmp_path, tools=tools)

    async def scenario() -> Any:
        async with AsyncExitStack() as stack:
            served = await open_guard(GuardConfig.load(config), stack, wait_seconds=0)
            return await served.call_tool("raw_far_ref", {"x": 1})

    thread = threading.Thread(target=listen)
    thread.start()
    try:
        told = anyio.run(scenario)
    finally:
        done.set()
        thread.join()
        listener.close()
    assert asked == []
    assert told.is_error
    assert told.content[0].text == (
        "Invalid: raw gives far_ref an input schema that is not JSON Schema the guard can check "
        "arguments against, so no call of it can be. Nothing was run or proposed.")
    assert not ran.exists()


def test_an_image_an_upstream_answers_reaches_the_client(tmp_path: Path) -> None:
    """An upstream tool that answers with an image, and one with a line of text and an image:
    the client is given the image as the server gave it, beside the text (it was dropped
    without a word, and the call answered with empty text)."""
    from contextlib import AsyncExitStack

    from mcp.types import ImageContent

    from signoff.mcp.guard import open_guard

    image = {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
    answers = {"picture": {"content": [image]},
               "captioned": {"content": [{"type": "text", "text": "A cat."}, image]}}
    found = {}
    for tool, answer in answers.items():
        place = tmp_path / tool
        place.mkdir()
        config, _ran = _raw_guard(place, tools=[{"name": tool, "inputSchema": {"type": "object"}}],
                                  answer=answer, extra=f'\n[servers.raw.tools]\n{tool} = "alone"\n')

        async def scenario(config: Path = config, tool: str = tool) -> Any:
            async with AsyncExitStack() as stack:
                served = await open_guard(GuardConfig.load(config), stack, wait_seconds=0)
                return await served.call_tool(f"raw_{tool}", {})

        found[tool] = anyio.run(scenario)
    picture, captioned = found["picture"], found["captioned"]
    assert not picture.is_error, picture
    assert picture.content == [ImageContent(data="iVBORw0KGgo=", mime_type="image/png")]
    assert [c.type for c in captioned.content] == ["text", "image"]
    assert captioned.content[0].text == "A cat."
    assert captioned.content[1] == picture.content[0]


def test_two_upstream_tools_served_by_one_name_are_refused_at_start(tmp_path: Path) -> None:
    """The servers git (its tool hub_push) and git_hub (its tool push) would both be served
    as git_hub_push: the guard refuses to start, naming both and what to do (the later one
    silently stood in for the other)."""
    from click.testing import CliRunner

    from signoff.cli import main

    config, _ran = _raw_guard(tmp_path, servers={
        name: [{"name": tool, "inputSchema": {"type": "object"}}]
        for name, tool in (("git", "hub_push"), ("git_hub", "push"))})
    told = CliRunner().invoke(main, ["mcp", "guard", str(config)])
    assert told.exit_code == 2, told.output
    assert ("The server git's tool hub_push and the server git_hub's tool push would both be "
            "served as git_hub_push: rename one of the servers in the config.") in " ".join(
        told.output.split()), told.output


def test_over_stdio_a_line_that_is_no_json_rpc_message_is_answered_with_an_error(
        guard: SimpleNamespace) -> None:
    """Over stdio, each line the SDK cannot read as a JSON-RPC message is answered with a
    JSON-RPC error, with the request's id where it can be read (each went unanswered, the
    client waiting until its own timeout): a batch, a lone surrogate, an id of no kind JSON-RPC
    takes (read as a notification), a line nested 5,000 deep, text that is not JSON; a ping
    after them is answered as ever."""
    deep = "[" * 5000 + "]" * 5000
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        [{"jsonrpc": "2.0", "id": 2, "method": "ping"}],
        '{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "files_list_files",'
        ' "arguments": {"x": "\\udcff"}}}',
        {"jsonrpc": "2.0", "id": 9.5, "method": "ping"},
        '{"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "files_list_files",'
        f' "arguments": {{"x": {deep}}}}}}}',
        "this is not JSON",
        "123",
        {"jsonrpc": "2.0", "method": "notifications/initialized", "params": 5},
        {"jsonrpc": "2.0", "id": 11, "method": "ping"},
    ]
    answers = stdio_answers(["mcp", "guard", str(guard.config)], guard.env, lines, last=11,
                            seconds=60)
    errors = [(a["id"], a["error"]["code"], a["error"]["message"]) for a in answers
              if "error" in a]
    assert errors == [
        (None, -32600, "Invalid request: a line holds one JSON-RPC message, an object (a batch "
                       "is not taken)."),
        (3, -32600, errors[1][2]),
        (None, -32600, "Invalid request: a request's id is a whole number or a text."),
        (None, -32700, "Parse error: the line is nested too deep to read."),
        (None, -32700, "Parse error: the line is not JSON."),
        (None, -32600, "Invalid request: a line holds one JSON-RPC message, an object, not a "
                       "number."),
        # (as the notification it reads as: it said "JSONRPCRequest.id: Field required")
        (None, -32600, "Invalid request: it is not a JSON-RPC message this server can read "
                       "(params: Input should be an object)."),
    ], answers
    assert "surrogate" in errors[1][2], errors[1][2]
    assert answers[-1] == {"jsonrpc": "2.0", "id": 11, "result": {}}, answers



@pytest.mark.parametrize(("listing", "told"), [
    ("mute", "The guard could not reach the server raw ({where}): it did not answer MCP's "
             "handshake within 2 seconds."),
    ("never", "The guard reached the server raw ({where}): it did not list its tools within 2 "
              "seconds — so it cannot say which tools it guards."),
    ("again", "The guard reached the server raw ({where}): its listing of tools came back to a "
              "page it gave before (cursor 'again'), so it never ends — so it cannot say which "
              "tools it guards."),
])
def test_a_server_that_does_not_answer_is_told_unreachable_and_stopped(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, listing: str, told: str) -> None:
    """A command that starts but never answers MCP's handshake, one that answers it but never
    its listing of tools, one whose pages of tools never end: the guard refuses to start,
    naming it and why, and the command it started is stopped (it waited for ever, or asked
    for the next page tens of thousands of times a second; `signoff mcp proposals` and
    `reject` hung the same way, and the command outlived them)."""
    from contextlib import AsyncExitStack

    from signoff.mcp import upstreams
    from signoff.mcp.guard import open_guard

    monkeypatch.setattr(upstreams, "CONNECT_TIMEOUT_SECONDS", 2.0)
    config, _ran = _raw_guard(tmp_path, tools=listing)

    async def scenario() -> None:
        with anyio.fail_after(60):
            async with AsyncExitStack() as stack:
                await open_guard(GuardConfig.load(config), stack, wait_seconds=0)

    with pytest.raises(BaseExceptionGroup) as raised:  # (the connections' task group's)
        anyio.run(scenario)
    (refused,) = raised.value.exceptions
    assert isinstance(refused, upstreams.ServerUnreachable), refused
    server = tmp_path / "raw_server.py"
    where = f"{sys.executable} {server} {tmp_path / 'ran.log'} \"{listing}\""
    assert told.format(where=where) in str(refused), str(refused)
    assert refused.servers == ("raw",)
    assert _pids_with(str(server).encode(), "cmdline") == []


def _on_database(guard: SimpleNamespace, database: str, request: pytest.FixtureRequest) -> None:
    """The guard's config names a PostgreSQL database of the test's own ("postgres"), or keeps
    its SQLite file."""
    if database == "postgres":
        url = request.getfixturevalue("postgres_database")
        guard.app.database.dispose()
        guard.config.write_text(re.sub(r'(?m)^database = .*$', f'database = "{url}"',
                                       guard.config.read_text(), count=1))
        guard.app = open_guard_app(GuardConfig.load(guard.config))
        guard.token = guard.app.credentials.issue_token(
            guard.app.people.find("noor@example.com"), "tests")
        guard.client = guard.app.credentials.issue_token(
            guard.app.people.find("noor@example.com"), "tests' client",
            purpose=TokenPurpose.CLIENT)


@pytest.mark.parametrize("database", ["sqlite", "postgres"])
def test_a_task_whose_guard_was_killed_while_its_call_was_out_ends_as_the_guard_opens(
        guard: SimpleNamespace, database: str, request: pytest.FixtureRequest) -> None:
    """SIGKILL to a guard while a call it let run alone is out upstream: the next guard opened
    on its database (a SQLite file, a PostgreSQL server), in another process, tells that call
    as of unknown outcome and ends its task, its receipt saying why (the task read Running for
    good, its call with no outcome)."""
    import os
    import signal
    from contextlib import AsyncExitStack

    from signoff.mcp.guard import open_guard

    _on_database(guard, database, request)
    config = str(guard.config).encode()

    async def scenario() -> None:
        try:
            async with _guarded(guard, "http") as (client, _rest), \
                    anyio.create_task_group() as group:
                group.start_soon(client.call_tool, "files_wait_for", {"flag": "never"})
                await _until(lambda: (guard.tmp / "waiting").exists())
                (pid,) = _pids_with(config, "cmdline")
                os.kill(pid, signal.SIGKILL)
                await _until(lambda: not _pids_with(config, "cmdline"))
                group.cancel_scope.cancel()  # (the call's connection was cut)
        except* httpx2.TransportError:  # (the client's requests the killed guard never answered,
            pass  # as the client closes: told to it or not, as the kill fell)

    anyio.run(scenario)
    _stop_upstream(guard.tmp / "files")
    (task,) = _tasks(guard.app)
    assert guard.app.outcome(task).status is TaskStatus.RUNNING

    async def opened() -> None:
        async with AsyncExitStack() as stack:
            served = await open_guard(GuardConfig.load(guard.config), stack, wait_seconds=0)
            stack.callback(served.app.database.dispose)

    anyio.run(opened)
    outcome = guard.app.outcome(task)
    assert outcome.status is TaskStatus.HALTED
    assert outcome.problem == ("The MCP session ended: the server serving it stopped while it "
                               "took this task's turn, so the task ends here.")
    words = guard.app.receipt(task).words
    assert ("files_wait_for: The outcome of files_wait_for is unknown: the work stopped while it "
            "ran, and it is not run again blindly.") in words, words
    guard.app.database.dispose()

@pytest.mark.parametrize("database", ["sqlite", "postgres"])
def test_the_tasks_of_a_killed_guards_session_end_as_the_next_guard_opens(
        guard: SimpleNamespace, database: str, request: pytest.FixtureRequest) -> None:
    """SIGKILL to a guard whose client's session has a task between turns and one waiting on
    Noor's decision (neither held by anyone): a guard opened on the same database while the
    first still serves leaves both as they are; the next one opened after the kill, in another
    process, ends both, their receipts saying why, and the proposal can still be decided
    (they read Running and Waiting for good: only a task whose turn the killed guard was
    taking was ended)."""
    import os
    import signal
    from contextlib import AsyncExitStack

    from sqlalchemy import select

    from signoff.mcp.guard import open_guard
    from signoff.store.tables import servings

    _on_database(guard, database, request)
    config = str(guard.config).encode()

    async def opened() -> None:
        async with AsyncExitStack() as stack:
            served = await open_guard(GuardConfig.load(guard.config), stack, wait_seconds=0)
            stack.callback(served.app.database.dispose)

    def statuses() -> list[TaskStatus]:
        return sorted((guard.app.outcome(task).status for task in _tasks(guard.app)),
                      key=lambda status: status.value)

    async def scenario() -> list[TaskStatus]:
        async with _guarded(guard, "http") as (client, _rest):
            await client.call_tool("files_delete_file", {"name": "a.txt"},
                                   meta={"signoff/wait": 0})
            await client.call_tool("files_list_files", {})  # (in a new task: the first waits)
            await opened()  # a second guard, while the first serves the session
            live = statuses()
            (pid,) = _pids_with(config, "cmdline")
            os.kill(pid, signal.SIGKILL)
            await _until(lambda: not _pids_with(config, "cmdline"))
        return live

    live = anyio.run(scenario)
    _stop_upstream(guard.tmp / "files")
    assert live == [TaskStatus.RUNNING, TaskStatus.WAITING]
    assert statuses() == [TaskStatus.RUNNING, TaskStatus.WAITING]

    anyio.run(opened)
    told = ("The MCP session ended: the server serving it stopped, so the task ends here; a "
            "call it proposed can still be decided, and an approved one runs once.")
    for task in _tasks(guard.app):
        outcome = guard.app.outcome(task)
        assert (outcome.status, outcome.problem) == (TaskStatus.HALTED, told)
        assert told in guard.app.receipt(task).words
    (proposal,) = guard.app.proposals()
    assert proposal.status is ProposalStatus.WAITING
    with guard.app.database.connect() as db:
        assert db.execute(select(servings)).all() == []
    guard.app.database.dispose()


def test_a_command_stopped_with_ctrl_c_says_so_and_exits_130(tmp_path: Path) -> None:
    """Ctrl-C to a command while it works (here `signoff mcp guard`, waiting on a server that
    never answers): "Stopped.", exit 130, and what it started is stopped (it said click's
    "Aborted!" and exited 1, which reads as a refusal; so did a command stopped while it
    brought a database up to date)."""
    import os
    import signal
    import subprocess
    import time

    config, _ran = _raw_guard(tmp_path, tools="mute")
    server = str(tmp_path / "raw_server.py").encode()
    guard = subprocess.Popen(command("mcp", "guard", str(config)), env=environment(), cwd=ROOT,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not _pids_with(server, "cmdline") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _pids_with(server, "cmdline"), "the server never started"
    os.kill(guard.pid, signal.SIGINT)
    _out, err = guard.communicate(timeout=60)
    assert (guard.returncode, err.strip().splitlines()[-1:]) == (130, ["Stopped."]), err
    assert "Aborted" not in err
    assert "Traceback" not in err
    deadline = time.monotonic() + 30
    while _pids_with(server, "cmdline") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _pids_with(server, "cmdline") == []


def test_over_the_protocol_that_keeps_no_sessions_a_pause_starts_another_go(
        guard: SimpleNamespace) -> None:
    """Over HTTP on the 2026-07-28 protocol a person's calls are one session: past `max_calls`
    the next is refused, saying when calls are taken again; once they pause for
    `pause_seconds`, the next runs, in a new task of the same work, and the idle task ends,
    saying why (before, the person was refused until the guard was started again: "Start a
    new session", which that protocol has not)."""
    from contextlib import AsyncExitStack

    from signoff.mcp.guard import open_guard
    from signoff.mcp.transport import http_app, serve_http

    async def scenario() -> list[Any]:
        async with AsyncExitStack() as stack:
            served = await open_guard(GuardConfig.load(guard.config), stack, wait_seconds=0)
            served.max_calls, served.pause_seconds = 2, 1.0
            port, ready, stop = free_port(), anyio.Event(), anyio.Event()
            async with anyio.create_task_group() as group:
                group.start_soon(lambda: serve_http(
                    http_app(served, served.app, host="127.0.0.1"), host="127.0.0.1", port=port,
                    started=ready.set, stop=stop))
                with anyio.fail_after(60):
                    await ready.wait()
                told = []
                async with over_http(f"http://127.0.0.1:{port}", token=guard.client) as client:
                    for _ in range(3):
                        told.append(await client.call_tool("files_list_files", {}))
                    await anyio.sleep(1.5)
                    told.append(await client.call_tool("files_list_files", {}))
                stop.set()
        return told

    first, second, past, after = anyio.run(scenario)
    assert [told.is_error for told in (first, second, past, after)] == [False, False, True, False]
    assert past.content[0].text == (
        "Nothing ran: 2 calls have been made in one go, the most this server takes; the next is "
        "taken once the calls pause for 1 second.")
    with guard.app.database.connect() as db:
        rows = db.execute(text("select id, work_id from signoff_tasks order by created_at")).all()
    assert len(rows) == 2, rows
    assert rows[0][1] == rows[1][1], rows  # one work: what it has read still holds
    ended = guard.app.outcome(rows[0][0])
    assert ended.status is TaskStatus.HALTED
    assert ended.problem == ("The person's calls paused, over a protocol that keeps no "
                             "sessions, so this task ends here; their next calls go on in new "
                             "tasks of the same work.")


def test_a_listing_that_says_the_same_again_reads_nothing_from_the_database(
        guard: SimpleNamespace) -> None:
    """Each listing of the upstreams' tools is compared with what the guard kept: one that says
    of every tool what it said before sends no statement to the database (it sent one a tool,
    so a server of thousands of tools held each client's listing up for half a minute)."""
    from contextlib import AsyncExitStack

    from sqlalchemy import event

    from signoff.mcp.guard import open_guard

    async def scenario() -> tuple[int, list[str]]:
        async with AsyncExitStack() as stack:
            served = await open_guard(GuardConfig.load(guard.config), stack, wait_seconds=0)
            statements: list[str] = []
            event.listen(served.app.database.engine, "before_cursor_execute",
                         lambda *args: statements.append(args[2]))
            changed = await anyio.to_thread.run_sync(served.notice_changes)
            return len(statements), changed

    sent, changed = anyio.run(scenario)
    assert (sent, changed) == (0, [])
