"""Receipts: everything a task did, in order, in words and as data."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from signoff.agents.states import ReceiptKind

__all__ = ["Receipt", "ReceiptEntry"]


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
