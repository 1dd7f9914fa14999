"""A real PostgreSQL server for the tests, started from Debian's packages in a temporary directory.

``postgres_url`` starts one server per test session (on a free loopback port, as the ``postgres``
system user when the tests run as root, since PostgreSQL refuses to run as root) and yields a
SQLAlchemy URL of a database on it; ``postgres_database`` gives each test a database of its own.
The server is stopped and its directory removed when the session ends. Without the server
binaries the tests that need it fail, naming ``scripts/install-test-deps``: they never skip.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import LiteralString

import pytest

from tests.ports import free_port
from tests.stopping import terminated_as_interrupted

SERVER_USER = "postgres"
"""The system user the Debian package creates, which runs the server when the tests run as root."""


def _server_binaries() -> Path:
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda path: int(Path(path).parts[-3]) if Path(path).parts[-3].isdigit() else 0,
    )
    if not found:
        pytest.fail(
            "These tests need a PostgreSQL server and none is installed "
            "(no /usr/lib/postgresql/*/bin/initdb). Run scripts/install-test-deps as root.",
            pytrace=False,
        )
    return Path(found[-1]).parent


def _as_server_user() -> list[str]:
    """The command prefix that runs a program as a user PostgreSQL accepts."""
    if os.geteuid() != 0:
        return []
    try:
        pwd.getpwnam(SERVER_USER)
    except KeyError:
        pytest.fail(
            f"The tests run as root, and PostgreSQL refuses root; there is no {SERVER_USER!r} "
            "user to run it as. Run scripts/install-test-deps as root (the package makes one).",
            pytrace=False,
        )
    return ["runuser", "-u", SERVER_USER, "--"]


def _run(command: list[str], what: str) -> None:
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.fail(
            f"Could not {what} (exit {done.returncode}):\n{done.stdout}\n{done.stderr}",
            pytrace=False,
        )


def _admin(url: str, statement: LiteralString, database: str) -> None:
    """Run `statement` (with ``{}`` standing for the quoted database name) outside a transaction."""
    import psycopg
    from psycopg import sql

    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute(sql.SQL(statement).format(sql.Identifier(database)))


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """A running PostgreSQL server for the whole test session: its libpq URL, as the superuser."""
    with running_server() as url:
        yield url


@contextmanager
def running_server() -> Iterator[str]:
    """A PostgreSQL server of its own while the block runs (the tests', and the campaign's in
    ``bench/campaign.py``): its libpq URL, as the superuser. It is stopped when the block is
    left whichever way, SIGTERM included (`terminated_as_interrupted`), and from the moment it
    is asked to start: a start interrupted half way leaves no server behind."""
    with terminated_as_interrupted():
        yield from _running_server()


def _running_server() -> Iterator[str]:
    binaries = _server_binaries()
    prefix = _as_server_user()
    # Not under pytest's own temporary directory: that one is private to root.
    home = Path(tempfile.mkdtemp(prefix="signoff-postgres-"))
    if prefix:
        user = pwd.getpwnam(SERVER_USER)
        os.chown(home, user.pw_uid, user.pw_gid)
    data, log, port = home / "data", home / "server.log", free_port()
    try:
        _run(
            [
                *prefix,
                str(binaries / "initdb"),
                "-D",
                str(data),
                "-U",
                "postgres",
                "--auth=trust",
                "--encoding=UTF8",
                "--no-sync",
            ],
            "create the PostgreSQL data directory",
        )
        options = (
            f"-p {port} -c listen_addresses=127.0.0.1 -k {home} "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        )
        try:
            _run(
                [
                    *prefix,
                    str(binaries / "pg_ctl"),
                    "-D",
                    str(data),
                    "-l",
                    str(log),
                    "-o",
                    options,
                    "-w",
                    "-t",
                    "60",
                    "start",
                ],
                f"start PostgreSQL (its log is {log})",
            )
            yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
        finally:
            subprocess.run(
                [*prefix, str(binaries / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"],
                capture_output=True,
                check=False,
            )
    finally:
        shutil.rmtree(home, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres_url(postgres_server: str) -> str:
    """A SQLAlchemy URL (psycopg 3) of a database on the test session's PostgreSQL server."""
    _admin(postgres_server, "CREATE DATABASE {}", "signoff_tests")
    return _sqlalchemy_url(postgres_server, "signoff_tests")


@pytest.fixture
def postgres_database(postgres_server: str) -> Iterator[str]:
    """A SQLAlchemy URL of a fresh, empty database for this test alone, dropped afterwards."""
    name = f"signoff_{uuid.uuid4().hex[:12]}"
    _admin(postgres_server, "CREATE DATABASE {}", name)
    try:
        yield _sqlalchemy_url(postgres_server, name)
    finally:
        _admin(postgres_server, "DROP DATABASE IF EXISTS {} WITH (FORCE)", name)


def _sqlalchemy_url(server: str, database: str) -> str:
    base = server.rsplit("/", 1)[0].replace("postgresql://", "postgresql+psycopg://", 1)
    return f"{base}/{database}"
