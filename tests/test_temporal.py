"""The Temporal runner (signoff.engine.temporal) beyond the workshop scenarios, which
tests/test_workshop.py runs on it too: deadlines kept by the workflow's durable timer, a task
started while the server cannot be reached, and the choice of runner."""

from __future__ import annotations

import asyncio
import os
import runpy
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient
from temporalio.api.taskqueue.v1 import PollerInfo

from signoff import (
    Agent,
    AgentRefused,
    App,
    ProposalStatus,
    Skill,
    TaskStatus,
    UserError,
)
from signoff.cli import main
from signoff.cli.failures import failure_of
from signoff.engine.temporal import Temporal
from signoff.engine.temporal.runner import Unreachable, polled_lately
from signoff.testing import ScriptedModel, says
from signoff.web import create_web_app
from tests import deadlines_app
from tests.stockroom import stockroom
from tests.temporal_server import DevServer, running_server

ROOT = Path(__file__).resolve().parent.parent


def _closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port  # nothing listens on it once the probe is closed


@pytest.fixture
def shop(postgres_database: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[SimpleNamespace]:
    """The workshop on PostgreSQL, its runner a Temporal server that cannot be reached."""
    monkeypatch.setenv("WORKSHOP_DATABASE", postgres_database)
    monkeypatch.setenv("SIGNOFF_TEMPORAL", f"127.0.0.1:{_closed_port()}")
    monkeypatch.setenv("SIGNOFF_TEMPORAL_QUEUE", f"workshop-{uuid.uuid4().hex[:8]}")
    namespace = runpy.run_path(str(ROOT / "examples" / "workshop.py"), run_name="workshop_test")
    shop = SimpleNamespace(**namespace, **namespace["setup"]())
    yield shop
    shop.app.database.dispose()


def _price_script(shop: SimpleNamespace) -> ScriptedModel:
    return ScriptedModel(
        says.tool("Pads and a cable.", shop.set_price, repair=shop.repair.id, price=45),
        says.hand_back(shop.Estimate(hours=1, summary="Pads and a cable.")),
    )


def _until(check: object, what: str) -> None:
    deadline = time.monotonic() + 60
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"{what} did not happen within a minute"
        time.sleep(0.05)


def test_a_task_started_while_temporal_is_unreachable_is_kept_told_and_started_later(
    shop: SimpleNamespace, temporal_server: DevServer,
) -> None:
    """Started while the server cannot be reached, the task is recorded Running and the caller
    is told in words; a worker that reaches the server starts it, and a decision ends it."""
    app = shop.app
    outcome = app.agent(shop.Estimator).do(shop.EstimateRepair(), shop.repair, for_=shop.mia,
                                           model=_price_script(shop))
    assert outcome.status is TaskStatus.RUNNING
    assert outcome.problem.startswith(
        f"Temporal at {app.runner.address} could not be reached (nothing answers there, the "
        "connection was refused). The task is recorded and goes on once a worker")
    assert app.outcome(outcome.task).problem == outcome.problem  # said to whoever looks
    assert app.proposals(task=outcome.task) == []
    with app.temporal_worker(address=temporal_server.address,
                             stalled_after=timedelta(0)).running():
        _until(lambda: app.outcome(outcome.task).status is TaskStatus.WAITING,
               "the recorded task starting")
        (proposal,) = app.proposals(task=outcome.task)
        decision = app.approve(proposal, by=shop.noor)
        assert decision.status is ProposalStatus.DONE
        assert decision.task_status == TaskStatus.DONE.value
    assert app.outcome(outcome.task).status is TaskStatus.DONE
    words = app.receipt(outcome.task).words
    assert words.count("Noor approved set_price; it ran as Noor and the agent together.") == 1


def test_a_worker_that_cannot_reach_temporal_says_so_in_a_sentence(shop: SimpleNamespace) -> None:
    """A worker's sweep that cannot reach the server raises `Unreachable`, told as a sentence
    naming the server and what to check, not as the client's Rust error; that report is kept on
    the error, and the command line tells it with exit code 5."""
    app = shop.app
    outcome = app.agent(shop.Estimator).do(shop.EstimateRepair(), shop.repair, for_=shop.mia,
                                           model=_price_script(shop))
    assert outcome.status is TaskStatus.RUNNING
    with pytest.raises(Unreachable) as caught:
        app.temporal_worker(stalled_after=timedelta(0)).sweep()
    assert str(caught.value) == (
        f"Temporal at {app.runner.address} could not be reached: nothing answers there, the "
        "connection was refused. Check that the server runs (to try signoff out: temporal "
        "server start-dev) and that --temporal (or SIGNOFF_TEMPORAL) names it.")
    assert "refused" in caught.value.reason.lower()
    told = failure_of(caught.value)
    assert (told.exit_code, told.message) == (5, str(caught.value))


# What the Temporal client (temporalio 1.x, its Rust core) reported in each case, as it wrote it.
_REFUSED = ('Failed client connect: Server connection error: tonic::transport::Error(Transport, '
            'ConnectError(ConnectError("tcp connect error", 127.0.0.1:7233, Os { code: 111, kind: '
            'ConnectionRefused, message: "Connection refused" })))')
_NOT_GRPC = ('Failed client connect: `get_system_info` call error after connection: Status { '
             'code: Internal, message: "h2 protocol error: http2 error", source: Some(tonic::'
             'transport::Error(Transport, hyper::Error(Http2, Error { kind: GoAway(b"", '
             'FRAME_SIZE_ERROR, Library) }))) }')
_NO_ROUTE = ('Failed client connect: Server connection error: tonic::transport::Error(Transport, '
             'ConnectError(ConnectError("tcp connect error", 10.9.9.9:7233, Os { code: 113, '
             'kind: HostUnreachable, message: "No route to host" })))')
_OTHER = "Failed client connect: Server connection error: tonic::transport::Error(Transport, X)"


@pytest.mark.parametrize(("reason", "reached", "told"), [
    (_REFUSED, False, "could not be reached: nothing answers there, the connection was refused. "
                      "Check that the server runs"),
    (_NOT_GRPC, False, "could not be reached: something answers there, but not Temporal's gRPC "
                       "(is it the web UI's port?). Check"),
    (_NO_ROUTE, False, "could not be reached: there is no route to that host. Check"),
    ("tcp connect error", False, "could not be reached: nothing answers there, the connection "
                                 "was refused. Check that the server runs"),
    (_OTHER, False, "could not be reached: the connection failed (`signoff --debug …` shows the "
                    "client's report). Check"),
    ("transport error", False, "could not be reached: the connection was closed as the call was "
                               "made. Check that the server runs"),
    ("operation was canceled", False, "could not be reached: the connection was closed as the "
                                      "call was made. Check that the server runs"),
    ("Namespace no-such-namespace is not found.", True,
     "refused the call: Namespace no-such-namespace is not found. Check the namespace"),
])
def test_what_the_temporal_client_reported_is_told_in_words(reason: str, reached: bool,
                                                            told: str) -> None:
    """The client's report, often a Rust error's text, is told as a phrase in a sentence that
    names the server and what to check; the report is kept on the error, and shown with its
    traceback (`--debug`)."""
    error = Unreachable("127.0.0.1:7233", reason, reached=reached)
    assert str(error).startswith(f"Temporal at 127.0.0.1:7233 {told}")
    assert "tonic" not in str(error)
    assert ".. " not in str(error)  # the server's own full stop is not doubled
    assert error.reason == reason
    assert error.__notes__ == [f"The Temporal client reported: {reason}"]


def test_an_app_chooses_its_runner_in_one_place(monkeypatch: pytest.MonkeyPatch) -> None:
    """In-process unless `runner=` or SIGNOFF_TEMPORAL names a server; an in-process app has no
    Temporal worker, and says how to name one."""
    monkeypatch.delenv("SIGNOFF_TEMPORAL", raising=False)
    assert App("plain", database="sqlite://").runner is None
    named = App("named", database="sqlite://", runner=Temporal(address="127.0.0.1:7233"))
    assert named.runner == Temporal(address="127.0.0.1:7233")
    monkeypatch.setenv("SIGNOFF_TEMPORAL", "127.0.0.1:7234")
    monkeypatch.setenv("SIGNOFF_TEMPORAL_QUEUE", "shop-floor")
    from_env = App("env", database="sqlite://")
    assert from_env.runner == Temporal(address="127.0.0.1:7234", task_queue="shop-floor")
    assert from_env.runner.queue_of("env", "0123456789abcdef") == "shop-floor"
    assert Temporal(address="x:1").queue_of("env", "0123456789abcdef") == "signoff-env-01234567"
    monkeypatch.delenv("SIGNOFF_TEMPORAL")
    with pytest.raises(UserError, match="runs its tasks in-process: name a Temporal server"):
        App("plain", database="sqlite://").temporal_worker()


@pytest.mark.parametrize("address", ["not an address", "127.0.0.1", ":7233", "host:port",
                                     "127.0.0.1:0", "127.0.0.1:70000"])
def test_a_temporal_address_that_is_not_host_and_port_is_told(
    address: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server's address must be HOST:PORT: anything else is refused in words when the runner
    is named (in code, and by `signoff worker --temporal`, exit 2), not found out later."""
    monkeypatch.setenv("SIGNOFF_TEMPORAL", "")  # the command sets it: restored after the test
    with pytest.raises(UserError, match="A Temporal server's address is HOST:PORT"):
        Temporal(address=address)
    done = CliRunner().invoke(main, ["worker", "--once", "--temporal", address, "--app",
                                     str(Path(__file__).parent.parent / "examples" /
                                         "workshop.py")])
    assert done.exit_code == 2, done.output
    assert (f"--temporal is “{address}”, which is not a Temporal server's address: give "
            "HOST:PORT alone") in done.output


def test_a_temporal_runner_of_the_wrong_type_is_told() -> None:
    """An address that is not a string, or a wait that is not a timedelta, is refused in words
    as the runner is named; an address given with spaces is used without them."""
    for address in (None, 7233):
        with pytest.raises(UserError, match="A Temporal server's address is HOST:PORT"):
            Temporal(address=address)  # type: ignore[arg-type]
    with pytest.raises(UserError, match=r"is a timedelta \(timedelta\(seconds=30\), say\)"):
        Temporal(address="127.0.0.1:7233", settle_within=30)  # type: ignore[arg-type]
    assert Temporal(address=" 127.0.0.1:7233 ").address == "127.0.0.1:7233"


def test_deadlines_withdraw_one_proposal_and_escalate_another_on_temporal(
    postgres_database: str, temporal_server: DevServer, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Noor has two seconds: the workflow's timer passes the deadlines — one price is withdrawn
    (its task told, and done), the fleet's goes to the Finance queue; Noor's late yes is refused
    in words, Fay's runs it once."""
    monkeypatch.setenv("SIGNOFF_TEMPORAL", temporal_server.address)
    monkeypatch.setenv("SIGNOFF_TEMPORAL_QUEUE", f"deadlines-{uuid.uuid4().hex[:8]}")
    shop = deadlines_app.build(postgres_database, noors_time=timedelta(seconds=2))
    app = shop.app
    try:
        with app.temporal_worker().running():
            clerk = app.agent(shop.Clerk)
            plain = clerk.do(shop.PriceTicket(), model=deadlines_app.script(shop, price=40))
            fleet = clerk.do(shop.PriceFleetTicket(), model=deadlines_app.script(shop, price=50))
            assert (plain.status, fleet.status) == (TaskStatus.WAITING, TaskStatus.WAITING)
            assert plain.waiting_until is not None
            _until(lambda: app.outcome(plain).status is TaskStatus.DONE, "the withdrawal")
            (withdrawn,) = app.proposals(task=plain.task)
            assert withdrawn.status is ProposalStatus.WITHDRAWN
            assert withdrawn.decided_by is None
            _until(lambda: app.proposals(task=fleet.task)[0].escalations == 1, "the escalation")
            (escalated,) = app.proposals(task=fleet.task)
            assert (escalated.status, escalated.decide_by) == (ProposalStatus.WAITING,
                                                               "the Finance queue")
            with pytest.raises(AgentRefused, match="No one decided set_price by its deadline: "
                                                   "it went to the Finance queue at"):
                app.approve(escalated, by=shop.noor)
            decision = app.approve(escalated, by=shop.fay)
            assert decision.said == "Fay approved set_price; it ran as Fay and the agent together."
            assert decision.task_status == TaskStatus.DONE.value
        assert deadlines_app.runs(shop) == 1
        words = app.receipt(plain.task).words
        assert "it was withdrawn." in words
        assert "Priced, or told why not." in str(app.outcome(plain).result)
    finally:
        app.database.dispose()


def test_signoff_worker_with_temporal_once_settles_and_signals(
    postgres_database: str, temporal_server: DevServer, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`signoff worker --temporal ADDRESS --once` makes the app run on that server, looks once
    for work a stopped process left (here a task recorded while the server could not be
    reached, unwritten since), signals it, says what it did, and stops; the task then goes on
    in the app's workers."""
    from sqlalchemy import update

    from signoff.store.tables import tasks

    monkeypatch.setenv("DEADLINES_DATABASE", postgres_database)
    monkeypatch.setenv("SIGNOFF_TEMPORAL_QUEUE", f"deadlines-{uuid.uuid4().hex[:8]}")
    monkeypatch.setenv("SIGNOFF_TEMPORAL", f"127.0.0.1:{_closed_port()}")
    shop = deadlines_app.build(postgres_database)
    try:
        left = shop.app.agent(shop.Clerk).do(shop.PriceTicket(), None, for_=shop.mia,
                                             model=deadlines_app.script(shop))
        assert left.status is TaskStatus.RUNNING  # recorded; nothing started it
        with shop.app.database.connect() as db:  # and nobody has written it for an hour
            db.execute(update(tasks).where(tasks.c.id == left.task).values(
                updated_at=tasks.c.updated_at - timedelta(hours=1)))
        monkeypatch.setenv("SIGNOFF_TEMPORAL", "")  # restored once the command has set it
        result = CliRunner().invoke(main, ["worker", "--app", "tests/deadlines_app.py",
                                           "--temporal", temporal_server.address, "--once"])
        assert result.exit_code == 0, result.output
        assert result.output == "Settled or signalled 1 task(s).\n"
        with shop.app.temporal_worker(address=temporal_server.address,
                                      model_for=lambda _a, _t: deadlines_app.script(shop)
                                      ).running():
            _until(lambda: shop.app.outcome(left.task).status is TaskStatus.WAITING,
                   "the signalled task going on to its proposal")
    finally:
        shop.app.database.dispose()


def test_decisions_from_the_command_and_the_rest_api_signal_the_workflow(
    postgres_database: str, temporal_server: DevServer, monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """Deciding is unchanged for the person on Temporal: `signoff approve` (its own process's
    app, on the server SIGNOFF_TEMPORAL names) and the REST API approve, the call runs once,
    and the task goes on in the app's worker to its end."""
    monkeypatch.setenv("DEADLINES_DATABASE", postgres_database)
    monkeypatch.setenv("SIGNOFF_PROFILE", str(tmp_path / "profile.json"))
    monkeypatch.setenv("SIGNOFF_TEMPORAL", temporal_server.address)
    monkeypatch.setenv("SIGNOFF_TEMPORAL_QUEUE", f"decisions-{uuid.uuid4().hex[:8]}")
    shop = deadlines_app.build(postgres_database)
    app = shop.app
    token = app.credentials.issue_token(shop.noor)
    try:
        with app.temporal_worker().running():
            clerk = app.agent(shop.Clerk)
            by_command = clerk.do(shop.PriceTicket(), model=deadlines_app.script(shop, price=40))
            by_api = clerk.do(shop.PriceTicket(), model=deadlines_app.script(shop, price=50))
            (first,) = app.proposals(task=by_command.task)
            done = CliRunner().invoke(main, ["approve", first.id, "--app",
                                             "tests/deadlines_app.py", "--token", token])
            assert done.exit_code == 0, done.output
            assert "Noor approved set_price; it ran as Noor and the agent together." in done.output
            _until(lambda: app.outcome(by_command).status is TaskStatus.DONE,
                   "the task decided from the command going on")
            (second,) = app.proposals(task=by_api.task)
            client = TestClient(create_web_app(app, secure_cookies=False))
            approved = client.post(f"/api/proposals/{second.id}/approve",
                                   headers={"Authorization": f"Bearer {token}"}, json={})
            assert approved.status_code == 200, approved.json()
            assert app.outcome(by_api).status is TaskStatus.DONE
        assert deadlines_app.runs(shop) == 2
    finally:
        app.database.dispose()


class _Held:
    """A scripted model whose calls wait until `release` is set (so that a task is certainly
    still running when its caller stops waiting for it)."""

    def __init__(self, inner: ScriptedModel, release: threading.Event) -> None:
        self._inner, self._release = inner, release
        self.name, self.price = inner.name, inner.price

    def complete(self, *args: Any, **kwargs: Any) -> Any:
        self._release.wait(60)
        return self._inner.complete(*args, **kwargs)

    def count_tokens(self, *args: Any) -> int:
        return self._inner.count_tokens(*args)


def test_a_task_still_running_when_its_caller_stops_waiting_says_why_and_what_to_do(
    tmp_path: Path, temporal_server: DevServer,
) -> None:
    """`agent.do` on Temporal answers Running once `settle_within` has passed; the outcome says
    why: no worker polls the app's queue (start one, with the models its agents name), or the
    workers have it and it has not stopped yet (it said nothing: "The task is running, on .")."""
    queue = f"settle-{uuid.uuid4().hex[:8]}"
    app = App("settle", database=f"sqlite:///{tmp_path / 'settle.db'}", runner=Temporal(
        address=temporal_server.address, task_queue=queue, settle_within=timedelta(seconds=1)))

    @app.action("Look up a part", query=True)
    def part(name: str) -> str:
        """A part's shelf."""
        return f"{name}: shelf 3"

    class Finding(Skill[None, str]):
        """Find a part."""

        description = "Find a part."
        tools = [part]

    class Finder(Agent):
        """Finds parts."""

        purpose = "You find parts."
        skills = [Finding()]

    me = app.people.add("me@settle.example", "Me")
    app.add_agent(Finder, sponsor=me)
    try:
        script = ScriptedModel(says.tool(part, name="pads"), says.hand_back("shelf 3"))
        alone = app.agent(Finder).do(Finding(), None, for_=me, model=script)
        assert alone.status is TaskStatus.RUNNING
        assert alone.problem == (
            f"No worker of this app polls its Temporal queue {queue} at "
            f"{temporal_server.address}, so the task waits there until one does: start one "
            f"(`signoff worker --app YOUR_APP --temporal {temporal_server.address}`), with the "
            "models the app's agents name (a model given to agent.do lives in this process "
            "alone).")
        release = threading.Event()
        with app.temporal_worker().running():
            held = _Held(ScriptedModel(says.tool(part, name="cable"), says.hand_back("shelf 3")),
                         release)
            busy = app.agent(Finder).do(Finding(), None, for_=me, model=held)
            release.set()
            assert busy.status is TaskStatus.RUNNING
            assert busy.problem == (
                f"The task goes on in this app's Temporal workers (queue {queue} at "
                f"{temporal_server.address}); it had neither stopped for a decision nor ended "
                "after 1 seconds. app.outcome(task) (or `signoff receipt TASK`) tells where it "
                "stands.")
            _until(lambda: app.outcome(busy.task).status is TaskStatus.DONE, "the busy task")
            _until(lambda: app.outcome(alone.task).status is TaskStatus.DONE, "the first task")
    finally:
        app.database.dispose()


def test_a_yes_whose_task_no_worker_takes_up_says_why(tmp_path: Path,
                                                    temporal_server: DevServer) -> None:
    """A yes given while no worker of the app runs: the task is still Running once
    `settle_within` has passed, and the decision says why and what to do (`task_problem`, and
    `signoff approve`'s words), as `agent.do` does; it said only who approved."""
    shop = stockroom(tmp_path, temporal_server, settle_within=1)
    app, noor = shop.app, shop.noor
    assert app.runner is not None
    queue = app.runner.task_queue
    try:
        with app.temporal_worker().running():
            asked = app.agent(shop.Stocker).do(shop.Stocking(), None, for_=noor, model=(
                ScriptedModel(says.tool(shop.restock, bin=shop.bin.id, by=3),
                              says.hand_back("Done."))))
            _until(lambda: app.outcome(asked.task).status is not TaskStatus.RUNNING, "the wait")
            assert app.outcome(asked.task).status is TaskStatus.WAITING, app.receipt(asked.task).words
        (proposal,) = app.proposals(task=asked.task)
        decision = app.approve(proposal, by=noor)
        assert decision.status is ProposalStatus.DONE
        assert decision.task_status == "Running"
        assert queue in decision.task_problem, decision.task_problem
        assert temporal_server.address in decision.task_problem
    finally:
        app.database.dispose()


def test_a_pause_between_tries_to_reach_temporal_ends_with_its_worker_at_once() -> None:
    """Ctrl-C in a pause between tries to reach the server (`asyncio.run`'s task cancelled)
    ends it then: the pause waited in a thread, which `asyncio.run` waits for as it ends, so
    `signoff worker --temporal` took up to the whole pause, up to a minute, to stop."""
    from signoff.engine.temporal.serving import _pause

    stop = threading.Event()

    async def paused() -> None:
        pausing = asyncio.create_task(_pause(stop, 600))
        await asyncio.sleep(0.2)
        pausing.cancel()

    running = threading.Thread(target=asyncio.run, args=(paused(),), daemon=True)
    running.start()
    try:
        running.join(60)
        assert not running.is_alive(), "asyncio.run still waits on the pause's thread"
    finally:
        stop.set()  # (what the pause waits on, were it still waiting)


def test_a_worker_that_cannot_reach_temporal_says_so_once_then_ever_more_seldom(
    tmp_path: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    """A worker whose server cannot be reached tells the whole sentence once, then a line at
    each try, waiting twice as long each time up to a minute (it told the whole sentence every
    two seconds: 29 times in a minute)."""
    from signoff.engine.temporal.serving import reconnect_wait

    assert [reconnect_wait(n) for n in range(1, 8)] == [2, 4, 8, 16, 32, 60, 60]
    address = f"127.0.0.1:{_closed_port()}"
    app = App("seldom", database=f"sqlite:///{tmp_path / 'seldom.db'}",
              runner=Temporal(address=address))
    caplog.set_level("WARNING", logger="signoff.temporal")

    def tries() -> list[str]:
        return [r.getMessage() for r in caplog.records if r.name == "signoff.temporal"
                and "Client" not in r.getMessage() and "sweep" not in r.getMessage()
                and ("still cannot" in r.getMessage() or "tries again in" in r.getMessage())]

    try:
        with app.temporal_worker().running():
            _until(lambda: len(tries()) >= 2, "a second try")
    finally:
        app.database.dispose()
    first, second = tries()[:2]
    assert first.startswith(f"Temporal at {address} could not be reached: nothing answers "
                            "there, the connection was refused.")
    assert first.endswith("The worker tries again in 2 s, then less and less often.")
    assert second == (f"Temporal at {address} still cannot be reached (2 tries); the worker "
                      "tries again in 4 s.")


def test_a_worker_whose_server_stops_says_so_in_sentences_not_the_clients_retries(
    tmp_path: Path,
) -> None:
    """`signoff worker --temporal` whose server stops, then answers again: the worker says so
    in sentences (the whole one once, a line a sweep, then that it answers again), and nothing
    of the client's own retries reaches its output (dozens a second, raw Rust log lines with
    colour codes, before the client's core logged to `signoff.temporal.core`)."""
    with running_server() as server:
        worker = _workshop_worker(server, tmp_path)
        assert worker.stdout is not None
        lines: list[str] = []

        def read_until(words: str) -> None:
            deadline = time.monotonic() + 90
            while not any(words in line for line in lines):
                assert time.monotonic() < deadline, f"no {words!r} in {lines}"
                line = worker.stdout.readline()  # type: ignore[union-attr]
                assert line, f"the worker stopped: {lines}"
                lines.append(line)

        try:
            read_until("A Temporal worker of workshop starts")
            time.sleep(2)  # its pollers poll
            server.stop()
            read_until("still cannot be reached")
            server.start()
            read_until("answers again; the worker works.")
        finally:
            worker.terminate()
            rest, _ = worker.communicate(timeout=30)
    said = "".join(lines) + rest
    assert f"Temporal at {server.address} could not be reached: nothing answers there" in said
    assert "temporalio_client" not in said
    assert "WARN" not in said
    assert "\x1b[" not in said


_AT = datetime(2026, 12, 3, 8, 0, tzinfo=UTC)


def _poller(ago: timedelta | None) -> PollerInfo:
    poller = PollerInfo(identity="1234@host", rate_per_second=100000.0)
    if ago is not None:
        poller.last_access_time.FromDatetime(_AT - ago)
    return poller


@pytest.mark.parametrize(("agos", "polled"), [
    ([], False),
    ([timedelta(seconds=1)], True),
    ([timedelta(seconds=70)], True),  # an idle worker's long poll, just ended
    ([timedelta(minutes=2)], True),
    ([timedelta(minutes=2, seconds=1)], False),  # a worker that stopped: listed for minutes
    ([timedelta(minutes=5), timedelta(seconds=3)], True),
    ([timedelta(minutes=5), timedelta(minutes=4)], False),
    ([None], False),  # no time of its last poll
])
def test_a_queue_is_polled_only_by_a_poller_that_polled_lately(
    agos: list[timedelta | None], polled: bool,
) -> None:
    """The server lists a stopped worker's poller for minutes: only one that polled within two
    minutes counts as a worker there, so "No worker of this app polls its queue" is told once
    the workers have stopped."""
    assert polled_lately([_poller(ago) for ago in agos], at=_AT) is polled


def _finder_app(database: str, server: DevServer, queue: str, *,
                settle_within: timedelta = timedelta(seconds=1)) -> SimpleNamespace:
    """An app that finds parts, on `database`, its workflows on `queue` (made again on one
    database: another process's app, with models of its own)."""
    app = App("finder", database=database, runner=Temporal(
        address=server.address, task_queue=queue, settle_within=settle_within))

    @app.action("Look up a part", query=True)
    def part(name: str) -> str:
        """A part's shelf."""
        return f"{name}: shelf 3"

    class Finding(Skill[None, str]):
        """Find a part."""

        description = "Find a part."
        tools = [part]

    class Finder(Agent):
        """Finds parts."""

        purpose = "You find parts."
        skills = [Finding()]

    me = app.people.find("me@finder.example") or app.people.add("me@finder.example", "Me")
    app.add_agent(Finder, sponsor=me)
    return SimpleNamespace(app=app, part=part, Finding=Finding, Finder=Finder, me=me)


def test_a_task_with_a_model_given_in_code_goes_on_in_its_process_beside_other_workers(
    tmp_path: Path, temporal_server: DevServer, caplog: pytest.LogCaptureFixture,
) -> None:
    """A task started with a model given in code, whose workflow a worker without that model
    took first (a `signoff worker` of the app: here the same app made again, with no model),
    goes on in the worker of the process that started it, once that one runs: its steps are
    sent there, and the first says nothing of a task it cannot step. The workflow stayed with
    the first worker (sticky), which handed it on to itself for ever: Running for good."""
    queue = f"home-{uuid.uuid4().hex[:8]}"
    database = f"sqlite:///{tmp_path / 'finder.db'}"
    starter = _finder_app(database, temporal_server, queue)
    other = _finder_app(database, temporal_server, queue)
    try:
        with other.app.temporal_worker().running():
            script = ScriptedModel(says.tool(starter.part, name="pads"),
                                   says.hand_back("shelf 3"))
            started = starter.app.agent(starter.Finder).do(starter.Finding(), None,
                                                           for_=starter.me, model=script)
            assert started.status is TaskStatus.RUNNING  # the other worker has no model
            with starter.app.temporal_worker().running():
                _until(lambda: starter.app.outcome(started.task).status is TaskStatus.DONE,
                       "the task going on in the process that has its model")
        assert starter.app.outcome(started.task).result == "shelf 3"
        assert not [r for r in caplog.records if "stays Running" in r.getMessage()]
    finally:
        starter.app.database.dispose()
        other.app.database.dispose()


def test_a_task_no_worker_can_step_says_why_where_its_caller_is_pointed(
    tmp_path: Path, temporal_server: DevServer,
) -> None:
    """A task whose model only its own process has, which runs no worker, is still Running when
    `agent.do` stops waiting: the outcome says why (the reason the app's worker gave, kept with
    the task) and what to do (run a worker in this process: one that ran and stopped is not
    taken for one), and `app.outcome(task).problem` says why too, until the task goes on. The
    reason was kept for `signoff tasks` alone, and the outcome said the workers had the task."""
    queue = f"stuck-{uuid.uuid4().hex[:8]}"
    database = f"sqlite:///{tmp_path / 'finder.db'}"
    starter = _finder_app(database, temporal_server, queue, settle_within=timedelta(seconds=14))
    other = _finder_app(database, temporal_server, queue)
    reason = ("It was started with a model given in code, which no other process can make, "
              "and its agent declares none.")
    try:
        with starter.app.temporal_worker().running():  # one ran here, and stopped: none runs
            time.sleep(1)
        with other.app.temporal_worker().running():
            script = ScriptedModel(says.tool(starter.part, name="pads"),
                                   says.hand_back("shelf 3"))
            started = starter.app.agent(starter.Finder).do(starter.Finding(), None,
                                                           for_=starter.me, model=script)
            assert started.status is TaskStatus.RUNNING
            assert started.problem.startswith(
                f"This app's Temporal workers (queue {queue} at {temporal_server.address}) "
                f"cannot step the task: {reason}")
            assert started.problem.endswith(
                "This process has its model, and runs no Temporal worker of the app to take its "
                "steps: run one here (`with app.temporal_worker().running():` around the work), "
                "and the task goes on in it.")
            assert other.app.outcome(started.task).problem.startswith(reason)
            with starter.app.temporal_worker().running():
                _until(lambda: starter.app.outcome(started.task).status is TaskStatus.DONE,
                       "the task going on once its process runs a worker")
        assert starter.app.outcome(started.task).problem == ""
    finally:
        starter.app.database.dispose()
        other.app.database.dispose()


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_a_temporal_worker_stopped_with_ctrl_c_stops(tmp_path: Path, stop: int) -> None:
    """`signoff worker --temporal` stopped with Ctrl-C once its pollers poll says "Stopped."
    and exits 0 (it went on polling: `asyncio.run` cancelled its task, and the SDK's workers,
    cancelled mid-poll, waited on polls the server held open — minutes, or for good); stopped
    by SIGTERM, the same (it ended at once, unsaid, cutting off a step under way)."""
    with running_server() as server:
        worker = _workshop_worker(server, tmp_path)
        assert worker.stdout is not None
        try:
            first = worker.stdout.readline()
            assert first.startswith("A Temporal worker of workshop starts"), first
            time.sleep(12)  # its pollers poll, each held open by the server
            worker.send_signal(stop)
            rest, _ = worker.communicate(timeout=30)  # (it stops within `SHUT_DOWN_WITHIN`)
        finally:
            if worker.poll() is None:
                worker.kill()
                worker.communicate()
    assert worker.returncode == 0, rest
    assert rest.strip() == "Stopped.", rest


def _workshop_worker(server: DevServer, folder: Path) -> subprocess.Popen[str]:
    """`signoff worker --temporal` of the workshop (its database in `folder`, a queue of its
    own) on `server`, its output (stderr too) on its stdout."""
    env = {**os.environ, "SIGNOFF_WORKSHOP_DB": str(folder / "workshop.db"),
           "SIGNOFF_TEMPORAL_QUEUE": f"worker-{uuid.uuid4().hex[:8]}"}
    return subprocess.Popen(
        [sys.executable, "-m", "signoff", "worker", "--app", "examples/workshop.py",
         "--temporal", server.address], cwd=ROOT, env=env, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
