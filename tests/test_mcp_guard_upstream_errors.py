"""The guard in front of an MCP server that answers calls with JSON-RPC errors of its own: one
of code -32000 is the server's answer (not a lost connection, which stopped the server and
started it again), and one too long to keep is cut, saying so."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.mcp_servers import ROOT, TRANSPORTS, connected, environment, guard_config, stdio_server

ERRING = str(ROOT / "tests" / "mcp_upstream_erring.py")


def _calls(tmp: Path, transport: str, *calls: tuple[str, dict[str, Any]]) -> list[Any]:
    """Make `calls` through a guard (over `transport`) in front of the erring server, trusted
    and its answers vouched for (so that no call is held back for what it read; a proposed
    one answered at once); the tools it lists, then what each call was answered."""
    config = guard_config(tmp, stdio_server("erring", ERRING, trusted=True, outside=False))

    async def scenario() -> list[Any]:
        from signoff.mcp.config import GuardConfig
        from signoff.mcp.guard import open_guard_app
        from signoff.security.credentials import TokenPurpose

        app = open_guard_app(GuardConfig.load(config))
        token = app.credentials.issue_token(app.people.find("noor@example.com"), "tests' client",
                                            purpose=TokenPurpose.CLIENT)
        async with connected(transport, ["mcp", "guard", str(config)], environment(),
                             token=token) as client:
            listed = {tool.name: tool for tool in (await client.list_tools()).tools}
            return [listed, *[await client.call_tool(tool, arguments, meta={"signoff/wait": 0})
                              for tool, arguments in calls]]

    return anyio.run(scenario)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_servers_own_error_of_code_32000_is_its_answer_and_keeps_its_connection(
        tmp_path: Path, transport: str) -> None:
    """The server answers a call with the JSON-RPC error -32000 "The disk is full.": the client
    is told it as the server's failure, quoting it (it was told that the connection closed and
    that whether the call ran is not known), and the server is not stopped and started again:
    the same process answers the next call."""
    _, before, failed, after = _calls(tmp_path, transport, ("erring_pid", {}),
                                   ("erring_fail", {"words": "The disk is full."}),
                                   ("erring_pid", {}))
    assert failed.is_error
    assert failed.content[0].text == (
        "Failed: The server erring answered the call of fail with the error “The disk is full.” "
        "(JSON-RPC -32000): look at what the tool keeps before calling it again.")
    assert not before.is_error
    assert not after.is_error
    assert after.content[0].text == before.content[0].text


def test_an_error_too_long_to_keep_is_cut_and_says_so(tmp_path: Path) -> None:
    """The server refuses a call's arguments in three million characters: the client is told
    the first million, that the rest is left out, and to call it otherwise."""
    _, refused = _calls(tmp_path, "stdio", ("erring_refuse", {"chars": 3_000_000}))
    said = refused.content[0].text
    assert refused.is_error
    assert said.startswith("Invalid: The server erring refused the arguments of refuse: “"
                           + "p" * 1_000_000 + " [the rest of the server's 3,000,000 characters "
                           "is left out]”")
    assert said.endswith("— call it again with arguments that fit.")
    assert len(said) < 1_001_000


def test_a_tool_hinted_both_read_only_and_destructive_is_proposed(tmp_path: Path) -> None:
    """A trusted server hints its wipe tool both read-only and destructive: the guard takes
    the stricter word — the call is proposed to Noor, not run alone — and does not serve the
    contradicting hints on; the tool that is hinted read-only alone still runs alone."""
    listed, wipe, wiped = _calls(tmp_path, "stdio", ("erring_wipe", {}), ("erring_wiped", {}))
    assert listed["erring_wipe"].annotations is None
    assert listed["erring_wiped"].annotations.read_only_hint is True
    assert wipe.content[0].text.startswith("erring_wipe was proposed to Noor and waits on "
                                           "their decision")
    assert "Nothing has run yet." in wipe.content[0].text
    assert wiped.content[0].text == "0"
