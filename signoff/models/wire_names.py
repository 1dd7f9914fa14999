"""Tools' names as providers take them: letters A–Z, digits, ``_`` and ``-``, 64 at most (the
OpenAI API refuses a request offering any other, and so every step of a task that offers one;
Anthropic's Messages API keeps to the same). An action is named as its app names it — a Python
name may hold ``é``, a served MCP tool ``.`` or ``/`` and up to 200 characters — so a name
outside that alphabet goes out as one within it (its letters kept where they can be, and a
digest of the whole that no two names share), and a call the model makes by it comes back by
the action's own name. Nothing else sees the wire's names."""

from __future__ import annotations

import dataclasses
import hashlib
import re
import unicodedata
from collections.abc import Sequence

from signoff.models.base import Message, Reply, ToolSpec

__all__ = ["on_the_wire", "read_back", "wire_name"]

_TAKEN = re.compile(r"[A-Za-z0-9_-]{1,64}")
_OTHER = re.compile(r"[^A-Za-z0-9_-]+")


def wire_name(name: str) -> str:
    """`name`, when a provider takes it as it is; else its letters in ASCII (what else it
    holds as ``_``), cut to fit, and ``-`` and eight hex digits of a digest of it whole."""
    if _TAKEN.fullmatch(name):
        return name
    plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    kept = _OTHER.sub("_", plain).strip("_")[:55] or "tool"
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{kept}-{digest}"


def on_the_wire(messages: Sequence[Message], tools: Sequence[ToolSpec]
                ) -> tuple[Sequence[Message], Sequence[ToolSpec], dict[str, str]]:
    """`messages` and `tools` with each tool's name as providers take it (the calls the
    conversation made by one too), and the names to read the reply's calls back by (wire name:
    own name) — as given, and nothing to read back, when every name is taken as it is."""
    back = {wired: t.name for t in tools if (wired := wire_name(t.name)) != t.name}
    if not back:
        return messages, tools, back
    out = {own: wired for wired, own in back.items()}
    tools = [dataclasses.replace(t, name=out.get(t.name, t.name)) for t in tools]
    messages = [dataclasses.replace(m, tool_calls=tuple(
        dataclasses.replace(c, name=out[c.name]) if c.name in out else c for c in m.tool_calls))
        if any(c.name in out for c in m.tool_calls) else m for m in messages]
    return messages, tools, back


def read_back(reply: Reply, back: dict[str, str]) -> Reply:
    """`reply`, its calls named by the tools' own names (`on_the_wire`)."""
    if not back or not any(c.name in back for c in reply.tool_calls):
        return reply
    return dataclasses.replace(reply, tool_calls=tuple(
        dataclasses.replace(c, name=back[c.name]) if c.name in back else c
        for c in reply.tool_calls))
