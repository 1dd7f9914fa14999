"""Receipts: everything a task did, in order, in words and as data."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from signoff.agents.states import ReceiptKind

__all__ = ["Receipt", "ReceiptEntry", "Unrecorded", "unrecorded"]


@dataclass(frozen=True, kw_only=True)
class ReceiptEntry:
    """One thing that happened."""

    at: datetime
    """When."""
    kind: ReceiptKind
    """What it tells of: a model call, a tool call, a proposal, a decision, a limit..."""
    words: str
    """What happened, in a sentence."""
    data: dict[str, Any]
    """What happened, as data."""
    cost_usd: float = 0.0
    """What it cost."""


@dataclass(frozen=True, kw_only=True)
class Unrecorded:
    """A tool call the task's journal marks as begun (an outside call, marked running before
    it starts), whose outcome is not recorded: it runs now, or its process stopped while it
    ran."""

    tool: str
    """The tool."""
    arguments: str
    """Its arguments, as JSON."""
    approved_by: str | None = None
    """Who said yes to it, by name (None: it began alone)."""


def unrecorded(*, agent: str, at: datetime, model: str, reserved_usd: float,
               calls: Iterable[Unrecorded]) -> tuple[ReceiptEntry, ...]:
    """The entries of what a task began and has not recorded the end of, read from its head
    and its calls at `at`: a model call reserved for (`reserved_usd`, counted as spent until
    its reply is recorded, or its loss told), and each of `calls`. Without them a receipt read
    while they run, or after a crash and before the task is stepped again, would leave out a
    call that may have happened, and say the task cost less than its budget counts."""
    entries = []
    if reserved_usd > 0:
        entries.append(ReceiptEntry(
            at=at, kind=ReceiptKind.RESERVED, cost_usd=reserved_usd,
            words=(f"A call to {model} is begun, its worst case of ${reserved_usd:.6f} reserved "
                   "and counted as spent; its reply is not recorded yet (it is being made, or "
                   "the work stopped while it was)."),
            data={"model": model, "reserved_usd": reserved_usd, "recorded": False}))
    for call in calls:
        begun = (f"{call.approved_by} approved {call.tool}, and it began as "
                 f"{call.approved_by} and the agent together"
                 if call.approved_by is not None else f"{agent} began {call.tool} alone")
        entries.append(ReceiptEntry(
            at=at, kind=ReceiptKind.TOOL_CALL,
            words=(f"{begun}; its outcome is not recorded yet (it is running, or the work "
                   "stopped while it ran, and it may have happened)."),
            data={"tool": call.tool, "arguments": call.arguments, "outcome": None,
                  "approved_by": call.approved_by, "recorded": False}))
    return tuple(entries)


@dataclass(frozen=True, kw_only=True)
class Receipt:
    """The receipt of one task."""

    task: str
    """The task's id."""
    agent: str
    """The agent."""
    skill: str
    """The skill."""
    status: str
    """Where the task stands."""
    entries: tuple[ReceiptEntry, ...]
    """What happened, in order."""

    @property
    def cost_usd(self) -> float:
        """What the task cost in all."""
        return sum(e.cost_usd for e in self.entries)

    @property
    def unpriced(self) -> tuple[str, ...]:
        """The models it called that have no price (what their calls cost is not in
        `cost_usd`: not known), each once, in the order first called."""
        return tuple(dict.fromkeys(e.data.get("model", "") for e in self.entries
                                   if e.kind is ReceiptKind.MODEL_CALL
                                   and e.data.get("priced") is False))

    @property
    def cost_words(self) -> str:
        """What the task cost in all, in words: `cost_usd`, and what is not known of it."""
        unpriced = self.unpriced
        if not unpriced:
            return f"${self.cost_usd:.6f}"
        return (f"${self.cost_usd:.6f}, and what the calls of {', '.join(unpriced)} cost, not "
                "known (no price was given for " + ("it" if len(unpriced) == 1 else "them") + ")")

    @property
    def words(self) -> str:
        """The receipt as text, a line per entry."""
        return "\n".join(e.words for e in self.entries)

    def __str__(self) -> str:
        return self.words
