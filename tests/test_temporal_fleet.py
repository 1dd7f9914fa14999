"""The Temporal runner under an operator's hand: a worker stopped, or a workflow ended, while a
step's tool runs; a step that fails; a task whose workflow's history grows long."""

from __future__ import annotations

import asyncio
import gzip
import json
import logging
import os
import socket
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace

import pytest
from temporalio.client import WorkflowHistory
from temporalio.worker import Replayer, UnsandboxedWorkflowRunner

from signoff import Agent, App, Permits, ProposalStatus, Skill, TaskStatus, Temporal
from signoff.engine.temporal.runner import connect
from signoff.engine.temporal.workflow import TaskWorkflow
from signoff.exceptions import StoreError
from signoff.store import points
from signoff.testing import ScriptedModel, says
from tests.box_world import box_world
from tests.letter_clerk import letter_clerk
from tests.temporal_server import DevServer, _binary, until

HERE = Path(__file__).resolve().parent


def _letters_app(database: str, server: DevServer, queue: str, *, local: bool,
                 settle_within: float = 1) -> SimpleNamespace:
    """An app whose agent posts letters alone (an outside call), each one held at the post
    office until the test lets it go; its steps run as local activities, or not."""
    app = App("letters", database=database, runner=Temporal(
        address=server.address, task_queue=queue, local_activities=local,
        settle_within=timedelta(seconds=settle_within)))
    folder: str = str(database.removeprefix("sqlite:///").rsplit("/", 1)[0])

    @app.action("Post a letter")
    def post_letter(text: str) -> str:
        """Reaches outside: the letter is posted, then the post office takes its time (until
        the test lets it go)."""
        with open(folder + "/letters.txt", "a", encoding="utf-8") as letters:
            letters.write(text + "\n")
        with open(folder + "/entered", "w", encoding="utf-8") as entered:
            entered.write("posted")
        waited: float = 0.0
        while not os.path.exists(folder + "/release") and waited < 30:
            time.sleep(0.05)
            waited += 0.05
        return "Posted."

    return letter_clerk(app, post_letter, folder=folder, me="me@letters.example", alone=True)


def _posted(shop: SimpleNamespace) -> list[str]:
    letters = shop.folder / "letters.txt"
    return letters.read_text().splitlines() if letters.exists() else []


def _entered(shop: SimpleNamespace) -> None:
    until(lambda: (shop.folder / "entered").exists(), "the letter being posted", 30)


def _release(shop: SimpleNamespace) -> None:
    (shop.folder / "release").write_text("go")


def test_a_worker_stopped_while_a_steps_tool_runs_lets_the_step_finish_and_tells_it_true(
    tmp_path: Path, temporal_server: DevServer,
) -> None:
    """A worker stopped (Ctrl-C, the end of `running()`) while an outside call of a step runs
    (an ordinary activity) lets the step finish, as the docs say: the call is told Done, as it
    was. The SDK cancelled the activity as it shut down by raising an exception in the step's
    thread, in the middle of the app's tool after it had posted the letter: the call was
    recorded Failed, and the agent told so — free to post it again."""
    shop = _letters_app(f"sqlite:///{tmp_path / 'letters.db'}", temporal_server,
                        f"stop-{uuid.uuid4().hex[:8]}", local=False)
    try:
        script = ScriptedModel(says.tool(shop.post_letter, text="hello"),
                               says.hand_back("posted"))
        worker = shop.app.temporal_worker().running()
        worker.__enter__()
        started: dict[str, object] = {}
        doing = threading.Thread(target=lambda: started.setdefault("outcome", shop.app.agent(
            shop.Clerk).do(shop.Posting(), None, for_=shop.me, model=script)), daemon=True)
        doing.start()
        _entered(shop)
        stopping = threading.Thread(target=worker.__exit__, args=(None, None, None), daemon=True)
        stopping.start()  # the worker shuts down, the letter still at the post office
        time.sleep(2)
        _release(shop)
        stopping.join(60)
        doing.join(60)
        task = started["outcome"].task  # type: ignore[attr-defined]
        with shop.app.temporal_worker().running():
            until(lambda: shop.app.outcome(task).status is TaskStatus.DONE, "the task ending")
        words = shop.app.receipt(task).words
        assert "ran post_letter alone, as itself: Done." in words, words
        assert "Failed" not in words, words
        assert _posted(shop) == ["hello"]
    finally:
        _release(shop)
        shop.app.database.dispose()


@pytest.mark.parametrize("end", ["terminate", "cancel"])
def test_a_workflow_ended_by_an_operator_while_its_step_runs_lets_the_step_finish(
    tmp_path: Path, temporal_server: DevServer, end: str,
) -> None:
    """A task's workflow terminated (or cancelled) by an operator while its step's outside call
    runs (a local activity): the step finishes and is told as it was (the SDK raised an
    exception into the tool, a letter posted was told Failed), and the task goes on in a
    workflow the worker starts again."""
    shop = _letters_app(f"sqlite:///{tmp_path / 'letters.db'}", temporal_server,
                        f"end-{uuid.uuid4().hex[:8]}", local=True)
    try:
        script = ScriptedModel(says.tool(shop.post_letter, text="hello"),
                               says.hand_back("posted"))
        with shop.app.temporal_worker(stalled_after=timedelta(0)).running():
            started = shop.app.agent(shop.Clerk).do(shop.Posting(), None, for_=shop.me,
                                                    model=script)
            _entered(shop)

            async def ended() -> None:
                handle = (await connect(shop.app.runner)).get_workflow_handle(started.task)
                await (handle.terminate("an operator") if end == "terminate" else
                       handle.cancel())

            asyncio.run(ended())
            time.sleep(8)  # the worker hears of it as it next reports the workflow's progress
            _release(shop)
            until(lambda: shop.app.outcome(started.task).status is TaskStatus.DONE,
                   "the task ending")
        words = shop.app.receipt(started.task).words
        assert "ran post_letter alone, as itself: Done." in words, words
        assert "Failed" not in words, words
        assert _posted(shop) == ["hello"]
    finally:
        _release(shop)
        shop.app.database.dispose()


HISTORY_LIMITS = {"limit.historyCount.suggestContinueAsNew": 100, "limit.historyCount.warn": 150,
                  "limit.historyCount.error": 400}
"""A server whose runs' histories are short: it suggests a new run at 100 events, and ends a
run at 400 (51,200 unless configured: a long task, or one decided many times, reaches it)."""


def _port_from_20000() -> int:
    for port in range(20000 + os.getpid() % 20000, 65000):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free port from 20000")


class _ShortHistories(DevServer):
    """The tests' dev server with `HISTORY_LIMITS`, on ports from 20000."""

    def __init__(self, home: Path) -> None:
        super().__init__(home)
        self.port = _port_from_20000()
        self._http = self.port + 1
        self._metrics = self.port + 2

    def start(self) -> None:
        log = (self.home / "server.log").open("ab")
        limits = [arg for name, value in HISTORY_LIMITS.items()
                  for arg in ("--dynamic-config-value", f"{name}={value}")]
        self._process = subprocess.Popen(
            [str(_binary()), "server", "start-dev", "--headless", "--ip", "127.0.0.1",
             "--port", str(self.port), "--http-port", str(self._http), "--metrics-port",
             str(self._metrics), "--db-filename", str(self.home / "temporal.db"),
             "--log-level", "warn", *limits],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        log.close()
        until(self._answers, "the Temporal dev server answering")


@pytest.fixture(scope="module")
def short_histories(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DevServer]:
    server = _ShortHistories(tmp_path_factory.mktemp("short-histories"))
    try:
        server.start()
        yield server
    finally:
        server.stop()


def _runs(app: App, task: str) -> list[str]:
    """How each run of the task's workflow ended (or RUNNING), newest first."""

    async def listed() -> list[str]:
        client = await connect(app.runner)
        return [found.status.name if found.status else "?" async for found in
                client.list_workflows(f'WorkflowId = "{task}"')]

    return asyncio.run(listed())


def _box_app(database: str, server: DevServer, *, local: bool) -> SimpleNamespace:
    app = App("boxes", database=database, runner=Temporal(
        address=server.address, task_queue=f"boxes-{uuid.uuid4().hex[:8]}",
        local_activities=local))
    Box, _Mark, jot = box_world(app)

    @app.action("Lift the level")
    def lift(box: Box, by: int) -> str:  # type: ignore[valid-type]
        """Record-only, proposed: adds `by` to the level."""
        box.level += by  # type: ignore[attr-defined]
        return f"Level {box.level}."  # type: ignore[attr-defined]

    class Tend(Skill[None, str]):
        """Tend the box."""

        description = "Tend the box."
        tools = [jot, lift]

    class Clerk(Agent):
        """Tends boxes."""

        purpose = "You tend boxes."
        skills = [Tend()]
        may = Permits(alone=[jot])

    me = app.people.find("me@boxes.example") or app.people.add("me@boxes.example", "Me")
    app.add_agent(Clerk, sponsor=me)
    with app.session(as_=app.system) as s:
        box = Box(name="B-1")
        s.add(box)
    return SimpleNamespace(app=app, Clerk=Clerk, Tend=Tend, jot=jot, lift=lift, me=me,
                           box=box.id, Box=Box)


def test_a_long_task_goes_on_in_new_runs_before_its_history_reaches_the_servers_limit(
    tmp_path: Path, short_histories: DevServer,
) -> None:
    """A task of many steps (ordinary activities: a dozen events each) goes on in new runs of
    its workflow as its history grows, and its caller, waiting, hears that it is done. The run
    grew until the server ended it at its limit, mid-step; the caller heard it was Running
    (having "waited 30 seconds", after two), and the task waited for a sweep to start it again."""
    shop = _box_app(f"sqlite:///{tmp_path / 'boxes.db'}", short_histories, local=False)
    try:
        turns = 60
        script = ScriptedModel(*[says.tool(shop.jot, box=shop.box, note=f"n{i}")
                                 for i in range(turns)], says.hand_back("jotted"))
        with shop.app.temporal_worker().running():
            done = shop.app.agent(shop.Clerk).do(shop.Tend(), None, for_=shop.me, model=script,
                                                 max_steps=2 * turns + 2)
        assert done.status is TaskStatus.DONE, done.problem
        runs = _runs(shop.app, done.task)
        assert "TERMINATED" not in runs, runs
        assert runs.count("CONTINUED_AS_NEW") >= 1, runs
    finally:
        shop.app.database.dispose()


def test_a_task_decided_many_times_goes_on_in_new_runs_and_each_decider_hears_where_it_stands(
    tmp_path: Path, short_histories: DevServer,
) -> None:
    """A task that waits, and is decided, many times (some ten events a decision) goes on in
    new runs as its history grows; each decision hears that the task waits again (or is done),
    and no run is ended by the server's limit."""
    shop = _box_app(f"sqlite:///{tmp_path / 'boxes.db'}", short_histories, local=True)
    try:
        turns = 45
        script = ScriptedModel(*[says.tool(shop.lift, box=shop.box, by=1)
                                 for _ in range(turns)], says.hand_back("lifted"))
        with shop.app.temporal_worker().running():
            started = shop.app.agent(shop.Clerk).do(shop.Tend(), None, for_=shop.me,
                                                    model=script, max_steps=2 * turns + 2)
            told = []
            for _ in range(turns):
                (waiting,) = [p for p in shop.app.proposals(task=started.task)
                              if p.status is ProposalStatus.WAITING]
                told.append(shop.app.approve(waiting, by=shop.me).task_status)
        assert told == ["Waiting"] * (turns - 1) + ["Done"], told
        runs = _runs(shop.app, started.task)
        assert "TERMINATED" not in runs, runs
        assert runs.count("CONTINUED_AS_NEW") >= 1, runs
        with shop.app.session(as_=shop.app.system) as s:
            assert s.get(shop.Box, shop.box).level == turns
    finally:
        shop.app.database.dispose()


def test_a_step_that_fails_is_told_in_a_sentence_and_tried_again(
    tmp_path: Path, temporal_server: DevServer, caplog: pytest.LogCaptureFixture,
) -> None:
    """A step that fails (the database could not be used, for a moment) is told in a sentence
    in signoff's log, its traceback for a debug log alone, and Temporal tries it again: the task
    goes on. The SDK logged "Completing activity as failed ({...})" and the traceback, as a
    warning, at every try: what `signoff worker --temporal` showed its operator."""
    shop = _letters_app(f"sqlite:///{tmp_path / 'letters.db'}", temporal_server,
                        f"fails-{uuid.uuid4().hex[:8]}", local=True, settle_within=30)
    failed: list[str] = []

    def database_gone(point: str, where: dict[str, object]) -> None:
        if point == "loop.stepping" and len(failed) < 2:
            failed.append(str(where["task"]))
            raise StoreError("The database could not be used: disk I/O error.")

    try:
        _release(shop)
        script = ScriptedModel(says.tool(shop.post_letter, text="hello"),
                               says.hand_back("posted"))
        with points.pausing(database_gone), shop.app.temporal_worker().running():
            done = shop.app.agent(shop.Clerk).do(shop.Posting(), None, for_=shop.me,
                                                 model=script)
        assert done.status is TaskStatus.DONE, done.problem
        assert len(failed) == 2
        told = [r for r in caplog.records if r.levelno >= logging.WARNING]
        assert [r.getMessage() for r in told if r.name == "signoff.temporal"] == [
            f"Task {done.task}'s step failed (try 1): The database could not be used: disk I/O "
            "error. Temporal tries it again, a little later each time (at most every 10 s); "
            "what it did is recorded, so nothing it did is done twice."]
        assert not [r for r in told if r.name.startswith("temporalio")], [
            r.getMessage() for r in told]
        assert [r.exc_info for r in told if r.name == "signoff.temporal"] == [None]  # (the
        # traceback goes to the debug log alone)
        assert _posted(shop) == ["hello"]
    finally:
        shop.app.database.dispose()


def test_a_long_run_started_before_runs_started_anew_replays_as_it_ran() -> None:
    """A run started by a signoff whose runs never started anew, its history long (the server
    suggested a new run at 8 of its workflow tasks, and it went on), replays in this signoff's
    worker as it ran: the change is a patch (`STARTS_ANEW`), so a worker of this release that
    takes such a run (after a restart, or once its cache let it go) does not find its history
    at odds with the code, and the run is not stuck. (Recorded on a server suggesting a new run
    at 100 events.)"""
    recorded = json.loads(gzip.decompress((HERE / "temporal_history_of_a_long_run.json.gz")
                                          .read_bytes()))
    history = WorkflowHistory.from_json("a-long-run", recorded)
    replayer = Replayer(workflows=[TaskWorkflow], workflow_runner=UnsandboxedWorkflowRunner())
    asyncio.run(replayer.replay_workflow(history))


def test_a_deadline_that_cannot_be_passed_leaves_the_tasks_others_to_pass(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The workflow's passing of a task's deadlines passes each it can: one whose route cannot
    be read (its skill's decided_by fails) is told in a sentence and waits as it was, and the
    other is withdrawn (the first stopped the activity, and Temporal retried it for ever, the
    other never passed)."""
    from signoff.engine.temporal.activities import TaskSteps
    from tests import deadlines_app

    shop = deadlines_app.build(f"sqlite:///{tmp_path / 'd.db'}")
    routes = shop.PriceAtOnce.decided_by
    try:
        two = ScriptedModel(says.tools(
            says.tool("An hour.", shop.set_price, ticket=shop.ticket.id, price=40),
            says.tool("Two hours.", shop.set_price, ticket=shop.ticket.id, price=80)),
            says.hand_back(deadlines_app.Priced(summary="Priced.")))
        task = shop.app.agent(shop.Clerk).do(shop.PriceAtOnce(), model=two).task
        asked = []

        def first_fails(self: object, action: str) -> object:
            asked.append(action)
            if len(asked) == 1:
                raise LookupError("nobody is in pricing today")
            return routes(self, action)  # type: ignore[arg-type]

        shop.PriceAtOnce.decided_by = first_fails
        steps = TaskSteps(shop.app._agency, None, database="", queue="")  # type: ignore[arg-type]
        with caplog.at_level(logging.WARNING, logger="signoff"):
            passed = steps._pass_deadlines(task)
        assert passed == 1
        statuses = sorted(p.status.value for p in shop.app.proposals(task=task))
        assert statuses == ["Waiting", "Withdrawn"]
        assert any("is not passed: PriceAtOnce.decided_by" in r.getMessage()
                   for r in caplog.records)
        # The workflow's next wait is a while on, not at once (it stepped, passed nothing and
        # stepped again every half second while the route failed).
        stepped = steps._step(task, "", "")
        assert stepped.kind == "waiting"
        assert stepped.waiting_until is not None
        assert datetime.fromisoformat(stepped.waiting_until) >= datetime.now(UTC) + timedelta(
            seconds=20)
    finally:
        shop.PriceAtOnce.decided_by = routes
        shop.app.database.dispose()
