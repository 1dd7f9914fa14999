"""A webhook receiver on 127.0.0.1 that keeps each JSON body POSTed to it (for the tests of
what a webhook is told, and how often)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import SimpleNamespace
from typing import Any

import pytest

from tests.ports import free_port


class _Receiver(BaseHTTPRequestHandler):
    bodies: list[dict[str, Any]]
    down: list[bool]

    def do_POST(self) -> None:
        self.bodies.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
        self.send_response(503 if self.down[0] else 204)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@contextmanager
def receiving() -> Iterator[SimpleNamespace]:
    """The receiver's `url` and the `bodies` it was sent, while the block runs; while its
    `down[0]` is set, it answers each 503."""
    handler = type("Receiver", (_Receiver,), {"bodies": [], "down": [False]})
    server = ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield SimpleNamespace(url=f"http://127.0.0.1:{server.server_address[1]}/hook",
                              bodies=handler.bodies, down=handler.down)
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.fixture
def receiver() -> Iterator[SimpleNamespace]:
    """A webhook receiver on 127.0.0.1 that keeps each body POSTed to it (`receiving`), while the
    test runs: a test module imports it to use it."""
    with receiving() as received:
        yield received
