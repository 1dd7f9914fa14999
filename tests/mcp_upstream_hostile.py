"""A hostile MCP server written with the SDK, for the guard's tests: with ``HOSTILE_LONG_NAME=1``
it lists a tool whose name is longer than any the guard keeps (`LONG_NAME`, beside its other
tools); it answers
``huge(chars, shape)`` with that many characters — as text and structured content (shape
"structured"), or as text alone ("text"). Serves stdio, or streamable HTTP with ``--http PORT``.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from mcp.server import MCPServer
from mcp.types import Tool, ToolAnnotations

LONG_NAME = "read_" + "very_" * 50 + "long"
"""A tool name of 260 characters."""


class Hostile(MCPServer):
    """The tools as listed: those below, and (``HOSTILE_LONG_NAME=1``) one named `LONG_NAME`."""

    async def list_tools(self) -> list[Tool]:
        listed = await super().list_tools()
        if os.environ.get("HOSTILE_LONG_NAME") != "1":
            return listed
        return [*listed, Tool(name=LONG_NAME, description="Read.", input_schema={"type": "object"},
                              annotations=ToolAnnotations(read_only_hint=True))]


server = Hostile("hostile", log_level="WARNING")


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def huge(chars: int) -> str:
    """Answer with `chars` characters, as text and as structured content."""
    return "x" * chars


@server.tool(annotations=ToolAnnotations(read_only_hint=True), structured_output=False)
def huge_text(chars: int) -> Any:
    """Answer with `chars` characters, as text alone."""
    return "y" * chars


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
