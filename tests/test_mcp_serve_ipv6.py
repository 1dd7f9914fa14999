"""``signoff mcp serve --http`` at an IPv6 address written as URLs write it (``[::1]:PORT``)."""

from __future__ import annotations

import socket
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import pytest

from tests.mcp_servers import command, first_line, over_http, running, workshop_served
from tests.ports import free_port


def _ipv6_loopback() -> bool:
    try:
        with socket.create_server(("::1", 0), family=socket.AF_INET6):
            return True
    except OSError:
        return False


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    """The workshop in a SQLite file the served process shares."""
    return workshop_served(tmp_path, monkeypatch)


@pytest.mark.skipif(not _ipv6_loopback(), reason="this machine has no IPv6 loopback")
def test_an_ipv6_address_in_brackets_is_served_and_said_as_a_url(shop: SimpleNamespace) -> None:
    """`--http [::1]:PORT` serves there, says so as a URL (``http://[::1]:PORT/mcp``), and a
    client reaches it (before, it was refused, telling the person to give another port or stop
    what listens on it)."""
    port = free_port()
    with running(command(*shop.serve, "--http", f"[::1]:{port}"), shop.env) as process:
        line = first_line(process)
        assert line == (f"Serving estimator's tools over MCP at http://[::1]:{port}/mcp. "
                        "Stop with Ctrl-C."), line

        async def call() -> Any:
            async with over_http(f"http://[::1]:{port}", token=shop.clients["Noor"]) as client:
                return await client.call_tool("parts_for", {"fault": "rear brake"})

        ran = anyio.run(call)
    assert ran.structured_content == {"result": ["brake pads", "cable"]}
