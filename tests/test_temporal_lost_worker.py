"""A Temporal worker lost (SIGKILLed, its machine gone) while a step runs as an ordinary
activity: another worker takes the step up soon — not once the step's ten-minute timeout has
passed — and the outside call it was running is told as of unknown outcome, not run again."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace

from signoff import App, TaskStatus, Temporal
from signoff.testing import ScriptedModel, says
from tests.letter_clerk import letter_clerk
from tests.temporal_server import DevServer

ROOT = Path(__file__).resolve().parent.parent


def _until(check: object, what: str, within: float) -> None:
    deadline = time.monotonic() + within
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"{what} did not happen within {within:g} s"
        time.sleep(0.1)


def build(database: str, address: str, queue: str) -> SimpleNamespace:
    """The app, in the test and in its worker processes: a clerk posts a letter alone (an
    outside call), which the post office holds until the test lets it go."""
    app = App("lost", database=database, runner=Temporal(
        address=address, task_queue=queue, local_activities=False,
        settle_within=timedelta(seconds=1)))
    folder: str = str(database.removeprefix("sqlite:///").rsplit("/", 1)[0])

    @app.action("Post a letter")
    def post_letter(text: str) -> str:
        """Reaches outside: the letter is posted, then held until the test lets it go."""
        with open(folder + "/letters.txt", "a", encoding="utf-8") as letters:
            letters.write(text + "\n")
        waited: float = 0.0
        while not os.path.exists(folder + "/release") and waited < 60:
            time.sleep(0.05)
            waited += 0.05
        return "Posted."

    return letter_clerk(app, post_letter, folder=folder, me="me@lost.example", alone=True)


def _script(shop: SimpleNamespace) -> ScriptedModel:
    return ScriptedModel(says.tool(shop.post_letter, text="hello"), says.hand_back("posted"))


def serve(database: str, address: str, queue: str) -> None:
    """A worker process of the app, until it is killed."""
    shop = build(database, address, queue)
    shop.app.temporal_worker(model_for=lambda _agent, _task: _script(shop)).run()


def _spawn(database: str, address: str, queue: str, log: Path) -> subprocess.Popen[bytes]:
    with open(log, "ab") as out:
        return subprocess.Popen(
            [sys.executable, "-c", "import sys; from tests.test_temporal_lost_worker import "
             "serve; serve(*sys.argv[1:])", database, address, queue],
            cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)


def test_a_step_of_a_killed_worker_is_taken_up_soon_and_its_outside_call_told_unknown(
    tmp_path: Path, temporal_server: DevServer,
) -> None:
    """A worker SIGKILLed while its step (an ordinary activity) posts a letter: another worker
    takes the step up within a couple of minutes, the letter is posted once, and the receipt
    says its outcome is unknown. The step had no heartbeat: the server waited out its
    ten-minute timeout before it gave the step to another worker, and the task stood still."""
    database = f"sqlite:///{tmp_path / 'lost.db'}"
    queue = f"lost-{uuid.uuid4().hex[:8]}"
    shop = build(database, temporal_server.address, queue)
    workers = [_spawn(database, temporal_server.address, queue, tmp_path / "first.log")]
    try:
        started = shop.app.agent(shop.Clerk).do(shop.Posting(), None, for_=shop.me,
                                                model=_script(shop))
        _until(lambda: (shop.folder / "letters.txt").exists(), "the letter being posted", 90)
        workers[0].send_signal(signal.SIGKILL)
        workers[0].wait()
        (shop.folder / "release").write_text("go")  # a call run again would post it again
        workers.append(_spawn(database, temporal_server.address, queue, tmp_path / "second.log"))
        _until(lambda: shop.app.outcome(started.task).status is TaskStatus.DONE,
               "the task going on in the second worker", 150)
        words = shop.app.receipt(started.task).words
        assert "The outcome of post_letter is unknown" in words, words
        assert (shop.folder / "letters.txt").read_text().splitlines() == ["hello"]
    finally:
        (shop.folder / "release").write_text("go")
        for worker in workers:
            if worker.poll() is None:
                worker.kill()
                worker.wait()
        shop.app.database.dispose()
