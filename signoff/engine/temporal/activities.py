"""The activities of a task's workflow, in a Temporal worker: one step of the task, and passing
the deadlines of its proposals that are due.

It is the loop's own step (`signoff.agents.loop.Loop.step`): the step takes the task's hold,
checks its fence in every transaction it writes, and records what it did in the app's database
before it says so. A step Temporal runs again (its worker stopped, its answer was lost) finds
that record: a record-only call is never run twice, and an outside call marked running is never
run again blindly.
"""

from __future__ import annotations

import contextvars
import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

from temporalio import activity
from temporalio.exceptions import ApplicationError, ApplicationErrorCategory

from signoff.agents import model_specs
from signoff.agents import repository as repo
from signoff.agents.agency import Agency
from signoff.agents.steps import HandOn, WaitOn
from signoff.agents.tasks import TaskStatus
from signoff.engine.temporal.workflow import PASS_DEADLINES, STEP, Stepped
from signoff.engine.worker import Worker
from signoff.exceptions import SignoffError, UserError

__all__ = ["TaskSteps"]

log = logging.getLogger("signoff.temporal")


class TaskSteps:
    """The step activity of one app's tasks on the database whose id is `database` (`worker`:
    makes each task's model here), polling `queue`."""

    def __init__(self, agency: Agency, worker: Worker, *, database: str, queue: str) -> None:
        self._agency = agency
        self._worker = worker
        self._database = database
        self._queue = queue

    # A step is never interrupted by an exception raised into its thread (the SDK's way of
    # cancelling a threaded activity, as its worker shuts down or its workflow is ended): it
    # would land anywhere, in an app's tool after its effect (the call told Failed, though it
    # happened) as well as between two of the loop's writes. The step finishes, its record
    # says what it did, and what it returns is dropped.
    @activity.defn(name=STEP, no_thread_cancel_exception=True)
    def step(self, task_id: str, database: str = "", home: str = "") -> Stepped:
        """Do one step of the task, whose workflow names its database `database` (empty: it
        was started before databases had an id); what happens next. `home`: the queue of the
        process that has the task's model, where the workflow sends the step when this worker
        has none (then why it has none is not kept with the task: that process takes it).
        A step that fails is told in a sentence, and Temporal tries it again."""
        try:
            with _heartbeating():
                return self._step(task_id, database, home)
        except Exception as error:
            raise _told(task_id, "step", error) from error

    def _step(self, task_id: str, database: str, home: str) -> Stepped:
        with self._agency.database.connect() as db:
            task = repo.load_task(db, task_id)
        if task is None:
            return self._not_here(task_id, database)
        if task.status == TaskStatus.RUNNING.value:
            missing = self._missing_here(task)
            if missing:
                if not home:  # (else the process that started it takes it)
                    with self._agency.database.connect() as db:
                        if model_specs.report(db, task_id, missing):  # (once, not each try)
                            log.warning("Task %s stays Running: %s", task_id, missing)
                return Stepped(kind="no_model_here", why=missing)
            if not self._worker.ready(task, tell=not home):
                return Stepped(kind="no_model_here", why="this worker has no model for the task")
        step = self._agency.loop.step(task_id)
        if isinstance(step, WaitOn):
            until = step.waiting_until
            if until is not None and until <= repo.now():  # a deadline passed and still
                until = repo.now() + TRIED_AGAIN  # waiting: its passing failed (a route that
                # cannot be read); tried again a while on, not at once, again and again
            return Stepped(kind=step.kind, waiting_until=until.isoformat()
                           if until is not None else None)
        return Stepped(kind=step.kind, why=step.why if isinstance(step, HandOn) else "")

    def _missing_here(self, task: repo.TaskRow) -> str:
        """Why this worker's app cannot step `task`, in a sentence: its agent, or the agent's
        skill, is not declared here (a worker of another version of the app, in a deploy that
        is under way, say); empty when both are. Such a step failed, and was tried again for
        as long as the worker ran, its caller told only that the task goes on."""
        try:
            agent = self._agency.registered_as(task.agent).agent
            agent.skill(task.skill)
        except (UserError, LookupError) as error:
            what = str(error) if isinstance(error, UserError) else (
                f"{task.agent} has no skill {task.skill!r} in this app")
            return (f"The app of the Temporal worker that took it does not declare it: "
                    f"{what.rstrip('.')}. A worker of another version of the app than the one "
                    "that started it? The task goes on once a worker whose app declares its "
                    "agent and skill takes it.")
        return ""

    def _not_here(self, task_id: str, database: str) -> Stepped:
        """A task that is not in this database: gone, when its workflow says this database
        holds it (its workflow ends); else another database's, whose workers share this
        queue (its workflow goes on, for one of them to take)."""
        if database == self._database:
            log.warning("Task %s is not in this app's database, which started it: its workflow "
                        "ends.", task_id)
            return Stepped(kind="gone")
        log.warning("Task %s is not in this app's database: its workflow %s, and goes on for "
                    "a worker of that database. Two databases' workers poll the Temporal queue "
                    "%s: give each app its own (Temporal(task_queue=...), "
                    "SIGNOFF_TEMPORAL_QUEUE), or leave it unset for one of its database's own.",
                    task_id, f"names another database ({database[:8]})" if database else
                    "was started before databases had an id", self._queue)
        return Stepped(kind="elsewhere")

    @activity.defn(name=PASS_DEADLINES, no_thread_cancel_exception=True)
    def pass_deadlines(self, task_id: str, database: str = "") -> int:
        """Pass the deadlines of the task's waiting proposals that are due now (each withdrawn,
        its task told, or put to its next decider); how many were. (`database` as for `step`:
        a task not in this database has no proposals here, and its next step tells.)"""
        try:
            with _heartbeating():
                return self._pass_deadlines(task_id)
        except Exception as error:
            raise _told(task_id, "passing of its deadlines", error) from error

    def _pass_deadlines(self, task_id: str) -> int:
        at = repo.now()
        with self._agency.database.connect() as db:
            due = [p.id for p in repo.waiting_of_task(db, task_id)
                   if p.deadline_at is not None and p.deadline_at <= at]
        passed = 0
        for proposal in due:  # (one that cannot be passed leaves the others to pass, as a
            try:  # worker's look does: its route cannot be read, or its agent is not here)
                passed += self._agency.deadlines.pass_deadline(proposal, now=at).changed
            except UserError as refused:
                log.warning("%s", refused)
        return passed


HEARTBEAT_EVERY = 5.0
"""Seconds between the heartbeats of a step run as an ordinary activity (the server gives the
step to another worker once `signoff.engine.temporal.workflow.HEARTBEAT_TIMEOUT` passes without
one; the SDK sends them on at most every 0.8 of it)."""


@contextmanager
def _heartbeating() -> Iterator[None]:
    """While the block runs, heartbeat the ordinary activity this thread runs, from a thread of
    its own (the step's thread is busy in the loop, or in an app's tool): a worker killed, or
    whose machine went, stops them, and its step goes to another worker within
    `HEARTBEAT_TIMEOUT` instead of `STEP_TIMEOUT`. A local activity has no heartbeat (the
    workflow task's timeout covers it)."""
    if activity.info().is_local:
        yield
        return
    context = contextvars.copy_context()  # the activity's, which `activity.heartbeat` reads
    done = threading.Event()

    def beat() -> None:
        while not done.wait(HEARTBEAT_EVERY):
            try:
                context.run(activity.heartbeat)
            except Exception:  # the worker is shutting down: the step finishes all the same
                log.debug("A heartbeat of a step could not be sent.", exc_info=True)

    beating = threading.Thread(target=beat, name="signoff-step-heartbeat", daemon=True)
    beating.start()
    try:
        yield
    finally:
        done.set()


TRIED_AGAIN = timedelta(seconds=30)
"""How long after a deadline that could not be passed its workflow tries it again."""
TOLD_EVERY = 10
"""Of the tries of a step that keeps failing, every how many is told (the first always is)."""


def _told(task_id: str, what: str, error: Exception) -> ApplicationError:
    """A step (or passing of deadlines) of the task failed with `error`: told in a sentence
    (the first try, then every `TOLD_EVERY`-th; the traceback only to a debug log), and the
    failure that Temporal retries, marked benign: the SDK logs it at debug level, not as a
    warning with a traceback (``signoff worker --temporal`` showed one at every try)."""
    said = str(error) if isinstance(error, SignoffError) else (
        f"an unforeseen {type(error).__name__}: {error}")
    attempt = activity.info().attempt
    told = (f"Task {task_id}'s {what} failed (try {attempt}): {said.rstrip('.')}. Temporal "
            "tries it again, a little later each time (at most every 10 s); what it did is "
            "recorded, so nothing it did is done twice.")
    if attempt == 1 or attempt % TOLD_EVERY == 0:
        log.warning("%s", told)
    log.debug("%s", told, exc_info=error)  # (the traceback: for --debug alone)
    return ApplicationError(told, type=type(error).__name__,
                            category=ApplicationErrorCategory.BENIGN)
