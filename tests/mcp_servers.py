"""Real MCP servers for the MCP tests: ``signoff mcp …`` in a subprocess over stdio or streamable
HTTP on loopback, the REST API in a thread, and connected SDK clients."""

from __future__ import annotations

import json
import os
import selectors
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from tests.ports import free_port
from tests.workshop_web import open_workshop, served

ROOT = Path(__file__).resolve().parent.parent
TRANSPORTS = ["stdio", "http"]
"""The two transports every scenario runs over."""


def command(*arguments: str) -> list[str]:
    """The ``signoff`` command line with these arguments, run by this interpreter."""
    return [sys.executable, "-m", "signoff.cli", *arguments]


def environment(**extra: str) -> dict[str, str]:
    """What a subprocess is given: what it needs to find the code, and `extra`."""
    return {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(ROOT), **extra}


def guard_config(tmp: Path, *servers: str, name: str | None = "guard") -> Path:
    """``tmp/guard.toml``: a guard (named `name`, none when None) keeping its work in
    ``tmp/guard.db``, for Noor, in front of `servers` (each a ``[servers.NAME]`` table, as
    `stdio_server` writes one)."""
    path = tmp / "guard.toml"
    named = f'name = "{name}"\n' if name is not None else ""
    path.write_text(f'''{named}database = "sqlite:///{tmp / 'guard.db'}"
for = "noor@example.com"

[[people]]
handle = "noor@example.com"
name = "Noor"
{"".join(servers)}''')
    return path


def stdio_server(name: str, script: str | Path, *, args: Sequence[str] = (),
                 env: dict[str, str] | None = None, tools: dict[str, str] | None = None,
                 **keys: bool | str) -> str:
    """The ``[servers.NAME]`` table of a guard config for an upstream server run as
    ``python script *args`` (its `env`, its other `keys` such as ``trusted=True``, and its
    ``[servers.NAME.tools]`` leaves)."""
    lines = [f"\n[servers.{name}]", f"command = {_toml(sys.executable)}",
             f"args = [{', '.join(_toml(str(each)) for each in (script, *args))}]"]
    if env:
        lines.append("env = { " + ", ".join(f"{key} = {_toml(value)}"
                                             for key, value in env.items()) + " }")
    lines += [f"{key} = {_toml(value)}" for key, value in keys.items()]
    if tools:
        lines += [f"\n[servers.{name}.tools]",
                  *(f"{tool} = {_toml(leave)}" for tool, leave in tools.items())]
    return "\n".join(lines) + "\n"


def _toml(value: bool | str | Path) -> str:
    """`value` written in TOML (a JSON string is a TOML basic string)."""
    return str(value).lower() if isinstance(value, bool) else json.dumps(str(value))


@contextmanager
def http_server(arguments: Sequence[str], env: dict[str, str], port: int) -> Iterator[str]:
    """Run ``signoff …`` serving HTTP on `port`; its base URL while it runs."""
    with serving(command(*arguments), env, port) as url:
        yield url


@contextmanager
def serving(argv: Sequence[str], env: dict[str, str], port: int) -> Iterator[str]:
    """Run `argv` (a server listening on `port`) in a subprocess; its base URL while it runs."""
    with running(argv, env) as process:
        deadline = time.monotonic() + 120  # a guard starts its upstreams first
        while True:
            if process.poll() is not None:
                raise AssertionError(f"the server stopped: {process.stderr.read().decode()}")  # type: ignore[union-attr]
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}"


@contextmanager
def running(argv: Sequence[str], env: dict[str, str]) -> Iterator[subprocess.Popen[bytes]]:
    """`argv` run in a subprocess from the checkout, its stdout and stderr piped; stopped (and
    its pipes closed) when the block ends."""
    process = subprocess.Popen(list(argv), cwd=ROOT, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    try:
        yield process
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()


def first_line(process: subprocess.Popen[bytes]) -> str:
    """The first line `process` says on stderr (within two minutes; "" when it says none)."""
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


def stdio_answers(arguments: Sequence[str], env: dict[str, str], lines: Sequence[Any], *,
                  last: int, seconds: float = 120) -> list[dict[str, Any]]:
    """Send `lines` (each a JSON-RPC message, or a line of text or bytes as it is) to
    ``signoff …`` over stdio, as raw lines; the answers it gave, once the one to request `last`
    has come (or `seconds` have passed)."""
    process = subprocess.Popen(command(*arguments), env=env, cwd=ROOT, stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    answers: list[dict[str, Any]] = []

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            answers.append(json.loads(line))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert process.stdin is not None
        for line in lines:
            raw = line if isinstance(line, str | bytes) else json.dumps(line)
            process.stdin.write((raw if isinstance(raw, bytes) else raw.encode()) + b"\n")
            process.stdin.flush()
        deadline = time.monotonic() + seconds
        while not any(a.get("id") == last for a in answers) and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        process.kill()
        process.wait()
        reader.join(30)
        for pipe in (process.stdin, process.stdout):
            if pipe is not None:
                pipe.close()
    return answers


def workshop_served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    """The workshop (`open_workshop`) in a SQLite file a served process shares: also its `env`
    for that process, and `serve`, the arguments serving the estimator's tools over MCP."""
    shop = open_workshop(tmp_path, monkeypatch)
    shop.env = environment(WORKSHOP_DATABASE=f"sqlite:///{tmp_path / 'workshop.db'}")
    shop.serve = ["mcp", "serve", "--app", "examples/workshop.py", "--agent", "estimator",
                  "--subject", str(shop.repair.id)]
    return shop


@asynccontextmanager
async def connected(transport: str, arguments: Sequence[str], env: dict[str, str], *,
                    token: str = "", mode: str = "auto") -> AsyncIterator[Client]:
    """An SDK client connected to ``signoff …`` over `transport` (over HTTP, with `token`)."""
    if transport == "stdio":
        params = StdioServerParameters(command=sys.executable,
                                       args=command(*arguments)[1:], env=env, cwd=str(ROOT))
        async with Client(params, mode=mode, cache=None) as client:
            yield client
        return
    port = free_port()
    with http_server([*arguments, "--http", f"127.0.0.1:{port}"], env, port) as url:
        async with over_http(url, token=token, mode=mode) as client:
            yield client


@asynccontextmanager
async def over_http(url: str, *, token: str = "", mode: str = "auto") -> AsyncIterator[Client]:
    """An SDK client connected to the MCP endpoint of a server at `url`, with `token`."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=300)) as http, \
            Client(streamable_http_client(f"{url}/mcp", http_client=http), mode=mode,
                   cache=None) as client:
        yield client


@contextmanager
def rest_api(app: Any) -> Iterator[str]:
    """`app`'s REST API served by uvicorn on 127.0.0.1 in a thread; its base URL."""
    from signoff.web import create_web_app

    with served(create_web_app(app, secure_cookies=False)) as port:
        yield f"http://127.0.0.1:{port}"


def writer_told(database: Path, *, waits: float) -> str:
    """What another writer of the SQLite file `database` is told, waiting at most `waits`
    seconds for its write lock: "written" once it has it, or the error it was given."""
    db = sqlite3.connect(database, timeout=waits, isolation_level=None)
    try:
        db.execute("begin immediate")
        db.execute("rollback")
        return "written"
    except sqlite3.OperationalError as error:
        return str(error)
    finally:
        db.close()
