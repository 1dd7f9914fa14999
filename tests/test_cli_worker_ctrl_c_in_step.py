"""`signoff worker` stopped with Ctrl-C while it steps a task names the task whose step was cut
off, and says that a worker goes on with it (it said "Stopped." alone); and a worker does. A
real worker process on a real SQLite file, interrupted while it is surely inside the step: its
action waits on a file this test writes."""

from __future__ import annotations

import os
import runpy
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from signoff import TaskStatus
from signoff.agents import repository as repo
from tests.forking import killed_at

_APP = '''
import os
import time

from pydantic import BaseModel

from signoff import Agent, App, Permits, Skill
from signoff.testing import ScriptedModel, says

app = App("stall", database="sqlite:///{db}", key=b"s" * 32)
HERE = {here!r}


@app.action("Wait for the test")
def wait_for_test(note: str) -> str:
    """Reaches outside: says it has begun (a file), then waits until the test releases it."""
    with open(os.path.join(HERE, "inside"), "w", encoding="utf-8") as file:
        file.write(str(os.getpid()))
    for _ in range(1200):
        if os.path.exists(os.path.join(HERE, "release")):
            break
        time.sleep(0.1)
    return "Released."


class Report(BaseModel):
    summary: str


class Stall(Skill[None, Report]):
    description = "Wait for the test."
    tools = [wait_for_test]

    def brief(self, subject: None) -> str:
        return "Wait for the test."


class Staller(Agent):
    purpose = "You wait."
    skills = [Stall()]
    may = Permits(alone=[wait_for_test])
    model = ScriptedModel(says.tool(wait_for_test, note="waiting"),
                          says.hand_back(Report(summary="Waited.")))


noor = app.people.find("noor@stall.example") or app.people.add(
    "noor@stall.example", "Noor", roles=["manager"])
app.add_agent(Staller, sponsor=noor)
'''


@contextmanager
def _at_a_terminal(args: list[str]) -> Iterator[subprocess.Popen[str]]:
    """`args` run as at a terminal, where Ctrl-C interrupts it (a process inherits an ignored
    SIGINT, and then never raises KeyboardInterrupt), while the block runs; killed if the block
    leaves it running (a test that failed)."""
    kept = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        run = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={k: v for k, v in os.environ.items() if k != "SIGNOFF_APP"})
    finally:
        signal.signal(signal.SIGINT, kept if kept is not None else signal.SIG_DFL)
    try:
        yield run
    finally:
        if run.poll() is None:
            run.kill()
            run.communicate()


def test_ctrl_c_in_a_step_names_the_task_a_worker_goes_on_with(tmp_path: Path) -> None:
    """Ctrl-C while the worker's step runs an action: exit 0, a sentence naming the task, which
    stays Running, and the worker that goes on with it; no traceback. A worker then does."""
    app_file = tmp_path / "stall.py"
    app_file.write_text(_APP.format(db=tmp_path / "stall.db", here=str(tmp_path)))
    shop = runpy.run_path(str(app_file))
    app = shop["app"]
    try:  # a task left Running: the process that began it killed as it was to step it
        assert killed_at("loop.stepping", lambda: app.agent(shop["Staller"]).do(
            shop["Stall"](), None), app) == -signal.SIGKILL
        with app.database.connect() as db:
            (task,) = repo.tasks_in(db, TaskStatus.RUNNING.value)
        worker = [sys.executable, "-m", "signoff.cli", "worker", "--app", str(app_file)]
        with _at_a_terminal([*worker, "--every", "0.05"]) as run:
            for _ in range(1200):  # (the worker's step is in the action: it waits there)
                if (tmp_path / "inside").exists() or run.poll() is not None:
                    break
                time.sleep(0.1)
            assert (tmp_path / "inside").exists(), run.communicate(timeout=60)
            run.send_signal(signal.SIGINT)
            out, err = run.communicate(timeout=120)
        assert run.returncode == 0, (out, err)
        assert "Traceback" not in err, err
        told = out.strip().splitlines()[-1]
        assert told.startswith(f"Stopped in a step of task {task}, which was cut off: the task "
                               "stays Running, and a worker goes on with it"), out
        assert f"signoff worker --app {app_file}" in told, told
        assert app.outcome(task).status is TaskStatus.RUNNING
        (tmp_path / "release").write_text("")
        again = subprocess.run([*worker, "--once"], capture_output=True, text=True, timeout=120,
                               env={k: v for k, v in os.environ.items() if k != "SIGNOFF_APP"})
        assert again.returncode == 0, again.stderr
        assert app.outcome(task).status is TaskStatus.DONE
        assert "The outcome of wait_for_test is unknown" in str(app.receipt(task))  # (cut off)
    finally:
        app.database.dispose()
