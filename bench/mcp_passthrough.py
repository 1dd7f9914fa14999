"""A pass-through MCP proxy, the floor for ``bench_mcp.py``: written with the same SDK as the
guard, it lists one upstream's tools and forwards each call to it, and does nothing else (no gate,
no journal, no receipt). What it adds over a direct call is what one more MCP hop costs.

    python bench/mcp_passthrough.py [--http PORT] (--url URL | -- COMMAND [ARG ...])

Serves stdio, or streamable HTTP at http://127.0.0.1:PORT/mcp; reaches its upstream by URL
(streamable HTTP) or by starting COMMAND (stdio, with this process's environment).
"""

from __future__ import annotations

import argparse
import os
import sys
from contextlib import AsyncExitStack
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.types import CallToolResult, Tool


class PassThrough(MCPServer):
    """Serves an upstream's tools as they are, each call forwarded as it comes."""

    def __init__(self, upstream: Client) -> None:
        self.upstream = upstream
        super().__init__(name="passthrough", log_level="WARNING")

    async def list_tools(self) -> list[Tool]:
        return list((await self.upstream.list_tools()).tools)

    async def call_tool(self, name: str, arguments: dict[str, Any],
                        context: Context[Any, Any] | None = None) -> CallToolResult:
        return await self.upstream.call_tool(name, arguments)


async def _serve(options: argparse.Namespace) -> None:
    async with AsyncExitStack() as stack:
        if options.url:
            import httpx2
            from mcp.client.streamable_http import streamable_http_client

            http = await stack.enter_async_context(httpx2.AsyncClient(
                timeout=httpx2.Timeout(30, read=300)))
            upstream = Client(streamable_http_client(options.url, http_client=http), cache=None)
        else:
            upstream = Client(StdioServerParameters(command=options.command[0],
                                                    args=options.command[1:],
                                                    env=dict(os.environ)), cache=None)
        server = PassThrough(await stack.enter_async_context(upstream))
        if options.http is None:
            await server.run_stdio_async()
            return
        import uvicorn

        config = uvicorn.Config(server.streamable_http_app(), host="127.0.0.1",
                                port=options.http, log_level="warning", access_log=False)
        await uvicorn.Server(config).serve()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--http", type=int, default=None, metavar="PORT")
    parser.add_argument("--url", default=None)
    parser.add_argument("command", nargs="*")
    options = parser.parse_args()
    if bool(options.url) == bool(options.command):
        sys.exit("Give the upstream either as --url URL or as a command after --.")
    anyio.run(_serve, options)


if __name__ == "__main__":
    main()
