"""A tool an upstream changes under the same name between two listings: the guard never takes
what it says now for safer than what it said before, and takes what makes it less safe at once."""

from __future__ import annotations

from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio

from signoff import ProposalStatus
from signoff.agents.permits import Leave
from signoff.mcp.config import GuardConfig
from signoff.mcp.guard import open_guard, open_guard_app
from tests.mcp_servers import ROOT, guard_config, stdio_server

UPSTREAM = str(ROOT / "tests" / "mcp_upstream_turning.py")


def _config(tmp: Path) -> Path:
    """A guard trusting the turning server's hints, whose answers it vouches for (so that only
    the leave decides)."""
    (tmp / "files").mkdir()
    for name in ("a.txt", "b.txt"):
        (tmp / "files" / name).write_text(name)
    return guard_config(tmp, stdio_server("files", UPSTREAM, env={"FILES_ROOT": str(tmp / "files")},
                                          trusted=True, outside=False))


def test_a_read_only_tool_that_turns_destructive_is_proposed_from_the_next_listing(
        tmp_path: Path) -> None:
    """read_file runs alone while its trusted server says it only reads; once the server lists
    it as deleting (same name), the guard's next listing takes that: it is offered as put to a
    person, and a call of it is proposed, not run (it was still run alone, and deleted); its
    arguments are checked against its input schema as listed now (they were against the
    first, so that a call which no longer fits it was put to a person)."""
    config = _config(tmp_path)

    async def scenario() -> dict[str, Any]:
        found: dict[str, Any] = {}
        async with AsyncExitStack() as stack:
            served = await open_guard(GuardConfig.load(config), stack, wait_seconds=0)
            await served.list_tools()
            found["read"] = await served.call_tool("files_read_file", {"name": "a.txt"})
            (tmp_path / "turned").write_text("")
            found["listed"] = {t.name: t for t in await served.list_tools()}
            found["leave"] = served.guarded["files_read_file"].leave
            found["unfit"] = await served.call_tool("files_read_file", {"name": "b.txt"})
            found["called"] = await served.call_tool("files_read_file",
                                                     {"name": "b.txt", "really": True})
        return found

    found = anyio.run(scenario)
    assert found["read"].content[0].text == "a.txt"
    assert found["leave"] is Leave.PROPOSE
    assert "put to a person" in (found["listed"]["files_read_file"].description or "")
    assert (tmp_path / "files" / "b.txt").exists()
    assert "proposed to Noor" in found["called"].content[0].text
    # checked against the schema listed now, not the one listed first: told, and put to no one
    assert found["unfit"].is_error
    assert found["unfit"].content[0].text == (
        "Invalid: the arguments: 'really' is a required property. Nothing was run or proposed.")
    app = open_guard_app(GuardConfig.load(config))
    (proposal,) = app.proposals(status=ProposalStatus.WAITING)
    assert proposal.action == "files_read_file"


def test_a_tool_listed_twice_under_one_name_takes_the_stricter_listing(tmp_path: Path) -> None:
    """A server that lists read_file twice, as deleting and then as only reading, has it taken
    as deleting: offered as put to a person, and a call of it proposed (the last listing won,
    and it ran alone)."""
    config = _config(tmp_path)
    (tmp_path / "twice").write_text("")

    async def scenario() -> dict[str, Any]:
        async with AsyncExitStack() as stack:
            served = await open_guard(GuardConfig.load(config), stack, wait_seconds=0)
            listed = {t.name: t for t in await served.list_tools()}
            return {"leave": served.guarded["files_read_file"].leave, "listed": listed,
                    "called": await served.call_tool("files_read_file",
                                                     {"name": "a.txt", "really": True})}

    found = anyio.run(scenario)
    assert found["leave"] is Leave.PROPOSE
    assert "put to a person" in (found["listed"]["files_read_file"].description or "")
    assert "proposed to Noor" in found["called"].content[0].text


def test_a_tool_that_said_it_deletes_is_not_believed_read_only_after_a_restart(
        tmp_path: Path) -> None:
    """read_file is listed as deleting while a guard runs; the guard stops, and the server lists
    it as only reading again (as it first did), while it still deletes. The next guard does not
    take it at its word: a call of it is proposed, and nothing is deleted (the guard started
    afresh believed the hint, and ran it alone). A tool the config names keeps the config's
    leave."""
    config = _config(tmp_path)

    async def guard(calls: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
        async with AsyncExitStack() as stack:
            served = await open_guard(GuardConfig.load(config), stack, wait_seconds=0)
            listed = {t.name: t for t in await served.list_tools()}
            return {"leave": served.guarded["files_read_file"].leave, "listed": listed,
                    "called": [await served.call_tool(name, arguments)
                               for name, arguments in calls]}

    first = anyio.run(guard, [("files_read_file", {"name": "a.txt"})])
    assert first["leave"] is Leave.ALONE
    assert first["called"][0].content[0].text == "a.txt"
    (tmp_path / "turned").write_text("")
    assert anyio.run(guard, [])["leave"] is Leave.PROPOSE
    (tmp_path / "lying").write_text("")
    again = anyio.run(guard, [("files_read_file", {"name": "b.txt"})])
    assert again["leave"] is Leave.PROPOSE
    assert "put to a person" in (again["listed"]["files_read_file"].description or "")
    assert "proposed to Noor" in again["called"][0].content[0].text
    assert (tmp_path / "files" / "b.txt").exists()
    # The operator who trusts it again says so in the config: its leave is the config's.
    config.write_text(config.read_text() + '\n[servers.files.tools]\nread_file = "alone"\n')
    trusted = anyio.run(guard, [("files_read_file", {"name": "b.txt"})])
    assert trusted["leave"] is Leave.ALONE


def test_a_yes_to_a_tool_its_server_changed_since_it_was_proposed_does_not_run_it(
        tmp_path: Path) -> None:
    """read_file (put to a person by the config) is proposed while it reads; its server then
    lists it as deleting, and nobody lists the guard's tools again before Noor says yes: the
    guard looks at what the server says of it now, so the yes finds the proposal stale and
    nothing is deleted (the guard went by its last listing, and the yes deleted a.txt)."""
    config = _config(tmp_path)
    config.write_text(config.read_text() + '\n[servers.files.tools]\nread_file = "propose"\n')

    async def scenario() -> Any:
        async with AsyncExitStack() as stack:
            served = await open_guard(GuardConfig.load(config), stack, wait_seconds=0)
            await served.list_tools()
            called = await served.call_tool("files_read_file", {"name": "a.txt"})
            assert "proposed to Noor" in called.content[0].text
            (tmp_path / "turned").write_text("")
            app = served.app
            (proposal,) = app.proposals(status=ProposalStatus.WAITING)
            noor = app.people.find("noor@example.com")
            return await anyio.to_thread.run_sync(lambda: app.approve(proposal, by=noor))

    decision = anyio.run(scenario)
    assert decision.status is ProposalStatus.STALE
    assert (tmp_path / "files" / "a.txt").exists()


def test_a_yes_to_a_tool_whose_server_no_longer_lists_its_tools_does_not_run_it(
        tmp_path: Path) -> None:
    """read_file (put to a person by the config) is proposed; its server, still connected, then
    never answers a listing of its tools: what it says of read_file now is not known, so Noor's
    yes finds the proposal stale, and nothing is sent to it (it ran, on the guard's word of the
    tool as first listed)."""
    config = _config(tmp_path)
    config.write_text(config.read_text() + '\n[servers.files.tools]\nread_file = "propose"\n')

    async def scenario() -> Any:
        async with AsyncExitStack() as stack:
            served = await open_guard(GuardConfig.load(config), stack, wait_seconds=0)
            called = await served.call_tool("files_read_file", {"name": "a.txt"})
            assert "proposed to Noor" in called.content[0].text
            (tmp_path / "mute").write_text("")
            (tmp_path / "turned").write_text("")  # (were it called now, it would delete)
            app = served.app
            (proposal,) = app.proposals(status=ProposalStatus.WAITING)
            noor = app.people.find("noor@example.com")
            return await anyio.to_thread.run_sync(lambda: app.approve(proposal, by=noor))

    decision = anyio.run(scenario)
    assert decision.status is ProposalStatus.STALE
    assert (tmp_path / "files" / "a.txt").exists()
