"""The workflow of one task: step it (one activity a step) until it waits or ends; while it
waits on people, wait in the workflow — no activity runs and no worker works — until a decision
says it may go on.

The workflow's code is deterministic: it only awaits activities, timers and its own state.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy

__all__ = ["SETTLED", "STEP", "Stepped", "TaskWorkflow", "WorkflowOptions"]

STEP = "signoff.step"
"""The name of the activity that does one step of a task."""
SETTLED = "settled"
"""The name of the update that answers once the task waits or has ended."""
STEP_TIMEOUT = timedelta(minutes=10)
"""The longest one step may take (a model's slowest answer, an approved call that is slow)."""
RETRY = RetryPolicy(initial_interval=timedelta(milliseconds=200), backoff_coefficient=2.0,
                    maximum_interval=timedelta(seconds=10))
"""How a step that failed (its process stopped, the database could not be reached) is tried
again: for ever, a little later each time. The step's own record makes that safe."""
LONGEST_PAUSE = 30.0
"""The longest pause, in seconds, before a task held elsewhere (or with no model here) is
tried again."""


@dataclass(frozen=True, kw_only=True)
class WorkflowOptions:
    """How the workflow runs its steps."""

    local_activities: bool = True
    """Steps as local activities (see `signoff.engine.temporal.Temporal`)."""


@dataclass(frozen=True, kw_only=True)
class Stepped:
    """What one step said happens next (`signoff.agents.steps.Step`'s kind)."""

    kind: str
    """``run_again``, ``hand_on``, ``waiting``, ``done``, ``halted``, ``failed``; ``gone``
    when the task is not in the app's database."""
    why: str = ""
    """Why it is handed on, for the log."""


@workflow.defn(name="SignoffTask")
class TaskWorkflow:
    """One task, stepped until it ends. Signal ``go_on`` when it may go on; the update
    ``settled`` answers, once it waits or has ended, which of them it is."""

    def __init__(self) -> None:
        self._nudged = False
        self._settled = ""

    @workflow.run
    async def run(self, task_id: str, options: WorkflowOptions) -> str:
        """Step the task until it ends; how it ended."""
        pause = 0.2
        while True:
            self._nudged = False
            self._settled = ""
            stepped = await self._step(task_id, options)
            if stepped.kind == "run_again":
                pause = 0.2
                continue
            if stepped.kind == "hand_on":  # another holds it, or no worker has its model yet
                workflow.logger.info("Task %s is handed on: %s", task_id, stepped.why)
                await workflow.wait_condition(lambda: self._nudged, timeout=pause)
                pause = min(pause * 2, LONGEST_PAUSE)
                continue
            self._settled = stepped.kind
            if stepped.kind == "waiting":
                await workflow.wait_condition(lambda: self._nudged)
                continue
            await workflow.wait_condition(workflow.all_handlers_finished)
            return stepped.kind

    async def _step(self, task_id: str, options: WorkflowOptions) -> Stepped:
        stepped: Stepped
        if options.local_activities:
            stepped = await workflow.execute_local_activity(
                STEP, task_id, result_type=Stepped, start_to_close_timeout=STEP_TIMEOUT,
                retry_policy=RETRY)
        else:
            stepped = await workflow.execute_activity(
                STEP, task_id, result_type=Stepped, start_to_close_timeout=STEP_TIMEOUT,
                retry_policy=RETRY)
        return stepped

    @workflow.signal(name="go_on")
    def go_on(self) -> None:
        """A decision (or a start that was recorded while the server was unreachable) says the
        task may go on: step it again."""
        self._nudged = True

    @workflow.update(name=SETTLED)
    async def settled(self) -> str:
        """Once the task waits on people or has ended (and no ``go_on`` is left to follow):
        which of them."""
        await workflow.wait_condition(lambda: bool(self._settled) and not self._nudged)
        return self._settled
