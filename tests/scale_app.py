"""The app of the Temporal scale runs (``bench/temporal_scale.py``, ``bench/bench_temporal.py``):
many tasks, each tending a job of its own, whose model asks — two calls at once in each of two
turns — for record-only and outside calls, alone and proposed.

Every call carries a tag unique to its task and place, and leaves a trace the check reads
without the library: a record-only run a `Mark` row (in the same transaction), an outside run a
line in a file. A task's plan (its script) follows from its job's number alone, so that any
process — a Temporal worker started anywhere — makes the same model for it.
"""

from __future__ import annotations

import random
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Annotated, Any, Literal

from pydantic import BaseModel
from sqlalchemy import String, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from signoff import Agent, App, Permits, Price, Provided, Skill, Temporal, allow, policy
from signoff.store.tables import tasks
from signoff.testing import ScriptedModel, says

NOOR = "noor@scale.example"
KINDS = ("note", "post", "lift", "invoice")
"""Record-only alone, outside alone, record-only proposed, outside proposed (a call after an
outside result is proposed too: its arguments may have come from outside content)."""
PRICE = Price(input_per_mtok=1.0, output_per_mtok=1.0)


class Job(BaseModel):
    """What a task works on: its number, and its plan."""

    number: int
    plan: Literal["tend", "one_proposal", "alone"] = "tend"
    """``tend``: two turns of two calls each (`plan`); ``one_proposal``: one proposed call;
    ``alone``: one turn of two record-only calls that run alone."""


class Report(BaseModel):
    """What the model hands back."""

    summary: str


def build(url: str, outbox: Path, *, runner: Temporal | None = None) -> SimpleNamespace:
    """The app on database `url`, its outside calls writing lines under `outbox`."""
    app = App("scale", database=url, key=b"s" * 32, runner=runner)
    anyone = policy.anyone

    class Mark(app.Record):  # type: ignore[name-defined, misc]
        """One row per record-only run: its tag."""

        tag: Mapped[str] = mapped_column(String(60))
        __security__ = [allow("read", "create", when=anyone)]

    @app.action("Note the job")
    def note(tag: str, session: Annotated[Session, Provided("session")]) -> str:
        """Record-only, alone."""
        session.add(Mark(tag=tag))
        return f"Noted {tag}."

    @app.action("Lift the job")
    def lift(tag: str, session: Annotated[Session, Provided("session")]) -> str:
        """Record-only, proposed."""
        session.add(Mark(tag=tag))
        return f"Lifted {tag}."

    @app.action("Post a letter")
    def post(tag: str) -> str:
        """Outside, alone: a line in letters.txt."""
        with open(outbox / "letters.txt", "a", encoding="utf-8") as file:
            file.write(tag + "\n")
        return f"Posted {tag}."

    @app.action("Send an invoice")
    def invoice(tag: str) -> str:
        """Outside, proposed: a line in invoices.txt."""
        with open(outbox / "invoices.txt", "a", encoding="utf-8") as file:
            file.write(tag + "\n")
        return f"Sent {tag}."

    class TendJob(Skill[Job, Report]):
        """Tend one job."""

        description = "Tend the job."
        tools = [note, lift, post, invoice]

        def brief(self, job: Job) -> str:
            return f"Tend job {job.number}."

    class Tender(Agent):
        """Tends jobs."""

        purpose = "You tend jobs."
        skills = [TendJob()]
        may = Permits(alone=[note, post])
        roles = ["tender"]

    noor = app.people.find(NOOR) or app.people.add(NOOR, "Noor", roles=["manager"])
    app.add_agent(Tender, sponsor=noor)
    app.agent(Tender)  # its account made now, not by several processes at once
    actions = {"note": note, "lift": lift, "post": post, "invoice": invoice}
    return SimpleNamespace(app=app, Mark=Mark, Tender=Tender, TendJob=TendJob, noor=noor,
                           actions=actions, outbox=outbox)


def plan(number: int) -> list[list[tuple[str, str]]]:
    """Job `number`'s two turns of two calls each: (kind, tag)."""
    rng = random.Random(number)
    return [[(kind, f"j{number}t{turn}p{position}-{kind}")
             for position, kind in enumerate(rng.sample(KINDS, 2))] for turn in range(2)]


def model(shop: SimpleNamespace, job: Job | int) -> ScriptedModel:
    """The scripted model of `job` (by number: a ``tend`` job)."""
    job = job if isinstance(job, Job) else Job(number=job)
    number = job.number
    calls = plan(number) if job.plan == "tend" else (
        [[("lift", f"j{number}-lift")]] if job.plan == "one_proposal"
        else [[("note", f"j{number}-a"), ("note", f"j{number}-b")]])
    turns = [says.tools(*[says.tool(shop.actions[kind], tag=tag) for kind, tag in turn_calls],
                        why=f"Turn {turn + 1} of job {number}.")
             for turn, turn_calls in enumerate(calls)]
    return ScriptedModel(*turns, says.hand_back(Report(summary=f"Job {number} tended.")),
                         price=PRICE)


def model_for(shop: SimpleNamespace) -> Any:
    """`model_for(agent, task)` for a worker: the model of the task's job, read from its row."""
    def made(_agent: str, task_id: str) -> ScriptedModel | None:
        with shop.app.database.connect() as db:
            subject = db.execute(select(tasks.c.subject_json).where(tasks.c.id == task_id)
                                 ).scalar()
        return model(shop, Job.model_validate(subject)) if subject else None
    return made


def start(shop: SimpleNamespace, job: Job | int) -> str:
    """Start `job`'s task (by number: a ``tend`` job); its id."""
    job = job if isinstance(job, Job) else Job(number=job)
    return shop.app.agent(shop.Tender).do(shop.TendJob(), job, model=model(shop, job)).task


def serve(url: str, address: str, queue: str, outbox: Path) -> None:
    """A worker process of the scale app: a Temporal worker, until it is stopped."""
    shop = build(url, outbox, runner=Temporal(address=address, task_queue=queue))
    shop.app.temporal_worker(model_for=model_for(shop), stalled_after=timedelta(seconds=2)).run()


def spawn_worker(url: str, address: str, queue: str, outbox: Path, log: Path
                 ) -> subprocess.Popen[bytes]:
    """Start a worker process (`serve`), its output appended to `log`."""
    with open(log, "ab") as out:
        return subprocess.Popen([sys.executable, __file__, url, address, queue, str(outbox)],
                                stdout=out, stderr=subprocess.STDOUT)


def lines(path: Path) -> list[str]:
    """The lines outside calls left in `path`."""
    return path.read_text().splitlines() if path.exists() else []


if __name__ == "__main__":  # a worker process: URL ADDRESS QUEUE OUTBOX
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    serve(sys.argv[1], sys.argv[2], sys.argv[3], Path(sys.argv[4]))
