"""What ``signoff mcp guard`` adds to a call that runs alone, over a direct call of the same
upstream tool, on loopback: over stdio and over streamable HTTP, measured in the same run.

    .venv/bin/python bench/bench_mcp.py [--calls 300] [--warmup 30]

Direct: the SDK's client calls the file server's ``list_files`` (read-only, on a trusted server).
Guarded: the same client calls ``files_list_files`` through the guard, which gates it (alone),
records the call in its task's journal and receipt (SQLite, WAL), and forwards it to the same
kind of upstream over the same transport. Prints the median and the mean per call, and what the
guard adds (guarded − direct), in microseconds.
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


async def _timed(call: Callable[[], Awaitable[Any]], calls: int, warmup: int) -> list[float]:
    for _ in range(warmup):
        await call()
    took = []
    for _ in range(calls):
        start = time.perf_counter()
        result = await call()
        took.append(time.perf_counter() - start)
        assert not result.is_error, result
    return took


async def _stdio(folder: Path, calls: int, warmup: int) -> tuple[list[float], list[float]]:
    env = environment(FILES_ROOT=str(folder / "files"))
    from mcp import Client, StdioServerParameters

    direct_params = StdioServerParameters(command=sys.executable, args=[UPSTREAM], env=env)
    async with Client(direct_params, cache=None) as client:
        direct = await _timed(lambda: client.call_tool("list_files", {}), calls, warmup)
    files_env = f'FILES_ROOT = "{folder / "files"}"'
    config = _config(folder, f'command = "{sys.executable}"\nargs = ["{UPSTREAM}"]\n'
                             f'env = {{ {files_env} }}')
    async with connected("stdio", ["mcp", "guard", str(config)], environment()) as client:
        guarded = await _timed(lambda: client.call_tool("files_list_files", {}), calls, warmup)
    return direct, guarded


async def _http(folder: Path, calls: int, warmup: int) -> tuple[list[float], list[float]]:
    from mcp.client.streamable_http import streamable_http_client  # noqa: F401

    upstream_port = free_port()
    env = environment(FILES_ROOT=str(folder / "files"))
    with serving([sys.executable, UPSTREAM, "--http", str(upstream_port)], env, upstream_port) as url:
        async with over_http(url) as client:
            direct = await _timed(lambda: client.call_tool("list_files", {}), calls, warmup)
        config = _config(folder, f'url = "{url}/mcp"')
        from signoff.mcp.config import GuardConfig
        from signoff.mcp.guard import open_guard_app

        app = open_guard_app(GuardConfig.load(config))
        token = app.credentials.issue_token(app.people.get("noor@example.com"), "bench")
        guard_port = free_port()
        with serving(command("mcp", "guard", str(config), "--http", f"127.0.0.1:{guard_port}"),
                     environment(), guard_port) as guard_url:
            async with over_http(guard_url, token=token) as client:
                guarded = await _timed(lambda: client.call_tool("files_list_files", {}), calls,
                                       warmup)
    return direct, guarded


def _line(name: str, took: list[float]) -> str:
    return (f"  {name:8} median {statistics.median(took) * 1e6:8.0f} µs   "
            f"mean {statistics.fmean(took) * 1e6:8.0f} µs")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=30)
    options = parser.parse_args()
    for transport, run in (("stdio", _stdio), ("http", _http)):
        with tempfile.TemporaryDirectory() as temp:
            folder = Path(temp)
            (folder / "files").mkdir()
            for name in ("a.txt", "b.txt", "c.txt"):
                (folder / "files" / name).write_text(name)
            direct, guarded = anyio.run(run, folder, options.calls, options.warmup)
        added = statistics.median(guarded) - statistics.median(direct)
        print(f"{transport}: {options.calls} calls each, after {options.warmup} to warm up")
        print(_line("direct", direct))
        print(_line("guarded", guarded))
        print(f"  the guard adds {added * 1e6:.0f} µs per call (median), "
              f"{(statistics.fmean(guarded) - statistics.fmean(direct)) * 1e6:.0f} µs (mean); "
              f"guarded / direct = {statistics.median(guarded) / statistics.median(direct):.2f}")


if __name__ == "__main__":
    main()
