"""What ``signoff mcp guard`` adds to a call that runs alone, over a direct call of the same
upstream tool, on loopback: over stdio and over streamable HTTP, beside the floor — a
pass-through proxy written with the same SDK — all measured in the same run.

    .venv/bin/python bench/bench_mcp.py [--calls 500] [--warmup 50] [--repeat 2]
                                        [--only stdio|http|in-process]

Direct: the SDK's client calls the file server's ``list_files`` (read-only, on a trusted server).
Proxy: a second such client calls it through ``bench/mcp_passthrough.py``, which forwards each call
to the same kind of upstream over the same transport and does nothing else: one more MCP hop.
Guarded: a third client calls ``files_list_files`` through the guard, which gates it (alone),
records the call in its task's journal and receipt (SQLite, WAL), and forwards it to the same
kind of upstream over the same transport. The calls are made in turn, one each way, so that a
busy moment of the machine falls on all three. Prints the median and the mean per call of each,
what one MCP hop costs (proxy − direct), what the guard adds (guarded − direct), and the guard's
own work above the hop (guarded − proxy), in microseconds. `--repeat` runs each transport again,
with new processes.

In process: the guard opened in this process (its stdio upstream as before), each call made
both ways: the guard's own connection calling ``list_files`` (direct), and the guard's
``call_tool`` (guarded: the gate, the journal and that same upstream call), so the difference is
what signoff does for a call, without the client's hop to the guard.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.mcp_servers import (  # noqa: E402 — the tests' servers, run as they run them
    command,
    connected,
    environment,
    free_port,
    over_http,
    serving,
)

UPSTREAM = str(ROOT / "tests" / "mcp_upstream_files.py")
PASSTHROUGH = str(ROOT / "bench" / "mcp_passthrough.py")


def _config(folder: Path, upstream: str) -> Path:
    path = folder / "guard.toml"
    path.write_text(f'''
name = "bench"
database = "sqlite:///{folder / 'guard.db'}"
for = "noor@example.com"

[[people]]
handle = "noor@example.com"
name = "Noor"

[servers.files]
{upstream}
trusted = true
''')
    return path


Call = Callable[[], Awaitable[Any]]
Took = dict[str, list[float]]


async def _in_turn(ways: dict[str, Call], calls: int, warmup: int) -> Took:
    """Time `calls` calls each way, made in turn (a busy moment of the machine falls on all)."""
    took: Took = {way: [] for way in ways}
    for round_ in range(warmup + calls):
        for way, call in ways.items():
            start = time.perf_counter()
            result = await call()
            if round_ >= warmup:
                took[way].append(time.perf_counter() - start)
            assert not result.is_error, result
    return took


def _stdio_upstream(folder: Path) -> str:
    files_env = f'FILES_ROOT = "{folder / "files"}"'
    return f'command = "{sys.executable}"\nargs = ["{UPSTREAM}"]\nenv = {{ {files_env} }}'


async def _stdio(folder: Path, calls: int, warmup: int) -> Took:
    from mcp import Client, StdioServerParameters

    env = environment(FILES_ROOT=str(folder / "files"))
    config = _config(folder, _stdio_upstream(folder))
    proxy = StdioServerParameters(command=sys.executable,
                                  args=[PASSTHROUGH, "--", sys.executable, UPSTREAM], env=env)
    async with Client(StdioServerParameters(command=sys.executable, args=[UPSTREAM], env=env),
                      cache=None) as upstream, \
            Client(proxy, cache=None) as passthrough, \
            connected("stdio", ["mcp", "guard", str(config)], environment()) as guard:
        return await _in_turn({
            "direct": lambda: upstream.call_tool("list_files", {}),
            "proxy": lambda: passthrough.call_tool("list_files", {}),
            "guarded": lambda: guard.call_tool("files_list_files", {})}, calls, warmup)


async def _http(folder: Path, calls: int, warmup: int) -> Took:
    from signoff.mcp.config import GuardConfig
    from signoff.mcp.guard import open_guard_app

    upstream_port = free_port()
    env = environment(FILES_ROOT=str(folder / "files"))
    with serving([sys.executable, UPSTREAM, "--http", str(upstream_port)], env, upstream_port) as url:
        config = _config(folder, f'url = "{url}/mcp"')
        app = open_guard_app(GuardConfig.load(config))
        token = app.credentials.issue_token(app.people.get("noor@example.com"), "bench")
        proxy_port, guard_port = free_port(), free_port()
        with serving([sys.executable, PASSTHROUGH, "--http", str(proxy_port), "--url",
                      f"{url}/mcp"], env, proxy_port) as proxy_url, \
                serving(command("mcp", "guard", str(config), "--http", f"127.0.0.1:{guard_port}"),
                        environment(), guard_port) as guard_url:
            async with over_http(url) as upstream, over_http(proxy_url) as passthrough, \
                    over_http(guard_url, token=token) as guard:
                return await _in_turn({
                    "direct": lambda: upstream.call_tool("list_files", {}),
                    "proxy": lambda: passthrough.call_tool("list_files", {}),
                    "guarded": lambda: guard.call_tool("files_list_files", {})}, calls, warmup)


async def _in_process(folder: Path, calls: int, warmup: int) -> Took:
    from contextlib import AsyncExitStack

    from signoff.mcp.config import GuardConfig
    from signoff.mcp.guard import open_guard

    config = _config(folder, _stdio_upstream(folder))
    async with AsyncExitStack() as stack:
        guard = await open_guard(GuardConfig.load(config), stack, wait_seconds=0)
        return await _in_turn({
            "direct": lambda: guard.upstreams.call("files", "list_files", {}),
            "guarded": lambda: guard.call_tool("files_list_files", {})}, calls, warmup)


def _line(name: str, took: list[float]) -> str:
    return (f"  {name:8} median {statistics.median(took) * 1e6:8.0f} µs   "
            f"mean {statistics.fmean(took) * 1e6:8.0f} µs")


def _difference(took: Took, more: str, less: str) -> str:
    median = statistics.median(took[more]) - statistics.median(took[less])
    mean = statistics.fmean(took[more]) - statistics.fmean(took[less])
    return f"{median * 1e6:6.0f} µs (median), {mean * 1e6:6.0f} µs (mean)"


def _report(transport: str, took: Took, calls: int, warmup: int) -> None:
    print(f"{transport}: {calls} calls each way, after {warmup} to warm up")
    for way, times in took.items():
        print(_line(way, times))
    if "proxy" in took:
        print(f"  one MCP hop (proxy − direct)        {_difference(took, 'proxy', 'direct')}")
    print(f"  the guard adds (guarded − direct)   {_difference(took, 'guarded', 'direct')}")
    if "proxy" in took:
        print(f"  the guard's own (guarded − proxy)   {_difference(took, 'guarded', 'proxy')}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=2, help="runs of each transport")
    parser.add_argument("--only", choices=["stdio", "http", "in-process"], default=None,
                        help="measure this one way only")
    options = parser.parse_args()
    for transport, run in (("stdio", _stdio), ("http", _http), ("in-process", _in_process)):
        if options.only not in (None, transport):
            continue
        for _ in range(options.repeat):
            with tempfile.TemporaryDirectory() as temp:
                folder = Path(temp)
                (folder / "files").mkdir()
                for name in ("a.txt", "b.txt", "c.txt"):
                    (folder / "files" / name).write_text(name)
                took = anyio.run(run, folder, options.calls, options.warmup)
            _report(transport, took, options.calls, options.warmup)


if __name__ == "__main__":
    main()
