"""``signoff mcp serve --http`` at an IPv6 address written as URLs write it (``[::1]:PORT``)."""

from __future__ import annotations

import selectors
import socket
import subprocess
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import pytest

from tests.mcp_servers import ROOT, command, environment, over_http
from tests.ports import free_port
from tests.workshop_web import open_workshop


def _ipv6_loopback() -> bool:
    try:
        with socket.create_server(("::1", 0), family=socket.AF_INET6):
            return True
    except OSError:
        return False


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    """The workshop in a SQLite file the served process shares."""
    shop = open_workshop(tmp_path, monkeypatch)
    shop.env = environment(WORKSHOP_DATABASE=f"sqlite:///{tmp_path / 'workshop.db'}")
    return shop


def _first_line(process: subprocess.Popen[bytes]) -> str:
    """The first line the server says on stderr (within two minutes)."""
    assert process.stderr is not None
    waiting = selectors.DefaultSelector()
    waiting.register(process.stderr, selectors.EVENT_READ)
    deadline = time.monotonic() + 120
    said = b""
    while b"\n" not in said and time.monotonic() < deadline:
        if waiting.select(timeout=1.0):
            chunk = process.stderr.read1(4096)  # type: ignore[attr-defined]
            if not chunk:
                break
            said += chunk
    return said.decode().splitlines()[0] if said else ""


@pytest.mark.skipif(not _ipv6_loopback(), reason="this machine has no IPv6 loopback")
def test_an_ipv6_address_in_brackets_is_served_and_said_as_a_url(shop: SimpleNamespace) -> None:
    """`--http [::1]:PORT` serves there, says so as a URL (``http://[::1]:PORT/mcp``), and a
    client reaches it (before, it was refused, telling the person to give another port or stop
    what listens on it)."""
    port = free_port()
    process = subprocess.Popen(
        command("mcp", "serve", "--app", "examples/workshop.py", "--agent", "estimator",
                "--subject", str(shop.repair.id), "--http", f"[::1]:{port}"),
        cwd=ROOT, env=shop.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        line = _first_line(process)
        assert line == (f"Serving estimator's tools over MCP at http://[::1]:{port}/mcp. "
                        "Stop with Ctrl-C."), line

        async def call() -> Any:
            async with over_http(f"http://[::1]:{port}", token=shop.clients["Noor"]) as client:
                return await client.call_tool("parts_for", {"fault": "rear brake"})

        ran = anyio.run(call)
    finally:
        process.terminate()
        process.wait(timeout=10)
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()
    assert ran.structured_content == {"result": ["brake pads", "cable"]}
