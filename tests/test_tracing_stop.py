"""The commands' OTLP export (signoff.cli.otlp) as a process stops in the middle of a step, and
as a collector refuses the spans; credentials in the endpoint are not told."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.test_tracing import _exported, _Receiver, _value

ROOT = Path(__file__).resolve().parent.parent

SLOW_APP = '''
"""A clerk whose note takes SLOW_SECONDS (60 by default)."""
import os, time, uuid
from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column
from signoff import Agent, App, Permits, Skill, allow, policy
from signoff.testing import ScriptedModel, says

SLOW_SECONDS = float(os.environ.get("SLOW_SECONDS", "60"))
app = App("slow", database=os.environ["SLOW_DATABASE"], key=b"s" * 32)


class Ticket(app.Record):
    """A ticket."""

    title: Mapped[str] = mapped_column(String(80))
    note: Mapped[str] = mapped_column(String(200), default="")
    __security__ = [allow("read", "create", "update", when=policy.anyone)]


@app.action("Note on the ticket", idempotent=True)
def slow_note(ticket: Ticket, note: str) -> str:
    """Write a note, slowly."""
    time.sleep(SLOW_SECONDS)
    ticket.note = note
    return "Noted."


TICKET = uuid.UUID("00000000-0000-4000-8000-000000000009")


class NoteTicket(Skill[Ticket, str]):
    """Note one ticket."""

    description = "Note one ticket."
    tools = [slow_note]

    def brief(self, t: Ticket) -> str:
        return f"Ticket {t.title}."


class Clerk(Agent):
    """Notes tickets."""

    purpose = "You note tickets."
    skills = [NoteTicket()]
    may = Permits(alone=[slow_note])
    model = ScriptedModel(says.tool(slow_note, ticket=TICKET, note="n"), says.hand_back("noted"))


app.add_agent(Clerk, sponsor="noor@slow.example")


def setup() -> None:
    app.people.add("mia@slow.example", "Mia")
    app.people.add("noor@slow.example", "Noor")
    with app.session(as_=app.system) as s:
        s.add(Ticket(id=TICKET, title="T-9"))
'''


def _serving(handler: type[BaseHTTPRequestHandler]) -> Iterator[ThreadingHTTPServer]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.requests = []  # type: ignore[attr-defined]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def receiver() -> Iterator[ThreadingHTTPServer]:
    """An OTLP/HTTP receiver on loopback (tests/test_tracing.py's)."""
    yield from _serving(_Receiver)


class _Refusing(BaseHTTPRequestHandler):
    """A collector that answers every export 401 (its credentials were not sent)."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        self.send_response(401)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        return None


@pytest.fixture
def refusing() -> Iterator[ThreadingHTTPServer]:
    """A collector on loopback that refuses every export with 401."""
    yield from _serving(_Refusing)


def _slow_app(tmp_path: Path, endpoint: str) -> tuple[str, dict[str, str]]:
    """The slow clerk's app in `tmp_path`, set up on a SQLite file: its spec, and the
    environment its commands export to `endpoint` in."""
    (tmp_path / "slow_app.py").write_text(SLOW_APP)
    env = {**os.environ, "SLOW_DATABASE": f"sqlite:///{tmp_path / 'slow.db'}",
           "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "OTEL_BSP_SCHEDULE_DELAY": "50"}
    env.pop("OTEL_SDK_DISABLED", None)
    subprocess.run([sys.executable, "-c", "import slow_app; slow_app.setup()"], cwd=tmp_path,
                   env=env, check=True, timeout=120)
    return f"{tmp_path / 'slow_app.py'}:app", env


def _run(spec: str) -> list[str]:
    return [str(Path(sys.executable).parent / "signoff"), "run", "clerk", "note_ticket", "--for",
            "mia@slow.example", "--subject", "00000000-0000-4000-8000-000000000009", "--app",
            spec]


def test_sigterm_in_the_middle_of_a_step_sends_the_spans_still_open_as_stopped(
    tmp_path: Path, receiver: ThreadingHTTPServer,
) -> None:
    """`signoff run` stopped by SIGTERM while a tool call runs sends the task's invoke_agent span
    and the tool call's, ended as stopped (error, error.type signoff.process.stopped); the
    `signoff worker` that goes on with the task hangs its spans under that invoke_agent span —
    one trace, every parent in it received. (Only the finished model call was sent: the worker's
    spans hung under a span no collector had.)"""
    spec, env = _slow_app(tmp_path, f"http://127.0.0.1:{receiver.server_port}")
    running = subprocess.Popen(_run(spec), cwd=ROOT, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 60
        while not any(s.name == "chat scripted" for _, s in _exported(receiver)):
            assert running.poll() is None, running.communicate()[0][-3000:]
            assert time.monotonic() < deadline, "the model call's span was never sent"
            time.sleep(0.05)
        time.sleep(1.0)  # (the tool call, 60 s of it, is under way)
        running.terminate()
        said, _ = running.communicate(timeout=60)
    finally:
        running.kill()
    assert running.returncode == -signal.SIGTERM, said[-3000:]
    stopped = {span.name: span for _, span in _exported(receiver)}
    assert set(stopped) == {"chat scripted", "execute_tool slow_note", "invoke_agent clerk"}
    root, tool = stopped["invoke_agent clerk"], stopped["execute_tool slow_note"]
    assert not root.parent_span_id
    assert tool.parent_span_id == root.span_id
    for span in (root, tool):
        attributes = {a.key: _value(a.value) for a in span.attributes}
        assert attributes["error.type"] == "signoff.process.stopped"
        assert span.status.code == 2  # STATUS_CODE_ERROR

    worked = subprocess.run([str(Path(sys.executable).parent / "signoff"), "worker", "--once",
                             "--stuck-after", "0", "--app", spec], cwd=ROOT,
                            env={**env, "SLOW_SECONDS": "0"}, capture_output=True, text=True,
                            timeout=120, check=False)
    assert worked.returncode == 0, worked.stderr[-3000:]
    spans = [span for _, span in _exported(receiver)]
    resumed = [s for s in spans if s.name == "invoke_agent clerk" and s.span_id != root.span_id]
    assert [s.parent_span_id for s in resumed] == [root.span_id]
    assert {s.trace_id for s in spans} == {root.trace_id}
    assert {s.parent_span_id for s in spans if s.parent_span_id} <= {s.span_id for s in spans}


def test_a_collector_that_refuses_the_spans_is_told_so_without_the_endpoints_password(
    tmp_path: Path, refusing: ThreadingHTTPServer,
) -> None:
    """A collector that answers 401 is told in one sentence that it refused the traces and what
    to check (it was "could not be sent (Failed to export spans batch code: 401, …)" and to
    check that the collector is running); a user and password in the endpoint are told as ***
    (they were told as given)."""
    spec, env = _slow_app(tmp_path, f"http://trace:hunter2@127.0.0.1:{refusing.server_port}")
    done = subprocess.run(_run(spec), cwd=ROOT, env={**env, "SLOW_SECONDS": "0"},
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    told = [line for line in done.stderr.splitlines() if not line.startswith("Model call ")]
    assert told == [  # (beside `signoff run`'s word of each model call as it begins)
        f"The collector at http://***@127.0.0.1:{refusing.server_port}/v1/traces refused the "
        "traces (HTTP 401 Unauthorized); the work goes on without them. Check "
        "OTEL_EXPORTER_OTLP_HEADERS (the credentials it takes)."]


def test_an_endpoint_that_is_no_url_is_refused_without_its_password(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An endpoint with a password but no scheme is refused, the password told as ***."""
    from signoff import App
    from signoff.cli.failures import Failure
    from signoff.cli.otlp import export_traces

    monkeypatch.delenv("OTEL_SDK_DISABLED", raising=False)
    monkeypatch.delenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", raising=False)
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "trace:hunter2@collector:4318")
    app = App("t", database="sqlite://")
    try:
        with pytest.raises(Failure) as refused:
            export_traces(app)
    finally:
        app.database.dispose()
    assert "hunter2" not in str(refused.value)
    assert str(refused.value).startswith("OTEL_EXPORTER_OTLP_ENDPOINT is '***@collector:4318',")
