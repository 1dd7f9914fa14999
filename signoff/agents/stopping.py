"""A person stops a task: it ends Halted, its receipt saying who stopped it and why, and each
proposal it waits on is withdrawn, its decider asked nothing more.

Without it, a task no process can step stayed as it was for ever: left Running by a process that
stopped with a model no worker can make (`signoff tasks` shows it Stuck, and every look of a
worker says so again), or waiting on a decision nobody will make. Whoever the work is for may
stop it, the sponsor of an agent's work for nobody, and a person who supervises agents; to
anyone else it is a task that is not there. A task a live process is stepping now is not
stopped under it (its step is not cut off half-way): that process is to stop first, or the step
to end. An alone call its last holder left running (its process killed while the call was out)
is told as of unknown outcome, as when a served session's client goes.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from signoff.agents import repository as repo
from signoff.agents.oversight import said_why
from signoff.agents.tasks import Outcome, TaskStatus
from signoff.exceptions import AgentRefused, UnknownId
from signoff.security.principals import Principal

if TYPE_CHECKING:
    from signoff.agents.agency import Agency

__all__ = ["may_stop", "stop_task"]

log = logging.getLogger("signoff.agents")

_ENDED = frozenset(s.value for s in TaskStatus if s.ended)


def stop_task(agency: Agency, task_id: str, *, by: Principal, reason: str,
              supervises: bool) -> Outcome:
    """Stop task `task_id` as `by` (`supervises`: whether they supervise agents), saying
    `reason` (may be ""); where it then stands. `UnknownId` for a task that is not there or
    that `by` may not stop, in the same words; `AgentRefused` for one that has ended, or that
    a process is stepping now; `ReasonRefused` for a reason that cannot be kept."""
    why = said_why(reason, what="The reason a task is stopped", needed=False)
    with agency.database.reading() as db:
        task = repo.load_task(db, task_id)
    if task is None or not _may_stop(agency, task, by, supervises=supervises):
        raise UnknownId(f"There is no task with id {task_id} that {by.name} may stop: it is "
                        "stopped by whoever the work is for, the sponsor of an agent's work for "
                        "nobody, or a person who supervises agents.")
    if task.status in _ENDED:
        raise AgentRefused(f"Task {task_id} has already ended ({task.status}): there is nothing "
                           "to stop.")
    said = f"{by.name} stopped it{': ' if why else ''}{why.rstrip('.')}."
    if not agency.loop.end_given(task_id, said, withdraw=True):
        raise AgentRefused(
            f"Task {task_id} is being stepped by a process now, and was not stopped under it: "
            "stop that process (Ctrl-C; a worker stops at SIGTERM), or stop the task again once "
            "its step is done.")
    runner = agency.loop.runner
    if runner is not None:  # (a workflow waiting on its decisions ends with it)
        try:
            runner.nudge(task_id)
        except Exception as error:  # the task is stopped all the same
            log.warning("Task %s is stopped; its runner could not be told (%s): what steps it "
                        "ends as it next reads it.", task_id, error)
    return agency.loop.outcome(task_id)


def may_stop(agency: Agency, task_id: str, *, by: Principal, supervises: bool) -> bool:
    """Whether `by` may stop task `task_id` (see `stop_task`), had it not ended."""
    with agency.database.reading() as db:
        task = repo.load_task(db, task_id)
    return task is not None and _may_stop(agency, task, by, supervises=supervises)


def _may_stop(agency: Agency, task: repo.TaskRow, by: Principal, *, supervises: bool) -> bool:
    return not by.disabled and (supervises or task.for_id == by.id or (
        task.for_id is None and task.agent in agency.sponsored_by(by)))
