"""The activities of a task's workflow, in a Temporal worker: one step of the task, and passing
the deadlines of its proposals that are due.

It is the loop's own step (`signoff.agents.loop.Loop.step`): the step takes the task's hold,
checks its fence in every transaction it writes, and records what it did in the app's database
before it says so. A step Temporal runs again (its worker stopped, its answer was lost) finds
that record: a record-only call is never run twice, and an outside call marked running is never
run again blindly.
"""

from __future__ import annotations

import logging

from temporalio import activity

from signoff.agents import repository as repo
from signoff.agents.agency import Agency
from signoff.agents.steps import HandOn, WaitOn
from signoff.agents.tasks import TaskStatus
from signoff.engine.temporal.workflow import PASS_DEADLINES, STEP, Stepped
from signoff.engine.worker import Worker

__all__ = ["TaskSteps"]

log = logging.getLogger("signoff.temporal")


class TaskSteps:
    """The step activity of one app's tasks (`worker`: makes each task's model here)."""

    def __init__(self, agency: Agency, worker: Worker) -> None:
        self._agency = agency
        self._worker = worker

    @activity.defn(name=STEP)
    def step(self, task_id: str) -> Stepped:
        """Do one step of the task; what happens next."""
        with self._agency.database.connect() as db:
            task = repo.load_task(db, task_id)
        if task is None:
            log.warning("Task %s is not in this app's database: its workflow ends.", task_id)
            return Stepped(kind="gone")
        if task.status == TaskStatus.RUNNING.value and not self._worker.ready(task):
            return Stepped(kind="hand_on", why="this worker has no model for the task")
        step = self._agency.loop.step(task_id)
        if isinstance(step, WaitOn):
            return Stepped(kind=step.kind, waiting_until=step.waiting_until.isoformat()
                           if step.waiting_until is not None else None)
        return Stepped(kind=step.kind, why=step.why if isinstance(step, HandOn) else "")

    @activity.defn(name=PASS_DEADLINES)
    def pass_deadlines(self, task_id: str) -> int:
        """Pass the deadlines of the task's waiting proposals that are due now (each withdrawn,
        its task told, or put to its next decider); how many were."""
        at = repo.now()
        with self._agency.database.connect() as db:
            due = [p.id for p in repo.waiting_of_task(db, task_id)
                   if p.deadline_at is not None and p.deadline_at <= at]
        return sum(1 for proposal in due
                   if self._agency.deadlines.pass_deadline(proposal, now=at).changed)
