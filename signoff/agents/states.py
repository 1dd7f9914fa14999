"""The states a tool call goes through, how it can end, and the kinds of receipt entry.

They are stored as their values (plain strings), so that a database written before they were
enums reads the same; in code they are only ever these members.
"""

from __future__ import annotations

import enum

__all__ = ["HAND_BACK", "CallOutcome", "CallState", "ReceiptKind"]

HAND_BACK = "hand_back"
"""The tool a model calls to hand back its result."""


class CallState(enum.StrEnum):
    """Where one tool call a model asked for stands."""

    NEW = "new"
    """Stored with the model's turn; not gated yet."""
    RUNNING = "running"
    """An outside call marked before it starts: after a crash it is not run again blindly."""
    PROPOSED = "proposed"
    """Put to a person; it waits on their decision."""
    DONE = "done"
    """It ran (or was answered without running: an invalid call, a result handed back)."""
    REFUSED = "refused"
    """Not run and not proposed: not a tool of the work, or one the agent may never use."""
    DECIDED = "decided"
    """A person decided its proposal; the answer is what came of it."""
    UNKNOWN = "unknown"
    """It was running when its process stopped, or it reached outside and lost touch before it
    was answered; whether it happened is not known."""


class CallOutcome(enum.StrEnum):
    """How a tool call ended: an action's outcome, or how its proposal was decided."""

    DONE = "Done"
    INVALID = "Invalid"
    DENIED = "Denied"
    GONE = "Gone"
    FAILED = "Failed"
    REJECTED = "Rejected"
    STALE = "Stale"
    WITHDRAWN = "Withdrawn"
    UNKNOWN = "Unknown"
    """Its process stopped while it ran, or it lost touch while out: not known."""
    UNAVAILABLE = "Unavailable"
    """What it needed outside could not be reached: nothing was sent, and it did not run."""


class ReceiptKind(enum.StrEnum):
    """What a receipt entry tells of."""

    START = "start"
    MODEL_CALL = "model_call"
    TOOL_CALL = "tool_call"
    PROPOSAL = "proposal"
    DECISION = "decision"
    ESCALATED = "escalated"
    """A proposal's deadline passed undecided, and it went on to another decider."""
    WAITING = "waiting"
    RESUMED = "resumed"
    RESULT = "result"
    LIMIT = "limit"
    FAILURE = "failure"
    RESERVED = "reserved"
    """Spend reserved before a model call or a spending call (the ledger)."""
    ENDED = "ended"
    """The task ended without a result: the client giving its turns went away (its MCP session
    closed)."""
