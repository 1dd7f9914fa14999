"""Two databases that hold an app of one name ("shop") on one Temporal server, each with
workers of its own in processes of their own: neither's workers take the other's workflows
(each database's queue is its own), a worker that finds a task not in its database does not end
the workflow of another database's task, and workflows started on the queue signoff named from
the app's name alone (before databases had an id) are moved to the database's own."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

from temporalio.client import Client, WorkflowExecutionStatus

from signoff import ProposalStatus, TaskStatus, Temporal
from signoff.store.identity import database_id
from tests import shop_twins_app
from tests.temporal_server import DevServer

ROOT = Path(__file__).resolve().parent.parent
SIGNOFF = Path(sys.executable).parent / "signoff"


def _until(check: Callable[[], object], what: str) -> None:
    deadline = time.monotonic() + 90
    while not check():
        assert time.monotonic() < deadline, f"{what} did not happen within 90 seconds"
        time.sleep(0.1)


@contextmanager
def _worker(url: str, address: str, log: Path, queue: str = "") -> Iterator[None]:
    """`signoff worker --temporal ADDRESS` of the shop on `url`, in a process of its own."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SIGNOFF_TEMPORAL")}
    env.update(TWINS_DATABASE=url, **({"SIGNOFF_TEMPORAL_QUEUE": queue} if queue else {}))
    with log.open("ab") as out:
        process = subprocess.Popen([str(SIGNOFF), "worker", "--app", "tests/shop_twins_app.py",
                                    "--temporal", address], cwd=ROOT, env=env, stdout=out,
                                   stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        yield
    finally:
        process.terminate()
        process.wait(timeout=60)


def _runs(address: str, workflow_id: str) -> list[tuple[WorkflowExecutionStatus | None, str]]:
    """Each run of the workflow: its status and task queue."""
    async def listed() -> list[tuple[WorkflowExecutionStatus | None, str]]:
        client = await Client.connect(address)
        return [(w.status, w.task_queue) async for w in client.list_workflows(
            f'WorkflowId = "{workflow_id}"')]
    return asyncio.run(listed())


def _shop(url: str, address: str, queue: str = "") -> shop_twins_app.SimpleNamespace:
    return shop_twins_app.build(url, Temporal(address=address, task_queue=queue,
                                              settle_within=timedelta(seconds=2)))


def _waits_then_done(shop: shop_twins_app.SimpleNamespace, task: str) -> None:
    """The task waits on Noor's yes to its order; given, the task ends done."""
    _until(lambda: shop.app.outcome(task).status is TaskStatus.WAITING, "the order proposed")
    (proposal,) = shop.app.proposals(task=task)
    assert shop.app.approve(proposal, by=shop.noor).status is ProposalStatus.DONE
    _until(lambda: shop.app.outcome(task).status is TaskStatus.DONE, "the task's end")


def test_two_databases_of_one_app_name_have_queues_of_their_own(
    temporal_server: DevServer, tmp_path: Path,
) -> None:
    """Shop A's worker runs; shop B (same name, another file) starts a task: no worker polls
    B's queue, and B is told so; A's worker does not take B's workflow (it ended it as gone:
    B's task was left Running with no workflow, and B was told the workers had it). B's own
    worker then takes it, and a yes ends it."""
    address = temporal_server.address
    a = _shop(f"sqlite:///{tmp_path / 'a.db'}", address)
    b = _shop(f"sqlite:///{tmp_path / 'b.db'}", address)
    try:
        b_queue = f"signoff-shop-{database_id(b.app.database)[:8]}"
        with _worker(a.app.database.url, address, tmp_path / "a.log"):
            _until(lambda: a.app.agent(a.Clerk).do(a.Ordering(), None).status
                   is TaskStatus.WAITING, "A's worker stepping A's task")  # A's worker polls
            started = b.app.agent(b.Clerk).do(b.Ordering(), None)
            assert started.status is TaskStatus.RUNNING
            assert started.problem.startswith(
                f"No worker of this app polls its Temporal queue {b_queue} at {address}")
            assert _runs(address, started.task) == [(WorkflowExecutionStatus.RUNNING, b_queue)]
            with _worker(b.app.database.url, address, tmp_path / "b.log"):
                _waits_then_done(b, started.task)
        assert "is not in this app's database" not in (tmp_path / "a.log").read_text()
        assert (a.app.temporal_worker().queue, b.app.temporal_worker().queue) == (
            f"signoff-shop-{database_id(a.app.database)[:8]}", b_queue)
    finally:
        a.app.database.dispose()
        b.app.database.dispose()


def test_a_worker_does_not_end_the_workflow_of_another_databases_task(
    temporal_server: DevServer, tmp_path: Path,
) -> None:
    """Two databases given one queue: A's worker, the only one, takes B's workflow, does not
    find the task, and does not end the workflow (it ended it as gone): it starts it again
    (continued as new) for another worker of the queue; once A's stops and B's runs, B's task
    goes on, and a yes ends it."""
    address = temporal_server.address
    queue = f"twins-{uuid.uuid4().hex[:8]}"
    a = _shop(f"sqlite:///{tmp_path / 'a.db'}", address, queue)
    b = _shop(f"sqlite:///{tmp_path / 'b.db'}", address, queue)
    try:
        with _worker(a.app.database.url, address, tmp_path / "a.log", queue):
            _until(lambda: a.app.agent(a.Clerk).do(a.Ordering(), None).status
                   is TaskStatus.WAITING, "A's worker stepping A's task")
            started = b.app.agent(b.Clerk).do(b.Ordering(), None)

            def started_again() -> bool:
                runs = [status for status, _ in _runs(address, started.task)]
                assert WorkflowExecutionStatus.COMPLETED not in runs, runs
                return WorkflowExecutionStatus.CONTINUED_AS_NEW in runs

            _until(started_again, "B's workflow started again by A's worker")
        assert b.app.outcome(started.task).status is TaskStatus.RUNNING
        assert "is not in this app's database: its workflow names another database" in (
            tmp_path / "a.log").read_text()
        with _worker(b.app.database.url, address, tmp_path / "b.log", queue):
            _waits_then_done(b, started.task)
    finally:
        a.app.database.dispose()
        b.app.database.dispose()


def test_a_workflow_on_the_queue_named_from_the_app_alone_is_moved_to_the_databases_own(
    temporal_server: DevServer, tmp_path: Path,
) -> None:
    """A task whose workflow an earlier signoff started on ``signoff-shop`` (which no worker
    polls now) is started again on its database's queue by the first sweep of a worker of that
    database, and a yes ends it; the old run is ended, and a workflow there of a task that is
    not in this database is left alone."""
    from tests.test_temporal import _closed_port

    address = temporal_server.address
    url = f"sqlite:///{tmp_path / 'b.db'}"
    recorded = _shop(url, f"127.0.0.1:{_closed_port()}")  # recorded, not started
    task = recorded.app.agent(recorded.Clerk).do(recorded.Ordering(), None).task
    recorded.app.database.dispose()
    others = str(uuid.uuid4())

    async def started_as_before() -> None:  # as signoff started them, before databases had ids
        client = await Client.connect(address)
        for workflow_id in (task, others):
            await client.start_workflow("SignoffTask", args=[workflow_id, {
                "local_activities": True}], id=workflow_id, task_queue="signoff-shop",
                start_signal="go_on")

    asyncio.run(started_as_before())
    shop = _shop(url, address)
    try:
        with _worker(url, address, tmp_path / "b.log"):
            _waits_then_done(shop, task)
        queue = f"signoff-shop-{database_id(shop.app.database)[:8]}"
        assert sorted(_runs(address, task), key=str) == sorted([
            (WorkflowExecutionStatus.TERMINATED, "signoff-shop"),
            (WorkflowExecutionStatus.COMPLETED, queue)], key=str)
        assert _runs(address, others) == [(WorkflowExecutionStatus.RUNNING, "signoff-shop")]
    finally:
        shop.app.database.dispose()
