"""A task's model named by spec (``openai:gpt-4o-mini``, a price), kept with the task so that
another process — ``signoff worker`` after a decision made elsewhere, or a restart — can make
the same model again and go on; and why it could not, reported once.

A model given as an object (a `ScriptedModel`, a client built in code) cannot be made again
by another process: a task started with one goes on only in the process that has it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import select, update

from signoff.agents.repository import Executor
from signoff.models.base import Model, Price
from signoff.store.tables import task_models, tasks

__all__ = ["GIVEN", "ModelSpec", "given_from_outside", "problems", "record", "recorded", "report",
           "where_it_goes_on"]

GIVEN = " (its turns given by a client)"
"""How the model of a task whose turns a client gives is named, after the client's name: a
worker never steps such a task with a model of its own, and no model is asked for its turns."""


def given_from_outside(model_name: str) -> bool:
    """Whether a task's model (by the name stored with it) is a client giving its turns."""
    return model_name.endswith(GIVEN)


def where_it_goes_on(db: Executor, task_id: str, model_name: str, *, declared: bool) -> str:
    """Where a task goes on that a decision in this process let go on, and this process did
    not take up (it has no model for the task, or another process is stepping it), in words:
    at its client's next call (a client gives its turns); in a worker, which can make its model
    again (named by spec, or declared by its agent: `declared`); else only where its model,
    given in code, is at hand."""
    if given_from_outside(model_name):
        return ("It goes on at its MCP client's next call: the client gives the task's turns, "
                "and no worker steps it.")
    spec = recorded(db, task_id)
    if declared or (spec is not None and spec.spec):
        return ("It goes on in a worker that can make its model (`signoff worker`): this process "
                "did not take it up (it has no model for the task, or another process is "
                "stepping it).")
    return ("It goes on only where its model is at hand: it was started with a model given in "
            "code, which no worker can make, and its agent declares none. Go on with it in code, "
            "with the model made again: app.agent(...).resume(task, model=...).")


@dataclass(frozen=True, kw_only=True)
class ModelSpec:
    """A model named in words, which any process can make: ``ModelSpec(spec="openai:gpt-4o-mini")``."""

    spec: str
    """``provider:name`` or ``openai-compatible:name@URL`` (see `signoff.models.choose`)."""
    price: Price | None = None
    """Its price, when given (it wins over the price table)."""
    timeout: float | None = None
    """The longest wait, in seconds, for an answer or its next piece (None: the model's own
    default); a slow model of one's own may need more. Kept with the task, as the rest is."""
    total_timeout: float | None = None
    """The longest one call may take in all, its retries included (None: the model's own
    default)."""

    def make(self) -> Model:
        """The model; `ModelNotConfigured` saying what to set or install when it cannot be made
        here (no key, no extra, a spec that names no model)."""
        from signoff.models.choose import model_from
        from signoff.models.errors import ModelNotConfigured

        model = model_from(self.spec, price=self.price, timeout=self.timeout,
                           total_timeout=self.total_timeout)
        if model is None:
            raise ModelNotConfigured(f"“{self.spec}” names no model an agent can work with: name "
                                     "a provider's, e.g. openai:gpt-4o-mini.")
        return model

    @property
    def words(self) -> str:
        """The spec, with its price when given."""
        if self.price is None:
            return self.spec
        return f"{self.spec} at ${self.price.input_per_mtok:g}/${self.price.output_per_mtok:g} " \
               "per million tokens in/out"


def record(db: Executor, task_id: str, spec: ModelSpec) -> None:
    """Keep `spec` as the model of task `task_id`."""
    price = spec.price
    db.execute(task_models.insert().values(
        task_id=task_id, spec=spec.spec, problem="",
        input_per_mtok=price.input_per_mtok if price else None,
        output_per_mtok=price.output_per_mtok if price else None,
        timeout=spec.timeout, total_timeout=spec.total_timeout,
    ))


def recorded(db: Executor, task_id: str) -> ModelSpec | None:
    """The spec task `task_id` was started with, or None (a model given as an object)."""
    row = db.execute(select(task_models).where(
        task_models.c.task_id == task_id)).first()
    if row is None:
        return None
    m = row._mapping
    price = None if m["input_per_mtok"] is None else Price(
        input_per_mtok=m["input_per_mtok"], output_per_mtok=m["output_per_mtok"])
    return ModelSpec(spec=m["spec"], price=price, timeout=m["timeout"],
                     total_timeout=m["total_timeout"])


def report(db: Executor, task_id: str, problem: str) -> bool:
    """Keep why task `task_id` cannot go on here (`problem`), as of now; False when that was
    already reported, so that it is told once, not at every pass."""
    row = db.execute(select(task_models.c.problem).where(
        task_models.c.task_id == task_id)).first()
    now = datetime.now(UTC)
    if row is None:
        db.execute(task_models.insert().values(
            task_id=task_id, spec="", problem=problem, reported_at=now))
    else:  # as of now, told or not: it holds after the task's last write (see `problems`)
        db.execute(update(task_models).where(
            task_models.c.task_id == task_id).values(problem=problem, reported_at=now))
    return row is None or row[0] != problem


def problems(db: Executor, task_ids: Iterable[str]) -> dict[str, str]:
    """Why each of these tasks could not go on when last tried, for those that could not and
    have not gone on since (nothing wrote the task after it was reported: another process that
    has its model may have stepped it meanwhile)."""
    wanted = list(task_ids)
    if not wanted:
        return {}
    rows = db.execute(select(task_models.c.task_id, task_models.c.problem).join(
        tasks, tasks.c.id == task_models.c.task_id).where(
        task_models.c.task_id.in_(wanted), task_models.c.problem != "",
        task_models.c.reported_at >= tasks.c.updated_at))
    return {r[0]: r[1] for r in rows}
