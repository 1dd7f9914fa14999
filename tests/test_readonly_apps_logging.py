"""The app's own logging set up before any query — a filter that counts records to StatsD over
UDP, a formatter that sends each line to a local collector — is its logging configuration, let
through while a query logs (the hold refused whatever ran inside any formatter or filter, the
app's too, and the honest query that logged ended Failed)."""

from __future__ import annotations

import logging
import socket
from pathlib import Path

from signoff import App
from tests.ports import free_port

log = logging.getLogger("signoff_tests.app_logging")


PORT = free_port()
"""Where the app's logging sends (UDP, on loopback)."""


class Counted(logging.Filter):
    """The app's own: counts each record as a StatsD counter (UDP, fire and forget)."""

    def __init__(self) -> None:
        super().__init__()
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)

    def filter(self, record: logging.LogRecord) -> bool:
        self.sock.sendto(f"log.{record.levelname.lower()}:1|c".encode(), ("127.0.0.1", PORT))
        return True


class Tagged(logging.Formatter):
    """The app's own formatter: sends a copy of each formatted line to a local collector."""

    def __init__(self) -> None:
        super().__init__()
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        self.sock.sendto(line.encode(), ("127.0.0.1", PORT))
        return line


def _run(tmp_path: Path, handler: logging.Handler) -> tuple[str, str]:
    listener = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    listener.bind(("127.0.0.1", PORT))
    listener.settimeout(5)
    log.addHandler(handler)
    log.propagate = False
    try:
        app = App("t", database=f"sqlite:///{tmp_path / 't.db'}")

        @app.action(query=True)
        def tell(note: str) -> str:
            """Log a note."""
            log.warning("told %s", note)
            return note

        result = app.actions.run("tell", {"note": "b"}, as_=app.system)
        got = listener.recv(1000).decode() if result.outcome.value == "Done" else ""
        app.database.dispose()
        return result.outcome.value + " " + (result.problem or ""), got
    finally:
        log.removeHandler(handler)
        log.propagate = True
        handler.close()
        listener.close()
        for part in (handler.formatter, *handler.filters):
            if hasattr(part, "sock"):
                part.sock.close()


def test_the_apps_own_filter_on_its_own_handler_still_runs(tmp_path: Path) -> None:
    handler = logging.FileHandler(tmp_path / "app.log")
    handler.addFilter(Counted())
    outcome, got = _run(tmp_path, handler)
    assert outcome.startswith("Done"), outcome
    assert got == "log.warning:1|c"


def test_the_apps_own_formatter_on_its_own_handler_still_runs(tmp_path: Path) -> None:
    handler = logging.FileHandler(tmp_path / "app.log")
    handler.setFormatter(Tagged())
    outcome, got = _run(tmp_path, handler)
    assert outcome.startswith("Done"), outcome
    assert got == "told b"
