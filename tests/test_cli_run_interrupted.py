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
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

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
    runs: its port; `asked` is set once a request for a chat completion has come whole (so the
    command asking is in its model call: a connection that asks for nothing else does not set
    it). After the block, every connection and thread of it is ended (its threads were left
    waiting, on a closed socket, for the rest of the suite)."""
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", free_port()))
    server.listen(8)
    held: list[socket.socket] = []
    readers: list[threading.Thread] = []

    def read(client: socket.socket) -> None:
        request = b""
        with suppress(OSError):
            while b"\r\n\r\n" not in request and (piece := client.recv(65536)):
                request += piece
        if request.startswith(b"POST ") and b"/chat/completions" in request.split(b"\r\n")[0]:
            asked.set()

    def take() -> None:
        while True:
            try:
                client, _ = server.accept()
            except OSError:  # (shut down: the block is over)
                return
            held.append(client)
            reader = threading.Thread(target=read, args=(client,), daemon=True)
            readers.append(reader)
            reader.start()

    taker = threading.Thread(target=take, daemon=True)
    taker.start()
    try:
        yield server.getsockname()[1]
    finally:
        for each in (server, *held):  # (a shutdown wakes a thread waiting in accept or recv;
            with suppress(OSError):  # a close alone leaves it waiting, the port still open)
                each.shutdown(socket.SHUT_RDWR)
        taker.join(timeout=60)
        for reader in readers:
            reader.join(timeout=60)
        for each in (server, *held):
            each.close()
        assert not taker.is_alive(), "the silent server's thread did not end"
        assert not any(r.is_alive() for r in readers), "a silent server's reader did not end"


def _signals_of(pid: int) -> str:
    """What the system says of a process's signals (pending, blocked, ignored, caught) and
    threads, for a test's failure; "" where there is no /proc."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return ""
    return "\n".join(line for line in status.splitlines()
                     if line.startswith(("Sig", "ShdPnd", "Threads")))


@contextmanager
def _running(args: list[str], env: dict[str, str]) -> Iterator[subprocess.Popen[str]]:
    """`args` run as a person runs a command at a terminal, where Ctrl-C interrupts it, while
    the block runs; killed if the block leaves it running (a test that failed), its pipes
    closed. (A process inherits an ignored SIGINT, and Python then never raises
    KeyboardInterrupt: a shell without job control starts its `&` jobs so, a CI's among them.
    A handler of this process's is not inherited: the child begins with the default. It
    inherits the starting thread's blocked signals too, which a terminal's shell blocks none
    of.)"""
    kept = signal.signal(signal.SIGINT, signal.default_int_handler)
    mask = signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    try:
        run = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=env)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        signal.signal(signal.SIGINT, kept if kept is not None else signal.SIG_DFL)
    try:
        yield run
    finally:
        if run.poll() is None:
            run.kill()
            run.communicate()


def _stopped_with_ctrl_c(run: subprocess.Popen[str], asked: threading.Event) -> tuple[str, str]:
    """Once `run` asks its model, Ctrl-C: what it wrote (stdout, stderr) as it ended; a test
    failure saying where it was, and what the system says of its signals, if it did not end."""
    assert asked.wait(timeout=120), "the model was never asked"
    run.send_signal(signal.SIGINT)
    try:
        return run.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        signals = _signals_of(run.pid)
        run.send_signal(signal.SIGABRT)  # (faulthandler writes where each thread is)
        _, err = run.communicate(timeout=60)
        pytest.fail(f"signoff run did not end within 120 s of Ctrl-C; its signals:\n"
                    f"{signals}\nwhere it was:\n{err}")


def _run_args(port: int, *more: str) -> list[str]:
    return [sys.executable, "-m", "signoff.cli", "run", "estimator", "estimate_repair",
            "--for", "mia@workshop.example", "--subject", "ticket=T-7", "--app", APP,
            "--model", f"openai-compatible:x@http://127.0.0.1:{port}/v1", "--price", "0,0",
            *more]


def _task_left_running(shop: Any) -> str:
    """The id of the one task left Running."""
    with shop.app.database.connect() as db:
        running = [r.id for r in db.execute(
            select(tasks.c.id).where(tasks.c.status == "Running"))]
    assert len(running) == 1
    return str(running[0])


def test_ctrl_c_during_run_names_the_task_left_running(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C while the model is asked: exit 130, a sentence naming the task, which stays
    Running, and the worker command that goes on with it, said as a stop, not as an error (it
    began "Error: Stopped.", where `signoff research` says "Stopped."); no traceback."""
    monkeypatch.setenv("SIGNOFF_PROFILE", str(tmp_path / "profile.json"))
    shop = open_workshop(tmp_path, monkeypatch)
    asked = threading.Event()
    with _silent_model_server(asked) as port, _running(
            _run_args(port), {**os.environ, "WORKSHOP_DATABASE": os.environ["WORKSHOP_DATABASE"],
                              "PYTHONFAULTHANDLER": "1"}) as run:
        out, err = _stopped_with_ctrl_c(run, asked)
    assert run.returncode == 130, (out, err)
    assert "Traceback" not in err
    assert "Error" not in err, err
    last = err.splitlines()[-1]
    assert last.startswith(f"Stopped. Task {_task_left_running(shop)} stays Running, cut off in "
                           "its step: `signoff worker --app"), err


def test_ctrl_c_is_heard_when_started_with_it_blocked(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """`signoff run` started from a thread that blocks SIGINT (as many runtimes' threads do;
    the block is inherited): a Ctrl-C while the model is asked still stops it, exit 130,
    naming the task. (It waited, unheard, until the model's timeout: the task then failed.)"""
    monkeypatch.setenv("SIGNOFF_PROFILE", str(tmp_path / "profile.json"))
    shop = open_workshop(tmp_path, monkeypatch)
    asked = threading.Event()
    started: list[subprocess.Popen[str]] = []

    def start(port: int) -> None:  # (a thread of its own, SIGINT blocked in it alone)
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        started.append(subprocess.Popen(
            _run_args(port, "--timeout", "60"), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, env={**os.environ, "WORKSHOP_DATABASE": os.environ["WORKSHOP_DATABASE"],
                            "PYTHONFAULTHANDLER": "1"}))

    with _silent_model_server(asked) as port:
        starter = threading.Thread(target=start, args=(port,))
        starter.start()
        starter.join()
        run = started[0]
        try:
            out, err = _stopped_with_ctrl_c(run, asked)
        finally:
            if run.poll() is None:
                run.kill()
                run.communicate()
    assert run.returncode == 130, (out, err)
    assert f"Task {_task_left_running(shop)} stays Running" in err, err


def test_a_ctrl_c_held_back_until_the_command_begins_stops_it(tmp_path: Path) -> None:
    """Started with SIGINT blocked, and Ctrl-C pressed while it still imports (held back by the
    block until the command unblocks it): "Stopped.", exit 130, nothing else said."""
    started: list[subprocess.Popen[str]] = []

    def start() -> None:  # (a thread of its own, SIGINT blocked in it alone)
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        started.append(subprocess.Popen(
            [sys.executable, "-m", "signoff.cli", "users", "list", "--app", APP],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "WORKSHOP_DATABASE": f"sqlite:///{tmp_path / 'shop.db'}"}))
        started[0].send_signal(signal.SIGINT)  # (at once: it has not reached the command yet)

    starter = threading.Thread(target=start)
    starter.start()
    starter.join()
    out, err = started[0].communicate(timeout=120)
    assert (started[0].returncode, err, out) == (130, "Stopped.\n", "")
