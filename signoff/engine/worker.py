"""The in-process worker: passes proposals' deadlines, and picks up tasks that can go on (after a
decision made elsewhere, a deadline, or a restart) and steps them until they wait or end."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import datetime, timedelta

from sqlalchemy import select

from signoff.agents import holds, model_specs, runs
from signoff.agents import repository as repo
from signoff.agents.agency import Agency, own_model
from signoff.agents.proposals import ProposalStatus
from signoff.agents.tasks import TaskStatus
from signoff.agents.turns import given_from_outside
from signoff.exceptions import UserError
from signoff.models.base import Model
from signoff.models.errors import ModelError
from signoff.store.tables import proposals, tasks

__all__ = ["STUCK_AFTER", "Worker", "looked"]

log = logging.getLogger("signoff.worker")

STUCK_AFTER = timedelta(minutes=5)
"""How long an approved call may go without reporting back before a worker takes its process
for stopped."""


class Worker:
    """Steps the app's tasks that can go on. ``model_for(agent_name, task_id)`` gives the model
    a task goes on with; when it returns None, the task goes on with the model it was started
    with by spec (a `ModelSpec`, or a model named in words), else its agent's own."""

    def __init__(self, agency: Agency, *, model_for: Callable[[str, str], Model | None]) -> None:
        self._agency = agency
        self._model_for = model_for
        self._unable: set[str] = set()
        """Tasks this worker has no model for (reported once)."""
        self._stepping: str | None = None

    @property
    def stepping(self) -> str | None:
        """The id of the task this worker is stepping now, else None (between tasks, or while
        it settles runs and passes deadlines). A step cut off by an exception (Ctrl-C's
        KeyboardInterrupt) leaves it naming that task, until the worker steps again: whoever
        stopped the worker can say which task was cut off. That task stays Running, its hold
        let go (or, when that could not be written, lapsing), for a worker to go on with."""
        return self._stepping

    def recover(self, *, older_than: timedelta = timedelta(0)) -> int:
        """Settle what a stopped process left half done: approved calls whose runner is gone
        (`signoff.agents.runs`; one approved before runs were leased, when it was approved
        more than `older_than` ago), and tasks still Waiting since then though nothing of
        theirs waits any more (the last decision was kept, but its process stopped before the
        task went on). How many were settled."""
        cutoff = repo.now() - older_than
        recovered = self.settle_stopped_runs(older_than=older_than)
        pending = select(proposals.c.id).where(
            proposals.c.task_id == tasks.c.id,
            proposals.c.status.in_([ProposalStatus.WAITING.value, ProposalStatus.APPROVED.value]))
        with self._agency.database.connect() as db:  # one query, however many tasks wait
            settled = [r[0] for r in db.execute(
                select(tasks.c.id).where(tasks.c.status == TaskStatus.WAITING.value,
                                         tasks.c.updated_at <= cutoff, ~pending.exists())
            )]
        resumed = 0
        for task_id in settled:
            self._stepping = task_id
            if self._agency.loop.resume_after_decision(task_id) is not TaskStatus.WAITING:
                resumed += 1
            self._stepping = None  # (not in a `finally`: a step cut off leaves it named)
        return recovered + resumed

    def settle_stopped_runs(self, *, older_than: timedelta = timedelta(0),
                            proposal: str | None = None) -> int:
        """Settle the approved calls whose runner is gone (`signoff.agents.runs`; one approved
        before runs were leased, when it was approved more than `older_than` ago): a query or
        an idempotent call runs again, any other is told as of unknown outcome (`Decider.
        recover`). `proposal`: that one's call alone. How many were settled."""
        cutoff = repo.now() - older_than
        with self._agency.database.connect() as db:
            approved = repo.approved_runs(db)
        return sum(1 for run in approved if (proposal is None or run.id == proposal) and (
            runs.gone(run.id, run.run_by, run.run_until, run.decided_at, cutoff)) and (
            self._agency.decider.recover(run)))

    def tell_untold(self, *, older_than: timedelta = timedelta(0),
                    now: datetime | None = None) -> int:
        """Tell the deciders of the waiting proposals a stopped process left untold (put, or
        escalated, to them more than `older_than` before `now`, the time by default, and the
        app's handlers of `AgentProposed` not yet called for them: `signoff.agents.telling`),
        each once however many workers look. How many were told."""
        return self._agency.loop.telling.tell_untold(older_than=older_than, now=now)

    def pass_deadlines(self, *, now: datetime | None = None) -> int:
        """Pass the deadlines of the proposals due by `now` (the time, by default): each is
        withdrawn (its task goes on) or put to its next decider. How many were."""
        passed = self._agency.deadlines.pass_due(now=now)
        return sum(1 for each in passed if each.changed)

    def run_once(self, *, now: datetime | None = None) -> int:
        """Pass the deadlines due by `now` (the time, by default), then step every running
        task until it waits or ends; how many tasks were stepped (a task with no model this
        worker can make is reported once, and left Running)."""
        self.pass_deadlines(now=now)
        return self.step_running()

    def step_running(self, stop: Callable[[], bool] = lambda: False) -> int:
        """Step every running task this worker can until it waits or ends; how many it stepped
        (not those another process held, or had ended, by the time it came to them). Once
        `stop` says so, no other task is taken up (a SIGTERM waited for every running task)."""
        self._stepping = None
        with self._agency.database.connect() as db:
            running = repo.tasks_in(db, TaskStatus.RUNNING.value)
        stepped = 0
        for task_id in running:
            if stop():
                break
            if task_id in self._unable:
                continue
            with self._agency.database.connect() as db:
                task = repo.load_task(db, task_id)
            if task is None or task.status != TaskStatus.RUNNING.value or holds.held_by_another(
                    task.holder, task.held_until, task.id) or not self.ready(task):
                continue
            self._stepping = task_id
            outcome = self._agency.loop.run(task_id)
            self._stepping = None  # (not in a `finally`: a step cut off leaves it named)
            if outcome.status is TaskStatus.RUNNING:  # left to another that took it meanwhile?
                with self._agency.database.connect() as db:
                    task = repo.load_task(db, task_id)
                if task is not None and holds.held_by_another(task.holder, task.held_until,
                                                              task.id):
                    continue
            stepped += 1
        return stepped

    def ready(self, task: repo.TaskRow, *, tell: bool = True) -> bool:
        """Whether this process can step `task`: its model is at hand, made here if need be
        (never for a task whose turns a client gives over MCP: no model of ours does). `tell`:
        when it cannot, keep why with the task and log it (not when another process is
        about to take its step: a Temporal workflow's home)."""
        if given_from_outside(task.model):
            return False
        if task.id not in self._agency.loop.models:
            model = self._model(task.id, task.agent, tell=tell)
            if model is None:
                return False
            self._agency.loop.models[task.id] = model
        return True

    def _model(self, task_id: str, agent: str, *, tell: bool = True) -> Model | None:
        """The model a task goes on with: `model_for`'s, else the one it was started with (by
        spec), else its agent's own. None when this worker has none: why is kept with the
        task (`signoff tasks` shows it) and logged once, not at every pass."""
        given = self._model_for(agent, task_id)
        if given is not None:
            return given
        with self._agency.database.connect() as db:
            spec = model_specs.recorded(db, task_id)
        if spec is not None and spec.spec:
            try:
                return spec.make()
            except ModelError as error:
                problem = f"Its model {spec.words} cannot be made here: {error.message}"
        else:
            try:
                own = own_model(self._agency.registered_as(agent).agent)[0]
            except (ModelError, UserError) as error:
                why = error.message if isinstance(error, ModelError) else str(error)
                own, problem = None, f"Its agent's model cannot be made here: {why}"
            else:
                problem = ""
            if own is not None:
                return own
            problem = problem or ("It was started with a model given in code, which no other process can "
                       "make, and its agent declares none. Start tasks with `signoff run … "
                       "--model SPEC`, or in code with a `ModelSpec` (as `model`, or as "
                       "`model_spec` beside the model made from it), or give the agent a model, "
                       "for a worker to go on with.")
        if not tell:
            return None
        self._unable.add(task_id)
        with self._agency.database.connect() as db:
            first_time = model_specs.report(db, task_id, problem)
        if first_time:
            log.warning("Task %s stays Running: %s", task_id, problem)
        return None

    def run_forever(
        self, *, every: float = 1.0, stop: Callable[[], bool] = lambda: False,
        recover_every: float = 60.0, stuck_after: timedelta = STUCK_AFTER,
        tell: Callable[[str], None] | None = None,
    ) -> None:
        """Keep stepping tasks as they become ready, polling every `every` seconds; every
        `recover_every` seconds, settle what a stopped process left half done (a task left
        Waiting on nothing once `stuck_after`, 5 minutes unless given, has passed: work younger
        than that may still be going on in a live process). `tell`, when given, is told in a
        sentence what each look that did something did. Once `stop` says so, it ends when the
        task it steps has waited or ended, taking up no other."""
        recovered_at = time.monotonic()
        settled = self.recover(older_than=stuck_after)
        told = self.tell_untold(older_than=stuck_after)
        while not stop():
            if time.monotonic() - recovered_at >= recover_every:
                recovered_at = time.monotonic()
                settled += self.recover(older_than=stuck_after)
                told += self.tell_untold(older_than=stuck_after)
            passed = self.pass_deadlines()
            stepped = self.step_running(stop)
            if tell is not None and (settled or passed or stepped or told):
                tell(looked(settled, passed, stepped, told))
            settled = told = 0
            if stepped == 0:  # (waiting in short spells: a stop asked is heard within one)
                until = time.monotonic() + every
                while not stop() and (left := until - time.monotonic()) > 0:
                    time.sleep(min(left, 0.5))


def looked(settled: int, passed: int, stepped: int, told: int = 0) -> str:
    """What one look of a worker did, in a sentence (`told`: of the proposals a stopped
    process left untold, said only when there were some)."""
    untold = f"; told the deciders of {told} proposal(s) nobody had told them of" if told else ""
    return (f"Settled {settled} interrupted approval(s); passed {passed} deadline(s); "
            f"stepped {stepped} task(s){untold}.")
