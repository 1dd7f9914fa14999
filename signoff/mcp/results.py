"""What an MCP client is told: tools described from what signoff proved of them, and each call's
end (ran, refused, waiting on a person, decided) as a tool result.

A tool signoff serves says its result under ``result`` and, when nothing ran, why under
``not_run``: a rejection is answered in words as an ordinary result (the SDK's client refuses a
result without structured content for a tool that has an output schema, so the schema leaves
room for both).
"""

from __future__ import annotations

from typing import Any

from mcp.types import CallToolResult, TextContent, ToolAnnotations

from signoff.actions.catalog import ActionInfo
from signoff.agents.proposals import Proposal

__all__ = [
    "DO_NOT_RETRY",
    "annotations_of",
    "error",
    "ran",
    "served_output_schema",
    "waiting_words",
    "words",
]

DO_NOT_RETRY = ("Do not call it again with the same arguments: go on without it, or tell the "
                "person you work with.")
"""What a model is told after a person said no."""


def annotations_of(info: ActionInfo) -> ToolAnnotations:
    """The hints an action's proven effects allow: read-only only when the analysis proved that
    it only reads (or it is a query, enforced read-only when it runs)."""
    effects = info.effects
    if info.query or effects.only_reads:
        return ToolAnnotations(title=info.label, read_only_hint=True, destructive_hint=False,
                               idempotent_hint=True, open_world_hint=False)
    # Additive only when it writes no record but new ones and does nothing outside: what
    # reaches outside may destroy there (a request, a process, a file), and what is sent or
    # spent is not taken back.
    only_adds = not (effects.changes or effects.deletes or effects.external or effects.sends
                     or effects.spends)
    return ToolAnnotations(
        title=info.label, read_only_hint=False, destructive_hint=not only_adds,
        idempotent_hint=info.idempotent,
        open_world_hint=effects.external or effects.sends or effects.spends,
    )


def served_output_schema(result_schema: dict[str, Any] | None) -> dict[str, Any]:
    """The output schema of a served tool: an object with the action's result under ``result``
    when it ran, or why it did not under ``not_run`` (with the proposal it waits on)."""
    inner = dict(result_schema) if result_schema else {}
    defs = inner.pop("$defs", None)
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "result": inner or {"description": "What the action returned."},
            "not_run": {"type": "string", "description": "Why nothing ran (yet)."},
            "proposal": {"type": "string", "description": "The proposal the call became."},
            "decide_by": {"type": "string", "description": "Who decides that proposal."},
        },
    }
    if defs:
        schema["$defs"] = defs
    return schema


def ran(answer: str, value: Any) -> CallToolResult:
    """A call that ran: what it said, and its value as structured content."""
    return CallToolResult(content=[TextContent(text=answer)], structured_content={"result": value})


def words(text: str, **extra: str) -> CallToolResult:
    """An ordinary (non-error) result saying, in words, that nothing ran (yet)."""
    return CallToolResult(content=[TextContent(text=text)],
                          structured_content={"not_run": text, **extra})


def error(text: str) -> CallToolResult:
    """An error result: the call was refused or failed, and the client is told why."""
    return CallToolResult(content=[TextContent(text=text)], is_error=True)


def waiting_words(proposal: Proposal) -> str:
    """What a client that can wait no longer is told of a call still waiting on a person."""
    return (f"{proposal.action} was proposed to {proposal.decide_by} and waits on their "
            f"decision (proposal {proposal.id}). Nothing has run yet. Do not propose it again: "
            "it runs once if they say yes.")
