"""A decision on a task that runs on Temporal, when the server or an operator gets in its way:
the server stopped as a person says yes, a workflow terminated while the yes waits on it."""

from __future__ import annotations

import asyncio
import signal
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from signoff import ProposalStatus, TaskStatus
from signoff.engine.temporal.runner import connect
from signoff.testing import ScriptedModel, says
from tests.stockroom import stockroom
from tests.temporal_server import DevServer, running_server, until


def _script(shop: SimpleNamespace) -> ScriptedModel:
    return ScriptedModel(says.tool(shop.restock, bin=shop.bin.id, by=3), says.hand_back("Done."))


@contextmanager
def _answering_nothing(port: int) -> Iterator[list[int]]:
    """While the block runs, something on `port` (a stopped server's) that takes each
    connection and closes it at once, as a server going down does: the connections made to it,
    one a try."""
    taken: list[int] = []
    stop = threading.Event()
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(64)
    listener.settimeout(0.1)

    def take() -> None:
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                continue
            taken.append(1)
            connection.close()

    thread = threading.Thread(target=take, daemon=True)
    thread.start()
    try:
        yield taken
    finally:
        stop.set()
        thread.join(5)
        listener.close()


def test_a_yes_while_the_server_is_down_is_told_after_a_few_tries_and_loses_nothing(
    tmp_path: Path,
) -> None:
    """A yes given while the Temporal server is down runs the call and is told so, and that the
    task is recorded and goes on once the server answers, after a few tries of the signal (the
    Temporal client's own retries tried nine or ten times over ten seconds before anyone was
    told); once the server is back, a worker's sweep takes the task on to its end, the call
    having run once."""
    with running_server() as server:
        shop = stockroom(tmp_path, server)
        try:
            with shop.app.temporal_worker().running():
                asked = shop.app.agent(shop.Stocker).do(shop.Stocking(), None, for_=shop.noor,
                                                        model=_script(shop))
                assert asked.status is TaskStatus.WAITING, shop.app.receipt(asked.task).words
            (proposal,) = shop.app.proposals(task=asked.task)
            server.stop()
            with _answering_nothing(server.port) as tries:
                decision = shop.app.approve(proposal, by=shop.noor)
            assert 1 <= len(tries) <= 5, f"the signal was tried {len(tries)} times"
            assert decision.status is ProposalStatus.DONE
            assert decision.task_status == TaskStatus.RUNNING.value
            # (It was told as the call refused, "transport error", and to check the namespace.)
            assert decision.task_problem.startswith(
                f"Temporal at {server.address} could not be reached (the connection was closed "
                "as the call was made). The task is recorded and goes on once a worker"
            ), decision.task_problem
            assert shop.count() == 3
            server.start()
            with shop.app.temporal_worker(stalled_after=timedelta(0)).running():
                until(lambda: shop.app.outcome(asked.task).status is TaskStatus.DONE,
                      "the task going on once the server answers")
            assert shop.count() == 3  # the approved call ran once
            assert shop.app.proposals(task=asked.task)[0].status is ProposalStatus.DONE
        finally:
            shop.app.database.dispose()


class _HeldAfterFirst:
    """A scripted model that answers its first call at once and holds every later one until
    `release` is set (`asked` is set as one waits)."""

    def __init__(self, inner: ScriptedModel) -> None:
        self._inner = inner
        self.name, self.price = inner.name, inner.price
        self.asked, self.release = threading.Event(), threading.Event()
        self._calls = 0

    def complete(self, *args: Any, **kwargs: Any) -> Any:
        self._calls += 1
        if self._calls > 1:
            self.asked.set()
            self.release.wait(60)
        return self._inner.complete(*args, **kwargs)

    def count_tokens(self, *args: Any) -> int:
        return self._inner.count_tokens(*args)


@pytest.mark.parametrize(("end", "ended"), [("terminate", "terminated"), ("cancel", "cancelled")])
def test_a_yes_whose_workflow_is_terminated_as_it_waits_says_so_and_the_task_goes_on(
    tmp_path: Path, temporal_server: DevServer, end: str, ended: str,
) -> None:
    """An operator terminates (or cancels) a task's workflow while a yes waits for the task to
    go on (its next model turn under way): the decision says that the workflow was ended from
    outside and that the task goes on from its record in a new run — it said the task "had
    neither stopped for a decision nor ended after 5 seconds", though it heard at once — and
    the task goes on to its end, the approved call having run once."""
    shop = stockroom(tmp_path, temporal_server, settle_within=5)
    model = _HeldAfterFirst(_script(shop))
    try:
        with shop.app.temporal_worker().running():
            asked = shop.app.agent(shop.Stocker).do(shop.Stocking(), None, for_=shop.noor,
                                                    model=model)
            assert asked.status is TaskStatus.WAITING, shop.app.receipt(asked.task).words
            (proposal,) = shop.app.proposals(task=asked.task)
            decided: dict[str, Any] = {}
            deciding = threading.Thread(target=lambda: decided.setdefault(
                "decision", shop.app.approve(proposal, by=shop.noor)), daemon=True)
            deciding.start()
            assert model.asked.wait(30), "the task's next turn was not asked of its model"

            async def end_it() -> None:
                client = await connect(shop.app.runner)
                handle = client.get_workflow_handle(asked.task)
                await (handle.terminate("an operator") if end == "terminate" else handle.cancel())

            asyncio.run(end_it())
            deciding.join(60)
            model.release.set()
            decision = decided["decision"]
            assert decision.status is ProposalStatus.DONE
            assert decision.task_status == TaskStatus.RUNNING.value  # its turn still held
            assert decision.task_problem.startswith(
                f"Its Temporal workflow was {ended} from outside as this waited on it; the "
                "task goes on from its record in a new run (ending a task's workflow does not "
                "stop the task)."), decision.task_problem
            until(lambda: shop.app.outcome(asked.task).status is TaskStatus.DONE,
                  "the task going on after its workflow was terminated")
        assert shop.count() == 3
        assert shop.app.outcome(asked.task).result == "Done."
    finally:
        model.release.set()
        shop.app.database.dispose()


def test_a_yes_whose_server_stops_as_it_waits_says_so_and_the_task_goes_on_after(
    tmp_path: Path,
) -> None:
    """The Temporal server stops while a yes waits for the task to go on (its next model turn
    under way): the decision says that the server could not be reached and that the task is
    recorded — it said the task "had neither stopped for a decision nor ended after 30
    seconds", at once — and, the server back, the task goes on to its end."""
    with running_server() as server:
        shop = stockroom(tmp_path, server)
        model = _HeldAfterFirst(_script(shop))
        try:
            with shop.app.temporal_worker(stalled_after=timedelta(0)).running():
                asked = shop.app.agent(shop.Stocker).do(shop.Stocking(), None, for_=shop.noor,
                                                        model=model)
                assert asked.status is TaskStatus.WAITING, shop.app.receipt(asked.task).words
                (proposal,) = shop.app.proposals(task=asked.task)
                decided: dict[str, Any] = {}
                deciding = threading.Thread(target=lambda: decided.setdefault(
                    "decision", shop.app.approve(proposal, by=shop.noor)), daemon=True)
                deciding.start()
                assert model.asked.wait(30), "the task's next turn was not asked of its model"
                server.stop()
                deciding.join(60)
                decision = decided["decision"]
                assert decision.status is ProposalStatus.DONE
                assert decision.task_status == TaskStatus.RUNNING.value  # its turn still held
                assert decision.task_problem.startswith(
                    f"Temporal at {server.address} could not be reached ("), decision.task_problem
                assert "The task is recorded and goes on once a worker" in decision.task_problem
                server.start()
                model.release.set()
                until(lambda: shop.app.outcome(asked.task).status is TaskStatus.DONE,
                      "the task going on once the server answers", 90)
            assert shop.count() == 3
        finally:
            model.release.set()
            shop.app.database.dispose()


@contextmanager
def _dropping_connections() -> Iterator[str]:
    """While the block runs, an address (HOST:PORT) whose new connections go nowhere, as to a
    host whose firewall drops them: a listener that accepts none, its queue full."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    port = listener.getsockname()[1]
    filling = [socket.socket() for _ in range(4)]
    for filler in filling:
        filler.setblocking(False)
        filler.connect_ex(("127.0.0.1", port))
    try:
        yield f"127.0.0.1:{port}"
    finally:
        for filler in filling:
            filler.close()
        listener.close()


def test_a_task_started_where_connections_go_nowhere_is_told_unreachable(tmp_path: Path) -> None:
    """`agent.do` on a Temporal address whose connections go nowhere (a firewall that drops
    them) says that the server could not be reached and that the task is recorded — the
    client waited on the system's own timeout, minutes, and the caller was told, once it
    stopped waiting, that "the task goes on in this app's Temporal workers"."""
    with _dropping_connections() as address:
        shop = stockroom(tmp_path, address, settle_within=1)
        try:
            asked = shop.app.agent(shop.Stocker).do(shop.Stocking(), None, for_=shop.noor,
                                                    model=_script(shop))
            assert asked.status is TaskStatus.RUNNING
            assert asked.problem.startswith(
                f"Temporal at {address} could not be reached (it did not answer in time). The "
                "task is recorded and goes on once a worker"), asked.problem
            assert shop.app.outcome(asked.task).problem == asked.problem
        finally:
            shop.app.database.dispose()


def test_a_yes_while_the_server_hangs_is_told_it_did_not_answer_not_that_it_refused(
    tmp_path: Path,
) -> None:
    """A yes given while the Temporal server hangs (its process stopped, SIGSTOP: it takes
    connections and answers nothing) is told that the server did not answer in time and that
    the task is recorded (it was told the server "refused the call", and to check the
    namespace); the server going on, a worker's sweep takes the task on to its end."""
    with running_server() as server:
        shop = stockroom(tmp_path, server)
        try:
            with shop.app.temporal_worker().running():
                asked = shop.app.agent(shop.Stocker).do(shop.Stocking(), None, for_=shop.noor,
                                                        model=_script(shop))
                assert asked.status is TaskStatus.WAITING, shop.app.receipt(asked.task).words
            (proposal,) = shop.app.proposals(task=asked.task)
            process = server._process  # (the dev server's own process)
            assert process is not None
            process.send_signal(signal.SIGSTOP)
            try:
                decision = shop.app.approve(proposal, by=shop.noor)
            finally:
                process.send_signal(signal.SIGCONT)
            assert decision.status is ProposalStatus.DONE
            assert decision.task_status == TaskStatus.RUNNING.value
            assert decision.task_problem.startswith(
                f"Temporal at {server.address} could not be reached (it did not answer in "
                "time). The task is recorded and goes on once a worker"), decision.task_problem
            with shop.app.temporal_worker(stalled_after=timedelta(0)).running():
                until(lambda: shop.app.outcome(asked.task).status is TaskStatus.DONE,
                      "the task going on once the server answers")
            assert shop.count() == 3
        finally:
            shop.app.database.dispose()
