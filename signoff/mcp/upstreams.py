"""The guard's connections to the MCP servers it stands in front of.

One SDK client per upstream, opened when the guard starts and kept for its life: a command
started over stdio (with only the environment the config gives it), or a URL over streamable
HTTP with the guard's own headers from the config. Nothing of a connecting client — its token
above all — is ever passed on. Calls made from worker threads (the agent's loop, an approval in
the inbox) are run on the guard's event loop.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from contextlib import AsyncExitStack
from typing import Any

from mcp import Client, StdioServerParameters
from mcp.types import CallToolResult, Tool

from signoff.exceptions import UserError
from signoff.mcp.config import GuardConfig, Upstream

__all__ = ["CALL_TIMEOUT_SECONDS", "Upstreams", "digest_of"]

CALL_TIMEOUT_SECONDS = 300.0
"""How long one upstream call may take before the guard gives up on it."""


def digest_of(tool: Tool) -> str:
    """A digest of what a tool says of itself: description, schemas, title, annotations. A
    change to any of them is a change to the tool."""
    text = json.dumps({
        "description": tool.description or "", "title": tool.title or "",
        "input": tool.input_schema, "output": tool.output_schema,
        "annotations": tool.annotations.model_dump(mode="json") if tool.annotations else None,
    }, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


class Upstreams:
    """The open connections to every upstream server, and their tools as last listed."""

    def __init__(self, config: GuardConfig) -> None:
        self.servers = {s.name: s for s in config.servers}
        self.tools: dict[str, dict[str, Tool]] = {}
        """Each server's tools, by name, as it last listed them."""
        self._clients: dict[str, Client] = {}
        self._loop: asyncio.AbstractEventLoop | None = None

    async def open(self, stack: AsyncExitStack) -> None:
        """Connect to every server (closed with `stack`) and list its tools."""
        self._loop = asyncio.get_running_loop()
        for server in self.servers.values():
            try:
                self._clients[server.name] = await stack.enter_async_context(
                    await self._client(server, stack))
            except Exception as error:  # the SDK's and the OS's errors, said once here
                raise UserError(f"The guard could not reach the server {server.name} "
                                f"({_where(server)}): {type(error).__name__}: {error}. Check "
                                "its command or url in the config.") from None
        await self.refresh()

    async def _client(self, server: Upstream, stack: AsyncExitStack) -> Client:
        if server.command:
            return Client(StdioServerParameters(command=server.command, args=list(server.args),
                                                env=server.env or None, cwd=server.cwd),
                          cache=None)
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        http = await stack.enter_async_context(httpx2.AsyncClient(
            headers=server.headers, timeout=httpx2.Timeout(30, read=CALL_TIMEOUT_SECONDS)))
        return Client(streamable_http_client(server.url, http_client=http), cache=None)

    async def refresh(self) -> dict[str, dict[str, Tool]]:
        """List every server's tools again; what each lists now."""
        for name, client in self._clients.items():
            listed: dict[str, Tool] = {}
            cursor: str | None = None
            while True:
                page = await client.list_tools(cursor=cursor)
                listed.update({t.name: t for t in page.tools})
                cursor = page.next_cursor
                if not cursor:
                    break
            self.tools[name] = listed
        return self.tools

    async def call(self, server: str, tool: str, arguments: dict[str, Any]) -> CallToolResult:
        """Call one upstream tool with exactly these arguments."""
        return await self._clients[server].call_tool(tool, arguments,
                                                     read_timeout_seconds=CALL_TIMEOUT_SECONDS)

    def call_from_thread(self, server: str, tool: str, arguments: dict[str, Any]
                         ) -> CallToolResult:
        """`call`, from a thread other than the guard's event loop."""
        if self._loop is None or server not in self._clients:
            raise RuntimeError(f"the guard holds no connection to {server} in this process")
        future = asyncio.run_coroutine_threadsafe(self.call(server, tool, arguments), self._loop)
        return future.result(timeout=CALL_TIMEOUT_SECONDS + 5)


def _where(server: Upstream) -> str:
    return server.url or " ".join([server.command, *server.args])
