"""A Temporal worker of an app: runs its tasks' workflows and steps, and now and then signals
the workflows of tasks left Running with nobody on them (started while the server could not be
reached, or woken by a decision whose signal was lost) and settles approved calls whose process
stopped before they reported back.

It goes on through a restart of the server: when the connection or the worker fails, it
connects again after a pause.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, suppress
from datetime import timedelta

from temporalio.worker import UnsandboxedWorkflowRunner
from temporalio.worker import Worker as TemporalSdkWorker

from signoff.agents.agency import Agency
from signoff.engine.temporal.activities import TaskSteps
from signoff.engine.temporal.runner import TemporalRunner, Unreachable, connect
from signoff.engine.temporal.workflow import TaskWorkflow
from signoff.engine.worker import STUCK_AFTER, Worker
from signoff.models.base import Model

__all__ = ["TemporalWorker"]

log = logging.getLogger("signoff.temporal")

SWEEP_EVERY = 10.0
"""Seconds between looks for tasks left Running with nobody on them."""
STALLED_AFTER = timedelta(seconds=30)
"""How long a Running task goes unwritten, held by nobody, before its workflow is signalled."""

STICKY_FOR = timedelta(seconds=3)
"""How long a workflow's next task waits for the worker that ran its last one (which keeps the
workflow in memory) before any worker may take it."""
SHUT_DOWN_WITHIN = 10.0
"""Seconds a worker stopped with Ctrl-C has to stop as the SDK stops it, before it is cancelled."""


class TemporalWorker:
    """Runs the workflows and steps of one app's tasks (``app.temporal_worker()``)."""

    def __init__(self, agency: Agency, runner: TemporalRunner, *,
                 model_for: Callable[[str, str], Model | None], steps_at_once: int = 8,
                 stuck_after: timedelta = STUCK_AFTER, stalled_after: timedelta = STALLED_AFTER,
                 sweep_every: float = SWEEP_EVERY) -> None:
        self._agency = agency
        self._runner = runner
        self.queue = runner.queue
        """The task queue it polls (`Temporal.queue_of`: the database's own, unless named)."""
        self._in_process = Worker(agency, model_for=model_for)
        self._steps = TaskSteps(agency, self._in_process, database=runner.database_id,
                                queue=self.queue)
        self._at_once = steps_at_once
        self._stuck_after = stuck_after
        self._stalled_after = stalled_after
        self._sweep_every = sweep_every

    def run(self, stop: threading.Event | None = None) -> None:
        """Work until `stop` is set (for ever when None)."""
        self._runner.serving.add(id(self))
        try:
            asyncio.run(self._serve(stop or threading.Event()))
        finally:
            self._runner.serving.discard(id(self))

    @contextmanager
    def running(self) -> Iterator[None]:
        """Work in a thread of this process while the block runs."""
        stop = threading.Event()
        thread = threading.Thread(target=self.run, args=(stop,), name="temporal worker",
                                  daemon=True)
        thread.start()
        try:
            yield
        finally:
            stop.set()
            thread.join(timeout=60)

    async def _serve(self, stop: threading.Event) -> None:
        config = self._runner.config
        with ThreadPoolExecutor(max_workers=self._at_once, thread_name_prefix="signoff-step"
                                ) as executor:
            failures = refusals = 0
            while not stop.is_set():
                try:
                    client = await connect(config)
                except RuntimeError as error:
                    failures += 1
                    wait = reconnect_wait(failures)
                    if failures == 1:
                        log.warning("%s The worker tries again in %g s, then less and less often.",
                                    Unreachable(config.address, str(error)), wait)
                    else:  # the whole sentence once; then a line, ever more seldom
                        log.warning("Temporal at %s still cannot be reached (%d tries); the worker "
                                    "tries again in %g s.", config.address, failures, wait)
                    await _pause(stop, wait)
                    continue
                if failures:
                    log.warning("Temporal at %s is reached; the worker works.", config.address)
                    failures = 0
                worker = TemporalSdkWorker(
                    client, task_queue=self._runner.queue, workflows=[TaskWorkflow],
                    activities=[self._steps.step, self._steps.pass_deadlines], activity_executor=executor,
                    max_concurrent_activities=self._at_once,
                    max_concurrent_local_activities=self._at_once,
                    # A worker that stopped holds its workflows' next tasks this long at most.
                    sticky_queue_schedule_to_start_timeout=STICKY_FOR,
                    # The workflow is a short loop of awaits, deterministic as written; the
                    # sandbox would import the app again (its records, SQLAlchemy) per run.
                    workflow_runner=UnsandboxedWorkflowRunner(),
                )
                # The steps of tasks started in this process with a model given in code, which
                # no other process has: their workflows send them here (`WorkflowOptions.home`).
                home = TemporalSdkWorker(
                    client, task_queue=self._runner.home_queue,
                    activities=[self._steps.step, self._steps.pass_deadlines],
                    activity_executor=executor, max_concurrent_activities=self._at_once)
                workers = (worker, home)
                running = asyncio.create_task(_run_all(workers))
                sweeping = asyncio.create_task(self._sweep_until(stop))
                try:
                    await asyncio.wait({running, sweeping}, return_when=asyncio.FIRST_COMPLETED)
                except asyncio.CancelledError:  # Ctrl-C: `asyncio.run` cancels this task only
                    stop.set()
                    sweeping.cancel()
                    await _shut_down(workers, running)
                    raise
                sweeping.cancel()
                if not running.done():
                    await asyncio.gather(*(w.shutdown() for w in workers))
                try:
                    await running
                except Exception as error:
                    pause = 2.0
                    if _refused(error):
                        refusals += 1
                        pause = reconnect_wait(refusals)
                        _tell_refused(config.address, error, refusals, pause)
                    else:
                        log.exception("The Temporal worker stopped; it starts again.")
                    # The other of the two may still run: stopped before both start again.
                    await asyncio.gather(*(w.shutdown() for w in workers), return_exceptions=True)
                    await _pause(stop, pause)
                else:
                    refusals = 0

    async def _sweep_until(self, stop: threading.Event) -> None:
        """Sweep now and then until `stop` is set. A server that stops answering is told by
        the sweeps (the worker's polls retry without a word): the whole sentence once, then a
        line a sweep, and once it answers again, that it does."""
        failures = 0
        while not stop.is_set():
            try:
                await asyncio.to_thread(self.sweep)
            except Unreachable as unreachable:
                failures += 1
                if failures == 1:
                    log.warning("%s The worker keeps trying, and says when the server answers again.",
                                unreachable)
                else:
                    log.warning("Temporal at %s still cannot be reached (%d sweeps, %g s apart).",
                                self._runner.config.address, failures, self._sweep_every)
            except Exception:  # the next sweep tries again; the worker goes on meanwhile
                log.exception("A sweep of the tasks failed; the next one tries again.")
            else:
                if failures:
                    log.warning("Temporal at %s answers again; the worker works.",
                                self._runner.config.address)
                failures = 0
            await _pause(stop, self._sweep_every)

    def sweep(self) -> int:
        """Pass the deadlines due (a proposal whose task has no workflow timing it is passed
        here too; passing one twice is a no-op), settle approved calls whose process stopped
        (`Worker.recover`: and tasks left Waiting on nothing for longer than `stuck_after`), tell
        the deciders of proposals a stopped process left untold that long (`Worker.tell_untold`),
        signal the workflows of Running tasks nobody is on, and move to the app's queue the
        workflows of its tasks left on the legacy one (`TemporalRunner.move_from_legacy_queue`);
        how many calls and tasks were settled, signalled or moved, and proposals told.
        `Unreachable` when the server does not answer (asked first). A task it lets go on is
        handed to its workflow, not waited for (`TemporalRunner.signalling_only`)."""
        self._runner.check_reachable()
        with self._runner.signalling_only():  # (a task it lets go on is not waited for)
            self._in_process.pass_deadlines()
            settled = self._in_process.recover(older_than=self._stuck_after)
            settled += self._in_process.tell_untold(older_than=self._stuck_after)
        moved = self._runner.move_from_legacy_queue()
        return settled + moved + self._runner.nudge_stalled(older_than=self._stalled_after)


def _refused(error: Exception) -> bool:
    """Whether `error`, which ended a worker's run, is the server refusing its start (its
    namespace not found, say): told in a sentence, not as a traceback."""
    return isinstance(error, RuntimeError) and str(error).startswith("Worker validation failed")


def _tell_refused(address: str, error: Exception, refusals: int, wait: float) -> None:
    """Tell that the server refused the worker's start (`refusals` times in a row): the whole
    sentence once, then a line, ever more seldom; the client's report for --debug alone."""
    if refusals == 1:
        log.warning("%s The worker tries again in %g s, then less and less often.",
                    Unreachable(address, str(error), reached=True), wait)
    else:
        log.warning("Temporal at %s still refuses the worker (%d tries); it tries again in "
                    "%g s.", address, refusals, wait)
    log.debug("Temporal at %s refused the worker: %s", address, error)


def reconnect_wait(failures: int) -> float:
    """Seconds to wait before connecting again after `failures` failed tries in a row: 2, 4, 8 …,
    at most a minute (a server down for an hour is told some seventy times, not 1,800)."""
    return float(min(2 ** failures, 60))


async def _shut_down(workers: tuple[TemporalSdkWorker, ...], running: asyncio.Task[None]
                     ) -> None:
    """Stop `workers`, which `running` runs, as the SDK stops a worker (its polls ended),
    within `SHUT_DOWN_WITHIN`; past that they are cancelled. (Left to `asyncio.run`, which
    cancels what is left once its task ends, a worker cancelled while it polls could wait on
    the poll for as long as the server held it open: Ctrl-C did not stop ``signoff worker
    --temporal``.) A step under way in the executor's threads finishes as the executor is
    shut down."""
    try:
        await asyncio.wait_for(asyncio.gather(*(w.shutdown() for w in workers),
                                              return_exceptions=True), SHUT_DOWN_WITHIN)
    except TimeoutError:
        log.warning("The Temporal worker did not stop within %g s; it is cancelled.",
                    SHUT_DOWN_WITHIN)
    running.cancel()
    with suppress(BaseException):
        await running


async def _run_all(workers: tuple[TemporalSdkWorker, ...]) -> None:
    """Run `workers` until they stop (the first to fail raises)."""
    await asyncio.gather(*(w.run() for w in workers))


async def _pause(stop: threading.Event, seconds: float) -> None:
    """Sleep `seconds`, or less when `stop` is set meanwhile (looked at every tenth of a second).

    Not a thread waiting on `stop`: cancelled by a Ctrl-C, the pause left its thread waiting,
    and ``asyncio.run`` waits for its threads as it ends, so ``signoff worker --temporal`` took
    up to the whole pause (4 s, then 8, … 60) to stop while the server could not be reached."""
    deadline = time.monotonic() + seconds
    while not stop.is_set() and (left := deadline - time.monotonic()) > 0:
        await asyncio.sleep(min(left, 0.1))
