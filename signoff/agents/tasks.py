"""Tasks: one piece of work an agent does, and where it stands (``Outcome``)."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

from signoff.exceptions import UserError

__all__ = ["ALSO_THE_PROBLEM", "Outcome", "TaskStatus", "id_named", "task_id_of", "waiting_words"]

ALSO_THE_PROBLEM = "signoff_also_the_problem"
"""The attribute (set through ``extra``) of a log record whose sentence the task's problem
tells as well: a command that shows the task's outcome leaves such a record out, so that a
person reads the sentence once (``signoff run``, ``signoff research``); the log keeps it."""


class TaskStatus(enum.Enum):
    """Where a task stands."""

    RUNNING = "Running"
    """It is being worked on (or was, when its process stopped: a worker picks it up)."""
    WAITING = "Waiting"
    """It waits on a person's decision; nothing runs and no model is asked meanwhile."""
    DONE = "Done"
    """The model handed back a result that was accepted."""
    HALTED = "Halted"
    """A hard limit stopped it (steps or spend), the client giving its turns went away, or a
    person stopped it (`App.stop`). (A result handed back that does not fit is refused, and
    the model asked to hand it back again: one that never fits ends the task here, at its step
    limit.)"""
    FAILED = "Failed"
    """It could not go on: the model could not be asked or answered unusably, the skill's own
    code raised, or its model cannot be used within its budget (no price known)."""

    @property
    def ended(self) -> bool:
        """Whether the task has ended (Done, Halted or Failed): nothing more happens to it."""
        return self in (TaskStatus.DONE, TaskStatus.HALTED, TaskStatus.FAILED)


@dataclass(frozen=True, kw_only=True)
class Outcome:
    """What ``agent.do`` (and ``app.outcome(task)``) says of a task."""

    status: TaskStatus
    """Where it stands."""
    task: str
    """The task's id."""
    result: Any = None
    """The result handed back (validated as the skill's result type) when Done."""
    waiting_on: tuple[str, ...] = ()
    """When Waiting: what it waits on, in words ("a decision from Noor")."""
    waiting_until: datetime | None = None
    """When Waiting: the soonest deadline of the proposals it waits on (UTC; None when none
    has one), when one is withdrawn or goes on to another decider if nobody decides it."""
    problem: str = ""
    """When Halted or Failed: why. When Running: why no worker steps it, when one said it
    cannot (it cannot make the task's model), and nothing stepped it since; from `agent.do`
    on Temporal, once it stops waiting, why the task is still Running."""
    steps: int = 0
    """Model calls made."""
    spend_usd: float = 0.0
    """What the task has spent: its model calls, and what its tools spend (`@spends`)."""

    @property
    def done(self) -> bool:
        """Whether the task is Done."""
        return self.status is TaskStatus.DONE

    @property
    def waiting(self) -> bool:
        """Whether the task waits on a decision."""
        return self.status is TaskStatus.WAITING

    @property
    def waits_on(self) -> str:
        """What it waits on, in one phrase (`waiting_words`): "2 decisions from Noor"."""
        return waiting_words(self.waiting_on)


def waiting_words(waiting_on: tuple[str, ...] | list[str]) -> str:
    """What a task waits on, in one phrase: the same words counted, not repeated ("a decision
    from Noor, a decision from Noor" is "2 decisions from Noor")."""
    counted: dict[str, int] = {}
    for words in waiting_on:
        counted[words] = counted.get(words, 0) + 1
    return ", ".join(words if n == 1 else (
        f"{n} decisions{words.removeprefix('a decision')}" if words.startswith("a decision ")
        else f"{words} ({n} times)") for words, n in counted.items())


def task_id_of(task: Outcome | str | UUID) -> str:
    """The id of the task `task` names: its Outcome's, or its id, as text or a UUID."""
    return task.task if isinstance(task, Outcome) else id_named(task, "task", "Outcome")


def as_signoff_writes_ids(text: str) -> str:
    """`text`, or, when it is a UUID written otherwise, the UUID as signoff writes its ids (in
    lower case, with dashes): ``3F2C…`` and ``3f2c…`` name the same proposal."""
    if len(text) < 32 or (len(text) == 36 and text.islower()):  # (a handle, a prefix; as kept)
        return text
    try:
        return str(UUID(text))
    except ValueError:
        return text


def id_named(given: object, kind: str, shown_by: str) -> str:
    """The id `given` for a `kind`: a str, or a UUID written as one; anything else is told
    (it reached the database, which refused to bind it)."""
    if isinstance(given, str):
        return as_signoff_writes_ids(given)
    if isinstance(given, UUID):
        return str(given)
    raise UserError(f"A {kind} is named by its id (a str) or its {shown_by}, not by a "
                    f"{type(given).__name__}: {given!r}.")
