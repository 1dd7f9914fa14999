"""Traces (signoff.agents.tracing): spans in the GenAI conventions with the gate's work on them,
continued across processes, exported over OTLP, content only when asked."""

from __future__ import annotations

import json
import os
import runpy
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, SpanLimits, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.sampling import Decision, Sampler, SamplingResult
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as gen_ai
from opentelemetry.semconv.attributes import error_attributes
from opentelemetry.trace import SpanKind, StatusCode

from signoff import ProposalStatus, TaskStatus, UserError
from signoff.agents.tracing import CAPTURE_CONTENT
from signoff.testing import ScriptedModel, says

ROOT = Path(__file__).resolve().parent.parent

GEN_AI_NAMES = {v for k, v in vars(gen_ai).items() if k.startswith("GEN_AI_") and isinstance(v, str)}
"""Every attribute name the installed conventions define for GenAI."""
OPERATIONS = {m.value for m in gen_ai.GenAiOperationNameValues}
REQUIRED = {
    "invoke_agent": {gen_ai.GEN_AI_OPERATION_NAME, gen_ai.GEN_AI_AGENT_NAME,
                     gen_ai.GEN_AI_CONVERSATION_ID},
    "chat": {gen_ai.GEN_AI_OPERATION_NAME, gen_ai.GEN_AI_PROVIDER_NAME,
             gen_ai.GEN_AI_REQUEST_MODEL, gen_ai.GEN_AI_USAGE_INPUT_TOKENS,
             gen_ai.GEN_AI_USAGE_OUTPUT_TOKENS},
    "execute_tool": {gen_ai.GEN_AI_OPERATION_NAME, gen_ai.GEN_AI_TOOL_NAME,
                     gen_ai.GEN_AI_TOOL_CALL_ID, gen_ai.GEN_AI_TOOL_TYPE},
}
"""What each operation's spans carry here (the conventions' required and recommended ones)."""
NAMED_BY = {"invoke_agent": gen_ai.GEN_AI_AGENT_NAME, "chat": gen_ai.GEN_AI_REQUEST_MODEL,
            "execute_tool": gen_ai.GEN_AI_TOOL_NAME}
"""The attribute a span's name ends with, per operation: ``chat {gen_ai.request.model}``."""
CONTENT = {gen_ai.GEN_AI_INPUT_MESSAGES, gen_ai.GEN_AI_OUTPUT_MESSAGES,
           gen_ai.GEN_AI_TOOL_CALL_ARGUMENTS, gen_ai.GEN_AI_TOOL_CALL_RESULT}


def check_conventions(span: Any, name: str, attributes: dict[str, Any]) -> None:
    """A span's name and attributes as the GenAI conventions write them; the rest is signoff's."""
    for key in attributes:
        if key.startswith("gen_ai."):
            assert key in GEN_AI_NAMES, f"{name}: {key} is not a GenAI attribute"
        else:
            assert key.startswith("signoff.") or key == error_attributes.ERROR_TYPE, key
    operation = attributes.get(gen_ai.GEN_AI_OPERATION_NAME)
    if operation is None:
        assert name.startswith("signoff."), name
        return
    assert operation in OPERATIONS
    assert REQUIRED[operation] <= set(attributes), (name, REQUIRED[operation] - set(attributes))
    assert name == f"{operation} {attributes[NAMED_BY[operation]]}"


@pytest.fixture
def exporter() -> Iterator[tuple[TracerProvider, InMemorySpanExporter]]:
    """A tracer provider of its own whose finished spans are kept in memory."""
    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    yield provider, memory
    provider.shutdown()


@pytest.fixture
def shop() -> Iterator[SimpleNamespace]:
    """A fresh workshop (examples/workshop.py) in memory: Mia, Noor, the estimator, T-7."""
    namespace = runpy.run_path(str(ROOT / "examples" / "workshop.py"), run_name="workshop_trace")
    shop = SimpleNamespace(**namespace, **namespace["setup"]())
    yield shop
    shop.app.database.dispose()


def _estimate_and_approve(shop: SimpleNamespace) -> Any:
    """The workshop's scenario: the note alone, the price proposed to Mia, Noor's yes."""
    script = ScriptedModel(
        says.tool(shop.note_repair, repair=shop.repair.id, note="Pads and a cable."),
        says.tool("Pads, a cable and an hour of work.", shop.set_price, repair=shop.repair.id,
                  price=45),
        says.hand_back(shop.Estimate(hours=Decimal(1), summary="Pads and a cable.")),
    )
    outcome = shop.app.agent(shop.Estimator).do(shop.EstimateRepair(), shop.repair,
                                                for_=shop.mia, model=script)
    assert outcome.status is TaskStatus.WAITING
    (proposal,) = shop.app.proposals(task=outcome.task)
    decision = shop.app.approve(proposal, by=shop.noor)
    assert decision.status is ProposalStatus.DONE
    return outcome, proposal


def _by_name(spans: Any) -> dict[str, list[ReadableSpan]]:
    found: dict[str, list[ReadableSpan]] = {}
    for span in spans:
        found.setdefault(span.name, []).append(span)
    return found


def test_the_workshop_traces_in_the_genai_conventions_with_the_gates_work(
    shop: SimpleNamespace, exporter: tuple[TracerProvider, InMemorySpanExporter],
) -> None:
    """The workshop's task, model calls and tool calls are invoke_agent / chat / execute_tool
    spans named and attributed as the conventions say; the verdicts, the proposal, the wait and
    the decision are on them; all of it is one trace."""
    provider, memory = exporter
    shop.app.trace(provider)
    outcome, proposal = _estimate_and_approve(shop)
    spans = memory.get_finished_spans()
    for span in spans:
        check_conventions(span, span.name, dict(span.attributes or {}))
    named = _by_name(spans)
    assert sorted(named) == ["chat scripted", "execute_tool hand_back", "execute_tool note_repair",
                             "execute_tool set_price", "invoke_agent estimator",
                             "signoff.decide set_price", "signoff.wait set_price"]
    assert len({s.context.trace_id for s in spans}) == 1
    first, resumed = sorted(named["invoke_agent estimator"], key=lambda s: s.start_time or 0)
    assert first.parent is None
    assert first.attributes is not None
    assert first.attributes["gen_ai.conversation.id"] == outcome.task
    assert first.attributes["signoff.task.status"] == "Waiting"
    assert first.attributes["signoff.task.waiting_on"] == ("a decision from Mia",)

    chats = named["chat scripted"]
    assert len(chats) == 3
    assert all(c.kind is SpanKind.CLIENT for c in chats)
    assert [c.attributes and c.attributes["gen_ai.provider.name"] for c in chats] == ["signoff"] * 3
    assert all(c.attributes and c.attributes["gen_ai.usage.input_tokens"] > 0 for c in chats)
    assert all(c.attributes and "signoff.cost_usd" in c.attributes for c in chats)

    (note,) = named["execute_tool note_repair"]
    assert note.parent is not None
    assert note.parent.span_id == first.context.span_id
    assert note.attributes is not None
    assert note.attributes["signoff.gate.verdict"] == "alone"
    assert note.attributes["signoff.gate.reason"] == "note_repair: Alone (a list names it)"
    assert note.attributes["signoff.tool.outcome"] == "Done"
    assert "signoff.tool.state" not in note.attributes  # it ran: its outcome says so
    assert "signoff.gate.by_rule" not in note.attributes  # no standing rule let it
    assert note.attributes["gen_ai.tool.call.id"] == "call_1_0"

    (price,) = named["execute_tool set_price"]
    assert price.attributes is not None
    assert price.attributes["signoff.gate.verdict"] == "propose"
    assert price.attributes["signoff.tool.state"] == "proposed"
    (event,) = price.events
    assert event.name == "signoff.proposal"
    assert event.attributes is not None
    assert event.attributes["signoff.proposal.id"] == proposal.id
    assert event.attributes["signoff.proposal.waits_on"] == "Mia"

    (wait,) = named["signoff.wait set_price"]
    assert wait.parent is not None
    assert wait.parent.span_id == price.context.span_id
    assert wait.start_time is not None
    assert event.timestamp is not None
    assert wait.attributes
    assert wait.attributes["signoff.decision.outcome"] == "approve"

    (decide,) = named["signoff.decide set_price"]
    assert decide.attributes is not None
    assert decide.attributes["signoff.decision.outcome"] == "approve"
    assert decide.attributes["signoff.decision.status"] == "Done"
    assert decide.attributes["signoff.decision.by.id"] == shop.noor.id
    assert decide.attributes["signoff.decision.by.name"] == "Noor"
    assert decide.attributes["signoff.decision.edited"] is False
    assert [link.context.span_id for link in decide.links] == [price.context.span_id]
    assert wait.end_time is not None
    assert decide.end_time is not None
    assert wait.end_time <= decide.end_time
    assert resumed.parent is not None
    assert resumed.parent.span_id == decide.context.span_id
    assert resumed.attributes
    assert resumed.attributes["signoff.task.status"] == "Done"
    assert resumed.attributes["signoff.task.resumed"] is True


def test_a_rejection_an_edit_and_a_refused_tool_say_so(
    shop: SimpleNamespace, exporter: tuple[TracerProvider, InMemorySpanExporter],
) -> None:
    """A no is a decision `reject`; an edited yes says edited; a NEVER tool's span says never,
    refused; a second decision is a failed decide span."""
    provider, memory = exporter
    shop.app.trace(provider)
    script = ScriptedModel(
        says.tool(shop.scrap_repair, repair=shop.repair.id),
        says.tool(shop.set_price, repair=shop.repair.id, price=45),
        says.tool(shop.set_price, repair=shop.repair.id, price=50),
        says.hand_back(shop.Estimate(hours=Decimal(1), summary="Priced.")),
    )
    outcome = shop.app.agent(shop.Estimator).do(shop.EstimateRepair(), shop.repair,
                                                for_=shop.mia, model=script)
    (first,) = shop.app.proposals(task=outcome.task, status=ProposalStatus.WAITING)
    shop.app.reject(first, by=shop.noor, reason="Too much.")
    with pytest.raises(Exception, match="already decided"):
        shop.app.reject(first, by=shop.noor, reason="Again.")
    (second,) = shop.app.proposals(task=outcome.task, status=ProposalStatus.WAITING)
    shop.app.approve(second, by=shop.noor, edited={"price": 48})
    named = _by_name(memory.get_finished_spans())
    (scrap,) = named["execute_tool scrap_repair"]
    assert scrap.attributes is not None
    assert scrap.attributes["signoff.gate.verdict"] == "never"
    assert scrap.attributes["signoff.tool.state"] == "refused"
    decisions = sorted(named["signoff.decide set_price"], key=lambda s: s.start_time or 0)
    said = [(d.attributes or {}).get("signoff.decision.outcome") for d in decisions]
    assert said == ["reject", None, "approve"]
    assert decisions[1].status.status_code is StatusCode.ERROR
    assert (decisions[1].attributes or {})["error.type"] == "AgentRefused"
    assert (decisions[2].attributes or {})["signoff.decision.edited"] is True


def test_a_proposal_gone_stale_is_a_stale_decision_on_the_wait_and_the_decide_span(
    shop: SimpleNamespace, exporter: tuple[TracerProvider, InMemorySpanExporter],
) -> None:
    """A yes to a proposal whose repair changed meanwhile runs nothing: its decide span and its
    wait say stale, and the task goes on under the decision."""
    provider, memory = exporter
    shop.app.trace(provider)
    script = ScriptedModel(
        says.tool(shop.set_price, repair=shop.repair.id, price=45),
        says.hand_back(shop.Estimate(hours=Decimal(1), summary="Looked again.")),
    )
    outcome = shop.app.agent(shop.Estimator).do(shop.EstimateRepair(), shop.repair,
                                                for_=shop.mia, model=script)
    (proposal,) = shop.app.proposals(task=outcome.task)
    shop.revise(shop.repair.id, "front brake does not bite either")
    assert shop.app.approve(proposal, by=shop.noor).status is ProposalStatus.STALE
    named = _by_name(memory.get_finished_spans())
    (decide,), (wait,) = named["signoff.decide set_price"], named["signoff.wait set_price"]
    assert (decide.attributes or {})["signoff.decision.outcome"] == "stale"
    assert (decide.attributes or {})["signoff.decision.status"] == "Stale"
    assert (wait.attributes or {})["signoff.decision.outcome"] == "stale"
    resumed = max(named["invoke_agent estimator"], key=lambda s: s.start_time or 0)
    assert resumed.parent is not None
    assert resumed.parent.span_id == decide.context.span_id


SECRETS = ("Pads and a cable", "rear brake", "T-7", "\"price\"")


def _exported_text(spans: Any) -> str:
    """Every attribute value and event attribute value of `spans`, as one text."""
    values: list[str] = []
    for span in spans:
        values += [str(v) for v in (span.attributes or {}).values()]
        for event in span.events:
            values += [str(v) for v in (event.attributes or {}).values()]
    return "\n".join(values)


@pytest.mark.parametrize("opted_in", ["no", "argument", "environment"])
def test_arguments_and_results_are_exported_only_when_asked(
    shop: SimpleNamespace, exporter: tuple[TracerProvider, InMemorySpanExporter], opted_in: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without opting in, no argument, result, brief or message text is in any span; with
    include_content=True, or the conventions' environment variable, they are."""
    provider, memory = exporter
    monkeypatch.delenv(CAPTURE_CONTENT, raising=False)
    if opted_in == "environment":
        monkeypatch.setenv(CAPTURE_CONTENT, "true")
    shop.app.trace(provider, include_content=True if opted_in == "argument" else None)
    _estimate_and_approve(shop)
    spans = memory.get_finished_spans()
    text = _exported_text(spans)
    keys = {k for s in spans for k in (s.attributes or {})}
    if opted_in == "no":
        assert not any(secret in text for secret in SECRETS), text
        assert str(shop.repair.id) not in text
        assert not keys & CONTENT
    else:
        assert all(secret in text for secret in SECRETS)
        assert keys >= CONTENT
        (chat, *_) = [s for s in spans if s.name == "chat scripted"]
        messages = json.loads(str((chat.attributes or {})[gen_ai.GEN_AI_INPUT_MESSAGES]))
        assert [m["role"] for m in messages] == ["system", "user"]
        assert messages[1]["parts"][0]["type"] == "text"


def test_tracing_without_opentelemetry_is_refused_in_words(
    shop: SimpleNamespace, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without the otel extra, app.trace() says what to install, and nothing changes."""
    monkeypatch.setitem(sys.modules, "signoff.agents.tracing", None)
    with pytest.raises(UserError, match=r"pip install -e '\.\[otel\]' in the folder of "
                                        r"signoff's clone \(signoff is not on PyPI\)"):
        shop.app.trace()


def test_importing_signoff_and_running_untraced_loads_no_opentelemetry() -> None:
    """Tracing off costs no import: signoff and an untraced task load nothing of OpenTelemetry."""
    code = ("import runpy, sys; runpy.run_path('examples/workshop.py', run_name='__main__'); "
            "print(sorted(m for m in sys.modules if m.startswith('opentelemetry')))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, check=True)
    assert "The task is Done." in done.stdout
    assert done.stdout.splitlines()[-1] == "[]"


# -- across processes, and over OTLP -----------------------------------------------------------


class _Receiver(BaseHTTPRequestHandler):
    """An OTLP/HTTP trace receiver: each protobuf POST to /v1/traces is decoded and kept."""

    requests: list[ExportTraceServiceRequest]

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        if self.path != "/v1/traces" or self.headers["Content-Type"] != "application/x-protobuf":
            self.send_error(404)
            return
        request = ExportTraceServiceRequest()
        request.ParseFromString(body)
        self.server.requests.append(request)  # type: ignore[attr-defined]
        answer = ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, format: str, *args: Any) -> None:
        return None


@pytest.fixture
def receiver() -> Iterator[ThreadingHTTPServer]:
    """An OTLP/HTTP receiver on loopback, for this test."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Receiver)
    server.requests = []  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def _propose_a_close(tmp_path: Path, provider: TracerProvider, memory: InMemorySpanExporter,
                     monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    """The tickets app (tests/tracing_app.py) on a SQLite file: its clerk notes alone and
    proposes the close, traced here in memory: its database `url`, the `task` and `proposal`
    ids, the `spans` by name, the app's module as `tickets`, and a bearer token of Noor's (who
    decides)."""
    url = f"sqlite:///{tmp_path / 'tickets.db'}"
    monkeypatch.setenv("TRACING_DATABASE", url)
    monkeypatch.delenv(CAPTURE_CONTENT, raising=False)
    tickets = runpy.run_path(str(ROOT / "tests" / "tracing_app.py"), run_name="tracing_here")
    app = tickets["app"]
    try:
        tickets["setup"]()
        app.trace(provider)
        mia = app.people.find("mia@tickets.example")
        with app.session(as_=app.system) as session:
            ticket = session.get(tickets["Ticket"], tickets["TICKET"])
        outcome = app.agent(tickets["Clerk"]).do(tickets["CloseTicket"](), ticket, for_=mia)
        assert outcome.status is TaskStatus.WAITING
        (proposal,) = app.proposals(task=outcome.task)
        token = app.credentials.issue_token("noor@tickets.example")
    finally:
        app.database.dispose()
    return SimpleNamespace(url=url, task=outcome.task, proposal=proposal.id, tickets=tickets,
                           noor_token=token,
                           spans={s.name: s for s in memory.get_finished_spans()})


def _exported(receiver: ThreadingHTTPServer) -> list[tuple[Any, Any]]:
    """(resource, span) of every span the receiver was sent."""
    requests: list[ExportTraceServiceRequest] = receiver.requests  # type: ignore[attr-defined]
    return [(resource.resource, span) for request in requests
            for resource in request.resource_spans for scope in resource.scope_spans
            for span in scope.spans]


def test_a_decision_in_another_process_and_a_worker_over_otlp_continue_the_trace(
    tmp_path: Path, exporter: tuple[TracerProvider, InMemorySpanExporter],
    receiver: ThreadingHTTPServer, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A task proposed here is decided in another process (its spans join this trace: the wait
    under the proposing tool call, the decision linked to it), and `signoff worker` in a third
    process finishes it, exporting its spans over OTLP/HTTP to a receiver on loopback — in the
    same trace."""
    proposed = _propose_a_close(tmp_path, *exporter, monkeypatch)
    url, proposal_id = proposed.url, proposed.proposal
    root = proposed.spans["invoke_agent clerk"]
    proposing = proposed.spans["execute_tool close_ticket"]
    trace_id = f"0x{root.context.trace_id:032x}"

    env = {**os.environ, "TRACING_DATABASE": url}
    decided = subprocess.run([sys.executable, "-m", "tests.tracing_app", "decide", proposal_id],
                             cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
                             check=False)
    assert decided.returncode == 0, decided.stderr[-3000:]
    head, *lines = decided.stdout.splitlines()
    assert json.loads(head) == {"decision": "Done", "task_status": "Running"}
    there = {s["name"]: s for s in map(json.loads, lines)}
    assert {s["context"]["trace_id"] for s in there.values()} == {trace_id}
    wait, decide = there["signoff.wait close_ticket"], there["signoff.decide close_ticket"]
    assert wait["parent_id"] == f"0x{proposing.context.span_id:016x}"
    assert decide["parent_id"] == f"0x{root.context.span_id:016x}"
    assert [link["context"]["span_id"] for link in decide["links"]] == [wait["parent_id"]]
    assert there["invoke_agent clerk"]["parent_id"] == decide["context"]["span_id"]
    assert not any(proposed.tickets["SECRET_WHY"] in line for line in lines)

    env.update(OTEL_EXPORTER_OTLP_ENDPOINT=f"http://127.0.0.1:{receiver.server_port}",
               OTEL_SERVICE_NAME="tickets-worker")
    worked = subprocess.run([sys.executable, "-m", "signoff", "worker", "--once", "--app",
                             "tests/tracing_app.py:app"], cwd=ROOT, env=env, capture_output=True,
                            text=True, timeout=120, check=False)
    assert worked.returncode == 0, worked.stderr[-3000:]
    exported = _exported(receiver)
    names = sorted(span.name for _, span in exported)
    assert names == ["chat scripted", "execute_tool hand_back", "invoke_agent clerk"]
    assert {span.trace_id.hex() for _, span in exported} == {trace_id[2:]}
    for resource, span in exported:
        attributes = {a.key: _value(a.value) for a in span.attributes}
        check_conventions(span, span.name, attributes)
        service = {a.key: _value(a.value) for a in resource.attributes}["service.name"]
        assert service == "tickets-worker"
        if span.name == "invoke_agent clerk":
            assert span.parent_span_id.hex() == f"{root.context.span_id:016x}"
            assert attributes["signoff.task.status"] == "Done"


def test_signoff_serve_exports_an_approval_made_through_its_api_over_otlp(
    tmp_path: Path, exporter: tuple[TracerProvider, InMemorySpanExporter],
    receiver: ThreadingHTTPServer, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`signoff serve` with OTEL_EXPORTER_OTLP_ENDPOINT set sends the spans of an approval made
    through its REST API over OTLP/HTTP to a receiver on loopback, in the trace the task began
    in: the wait under the proposing call, the decision saying who and what."""
    import httpx

    proposed = _propose_a_close(tmp_path, *exporter, monkeypatch)
    root = proposed.spans["invoke_agent clerk"]
    proposing = proposed.spans["execute_tool close_ticket"]
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "TRACING_DATABASE": proposed.url, "OTEL_SERVICE_NAME": "tickets-inbox",
           "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{receiver.server_port}",
           "OTEL_BSP_SCHEDULE_DELAY": "600000"}  # sent as it stops, or not at all
    server = subprocess.Popen([sys.executable, "-m", "signoff", "serve", "--app",
                               "tests/tracing_app.py:app", "--port", str(port)], cwd=ROOT, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):  # until it listens (it says why if it stopped instead)
            try:
                httpx.get(f"{base}/api/openapi.json", timeout=2)
                break
            except httpx.TransportError:
                assert server.poll() is None, server.communicate()[0][-3000:]
                time.sleep(0.1)
        answer = httpx.post(f"{base}/api/proposals/{proposed.proposal}/approve", json={},
                            headers={"Authorization": f"Bearer {proposed.noor_token}"},
                            timeout=60)
        assert answer.status_code == 200, answer.text
    finally:
        server.terminate()  # uvicorn stops gracefully; the batched spans are sent as it exits
        said, _ = server.communicate(timeout=60)
    assert server.returncode in (0, -signal.SIGTERM), said[-3000:]  # uvicorn re-raises it
    exported = _exported(receiver)
    named = {span.name: span for _, span in exported}
    wait, decide = named["signoff.wait close_ticket"], named["signoff.decide close_ticket"]
    ours = [span for _, span in exported if span.name.startswith(("invoke_agent", "signoff."))]
    assert sorted(span.name for span in ours) == ["invoke_agent clerk", "signoff.decide close_ticket",
                                                  "signoff.wait close_ticket"]
    assert {span.trace_id for span in ours} == {root.context.trace_id.to_bytes(16, "big")}
    assert wait.parent_span_id == proposing.context.span_id.to_bytes(8, "big")
    request = next(span for _, span in exported if span.name.startswith("POST /api/proposals"))
    proposed_by, decided_in = decide.links  # FastAPI traces its requests: each its own trace
    assert proposed_by.span_id == wait.parent_span_id
    assert decided_in.trace_id == request.trace_id != decide.trace_id
    attributes = {a.key: _value(a.value) for a in decide.attributes}
    assert attributes["signoff.decision.outcome"] == "approve"
    assert attributes["signoff.decision.by.name"] == "Noor"
    assert {a.key: _value(a.value) for a in exported[0][0].attributes}["service.name"] == \
        "tickets-inbox"
    assert not any(proposed.tickets["SECRET_WHY"] in str(span) for _, span in exported)


def test_signoff_run_and_approve_export_over_otlp_in_one_trace(
    tmp_path: Path, receiver: ThreadingHTTPServer, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`signoff run` and `signoff approve`, with OTEL_EXPORTER_OTLP_ENDPOINT set, send their
    spans over OTLP/HTTP as each process ends: the task's root span from the first, the wait and
    the decision under it, in its trace, from the second."""
    url = f"sqlite:///{tmp_path / 'tickets.db'}"
    monkeypatch.setenv("TRACING_DATABASE", url)
    tickets = runpy.run_path(str(ROOT / "tests" / "tracing_app.py"), run_name="tracing_cli")
    app = tickets["app"]
    try:
        tickets["setup"]()
        token = app.credentials.issue_token("noor@tickets.example")
    finally:
        app.database.dispose()
    env = {**os.environ, "TRACING_DATABASE": url,
           "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{receiver.server_port}"}
    env.pop("OTEL_SDK_DISABLED", None)
    signoff = str(Path(sys.executable).parent / "signoff")
    ran = subprocess.run(
        [signoff, "run", "clerk", "close_ticket", "--for", "mia@tickets.example", "--subject",
         str(tickets["TICKET"]), "--app", "tests/tracing_app.py:app", "--json"], cwd=ROOT,
        env=env, capture_output=True, text=True, timeout=120, check=False)
    assert ran.returncode == 0, ran.stderr[-3000:]
    task = json.loads(ran.stdout)["task"]
    started = _exported(receiver)
    (root,) = [span for _, span in started if span.name == "invoke_agent clerk"]
    assert not root.parent_span_id
    assert {span.trace_id for _, span in started} == {root.trace_id}
    app = runpy.run_path(str(ROOT / "tests" / "tracing_app.py"), run_name="tracing_cli")["app"]
    try:
        (proposal,) = app.proposals(task=task)
    finally:
        app.database.dispose()
    decided = subprocess.run(
        [signoff, "approve", proposal.id, "--app", "tests/tracing_app.py:app", "--token", token],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert decided.returncode == 0, decided.stderr[-3000:]
    then = [span for _, span in _exported(receiver)[len(started):]]
    named = {span.name: span for span in then}
    assert {"signoff.decide close_ticket", "signoff.wait close_ticket"} <= set(named)
    assert {span.trace_id for span in then} == {root.trace_id}
    assert named["signoff.decide close_ticket"].parent_span_id == root.span_id


def _research_exporting_to(tmp_path: Path, endpoint: str,
                           **environment: str) -> subprocess.CompletedProcess[str]:
    """`signoff research --json` (the offline default, on a folder of one page) run with
    OTEL_EXPORTER_OTLP_ENDPOINT `endpoint` (and `environment`), done: what it printed."""
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "kettle.md").write_text("# Kettles\n\nA kettle boils water.\n")
    env = {**os.environ, "SIGNOFF_CACHE_DIR": str(tmp_path / "cache"),
           "SIGNOFF_DATA_DIR": str(tmp_path / "data"), "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint,
           **environment}
    env.pop("OTEL_SDK_DISABLED", None)
    done = subprocess.run([sys.executable, "-m", "signoff", "research", "What boils water?",
                           "--corpus", str(folder), "--json"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def test_signoff_research_exports_over_otlp(
    tmp_path: Path, receiver: ThreadingHTTPServer,
) -> None:
    """`signoff research` (the offline default, on a folder of one page), with
    OTEL_EXPORTER_OTLP_ENDPOINT set, sends its task's spans over OTLP/HTTP as it ends, in one
    trace under the Researcher's root span, as `signoff run` does. It sent nothing."""
    _research_exporting_to(tmp_path, f"http://127.0.0.1:{receiver.server_port}")
    exported = [span for _, span in _exported(receiver)]
    (root,) = [span for span in exported if span.name == "invoke_agent researcher"]
    assert not root.parent_span_id
    assert {"execute_tool search_sources", "execute_tool hand_back"} <= {
        span.name for span in exported}
    assert {span.trace_id for span in exported} == {root.trace_id}


def test_a_collector_that_cannot_be_reached_is_told_in_one_sentence(tmp_path: Path) -> None:
    """`signoff research` with OTEL_EXPORTER_OTLP_ENDPOINT where nothing listens does its work
    and says once that the traces could not be sent, where to and why (the exporter's own lines
    were printed instead, one per retry, each with the HTTP library's account of the
    connection)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    done = _research_exporting_to(tmp_path, f"http://127.0.0.1:{port}",
                                  OTEL_EXPORTER_OTLP_TIMEOUT="3")
    assert json.loads(done.stdout)["answer"]
    assert done.stderr.splitlines() == [
        f"The traces could not be sent to http://127.0.0.1:{port}/v1/traces (connection "
        "refused); the work goes on without them. Check OTEL_EXPORTER_OTLP_ENDPOINT and that the "
        "collector is running."]


def test_ctrl_c_while_the_spans_are_sent_at_exit_gives_them_up_in_a_sentence(
        tmp_path: Path) -> None:
    """Ctrl-C to `signoff research` while, its work done, it waits on a collector that takes
    the connection and never answers: one sentence says the traces not yet sent were given up
    (OpenTelemetry's exit handler printed "Exception ignored in atexit callback" and a
    traceback)."""
    import signal
    import threading

    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "kettle.md").write_text("# Kettles\n\nA kettle boils water.\n")
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen()
    taken: list[socket.socket] = []
    threading.Thread(target=lambda: taken.append(silent.accept()[0]), daemon=True).start()
    env = {**os.environ, "SIGNOFF_CACHE_DIR": str(tmp_path / "cache"),
           "SIGNOFF_DATA_DIR": str(tmp_path / "data"),
           "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{silent.getsockname()[1]}",
           "OTEL_EXPORTER_OTLP_TIMEOUT": "60", "OTEL_BSP_SCHEDULE_DELAY": "600000"}
    env.pop("OTEL_SDK_DISABLED", None)
    research = subprocess.Popen([sys.executable, "-m", "signoff", "research", "What boils water?",
                                 "--corpus", str(folder), "--json"], cwd=ROOT, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not taken and time.monotonic() < deadline:  # (its exit's flush is under way)
            time.sleep(0.05)
        assert taken, "the spans were never sent"
        research.send_signal(signal.SIGINT)
        out, err = research.communicate(timeout=60)
    finally:
        research.kill()
        silent.close()
        for each in taken:
            each.close()
    assert json.loads(out)["answer"]
    assert err.strip().splitlines()[-1] == "Stopped: the traces not yet sent were given up."
    assert "Traceback" not in err


def test_a_task_begun_untraced_is_one_trace_from_the_process_that_decides_it(
    tmp_path: Path, exporter: tuple[TracerProvider, InMemorySpanExporter],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A task begun where nothing traces (on a SQLite file), decided by a traced process which
    has no model to go on with it, and finished by a traced worker of another app, is one
    trace: the decision's, whose process keeps it with the task."""
    monkeypatch.setenv("TRACING_DATABASE", f"sqlite:///{tmp_path / 'tickets.db'}")
    apps = [runpy.run_path(str(ROOT / "tests" / "tracing_app.py"), run_name=f"tracing_{n}")
            for n in ("starter", "inbox", "worker")]
    starter, inbox, worker = (found["app"] for found in apps)
    provider, memory = exporter
    try:
        apps[0]["setup"]()
        mia = starter.people.find("mia@tickets.example")
        with starter.session(as_=starter.system) as session:
            ticket = session.get(apps[0]["Ticket"], apps[0]["TICKET"])
        outcome = starter.agent(apps[0]["Clerk"]).do(apps[0]["CloseTicket"](), ticket, for_=mia)
        assert outcome.status is TaskStatus.WAITING
        inbox.trace(provider)
        worker.trace(provider)
        (proposal,) = inbox.proposals(task=outcome.task)
        decision = inbox.approve(proposal, by=inbox.people.find("noor@tickets.example"))
        assert decision.task_status == TaskStatus.RUNNING.value
        worker.worker().run_once()
        assert worker.outcome(outcome.task).status is TaskStatus.DONE
    finally:
        for app in (starter, inbox, worker):
            app.database.dispose()
    spans = memory.get_finished_spans()
    assert {"signoff.decide close_ticket", "invoke_agent clerk"} <= {s.name for s in spans}
    assert len({s.context.trace_id for s in spans}) == 1
    assert [s.name for s in spans if s.parent is None] == ["signoff.decide close_ticket"]


def test_signoff_worker_stopped_by_sigterm_sends_the_spans_in_hand(
    tmp_path: Path, exporter: tuple[TracerProvider, InMemorySpanExporter],
    receiver: ThreadingHTTPServer, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`signoff worker` running on, stopped by SIGTERM after it finished a task, sends that
    task's spans (held for a batch that was not due yet) before it stops."""
    proposed = _propose_a_close(tmp_path, *exporter, monkeypatch)
    # Approved by an app of its own that keeps no model for the task: the worker goes on with it.
    app = runpy.run_path(str(ROOT / "tests" / "tracing_app.py"), run_name="tracing_inbox")["app"]
    try:
        decision = app.approve(proposed.proposal, by=app.people.find("noor@tickets.example"))
        assert decision.task_status == TaskStatus.RUNNING.value
        env = {**os.environ, "TRACING_DATABASE": proposed.url,
               "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{receiver.server_port}",
               "OTEL_BSP_SCHEDULE_DELAY": "600000"}  # sent as it stops, or not at all
        worker = subprocess.Popen([sys.executable, "-m", "signoff", "worker", "--every", "0.2",
                                   "--app", "tests/tracing_app.py:app"], cwd=ROOT, env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            for _ in range(600):  # until it has finished the task
                if app.outcome(proposed.task).status is TaskStatus.DONE:
                    break
                assert worker.poll() is None, worker.communicate()[0][-3000:]
                time.sleep(0.1)
            assert receiver.requests == []  # type: ignore[attr-defined]
        finally:
            worker.terminate()
            said, _ = worker.communicate(timeout=60)
    finally:
        app.database.dispose()
    assert worker.returncode == 0, said[-3000:]  # (stopped as asked, once its look ended)
    assert said.rstrip().endswith("Stopped."), said[-3000:]
    exported = _exported(receiver)
    assert sorted(span.name for _, span in exported) == [
        "chat scripted", "execute_tool hand_back", "invoke_agent clerk"]
    root = proposed.spans["invoke_agent clerk"]
    assert {span.trace_id for _, span in exported} == {root.context.trace_id.to_bytes(16, "big")}


def _value(value: Any) -> Any:
    """An OTLP AnyValue as Python."""
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return tuple(_value(v) for v in value.array_value.values)
    return getattr(value, kind)


def test_a_task_whose_turns_a_client_gives_is_one_trace_with_nothing_left_open(
    shop: SimpleNamespace, exporter: tuple[TracerProvider, InMemorySpanExporter],
) -> None:
    """A task stepped turn by turn (as an MCP client drives it) keeps its model calls and tool
    calls in the trace of its invoke_agent span, and no span is left open."""
    from signoff.models.base import Reply, ToolCall

    provider, memory = exporter
    shop.app.trace(provider)
    handle = shop.app.agent(shop.Estimator)
    task = handle.start(shop.EstimateRepair(), shop.repair, for_=shop.mia, model_name="client",
                        max_steps=10)
    arguments = json.dumps({"repair": str(shop.repair.id), "note": "Pads and a cable."})
    answers = handle.take_turn(task, Reply(tool_calls=(
        ToolCall(id="c1", name="note_repair", arguments=arguments),)), model_name="client")
    assert [a.tool for a in answers] == ["note_repair"]
    spans = memory.get_finished_spans()
    names = sorted(s.name for s in spans)
    assert names.count("execute_tool note_repair") == 1
    assert "invoke_agent estimator" in names
    assert len({s.context.trace_id for s in spans}) == 1
    assert shop.app._agency.loop.observer._open == {}


@pytest.mark.parametrize("command", [["worker", "--once"], ["serve", "--port", "9"],
                                     ["run", "estimator", "estimate_repair"],
                                     ["approve", "no-such-proposal"],
                                     ["reject", "no-such-proposal", "--reason", "No."]])
def test_an_otlp_endpoint_without_the_exporter_is_told_in_words(
    tmp_path: Path, command: list[str],
) -> None:
    """The installed `signoff worker`, `serve`, `run`, `approve` and `reject`, with
    OTEL_EXPORTER_OTLP_ENDPOINT set
    but OpenTelemetry not importable, say what to install and exit 2 (misused: a configuration
    that cannot be used, as a missing extra is), with no traceback, and run nothing. (This
    environment has the otlp extra: the process is given a PYTHONPATH folder whose
    `opentelemetry` package raises ImportError when imported, standing in for its absence;
    nothing else of the program is replaced.)"""
    stub = tmp_path / "without_otlp" / "opentelemetry"
    stub.mkdir(parents=True)
    (stub / "__init__.py").write_text(
        "raise ImportError('opentelemetry is not installed (a stand-in for its absence)')\n")
    env = {**os.environ, "PYTHONPATH": str(stub.parent),
           "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9",
           "WORKSHOP_DATABASE": f"sqlite:///{tmp_path / 'workshop.db'}"}
    env.pop("OTEL_SDK_DISABLED", None)
    ran = subprocess.run(
        [str(Path(sys.executable).parent / "signoff"), *command, "--app",
         f"{ROOT / 'examples' / 'workshop.py'}:app"],
        capture_output=True, text=True, timeout=120, check=False, env=env)
    assert ran.returncode == 2, ran.stderr
    assert ("signoff's otlp extra: pip install -e '.[otlp]' in the folder of signoff's clone "
            "(signoff is not on PyPI); or unset the variable.") in " ".join(ran.stderr.split())
    assert "Traceback" not in ran.stderr
    assert "stepped" not in ran.stdout
    assert "Uvicorn running" not in ran.stdout + ran.stderr


@pytest.mark.parametrize("endpoint", ["127.0.0.1:4318", "not a url", "ftp://collector.example",
                                      "http://127.0.0.1:99999"])
def test_an_otlp_endpoint_that_is_no_url_is_refused_before_any_work(
    shop: SimpleNamespace, monkeypatch: pytest.MonkeyPatch, endpoint: str,
) -> None:
    """An endpoint that is no http(s) URL of a collector is told at once, exit 2, before any
    work (the work ran, and the end said the traces could not be sent, in the HTTP library's
    words: "No connection adapters were found")."""
    from signoff.cli.failures import Failure
    from signoff.cli.otlp import export_traces

    monkeypatch.delenv("OTEL_SDK_DISABLED", raising=False)
    monkeypatch.delenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", raising=False)
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)
    with pytest.raises(Failure) as refused:
        export_traces(shop.app)
    assert str(refused.value) == (
        f"OTEL_EXPORTER_OTLP_ENDPOINT is {endpoint!r}, which is no http:// or https:// URL of a "
        "collector (http://localhost:4318, say): set it to one, or unset it.")
    assert refused.value.exit_code == 2


@pytest.mark.parametrize("environment", [{}, {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9",
                                               "OTEL_SDK_DISABLED": "true"}])
def test_no_endpoint_or_a_disabled_sdk_exports_nothing(
    shop: SimpleNamespace, monkeypatch: pytest.MonkeyPatch, environment: dict[str, str],
) -> None:
    """Without an OTLP endpoint, or with OTEL_SDK_DISABLED=true, the app is left untraced."""
    from signoff.agents.observer import Observer
    from signoff.cli.otlp import export_traces

    for name in ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
                 "OTEL_SDK_DISABLED"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    assert export_traces(shop.app) is False
    assert type(shop.app._agency.loop.observer) is Observer


class _NoChats(Sampler):
    """Samples every span but the model calls' (as a user's sampler may)."""

    def should_sample(self, parent_context: Any, trace_id: int, name: str, kind: Any = None,
                      attributes: Any = None, links: Any = None,
                      trace_state: Any = None) -> SamplingResult:
        if name.startswith("chat "):
            return SamplingResult(Decision.DROP)
        return SamplingResult(Decision.RECORD_AND_SAMPLE, attributes)

    def get_description(self) -> str:
        return "NoChats"


class _Tenant(SpanProcessor):
    """Stamps every span as it starts with the tenant it is for (as a baggage processor does),
    and keeps the names of the spans it saw start."""

    def __init__(self) -> None:
        self.started: list[str] = []

    def on_start(self, span: Any, parent_context: Any = None) -> None:
        self.started.append(span.name)
        span.set_attribute("app.tenant", "workshop")


def test_the_steps_spans_go_through_the_providers_sampler_and_processors(
    shop: SimpleNamespace,
) -> None:
    """The spans of model calls and tool calls are the provider's: its sampler decides them, its
    processors see each one start (and may stamp it) and end, with its resource."""
    memory, tenant = InMemorySpanExporter(), _Tenant()
    provider = TracerProvider(sampler=_NoChats(),
                              resource=Resource.create({"service.name": "workshop"}))
    provider.add_span_processor(tenant)
    provider.add_span_processor(SimpleSpanProcessor(memory))
    shop.app.trace(provider)
    _estimate_and_approve(shop)
    provider.shutdown()
    spans = memory.get_finished_spans()
    named = _by_name(spans)
    assert not [name for name in named if name.startswith("chat ")]
    assert not [name for name in tenant.started if name.startswith("chat ")]
    (note,) = named["execute_tool note_repair"]
    assert "execute_tool note_repair" in tenant.started
    assert all((s.attributes or {})["app.tenant"] == "workshop" for s in spans)
    assert all(s.resource.attributes["service.name"] == "workshop" for s in spans)
    assert all(s.instrumentation_scope and s.instrumentation_scope.name == "signoff"
               for s in spans)
    (first, _resumed) = named["invoke_agent estimator"]
    assert note.parent is not None
    assert note.parent.span_id == first.context.span_id
    assert note.context.trace_flags.sampled


def test_a_span_made_inside_a_model_call_is_the_chat_spans_child(
    shop: SimpleNamespace, exporter: tuple[TracerProvider, InMemorySpanExporter],
) -> None:
    """What an HTTP client's instrumentation records while the model is asked (here, a span of
    its own around each call) nests under that call's chat span."""
    provider, memory = exporter
    client = provider.get_tracer("a.http.client")

    class OverHttp(ScriptedModel):
        def complete(self, *args: Any, **kwargs: Any) -> Any:
            with client.start_as_current_span("POST", kind=SpanKind.CLIENT):
                return super().complete(*args, **kwargs)

    shop.app.trace(provider)
    outcome = shop.app.agent(shop.Estimator).do(
        shop.EstimateRepair(), shop.repair, for_=shop.mia,
        model=OverHttp(says.tool(shop.note_repair, repair=shop.repair.id, note="Pads."),
                       says.hand_back(shop.Estimate(hours=Decimal(1), summary="Pads."))))
    assert outcome.status is TaskStatus.DONE
    named = _by_name(memory.get_finished_spans())
    chats, posts = named["chat scripted"], named["POST"]
    assert len(chats) == len(posts) == 2
    assert sorted(p.parent.span_id for p in posts if p.parent) == sorted(
        c.context.span_id for c in chats)


def test_content_goes_through_the_providers_span_limits(
    shop: SimpleNamespace,
) -> None:
    """Arguments and results, when exported, are cut to the provider's attribute length limit;
    signoff's own attributes are short enough for any limit a provider is likely to set."""
    memory = InMemorySpanExporter()
    provider = TracerProvider(span_limits=SpanLimits(max_span_attribute_length=12))
    provider.add_span_processor(SimpleSpanProcessor(memory))
    shop.app.trace(provider, include_content=True)
    _estimate_and_approve(shop)
    (note,) = _by_name(memory.get_finished_spans())["execute_tool note_repair"]
    arguments = (note.attributes or {})[gen_ai.GEN_AI_TOOL_CALL_ARGUMENTS]
    assert arguments == '{"repair": "'
    provider.shutdown()


def test_a_tool_call_that_failed_or_found_its_server_unavailable_is_a_failed_span(
    exporter: tuple[TracerProvider, InMemorySpanExporter],
) -> None:
    """A call whose action fails, or finds what it needs outside unavailable (nothing was
    sent), is an `execute_tool` span with an error status and its kind of error; one that ran
    is not (an Unavailable call's span was left unset, as if it had gone well)."""
    from signoff import Agent, App, Permits, Skill, Unavailable

    provider, memory = exporter
    app = App("t", database="sqlite://")
    app.trace(provider)

    @app.action("Ping the server")
    def ping(n: int) -> int:
        """Ping it."""
        if n == 1:
            raise Unavailable("The server cannot be reached now; try again later.")
        if n == 2:
            raise RuntimeError("broken")
        return n

    class Pinging(Skill[None, int]):
        """Ping."""

        description = "Ping."
        tools = [ping]

    class Pinger(Agent):
        """Pings."""

        purpose = "You ping."
        skills = [Pinging()]
        may = Permits.everything()

    me = app.people.add("me@t.example", "Me")
    app.add_agent(Pinger, sponsor=me)
    script = ScriptedModel(says.tool(ping, n=1), says.tool(ping, n=2), says.tool(ping, n=3),
                           says.hand_back(3))
    outcome = app.agent(Pinger).do(Pinging(), None, for_=me, model=script)
    assert outcome.status is TaskStatus.DONE
    spans = sorted(_by_name(memory.get_finished_spans())["execute_tool ping"],
                   key=lambda s: s.start_time or 0)
    told = [((s.attributes or {}).get("signoff.tool.outcome"), s.status.status_code,
             (s.attributes or {}).get("error.type")) for s in spans]
    assert told == [("Unavailable", StatusCode.ERROR, "signoff.tool.unavailable"),
                    ("Failed", StatusCode.ERROR, "signoff.tool.failed"),
                    ("Done", StatusCode.UNSET, None)]
    app.database.dispose()


def _until(check: Any, what: str) -> None:
    for _ in range(600):
        if check():
            return
        time.sleep(0.1)
    raise AssertionError(f"Waited a minute for {what}.")


@pytest.fixture
def on_temporal(postgres_database: str, temporal_server: Any,
                monkeypatch: pytest.MonkeyPatch) -> Iterator[SimpleNamespace]:
    """The deadlines app (tests/deadlines_app.py) twice on one PostgreSQL database and one
    Temporal queue: `starter`, whose tasks run on Temporal, and `worker`, another app of it
    (standing in for another process) whose Temporal worker steps them with the script; the
    database's `url`."""
    from tests import deadlines_app

    monkeypatch.setenv("SIGNOFF_TEMPORAL", temporal_server.address)
    monkeypatch.setenv("SIGNOFF_TEMPORAL_QUEUE", f"traced-{os.urandom(4).hex()}")
    starter = deadlines_app.build(postgres_database)
    worker = deadlines_app.build(postgres_database)
    try:
        yield SimpleNamespace(starter=starter, worker=worker, script=deadlines_app.script,
                              url=postgres_database)
    finally:
        starter.app.database.dispose()
        worker.app.database.dispose()


def _price_and_approve_on_temporal(on: SimpleNamespace) -> str:
    """The starter's clerk prices the ticket on Temporal, the worker's Temporal worker stepping
    it; the starter approves the price, and the task ends; the task's id."""
    starter, worker = on.starter, on.worker
    with worker.app.temporal_worker(model_for=lambda _a, _t: on.script(worker)).running():
        outcome = starter.app.agent(starter.Clerk).do(starter.PriceTicket(), for_=starter.mia,
                                                      model=on.script(starter))
        assert outcome.status is TaskStatus.WAITING, outcome
        (proposal,) = starter.app.proposals(task=outcome.task)
        starter.app.approve(proposal, by=starter.noor)
        _until(lambda: starter.app.outcome(outcome.task).status is TaskStatus.DONE,
               "the task's end")
    return outcome.task


def test_a_task_started_untraced_is_one_trace_across_its_steps_on_temporal(
    on_temporal: SimpleNamespace, exporter: tuple[TracerProvider, InMemorySpanExporter],
) -> None:
    """A task started (and decided) where nothing traces, stepped on Temporal by a traced
    worker, step by step, is one trace: the first traced step keeps its context with the task,
    and the later steps go on under it."""
    from sqlalchemy import select

    from signoff.store.tables import tasks

    provider, memory = exporter
    on_temporal.worker.app.trace(provider)
    task = _price_and_approve_on_temporal(on_temporal)
    spans = memory.get_finished_spans()
    names = sorted(s.name for s in spans)
    assert names.count("chat scripted") == 2, names
    assert {"execute_tool set_price", "execute_tool hand_back"} <= set(names)
    assert len({s.context.trace_id for s in spans}) == 1
    roots = [s for s in spans if s.parent is None]
    assert [s.name for s in roots] == ["invoke_agent clerk"]
    with on_temporal.starter.app.database.connect() as db:
        kept = db.execute(select(tasks.c.trace_context).where(tasks.c.id == task)).scalar_one()
    assert kept is not None
    assert kept["traceparent"].split("-")[2] == f"{roots[0].context.span_id:016x}"


def test_a_traced_starters_root_span_ends_when_its_task_goes_on_in_temporal(
    on_temporal: SimpleNamespace, exporter: tuple[TracerProvider, InMemorySpanExporter],
) -> None:
    """A traced process that starts a task on Temporal ends (and so exports) the task's root
    span once it has handed the task on, and keeps nothing of it; the worker's spans, traced
    apart, hang under it in its trace."""
    provider, memory = exporter
    apart = InMemorySpanExporter()
    worker_provider = TracerProvider()
    worker_provider.add_span_processor(SimpleSpanProcessor(apart))
    on_temporal.starter.app.trace(provider)
    on_temporal.worker.app.trace(worker_provider)
    _price_and_approve_on_temporal(on_temporal)
    here, there = memory.get_finished_spans(), apart.get_finished_spans()
    (root,) = [s for s in here if s.name == "invoke_agent clerk"]
    assert root.parent is None
    assert root.attributes is not None
    assert root.attributes["signoff.task.status"] == "Waiting"
    ids = {s.context.span_id for s in [*here, *there]}
    assert {s.context.trace_id for s in [*here, *there]} == {root.context.trace_id}
    assert all(s.parent is not None and s.parent.span_id in ids for s in [*here, *there]
               if s is not root)
    assert on_temporal.starter.app._agency.loop.observer._open == {}
    worker_provider.shutdown()


def test_a_traced_decision_keeps_its_context_with_a_task_begun_untraced_on_temporal(
    on_temporal: SimpleNamespace, exporter: tuple[TracerProvider, InMemorySpanExporter],
) -> None:
    """A task begun and stepped where nothing traces, on Temporal, decided by a traced process
    (which hands the task on to the workers): the decision keeps its context with the task, so
    that whatever traces the task next goes on in the decision's trace."""
    from sqlalchemy import select

    from signoff.store.tables import tasks
    from tests import deadlines_app

    provider, memory = exporter
    starter, worker = on_temporal.starter, on_temporal.worker
    inbox = deadlines_app.build(on_temporal.url)
    try:
        inbox.app.trace(provider)
        with worker.app.temporal_worker(
                model_for=lambda _a, _t: on_temporal.script(worker)).running():
            outcome = starter.app.agent(starter.Clerk).do(
                starter.PriceTicket(), for_=starter.mia, model=on_temporal.script(starter))
            assert outcome.status is TaskStatus.WAITING, outcome
            (proposal,) = inbox.app.proposals(task=outcome.task)
            inbox.app.approve(proposal, by=inbox.noor)
            _until(lambda: starter.app.outcome(outcome.task).status is TaskStatus.DONE,
                   "the task's end")
        with starter.app.database.connect() as db:
            kept = db.execute(select(tasks.c.trace_context)
                              .where(tasks.c.id == outcome.task)).scalar_one()
    finally:
        inbox.app.database.dispose()
    decided = next(s for s in memory.get_finished_spans() if s.name.startswith("signoff.decide"))
    assert kept is not None
    assert kept["traceparent"].split("-")[1:3] == [f"{decided.context.trace_id:032x}",
                                                    f"{decided.context.span_id:016x}"]
