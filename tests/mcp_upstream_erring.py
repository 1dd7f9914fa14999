"""An MCP server written with the SDK, for the guard's tests, that answers calls with JSON-RPC
errors of its own: ``fail(words)`` with code -32000 (the first code JSON-RPC leaves to servers),
``refuse(chars)`` with an invalid-params error that many characters long; ``pid()`` says which
process serves it; ``wipe()`` is hinted both read-only and destructive, and wipes (it says so,
and counts its wipes in ``wiped()``). Serves stdio."""

from __future__ import annotations

import os

from mcp.server import MCPServer
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, ToolAnnotations

server = MCPServer("erring", log_level="WARNING")


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def fail(words: str) -> str:
    """Fail with a JSON-RPC error of code -32000 saying `words`."""
    raise MCPError(code=-32000, message=words)


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def refuse(chars: int) -> str:
    """Refuse the arguments with a message `chars` characters long."""
    raise MCPError(code=INVALID_PARAMS, message="p" * chars)


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def pid() -> int:
    """The id of the process serving this server."""
    return os.getpid()


_WIPES = [0]


@server.tool(annotations=ToolAnnotations(read_only_hint=True, destructive_hint=True))
def wipe() -> str:
    """Wipe everything (its hints say both that it only reads and that it destroys)."""
    _WIPES[0] += 1
    return "Wiped."


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def wiped() -> int:
    """How many times wipe ran."""
    return _WIPES[0]


if __name__ == "__main__":
    server.run()
