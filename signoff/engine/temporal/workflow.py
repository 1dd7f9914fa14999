"""The workflow of one task: step it (one activity a step) until it waits or ends; while it
waits on people, wait in the workflow — no activity runs and no worker works — until a decision
says it may go on, or the earliest deadline of what it waits on falls (a durable timer: then an
activity passes the deadlines due, and the task is stepped again).

The workflow's code is deterministic: it only awaits activities, timers and its own state.
"""

from __future__ import annotations

from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError
from temporalio.exceptions import TimeoutError as ActivityTimeout
from temporalio.workflow import HandlerUnfinishedPolicy, NondeterminismError

__all__ = ["HEARTBEAT_TIMEOUT", "HOME_WAIT", "PASS_DEADLINES", "SETTLED", "STEP", "Stepped", "TaskWorkflow",
           "WorkflowOptions"]

STEP = "signoff.step"
"""The name of the activity that does one step of a task."""
PASS_DEADLINES = "signoff.pass_deadlines"
"""The name of the activity that passes the deadlines of a task's proposals that are due."""
LEAST_WAIT = timedelta(milliseconds=500)
"""The shortest wait for a deadline (one due already, or due by a clock a little behind)."""
SETTLED = "settled"
"""The name of the update that answers once the task waits or has ended."""
STEP_TIMEOUT = timedelta(minutes=10)
"""The longest one step may take (a model's slowest answer, an approved call that is slow)."""
HEARTBEAT_TIMEOUT = timedelta(seconds=30)
"""How long a step run as an ordinary activity may go without its worker's heartbeat (sent
every few seconds while it runs: `signoff.engine.temporal.activities.HEARTBEAT_EVERY`) before
the server takes its worker for lost and gives the step to another. Without it, a step of a
worker that was killed, or whose machine went, waited out `STEP_TIMEOUT`, the task still.
(A local activity runs in the worker that runs its workflow: the workflow task's own timeout
moves both on.)"""
RETRY = RetryPolicy(initial_interval=timedelta(milliseconds=200), backoff_coefficient=2.0,
                    maximum_interval=timedelta(seconds=10))
"""How a step that failed (its process stopped, the database could not be reached) is tried
again: for ever, a little later each time. The step's own record makes that safe."""
LONGEST_PAUSE = 30.0
"""The longest pause, in seconds, before a task held elsewhere (or with no model here) is
tried again."""
HOME_WAIT = timedelta(seconds=10)
"""How long a step sent to the process that started the task (the one that has its model) waits
for that process's worker to take it, before the workflow pauses and tries again."""
ELSEWHERE_PAUSE = 5.0
"""The pause, in seconds, before a workflow whose task a worker did not find in its database,
which is not the task's (they share a queue), starts again for another worker to take."""


STARTS_ANEW = "starts-anew-when-long"
"""The patch of runs that go on in a new run as their history grows long: a run started by an
older signoff, replayed here, goes on as it was written (it did not, and its history says so)."""
LONGEST_HISTORY = 40_000
"""The most events a task's run lets its history hold before it starts anew however things
stand: the server ends a run whose history passes its limit (51,200 events unless configured),
whatever it was doing."""


@dataclass(frozen=True, kw_only=True)
class WorkflowOptions:
    """How the workflow runs its steps."""

    local_activities: bool = True
    """Steps as local activities (see `signoff.engine.temporal.Temporal`)."""
    database: str = ""
    """The id of the database that holds the task (`signoff.store.identity.database_id`);
    empty in a workflow started before databases had one."""
    home: str = ""
    """The task queue of the process that started the task with a model of its own (given in
    code, which no other process can make), which its workers poll for steps: a step no other
    worker can do is sent there. Empty when it was started otherwise, or before this was kept."""


@dataclass(frozen=True, kw_only=True)
class Stepped:
    """What one step said happens next (`signoff.agents.steps.Step`'s kind)."""

    kind: str
    """``run_again``, ``hand_on``, ``waiting``, ``done``, ``halted``, ``failed``;
    ``no_model_here`` when the worker cannot make the task's model; ``gone``
    when the task is not in its own database (the workflow names that database, and the
    worker's is it), ``elsewhere`` when it is not in the worker's database, which may not be
    the task's (two databases' workers share a queue)."""
    why: str = ""
    """Why it is handed on, for the log."""
    waiting_until: str | None = None
    """When waiting: the earliest deadline of what the task waits on (ISO 8601), if any."""


# A run whose history this code cannot replay (written by other workflow code: a deploy that
# changed it, a worker of another version) fails, instead of retrying its workflow task for
# ever — the task stood Running, every decision waited in vain. Its state is the task's record,
# not the run: the task goes on in a new run (`TemporalRunner` starts one as it sees the run
# failed, a worker's sweep as the task stalls).
@workflow.defn(name="SignoffTask", failure_exception_types=[NondeterminismError])
class TaskWorkflow:
    """One task, stepped until it ends. Signal ``go_on`` when it may go on; the update
    ``settled`` answers, once it waits or has ended, which of them it is."""

    def __init__(self) -> None:
        self._nudged = False
        self._settled = ""
        self._at_home = False  # steps go to the process that started the task (options.home)
        self._home_missed = False  # which took none the last time one was sent there
        self._suggested_at = 0  # the history's length when the server suggested a new run

    @workflow.run
    async def run(self, task_id: str, options: WorkflowOptions) -> str:
        """Step the task until it ends; how it ended."""
        pause = 0.2
        while True:
            if self._history_long():
                workflow.continue_as_new(args=[task_id, options])
            self._nudged = False
            self._settled = ""
            stepped = await self._step(task_id, options)
            if stepped.kind == "run_again":
                pause = 0.2
                continue
            if stepped.kind == "no_model_here" and options.home and not self._at_home:
                # Its model was given in code to the process that started it: a step here (this
                # worker's, sticky) would never find it. Steps go there from now on.
                workflow.logger.info("Task %s has no model in this worker: its steps go to the "
                                     "process that started it (queue %s).", task_id, options.home)
                self._at_home = True
                continue
            if stepped.kind in ("hand_on", "no_model_here"):
                # Another holds it, or no worker has its model yet (nor takes its steps at home,
                # which is tried again after the pause).
                if stepped.kind == "no_model_here":
                    self._at_home = False
                workflow.logger.info("Task %s is handed on: %s", task_id, stepped.why)
                if workflow.info().is_continue_as_new_suggested():  # its history is long
                    workflow.continue_as_new(args=[task_id, options])
                with suppress(TimeoutError):
                    await workflow.wait_condition(lambda: self._nudged, timeout=pause)
                pause = min(pause * 2, LONGEST_PAUSE)
                continue
            if stepped.kind == "elsewhere":
                # Another database's task, taken by a worker of this one on a queue both poll.
                # Ending the workflow would leave the task with none (it was "gone" here
                # once); waiting here would keep it on this worker (its next workflow task
                # comes back to the worker that has it, sticky). A new run's first workflow
                # task goes to any worker of the queue: in the end, one of its database.
                with suppress(TimeoutError):
                    await workflow.wait_condition(lambda: self._nudged, timeout=ELSEWHERE_PAUSE)
                workflow.continue_as_new(args=[task_id, options])
            self._settled = stepped.kind
            if stepped.kind == "waiting":
                if workflow.info().is_continue_as_new_suggested() and workflow.patched(
                        STARTS_ANEW):
                    # Its history is long: a run of its own goes on waiting, once the callers
                    # waiting to hear that it waits have heard (unless a decision came first).
                    await workflow.wait_condition(
                        lambda: workflow.all_handlers_finished() or self._nudged)
                    if not self._nudged:
                        workflow.continue_as_new(args=[task_id, options])
                await self._wait(task_id, stepped.waiting_until, options)
                continue
            await workflow.wait_condition(workflow.all_handlers_finished)
            return stepped.kind

    def _history_long(self) -> bool:
        """Whether the run's history is long enough that the task goes on in a new run
        (``continue_as_new``: the task's state is its record, not the run's): once the server
        suggests it and no caller waits to hear the task settle, or, callers waiting (they hear
        it as the new run settles), once it has grown as long again since, or past
        `LONGEST_HISTORY`. Left to grow, a long task's history (a step is a dozen events as an
        ordinary activity; a decision, some ten) reached the server's limit, which ended the run
        mid-step, and the task waited for a sweep to start it again."""
        info = workflow.info()
        length = info.get_current_history_length()
        if info.is_continue_as_new_suggested() and not self._suggested_at:
            self._suggested_at = length
        return ((bool(self._suggested_at) and (workflow.all_handlers_finished() or (
            length >= 2 * self._suggested_at))) or length >= LONGEST_HISTORY) and (
            workflow.patched(STARTS_ANEW))

    async def _wait(self, task_id: str, until: str | None, options: WorkflowOptions) -> None:
        """Wait for a decision, or, when what it waits on has a deadline, until it falls: then
        pass the deadlines that are due."""
        if until is None:
            await workflow.wait_condition(lambda: self._nudged)
            return
        timeout = max(datetime.fromisoformat(until) - workflow.now(), LEAST_WAIT)
        try:
            await workflow.wait_condition(lambda: self._nudged, timeout=timeout)
        except TimeoutError:
            self._settled = ""
            await self._activity(PASS_DEADLINES, task_id, int, options)

    async def _step(self, task_id: str, options: WorkflowOptions) -> Stepped:
        if self._at_home:
            return await self._step_at_home(task_id, options)
        # A worker without the task's model says why, kept with the task, only when its home
        # took no step the last time (else that process takes it next).
        home = "" if self._home_missed else options.home
        stepped: Stepped = await self._activity(STEP, task_id, Stepped, options,
                                                *((home,) if home else ()))
        return stepped

    async def _step_at_home(self, task_id: str, options: WorkflowOptions) -> Stepped:
        """A step by a worker of the process that started the task (`WorkflowOptions.home`);
        ``no_model_here`` when none takes it within `HOME_WAIT` (that process stopped, or runs
        no worker)."""
        try:
            stepped: Stepped = await workflow.execute_activity(
                STEP, args=[task_id, options.database], result_type=Stepped,
                task_queue=options.home, schedule_to_start_timeout=HOME_WAIT,
                start_to_close_timeout=STEP_TIMEOUT, heartbeat_timeout=HEARTBEAT_TIMEOUT,
                retry_policy=RETRY)
        except ActivityError as error:
            if not isinstance(error.cause, ActivityTimeout):
                raise
            self._home_missed = True
            return Stepped(kind="no_model_here", why=(
                "the process that started it, which has its model, took no step within "
                f"{HOME_WAIT.total_seconds():g} s (it stopped, or runs no Temporal worker)"))
        self._home_missed = stepped.kind == "no_model_here"  # nor has that process its model
        return stepped

    async def _activity(self, name: str, task_id: str, result_type: type, options: WorkflowOptions,
                        *more: str) -> Any:
        args = [task_id, options.database, *more]
        if options.local_activities:
            return await workflow.execute_local_activity(
                name, args=args, result_type=result_type, start_to_close_timeout=STEP_TIMEOUT,
                retry_policy=RETRY)
        return await workflow.execute_activity(
            name, args=args, result_type=result_type, start_to_close_timeout=STEP_TIMEOUT,
            heartbeat_timeout=HEARTBEAT_TIMEOUT, retry_policy=RETRY)

    @workflow.signal(name="go_on")
    def go_on(self) -> None:
        """A decision (or a start that was recorded while the server was unreachable) says the
        task may go on: step it again."""
        self._nudged = True

    # A run that starts again (`continue_as_new`: its history long, or its task elsewhere) leaves
    # the callers waiting on it: each asks the new run (`TemporalRunner.go_on`).
    @workflow.update(name=SETTLED, unfinished_policy=HandlerUnfinishedPolicy.ABANDON)
    async def settled(self) -> str:
        """Once the task waits on people or has ended (and no ``go_on`` is left to follow):
        which of them."""
        await workflow.wait_condition(lambda: bool(self._settled) and not self._nudged)
        return self._settled
