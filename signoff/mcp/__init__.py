"""MCP in both directions, through the gate (signoff's ``mcp`` extra).

- `ServedAgent`: an app's agent served over MCP, the connected client acting as its model
  (``signoff mcp serve``).
- `Guard` (from a `GuardConfig`, by `open_guard`): a gateway in front of other MCP servers,
  each of their tools gated like an action (``signoff mcp guard CONFIG``).

Nothing here is imported by ``import signoff``; the SDK is imported when this package is.
"""

from signoff.mcp.config import GuardConfig
from signoff.mcp.guard import Guard, open_guard, open_guard_app
from signoff.mcp.served import ServedAgent

__all__ = ["Guard", "GuardConfig", "ServedAgent", "open_guard", "open_guard_app"]
