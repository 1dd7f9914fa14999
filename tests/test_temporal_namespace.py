"""A Temporal worker of an app that names a namespace the server does not have says so in a
sentence, and what to check — not a traceback of the client's status every two seconds."""

from __future__ import annotations

import logging
import threading
import time
import uuid
from pathlib import Path

import pytest

from signoff import App, Temporal
from signoff.engine.temporal.runner import _in_words
from tests.temporal_server import DevServer


def test_a_worker_on_a_namespace_the_server_lacks_says_so_in_a_sentence(
    tmp_path: Path, temporal_server: DevServer, caplog: pytest.LogCaptureFixture,
) -> None:
    """The worker's start is refused (the namespace is not found): it says so in words, names
    the namespace and what to check, and tries again ever more seldom; no traceback, no Rust
    status. (It logged "The Temporal worker stopped; it starts again." with the SDK's
    traceback and the client's `Status { code: NotFound, ... }`, every two seconds.)"""
    namespace = f"nowhere-{uuid.uuid4().hex[:6]}"
    app = App("spaced", database=f"sqlite:///{tmp_path / 'spaced.db'}",
              runner=Temporal(address=temporal_server.address, namespace=namespace))
    stop = threading.Event()
    worker = threading.Thread(target=app.temporal_worker().run, args=(stop,), daemon=True)
    caplog.set_level(logging.INFO, logger="signoff.temporal")
    worker.start()
    try:
        deadline = time.monotonic() + 60
        while not [r for r in caplog.records if r.name == "signoff.temporal"]:
            assert time.monotonic() < deadline, "the worker said nothing within a minute"
            time.sleep(0.1)
        time.sleep(3)  # a try again or two
    finally:
        stop.set()
        worker.join(30)
        app.database.dispose()
    told = [r for r in caplog.records if r.name == "signoff.temporal"
            and r.levelno >= logging.WARNING]
    first = told[0].getMessage()
    assert first.startswith(f"Temporal at {temporal_server.address} refused the call: "
                            f"Namespace {namespace} is not found. Check the namespace"), first
    assert all(r.exc_info is None for r in told), [r.getMessage() for r in told]
    assert not any("Status {" in r.getMessage() for r in told), [r.getMessage() for r in told]
    assert len(told) <= 3, [r.getMessage() for r in told]


def test_a_servers_status_is_told_by_its_message() -> None:
    """The client's report of a refusal, a Rust status, is told by the server's own message."""
    reason = ('Worker validation failed: Namespace x was not found or otherwise could not be '
              'described: Status { code: NotFound, message: "Namespace x is not found.", '
              'details: b"\\x08", metadata: MetadataMap { headers: {} } }')
    assert _in_words(reason) == "Namespace x is not found"
