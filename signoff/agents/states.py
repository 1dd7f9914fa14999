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
    """The task began: who, for whom, with which model and limits."""
    MODEL_CALL = "model_call"
    """A model turn: what the model said, what it cost."""
    TOOL_CALL = "tool_call"
    """A tool call run alone, or refused, with its outcome."""
    PROPOSAL = "proposal"
    """A call put to a person, and who decides it."""
    DECISION = "decision"
    """A person's yes or no, and what came of it."""
    ESCALATED = "escalated"
    """A proposal's deadline passed undecided, and it went on to another decider."""
    WAITING = "waiting"
    """The task waits on a decision."""
    RESUMED = "resumed"
    """Every proposal it waited on is decided; the task goes on."""
    RESULT = "result"
    """The result handed back and accepted: the task is done."""
    LIMIT = "limit"
    """A hard limit (steps, spend) stopped the task."""
    FAILURE = "failure"
    """The task could not go on (a model that failed, a skill's code that raised)."""
    RESERVED = "reserved"
    """Spend reserved before a model call or a spending call (the ledger)."""
    ENDED = "ended"
    """The task ended without a result: the client giving its turns went away (its MCP session
    closed)."""
