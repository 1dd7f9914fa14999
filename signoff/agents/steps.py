"""What one step of the loop says happens next, as a typed value.

A step does one unit of a task's work (a model turn, or the tool calls of one turn), persists
it, and returns one of these; the caller (the in-process runner, a worker, another runner)
decides what to do with it. Nothing is threaded through arguments to say where a step ended.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, ClassVar, Literal

from signoff.agents.tasks import TaskStatus

__all__ = ["Done", "Failed", "Halted", "HandOn", "RunAgain", "Step", "WaitOn"]


@dataclass(frozen=True, kw_only=True)
class RunAgain:
    """The task goes on: step it again."""

    kind: Literal["run_again"] = "run_again"
    status: ClassVar[TaskStatus] = TaskStatus.RUNNING
    """Where the task stands."""
    answered: tuple[Any, ...] = field(default=(), compare=False, repr=False)
    """The calls of the turn the step closed, as they ended (their rows; empty when it closed
    none): whoever gave the turn reads its answers here rather than from the store again."""


@dataclass(frozen=True, kw_only=True)
class HandOn:
    """The task goes on, but not in this process: another holds it, or this one has no model
    for it (a worker that has goes on with it)."""

    why: str = ""
    """Why this process stops stepping it."""
    kind: Literal["hand_on"] = "hand_on"
    status: ClassVar[TaskStatus] = TaskStatus.RUNNING
    """Where the task stands."""


@dataclass(frozen=True, kw_only=True)
class WaitOn:
    """The task waits on people's decisions; nothing runs and no model is asked meanwhile."""

    proposals: tuple[str, ...]
    """The ids of the proposals it waits on."""
    waiting_on: tuple[str, ...]
    """Who it waits on, in words ("a decision from Noor")."""
    waiting_until: datetime | None = None
    """The soonest deadline of those proposals (UTC; None when none has one): when a runner
    passes deadlines for the task next (`signoff.agents.deadlines`)."""
    kind: Literal["waiting"] = "waiting"
    status: ClassVar[TaskStatus] = TaskStatus.WAITING
    """Where the task stands."""


@dataclass(frozen=True, kw_only=True)
class Done:
    """The model handed back a result that was accepted."""

    result: Any
    """The result, as JSON."""
    kind: Literal["done"] = "done"
    status: ClassVar[TaskStatus] = TaskStatus.DONE
    """Where the task stands."""


@dataclass(frozen=True, kw_only=True)
class Halted:
    """A hard limit (steps or spend) stopped the task."""

    problem: str
    """Which limit, in a sentence."""
    kind: Literal["halted"] = "halted"
    status: ClassVar[TaskStatus] = TaskStatus.HALTED
    """Where the task stands."""


@dataclass(frozen=True, kw_only=True)
class Failed:
    """The task cannot go on."""

    problem: str
    """Why, in a sentence."""
    kind: Literal["failed"] = "failed"
    status: ClassVar[TaskStatus] = TaskStatus.FAILED
    """Where the task stands."""


Step = RunAgain | HandOn | WaitOn | Done | Halted | Failed
"""What happens after a step."""
