"""Fixtures shared by the whole suite."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from signoff.testing import refuse_model_requests

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytest_plugins = ["tests.postgres_server", "tests.temporal_server", "tests.web_bank"]


@pytest.fixture(autouse=True, scope="session")
def _no_real_model_requests() -> Iterator[None]:
    """No test reaches a real model provider: every real request is refused."""
    with refuse_model_requests():
        yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Once a test file is done, what is still alive is moved out of the garbage collector's
    sight (`gc.freeze`), after a collection of the file's own garbage. The suite builds
    thousands of apps in one process, and signoff's effect analysis keeps what it read of each
    (about 7 million objects by the end of the suite): every full collection walked them all,
    taking 3 s on average and up to 14 s (87 of them, 288 s of a 56-minute run, measured with
    `gc.callbacks`), long enough for a request a test made to its own server to time out. A
    collection now walks only what the current file made."""
    yield
    if nextitem is None or getattr(nextitem, "module", None) is not getattr(item, "module", None):
        gc.collect()
        gc.freeze()


@pytest.fixture(autouse=True)
def _sessions_left_open_are_let_go() -> Iterator[None]:
    """A served session a test leaves open (a `ServedAgent` called in-process, never closed) is
    let go with the server once the test ends: its lease is not renewed, against a database
    the test has dropped, beside the tests that follow."""
    yield
    from signoff.agents import runs

    if any(kind == "work" for kind, _ in runs.held()):
        gc.collect()


@pytest.fixture(autouse=True, scope="session")
def _workshop_in_memory_unless_told() -> None:
    """examples/workshop.py keeps its data in workshop.db in the working directory; a test that
    loads it without naming a database of its own gets one in memory instead, so that no test
    writes into the checkout (a test that wants a file sets WORKSHOP_DATABASE itself)."""
    import os

    os.environ.setdefault("WORKSHOP_DATABASE", "sqlite://")


CHROMIUM = "/usr/bin/chromium"
"""Debian's Chromium, which the browser tests drive (never downloaded)."""


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Debian's Chromium, headless (installed by scripts/install-test-deps; never downloaded)."""
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail(f"These tests need {CHROMIUM}: run scripts/install-test-deps as root.",
                    pytrace=False)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--headless", "--disable-gpu", "--disable-dev-shm-usage",
                  "--disable-background-networking", "--no-first-run"],
        )
        yield browser
        browser.close()


@pytest.fixture(params=["sqlite", "postgres"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A SQLite file, or a PostgreSQL database of this test's own (a test on both)."""
    if request.param == "postgres":
        url: str = request.getfixturevalue("postgres_database")
        return url
    return f"sqlite:///{tmp_path / 'test.db'}"
