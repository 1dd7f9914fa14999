"""What an MCP client read as the guard offered it a tool: what every upstream whose answers are
outside content says of its tools, in words (a description may tell the model what to call, and
with what), and the names the tool's input schema gives. A value those words name is held back
from the first call on (tool poisoning)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcp.types import Tool

from signoff.agents.labelling import Listing
from signoff.limits.provenance import Seen

if TYPE_CHECKING:
    from signoff.mcp.upstreams import Upstreams

__all__ = ["listing_of"]


def listing_of(upstreams: Upstreams, server: str, tool: str) -> Listing:
    """What the client read as it was offered `server`'s `tool`: what every server whose answers
    are outside content says of its tools (a description may tell the model what to call, and
    with what), and the names `tool`'s input schema gives."""
    now = upstreams.tools.get(server, {}).get(tool)
    fields = _names_in(now.input_schema) if now is not None else frozenset()
    seen = []
    for name, each in upstreams.servers.items():
        tools = upstreams.tools.get(name, {})
        if not each.outside or not tools:
            continue
        text = "\n".join(_words_of(t) for _, t in sorted(tools.items()))
        seen.append(Seen(tool=f"tools/list of {name}", arguments="", value=None, text=text,
                         outside=f"from the MCP server {name}, in what it says of its tools"))
    return Listing(seen=tuple(seen), fields=fields)


_NOT_SAID = frozenset(("type", "required", "enum", "const", "$ref", "$schema", "$id", "format",
                       "additionalProperties"))
"""The keys of a JSON Schema whose values are no words of the server's (a type, the names it
gives) or are declared choices (an argument that is one is not labelled)."""


def _words_of(tool: Tool) -> str:
    """What `tool` says of itself in words: its title, description, and the texts of its
    schemas (descriptions, titles, defaults, examples)."""
    said = [tool.title or "", tool.description or "",
            (tool.annotations.title or "") if tool.annotations else ""]
    pending: list[Any] = [tool.input_schema, tool.output_schema]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            for key, inner in node.items():
                if key in ("properties", "$defs", "definitions") and isinstance(inner, dict):
                    pending.extend(inner.values())  # (by any name: "type" is a name too)
                elif key not in _NOT_SAID:
                    pending.append(inner)
        elif isinstance(node, list):
            pending.extend(node)
        elif isinstance(node, str):
            said.append(node)
    return "\n".join(words for words in said if words)


def _names_in(schema: Any) -> frozenset[str]:
    """The property names a JSON Schema gives, at every depth."""
    names: set[str] = set()
    pending: list[Any] = [schema]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            properties = node.get("properties")
            if isinstance(properties, dict):
                names.update(k for k in properties if isinstance(k, str))
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)
    return frozenset(names)
