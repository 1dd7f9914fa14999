"""The tests' PostgreSQL server (tests/postgres_server.py) is stopped when pytest is stopped
from outside, by SIGTERM as by Ctrl-C: a real pytest, in a process of its own, on a test that
uses it."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.postgres_server import _as_server_user, _server_binaries

ROOT = Path(__file__).resolve().parent.parent

_WAITS = textwrap.dedent('''
    import os
    import time
    from pathlib import Path

    import psycopg


    def test_waits_to_be_stopped(postgres_server):
        with psycopg.connect(postgres_server, autocommit=True) as connection:
            (data,) = connection.execute("SHOW data_directory").fetchone()
        Path(os.environ["SERVER_DATA"]).write_text(data)
        for _ in range(3000):  # stopped from outside long before
            time.sleep(0.1)
''')
"""A test that says where its session's server keeps its data, then waits to be stopped."""


def _alive(pid: int) -> bool:
    """Whether process `pid` runs (whoever owns it: /proc, not a signal)."""
    try:
        return "\tZ" not in Path(f"/proc/{pid}/status").read_text().split("State:", 1)[1][:3]
    except (FileNotFoundError, ProcessLookupError):
        return False


def _eventually(check: object, tries: int = 600) -> bool:
    """Whether `check()` holds within `tries` looks, a tenth of a second apart."""
    assert callable(check)
    for _ in range(tries):
        if check():
            return True
        time.sleep(0.1)
    return bool(check())


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_stopped_pytest_stops_its_postgresql_server(tmp_path: Path,
                                                      stop: signal.Signals) -> None:
    """pytest stopped by SIGTERM (`kill`, a CI job cancelled) or SIGINT (Ctrl-C) while a test
    runs tears its fixtures down: the PostgreSQL server it started is stopped and its directory
    removed (SIGTERM ended pytest at once, and left the server running)."""
    (tmp_path / "test_waits.py").write_text(_WAITS)
    told = tmp_path / "data.txt"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SERVER_DATA": str(told)}
    pytest_run = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
         "tests.postgres_server", "--rootdir", str(tmp_path), "-c", os.devnull,
         str(tmp_path / "test_waits.py")],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert _eventually(lambda: told.exists() and told.read_text(), tries=1200), (
            "the test never started")
        data = Path(told.read_text())
        postmaster = int((data / "postmaster.pid").read_text().split()[0])
        assert _alive(postmaster)
        pytest_run.send_signal(stop)
        output, _ = pytest_run.communicate(timeout=300)
    finally:
        if pytest_run.poll() is None:
            pytest_run.kill()
            pytest_run.communicate()
    assert _eventually(lambda: not _alive(postmaster)), (
        f"PostgreSQL (pid {postmaster}) still runs after pytest stopped (exit "
        f"{pytest_run.returncode}):\n{output}")
    assert not data.exists()
    assert pytest_run.returncode == 2, output  # interrupted, as with Ctrl-C


@pytest.fixture(autouse=True)
def _no_server_left(tmp_path: Path) -> Iterator[None]:
    """A server the test's pytest left running (as it did when SIGTERM ended it) is stopped
    after the test, and its directory removed."""
    yield
    told = tmp_path / "data.txt"
    data = Path(told.read_text()) if told.exists() and told.read_text() else None
    if data is not None and data.exists():
        subprocess.run([*_as_server_user(), str(_server_binaries() / "pg_ctl"), "-D", str(data),
                        "-m", "immediate", "-w", "stop"], capture_output=True, check=False)
        shutil.rmtree(data.parent, ignore_errors=True)
