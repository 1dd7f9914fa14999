"""Where a task goes on once it may: the runner an app chooses.

By default a task goes on in the process that lets it (``agent.do``, a decision): the loop steps
it there until it waits or ends. Another runner (Temporal's, in `signoff.engine.temporal`) takes
the task from there instead: its own workers step it, and the caller hears where it stands.
"""

from __future__ import annotations

from typing import Protocol

from signoff.agents.repository import TaskRow
from signoff.agents.tasks import Outcome

__all__ = ["Runner"]


class Runner(Protocol):
    """Takes over tasks that may go on, in place of the loop of the process that lets them."""

    def go_on(self, task_id: str, task: TaskRow | None = None) -> Outcome:
        """Let task `task_id` go on (`task`: its row, when the caller has just written it, held
        by this thread); where it stands once it waits or ends, or when the runner stops
        waiting for it."""
        ...

    def nudge(self, task_id: str) -> None:
        """Tell the runner that task `task_id`'s record changed outside it (a person stopped
        it, say), without waiting: what steps it reads it again. May raise when the runner
        cannot be reached; the record stands all the same."""
        ...
