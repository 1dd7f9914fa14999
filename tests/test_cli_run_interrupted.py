"""`signoff run` stopped with Ctrl-C while its model is asked: it names the task it leaves
Running and says that `signoff worker` goes on with it (it said "Stopped." alone, and the task
stayed Running, unsaid); and `signoff worker` does."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from sqlalchemy import select

from signoff.store.tables import tasks
from tests.ports import free_port
from tests.workshop_web import open_workshop

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "examples" / "workshop.py")


@contextmanager
def _silent_model_server(asked: threading.Event) -> Iterator[int]:
    """A server on loopback that takes a model's request and never answers it, while the block
    runs: its port; `asked` is set once a request has come. Its connections are closed after."""
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", free_port()))
    server.listen(8)
    held: list[socket.socket] = []

    def take() -> None:
        while True:
            try:
                client, _ = server.accept()
            except OSError:
                return
            held.append(client)
            client.recv(65536)
            asked.set()

    taker = threading.Thread(target=take, daemon=True)
    taker.start()
    try:
        yield server.getsockname()[1]
    finally:
        server.close()
        taker.join(timeout=10)
        for client in held:
            client.close()


@contextmanager
def _running(args: list[str], env: dict[str, str]) -> Iterator[subprocess.Popen[str]]:
    """`args` run as a person runs a command at a terminal, where Ctrl-C interrupts it, while
    the block runs; killed if the block leaves it running (a test that failed), its pipes
    closed. (A process inherits an ignored SIGINT, and Python then never raises
    KeyboardInterrupt: a shell without job control starts its `&` jobs so, a CI's among them.
    A handler of this process's is not inherited: the child begins with the default.)"""
    kept = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        run = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=env)
    finally:
        signal.signal(signal.SIGINT, kept if kept is not None else signal.SIG_DFL)
    try:
        yield run
    finally:
        if run.poll() is None:
            run.kill()
            run.communicate()


def test_ctrl_c_during_run_names_the_task_left_running(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C while the model is asked: exit 130, a sentence naming the task, which stays
    Running, and the worker command that goes on with it; no traceback."""
    monkeypatch.setenv("SIGNOFF_PROFILE", str(tmp_path / "profile.json"))
    shop = open_workshop(tmp_path, monkeypatch)
    asked = threading.Event()
    with _silent_model_server(asked) as port, _running(
            [sys.executable, "-m", "signoff.cli", "run", "estimator", "estimate_repair",
             "--for", "mia@workshop.example", "--subject", "ticket=T-7", "--app", APP,
             "--model", f"openai-compatible:x@http://127.0.0.1:{port}/v1", "--price", "0,0"],
            {**os.environ, "WORKSHOP_DATABASE": os.environ["WORKSHOP_DATABASE"],
             "PYTHONFAULTHANDLER": "1"}) as run:
        assert asked.wait(timeout=120), "the model was never asked"
        run.send_signal(signal.SIGINT)
        try:
            out, err = run.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            run.send_signal(signal.SIGABRT)  # (faulthandler writes where each thread is)
            out, err = run.communicate(timeout=60)
            pytest.fail(f"signoff run did not end within 120 s of Ctrl-C; where it was:\n{err}")
    assert run.returncode == 130, (out, err)
    assert "Traceback" not in err
    with shop.app.database.connect() as db:
        running = [r.id for r in db.execute(
            select(tasks.c.id).where(tasks.c.status == "Running"))]
    assert len(running) == 1
    assert f"Task {running[0]} stays Running" in err, err
    assert "signoff worker --app" in err, err
