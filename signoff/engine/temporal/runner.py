"""The Temporal runner, as the app's processes see it: a task that may go on (started, or
decided) is handed to its workflow, with a signal-with-start, and the caller waits (a while)
until the task waits or ends, as it would in-process.

The library is synchronous and temporalio's client is not: the client lives on an event loop of
its own thread (`Bridge`), and calls cross over to it.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import functools
import gc
import logging
import re
import threading
import uuid
import weakref
from collections.abc import Coroutine, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from sqlalchemy import select
from temporalio import activity
from temporalio.api.enums.v1 import TaskQueueType
from temporalio.api.taskqueue.v1 import PollerInfo, TaskQueue
from temporalio.api.workflowservice.v1 import DescribeTaskQueueRequest
from temporalio.client import (
    Client,
    WorkflowExecutionStatus,
    WorkflowHandle,
    WorkflowUpdateFailedError,
    WorkflowUpdateRPCTimeoutOrCancelledError,
)
from temporalio.common import WorkflowIDConflictPolicy
from temporalio.runtime import LoggingConfig, Runtime, TelemetryConfig, TelemetryFilter
from temporalio.service import RetryConfig, RPCError, RPCStatusCode

from signoff.agents import holds, model_specs
from signoff.agents import repository as repo
from signoff.agents.agency import Agency
from signoff.agents.tasks import Outcome, TaskStatus
from signoff.agents.turns import given_from_outside
from signoff.engine.temporal import Temporal
from signoff.engine.temporal.workflow import SETTLED, TaskWorkflow, WorkflowOptions
from signoff.exceptions import SignoffError
from signoff.store import points
from signoff.store.identity import database_id
from signoff.store.tables import tasks

__all__ = ["Bridge", "TemporalRunner", "Unreachable", "connect", "polled_lately"]

log = logging.getLogger("signoff.temporal")


T = TypeVar("T")

RPC_TIMEOUT = timedelta(seconds=5)
"""How long one call to the server may take before it is taken for unreachable."""

CALLS_RETRIED = RetryConfig(initial_interval_millis=100, multiplier=2.0, max_interval_millis=1000,
                            max_elapsed_time_millis=3000, max_retries=4)
"""How the runner's client tries a call again that the server did not answer (it went, or
refused the connection): a few times within a second or two — a connection that broke a moment
ago — then the caller is told. With the client's own (ten tries over ten seconds), a yes given
while the server was down took that long to say so; the decision stands all the same, its task
recorded, and a worker's sweep starts it once the server answers. (A worker's own client keeps
the client's retries: nobody waits on it.)"""


POLLED_WITHIN = timedelta(minutes=2)
"""How recently a poller must have polled a queue to be taken for a worker that is there: a live
worker's long poll of an idle queue lasts a minute or so (then it polls again), and the server
lists a stopped worker's poller for minutes after it stopped."""


WORKFLOW_TASK_TIMEOUT = timedelta(seconds=5)
"""How long a worker may take over one workflow task (a step run as a local activity keeps it
alive for longer) before another worker is given it: how soon a stopped worker's task moves on."""


_CORE_LOGS = TelemetryFilter(core_level="WARN", other_level="ERROR").formatted() + (
    ",temporalio_client::retry=off,temporalio_sdk_core::worker::heartbeat=off")
"""What the Temporal client's core (Rust) writes to stderr: its warnings, but not its retries of
calls to a server that does not answer (several a second while it is down) nor its failures to
send the worker's heartbeat to it, which the worker tells in sentences of its own. (Its logs are
not handed to Python's logging: a handing on during the interpreter's shutdown aborts the
process.)"""


@functools.cache
def _runtime() -> Runtime:
    """The Temporal runtime of signoff's clients: one per process (each has threads of its
    own), its core's logs filtered by `_CORE_LOGS`."""
    return Runtime(telemetry=TelemetryConfig(logging=LoggingConfig(filter=_CORE_LOGS)))


async def connect(config: Temporal, *, retry: RetryConfig | None = None) -> Client:
    """A client of the server `config` names (`RuntimeError` when it cannot be reached), which
    tries a call again as `retry` says (as the Temporal client does when None). A connection
    not made within `RPC_TIMEOUT` is not: to an address whose packets go nowhere (a firewall
    that drops them, a host gone), the client waited for the system's own timeout, minutes —
    and the caller of a yes, or of `agent.do`, was told that the task goes on in the workers."""
    return await Client.connect(config.address, namespace=config.namespace, runtime=_runtime(),
                                retry_config=retry, connect_timeout=RPC_TIMEOUT)


class Unreachable(SignoffError):
    """The Temporal server could not be reached, or refused the call: which, why and what to
    check, in a sentence (the client's own report, often a Rust error's text, is kept in
    `reason`, and told in words)."""

    def __init__(self, address: str, reason: str, *, reached: bool = False) -> None:
        self.address = address
        """The server's HOST:PORT."""
        self.reason = reason
        """What the client reported, as it reported it."""
        self.reached = reached
        """Whether the server answered (and refused the call)."""
        if reached:
            told = (f"Temporal at {address} refused the call: {_in_words(reason)}. Check the "
                    "namespace the app names (Temporal(namespace=...)) and what the server allows.")
        else:
            told = (f"Temporal at {address} could not be reached: {_in_words(reason)}. Check "
                    "that the server runs (to try signoff out: temporal server start-dev) and "
                    "that --temporal (or SIGNOFF_TEMPORAL) names it.")
        super().__init__(told)
        self.add_note(f"The Temporal client reported: {reason}")  # shown with a traceback

    def __reduce__(self) -> tuple[Any, ...]:
        return (_unreachable, (self.address, self.reason, self.reached))


def _unreachable(address: str, reason: str, reached: bool) -> Unreachable:
    return Unreachable(address, reason, reached=reached)


_CLOSED_UNDER_THE_CALL = ("transport error", "operation was canceled")
"""What the client reports of a call whose connection was closed under it (the server going
down, or something that is not Temporal's gRPC), by the error its transport hit: a status of
Unknown or Cancelled with these words — not the server's answer."""
_NOT_ANSWERED = (*_CLOSED_UNDER_THE_CALL, "timeout expired")
"""What the client reports, as a status of Unknown or Cancelled, of a call the server did not
answer: its connection closed under it, or no answer within the call's timeout (a server that
hangs: it takes connections and answers nothing)."""

_TOLD = (
    (("connection refused", "os error 111", "code: 111"),
     "nothing answers there, the connection was refused"),
    (("dns error", "failed to lookup", "name or service not known", "nodename nor servname"),
     "its host name could not be resolved"),
    (("no route to host", "os error 113"), "there is no route to that host"),
    (("network is unreachable", "os error 101"), "the network is unreachable"),
    (("certificate", "tls", "ssl"), "the TLS handshake failed (check the server's certificate)"),
    (("h2 protocol error", "http2", "frame with invalid size", "invalid content-type"),
     "something answers there, but not Temporal's gRPC (is it the web UI's port?)"),
    (("timed out", "timedout", "timeout", "deadline"), "it did not answer in time"),
    # A call to a server that went away after the client connected reports only this (its
    # cause, the refusal, is not in the message): last, so that a cause named wins.
    (("tcp connect error",), "nothing answers there, the connection was refused"),
    # A connection closed under the call (the server stopping, or not Temporal's gRPC).
    (_CLOSED_UNDER_THE_CALL, "the connection was closed as the call was made"),
)
"""What the client's report says, by the words it holds, first match wins."""


def _in_words(reason: str) -> str:
    """The Temporal client's report of a failed call, in words: a known failure as a phrase,
    a server's own sentence as it wrote it, and a Rust error's text as a phrase that names
    none of it (it stays in `Unreachable.reason`)."""
    low = reason.lower()
    for words, told in _TOLD:
        if any(w in low for w in words):
            return told
    said = reason.strip().splitlines()[0].removeprefix("Failed client connect: ") if (
        reason.strip()) else ""
    status = re.search(r'Status \{ code: \w+, message: "([^"]+)"', said)
    if status:  # a Rust status (a worker's start refused, say): the server's own sentence
        said = status.group(1)
    if not said or "tonic::" in said or "Status {" in said or "Error(" in said:
        return "the connection failed (`signoff --debug …` shows the client's report)"
    said = said.rstrip(". ")
    return said if len(said) <= 200 else said[:197].rstrip() + "..."


_BRIDGES: weakref.WeakSet[Bridge] = weakref.WeakSet()
"""The bridges whose loops run, stopped as the interpreter exits (`_close_bridges`)."""

_RUNNERS: weakref.WeakSet[TemporalRunner] = weakref.WeakSet()
"""The runners of this process, whose clients are let go as the interpreter exits."""


@atexit.register
def _close_bridges() -> None:
    """Stop every bridge's loop, and let the Temporal clients and their runtime go, before the
    interpreter finalizes. Left to finalization, the runtime's core (Rust) shuts its threads
    down as the interpreter is going, and a thread of it that reaches for Python then aborts
    the process ("Fatal Python error: PyGILState_Release"): `signoff worker --once`, a script
    that started a task, exited 134 instead of 0 now and then. Let go here, the core stops
    its threads while Python still answers them."""
    for bridge in list(_BRIDGES):
        bridge.close()
    if not _runtime.cache_info().currsize:
        return
    for runner in list(_RUNNERS):
        runner.let_go()
    _runtime.cache_clear()
    gc.collect()  # (a client in a reference cycle holds the runtime too)


class Bridge:
    """An event loop on a thread of its own, for synchronous code to run coroutines on."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def run(self, coroutine: Coroutine[Any, Any, T], *, timeout: float) -> T:
        """Run `coroutine` on the bridge's loop; its result (`TimeoutError` after `timeout`
        seconds, the coroutine cancelled)."""
        future = asyncio.run_coroutine_threadsafe(coroutine, self._started())
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise TimeoutError(f"{self._name} did not answer within {timeout:g} s") from None

    def _started(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                self._thread = threading.Thread(target=loop.run_forever, name=self._name,
                                                daemon=True)
                self._thread.start()
                self._loop = loop
                _BRIDGES.add(self)
            return self._loop

    def close(self, *, within: float = 5.0) -> None:
        """Stop the loop and wait (at most `within` seconds) for its thread to end; a later
        `run` starts another."""
        with self._lock:
            loop, thread, self._loop, self._thread = self._loop, self._thread, None, None
        if loop is None or thread is None:
            return
        loop.call_soon_threadsafe(loop.stop)
        thread.join(within)


class TemporalRunner:
    """Hands an app's tasks to their workflows on Temporal (see `signoff.agents.runner`)."""

    def __init__(self, agency: Agency, config: Temporal, *, app_name: str) -> None:
        self._agency = agency
        self.config = config
        """The server, namespace and queue."""
        self._app_name = app_name
        self._database_id = ""
        self._bridge = Bridge(f"temporal client of {app_name}")
        _RUNNERS.add(self)
        self._client: Client | None = None
        self._home = uuid.uuid4().hex[:12]
        self.serving: set[int] = set()
        """The workers of this runner that run in this process now (`TemporalWorker.run`), which
        poll `home_queue`."""
        self._signalling = threading.local()

    @property
    def database_id(self) -> str:
        """The id of the app's database (read, or made, the first time it is asked for)."""
        if not self._database_id:
            self._database_id = database_id(self._agency.database)
        return self._database_id

    @property
    def queue(self) -> str:
        """The task queue of the app's workflows and workers (`Temporal.queue_of`)."""
        return self.config.queue_of(self._app_name, self.database_id)

    @property
    def home_queue(self) -> str:
        """The task queue of this process's own (of this runner's app here), which its workers
        poll for the steps of tasks started here with a model given in code (no other process
        can make it): `WorkflowOptions.home`."""
        return f"{self.queue}-at-{self._home}"

    @property
    def legacy_queue(self) -> str | None:
        """The queue named from the app's name alone, before databases had an id, whose
        workflows of this database's tasks `move_from_legacy_queue` moves (None: the same)."""
        return self.config.legacy_queue_of(self._app_name)

    def go_on(self, task_id: str, task: repo.TaskRow | None = None) -> Outcome:
        """Let go of the task here and signal its workflow (starting it if need be); where the
        task stands once it waits or ends, or after `settle_within` (Running). When the server
        cannot be reached the task stays recorded, Running, and the outcome says so: a worker
        of the app starts it once it can (`nudge_stalled`)."""
        points.reached("temporal.handing_on", task=task_id)
        self._let_go(task_id, task)
        self.queue  # noqa: B018 — read here, not on the bridge's loop (it may read the database)
        # Within an activity of the task's own workflow (a deadline passed there), the workflow
        # steps the task next: it is signalled, not waited for (it cannot settle meanwhile).
        # So is a task a worker's sweep woke (`signalling_only`): nobody waits on it there.
        wait = 0.0 if activity.in_activity() or getattr(self._signalling, "on", False) else (
            self.config.settle_within.total_seconds())
        ended = ""
        try:
            ended = self._bridge.run(self._go_on(task_id, wait=wait), timeout=wait + 2 * _seconds(
                RPC_TIMEOUT))
        except Unreachable as unreachable:
            log.warning("Task %s is recorded, not yet on Temporal. %s", task_id, unreachable)
            problem = (f"Temporal at {self.config.address} "
                       f"{'refused the call' if unreachable.reached else 'could not be reached'} "
                       f"({_in_words(unreachable.reason)}). The task is recorded and goes on "
                       "once a worker of this app reaches the server (`signoff worker "
                       f"--temporal {self.config.address}`).")
            # Kept with the task until it is next written (as a step's is): app.outcome, the
            # inbox and `signoff tasks` say it too, not only this caller.
            with self._agency.database.connect() as db:
                model_specs.report(db, task_id, problem)
            return replace(self._agency.loop.outcome(task_id), problem=problem)
        except TimeoutError:
            pass  # it goes on in the workers; the caller hears it is Running
        outcome = self._agency.loop.outcome(task_id)
        if outcome.status is TaskStatus.RUNNING and wait:
            problem = self._still_running(task_id, wait, outcome.problem)
            if ended:
                problem = (f"Its Temporal workflow was {ended} from outside as this waited on it; "
                           "the task goes on from its record in a new run (ending a task's "
                           f"workflow does not stop the task). {problem}")
            return replace(outcome, problem=problem)
        return outcome

    @contextmanager
    def signalling_only(self) -> Iterator[None]:
        """While the block runs, a task this thread lets go on is handed to its workflow without
        waiting for it to wait or end (a worker's sweep: it woke the task, a person did not,
        and waiting `settle_within` for each task it woke kept it from sweeping — and from
        stopping when told to — for as long)."""
        before = getattr(self._signalling, "on", False)
        self._signalling.on = True
        try:
            yield
        finally:
            self._signalling.on = before

    def _still_running(self, task_id: str, waited: float, stuck: str) -> str:
        """Why a task is still Running after `waited` seconds, in words, and what to do when
        no worker of the app polls its queue (the task waits there for one), or the workers
        cannot step it (`stuck`: why, as one of them said)."""
        try:
            polled: bool | None = self._bridge.run(self._polled(), timeout=2 * _seconds(
                RPC_TIMEOUT))
        except Exception:  # only the words depend on it
            log.debug("Temporal at %s: the queue %s could not be described", self.config.address,
                      self.queue, exc_info=True)
            polled = None
        where = f"queue {self.queue} at {self.config.address}"
        if polled is False:
            return (f"No worker of this app polls its Temporal {where}, so the task waits there "
                    "until one does: start one (`signoff worker --app YOUR_APP --temporal "
                    f"{self.config.address}`), with the models the app's agents name (a model "
                    "given to agent.do lives in this process alone).")
        if stuck:
            told = f"This app's Temporal workers ({where}) cannot step the task: {stuck}"
            # Whether a worker runs here is known here (the server lists a stopped one's poll
            # for minutes).
            if task_id in self._agency.loop.models and not self.serving:
                told += (" This process has its model, and runs no Temporal worker of the app "
                         "to take its steps: run one here (`with app.temporal_worker()"
                         ".running():` around the work), and the task goes on in it.")
            return told
        return (f"The task goes on in this app's Temporal workers ({where}); it had neither "
                f"stopped for a decision nor ended after {waited:g} seconds. app.outcome(task) "
                "(or `signoff receipt TASK`) tells where it stands.")

    async def _polled(self) -> bool:
        """Whether a worker polls the app's queue for workflow tasks now (lately)."""
        client = await self.client()
        found = await client.workflow_service.describe_task_queue(DescribeTaskQueueRequest(
            namespace=self.config.namespace, task_queue=TaskQueue(name=self._queue_read()),
            task_queue_type=TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW), timeout=RPC_TIMEOUT)
        return polled_lately(found.pollers, at=datetime.now(UTC))

    def nudge(self, task_id: str) -> None:
        """Signal the task's workflow (starting it if need be), without waiting; `Unreachable`
        when the server cannot be reached."""
        self._bridge.run(self._go_on(task_id, wait=0.0), timeout=2 * _seconds(RPC_TIMEOUT))

    def nudge_stalled(self, *, older_than: timedelta) -> int:
        """Signal the workflow of every task that is Running, was last written more than
        `older_than` ago and is held by nobody now: recorded while the server was unreachable,
        or woken by a decision whose signal was lost (one whose workflow runs on another queue
        is started again on the app's: `_nudge_or_move`). How many.

        A task held by a process of this machine that is gone is held by nobody (as a step
        judges it, `holds.held_by_another`): one whose process was killed after recording it
        Running and before handing it to its workflow (as it was started, or woken by a
        decision) was left for its hold to expire, a minute, while no workflow stepped it."""
        self.queue  # noqa: B018 — read here, not on the bridge's loop (it may read the database)
        cutoff = repo.now() - older_than
        with self._agency.database.connect() as db:
            stalled = db.execute(
                select(tasks.c.id, tasks.c.model, tasks.c.holder, tasks.c.held_until).where(
                    tasks.c.status == TaskStatus.RUNNING.value, tasks.c.updated_at <= cutoff)
            ).all()
        nudged = 0
        for task_id, model, holder, until in stalled:
            if given_from_outside(model) or holds.held_by_another(holder, until, task_id):
                continue  # a client gives its turns over MCP (no workflow steps it), or a
                # holder steps it now
            self._bridge.run(self._nudge_or_move(task_id), timeout=4 * _seconds(RPC_TIMEOUT))
            nudged += 1
        return nudged

    async def _nudge_or_move(self, task_id: str) -> None:
        """Signal the stalled task's workflow; or, when it runs on another queue than the
        app's (started by a process that named another: `Temporal(task_queue=...)`,
        ``SIGNOFF_TEMPORAL_QUEUE`` changed since), which no worker that steps it polls (the
        task went unwritten), start it again on the app's queue. A signal there reached a
        workflow that no worker took up, every sweep, and the task stood Running for ever."""
        client = await self.client()
        try:
            found = await client.get_workflow_handle(task_id).describe(rpc_timeout=RPC_TIMEOUT)
        except RPCError as error:
            if error.status is not RPCStatusCode.NOT_FOUND:
                raise self._unreachable(error) from None
        else:
            queue = self._queue_read()
            if found.status is WorkflowExecutionStatus.FAILED:
                _tell_failed_run(task_id)  # (the signal below starts a new run)
            if found.status is WorkflowExecutionStatus.RUNNING and found.task_queue not in (
                    queue, self.legacy_queue):  # (the legacy queue's: moved by its own sweep)
                await self._start_anew(task_id)
                log.warning("Task %s stood Running on the Temporal queue %s, which no worker "
                            "that steps it polls; its workflow is started again on this app's "
                            "queue %s. Give the app's processes one queue (Temporal(task_queue="
                            "...), SIGNOFF_TEMPORAL_QUEUE), or leave it unset.", task_id,
                            found.task_queue, queue)
                return
        await self._go_on(task_id, wait=0.0)

    def _let_go(self, task_id: str, task: repo.TaskRow | None) -> None:
        """Let go of the hold this thread has on the task (it took one as it started or woke
        the task), so that a worker in another process takes it at once."""
        with self._agency.database.connect() as db:
            row = task or repo.load_task(db, task_id)
            if row is not None and row.holder == holds.holder_id():
                repo.let_go(db, task_id, row.fence)

    def _queue_read(self) -> str:
        """The queue, on the bridge's loop: read before (`go_on`, `nudge_stalled`, a worker),
        so that nothing here waits on the database."""
        assert self._database_id, "the queue is read before the bridge is crossed"
        return self.queue

    def _options(self, task_id: str) -> WorkflowOptions:
        """The workflow's options; its `home` this process's queue when the task's model is at
        hand here (made here, or given in code to `agent.do`: then only here)."""
        home = self.home_queue if task_id in self._agency.loop.models else ""
        return WorkflowOptions(local_activities=self.config.local_activities,
                               database=self._database_id, home=home)

    async def _go_on(self, task_id: str, *, wait: float) -> str:
        """Signal the task's workflow (starting a run when none runs), and wait at most `wait`
        seconds for it to wait or end; how its run was ended from outside as this waited
        ("terminated": it goes on in a new run, started here), else ""."""
        client = await self.client()
        await self._signal_with_start(client, task_id)
        if not wait:
            return ""
        handle = client.get_workflow_handle(task_id)  # its newest run, whichever that is
        until = asyncio.get_running_loop().time() + wait
        started_anew = False
        ended = ""
        while (left := until - asyncio.get_running_loop().time()) > 0:
            try:
                await asyncio.wait_for(handle.execute_update(SETTLED, result_type=str), left)
                return ended
            except TimeoutError:
                return ended  # still running: the store says where it stands
            except (WorkflowUpdateFailedError, WorkflowUpdateRPCTimeoutOrCancelledError,
                    RPCError):
                # Its run went on in a new one (its history was long: the update was left
                # behind), or ended meanwhile: asked of the newest run again while one runs
                # (the caller was told it was Running after waiting for nothing).
                status = await self._status(handle)  # (`Unreachable` when the server went)
                outside = _ENDED_FROM_OUTSIDE.get(status) if status is not None else None
                if outside and not started_anew:
                    # An operator ended it (`temporal workflow terminate`, the web UI) while its
                    # task had more to do: its state is the task's record, not the run. The
                    # task goes on from it in a new run, as it would at a worker's next sweep;
                    # the caller, told it neither stopped nor ended "after 30 seconds" (it
                    # heard at once), is told what happened.
                    ended = outside
                    log.warning("Task %s's Temporal workflow was %s from outside; the task goes "
                                "on from its record in a new run (ending a task's workflow "
                                "does not stop the task).", task_id, ended)
                    started_anew = True
                    await self._signal_with_start(client, task_id)
                elif status is WorkflowExecutionStatus.FAILED and not started_anew:
                    # Its history could not be replayed by the workers' code (`TaskWorkflow`):
                    # the task goes on from its record in a new run, as after any restart.
                    _tell_failed_run(task_id)
                    started_anew = True
                    await self._signal_with_start(client, task_id)
                elif status is not WorkflowExecutionStatus.RUNNING:
                    return ended  # ended: the store says
                await asyncio.sleep(0.1)
        return ended

    async def _signal_with_start(self, client: Client, task_id: str) -> None:
        """Signal the task's workflow, starting a run when none runs."""
        try:
            await client.start_workflow(
                TaskWorkflow.run, args=[task_id, self._options(task_id)],
                id=task_id, task_queue=self._queue_read(), start_signal="go_on",
                rpc_timeout=RPC_TIMEOUT, task_timeout=WORKFLOW_TASK_TIMEOUT)
        except RPCError as error:
            raise self._unreachable(error) from None

    async def _status(self, handle: WorkflowHandle[Any, Any]) -> WorkflowExecutionStatus | None:
        """The status of the newest run of `handle`'s workflow (None when it has none);
        `Unreachable` when the server went as the caller waited on it (its caller was told the
        task had "neither stopped for a decision nor ended after 30 seconds", at once)."""
        try:
            found = await handle.describe(rpc_timeout=RPC_TIMEOUT)
        except RPCError as error:
            if error.status is RPCStatusCode.NOT_FOUND:
                return None
            raise self._unreachable(error) from None
        return found.status

    def check_reachable(self) -> None:
        """`Unreachable` when the server does not answer a health check (asked once, not
        retried): the worker's pollers retry without a word, and a sweep may ask nothing else."""
        self._bridge.run(self._check_health(), timeout=2 * _seconds(RPC_TIMEOUT))

    async def _check_health(self) -> None:
        client = await self.client()
        try:
            await client.service_client.check_health(timeout=RPC_TIMEOUT)
        except RPCError as error:
            raise self._unreachable(error) from None

    def move_from_legacy_queue(self) -> int:
        """Start again on the app's queue each workflow of this database's tasks that still runs
        on the legacy queue (`signoff-<app name>`, where signoff started them before databases
        had an id, and which its workers no longer poll); how many. The old run is ended as the
        new one starts, and the new one steps the task from its record, as after any stop (a
        task waiting on people waits again, with its deadline). Another database's workflows
        there are left alone."""
        legacy = self.legacy_queue
        if legacy is None or legacy == self.queue:
            return 0
        running = self._bridge.run(self._running_on(legacy), timeout=4 * _seconds(RPC_TIMEOUT))
        if not running:
            return 0
        with self._agency.database.reading() as db:
            mine = [r[0] for r in db.execute(select(tasks.c.id).where(
                tasks.c.id.in_(running), tasks.c.status.in_((TaskStatus.RUNNING.value,
                                                             TaskStatus.WAITING.value))))]
        for task_id in mine:
            self._bridge.run(self._start_anew(task_id), timeout=2 * _seconds(RPC_TIMEOUT))
            log.info("Task %s's workflow moved from the queue %s to %s.", task_id, legacy,
                     self.queue)
        return len(mine)

    async def _running_on(self, queue: str) -> list[str]:
        """The ids of the task workflows running on `queue`."""
        client = await self.client()
        try:
            return [found.id async for found in client.list_workflows(
                f'TaskQueue = "{queue}" AND WorkflowType = "SignoffTask" AND '
                f'ExecutionStatus = "Running"', rpc_timeout=RPC_TIMEOUT)
                if found.status is WorkflowExecutionStatus.RUNNING]
        except RPCError as error:
            raise self._unreachable(error) from None

    async def _start_anew(self, task_id: str) -> None:
        """Start the task's workflow on the app's queue, ending the run there is."""
        client = await self.client()
        try:
            await client.start_workflow(
                TaskWorkflow.run, args=[task_id, self._options(task_id)], id=task_id,
                task_queue=self._queue_read(), rpc_timeout=RPC_TIMEOUT,
                task_timeout=WORKFLOW_TASK_TIMEOUT,
                id_conflict_policy=WorkflowIDConflictPolicy.TERMINATE_EXISTING)
        except RPCError as error:
            raise self._unreachable(error) from None

    def _unreachable(self, error: RPCError) -> Unreachable:
        self._client = None  # connect again next time
        log.debug("Temporal at %s: %s", self.config.address, error)
        return Unreachable(self.config.address, error.message, reached=_answered(error))

    async def client(self) -> Client:
        """The client, connected (again) if need be; `Unreachable` when it cannot be."""
        if self._client is None:
            try:
                self._client = await connect(self.config, retry=CALLS_RETRIED)
            except RuntimeError as error:
                log.debug("Temporal at %s: %s", self.config.address, error)
                raise Unreachable(self.config.address, str(error)) from None
        return self._client

    def let_go(self) -> None:
        """Drop the client (its bridge's loop stopped first): the next call connects again."""
        self._bridge.close()
        self._client = None


def _answered(error: RPCError) -> bool:
    """Whether the server answered the call `error` reports (and refused it): not when it could
    not be reached or did not answer (`_NOT_ANSWERED`). Each was told as the call refused, and
    to check the namespace."""
    if error.status in (RPCStatusCode.UNAVAILABLE, RPCStatusCode.DEADLINE_EXCEEDED):
        return False
    return not (error.status in (RPCStatusCode.UNKNOWN, RPCStatusCode.CANCELLED) and any(
        words in error.message.lower() for words in _NOT_ANSWERED))


_ENDED_FROM_OUTSIDE = {WorkflowExecutionStatus.TERMINATED: "terminated",
                       WorkflowExecutionStatus.CANCELED: "cancelled",
                       WorkflowExecutionStatus.TIMED_OUT: "timed out"}
"""How a run that no step of signoff ended was ended (by an operator, or the server), in words."""


def _tell_failed_run(task_id: str) -> None:
    """Tell that the task's workflow run failed, and that the task goes on in a new one."""
    log.warning("Task %s's Temporal workflow failed: its history was written by other workflow "
                "code than its workers run now (another version of signoff, or of a worker), "
                "which cannot replay it. The task goes on from its record in a new run; "
                "nothing it did is done again.", task_id)


def polled_lately(pollers: Iterable[PollerInfo], *, at: datetime) -> bool:
    """Whether any of a queue's `pollers` (as the server describes them) polled it within
    `POLLED_WITHIN` before `at`: a worker is there. One the server lists with no time of its
    last poll is not counted."""
    return any(p.HasField("last_access_time") and
               at - p.last_access_time.ToDatetime(tzinfo=UTC) <= POLLED_WITHIN
               for p in pollers)


def _seconds(delta: timedelta) -> float:
    return delta.total_seconds()
