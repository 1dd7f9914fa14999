"""Replies as a hostile or careless server writes them, read by the real SDKs on loopback.

Each model is the real ``openai`` or ``anthropic`` client pointed at a server on 127.0.0.1: a
`ProviderServer` for JSON and streams, or `RawServer` (below) for bytes that are not JSON or
not UTF-8. What no reply can be is a `ModelBadResponse` (a sentence, and counted as spent), a
stream cut before its end is a connection cut, and nothing reaches a caller as a traceback.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from signoff import TaskStatus
from signoff.models import (
    AnthropicModel,
    ModelBadResponse,
    ModelError,
    ModelUnavailable,
    OpenAICompatibleModel,
    Usage,
)
from tests.provider_servers import (
    Canned,
    ProviderServer,
    anthropic_message,
    anthropic_stream,
    loopback_server,
    openai_completion,
    openai_stream,
)
from tests.providers.wire import (
    ASK,
    TOOLS,
    Wire,
    ask,
    estimator_outcome,
    repair_shop,
    wires,
)

Answer = Callable[[BaseHTTPRequestHandler], None]


class RawServer:
    """A loopback server that answers each request with the next function of its script, which
    writes what it likes (bytes that are no JSON, no UTF-8)."""

    def __init__(self, *script: Answer) -> None:
        self.script = list(script)
        self.requests = 0
        raw = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet."""

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length") or 0))
                raw.requests += 1
                raw.script.pop(0)(self)
                self.close_connection = True

        self._server = loopback_server(0, Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        kwargs={"poll_interval": 0.02}, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def _body(payload: bytes, content_type: str = "application/json") -> Answer:
    def answer(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("content-type", content_type)
        handler.send_header("content-length", str(len(payload)))
        handler.end_headers()
        handler.wfile.write(payload)
    return answer


def _events(*lines: bytes) -> Answer:
    def answer(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("content-type", "text/event-stream")
        handler.send_header("connection", "close")
        handler.end_headers()
        for line in lines:
            handler.wfile.write(line)
            handler.wfile.flush()
    return answer


def _failure(model: OpenAICompatibleModel | AnthropicModel) -> ModelError:
    with pytest.raises(ModelError) as raised:
        ask(model)
    return raised.value


# -- shapes of no reply ------------------------------------------------------------------------


def test_text_written_as_parts_is_read_and_a_refusal_is_the_text(server: ProviderServer) -> None:
    """A compatible server that writes a message's content as parts (``[{"type": "text", …}]``)
    is read as its text (it was kept as a list, and a task asking it ended in a traceback from
    ``do``); a refusal, whole or streamed, is the reply's text (it was dropped, and the model's
    why with it)."""
    parts = openai_completion("x")
    parts["choices"][0]["message"]["content"] = [{"type": "text", "text": "Pads "},
                                                 {"type": "text", "text": "and a cable."}]
    refused = openai_completion(None)
    refused["choices"][0]["message"]["refusal"] = "I cannot help with that."
    streamed = openai_stream([])
    streamed.insert(1, (None, {"id": "c", "object": "chat.completion.chunk", "created": 1,
                               "model": "m", "choices": [{"index": 0, "delta": {
                                   "refusal": "I cannot."}, "finish_reason": None}]}))
    server.answer(Canned(body=parts), Canned(body=refused), Canned(events=streamed))
    wire = Wire("openai")
    assert ask(wire.model(server)).text == "Pads and a cable."
    assert ask(wire.model(server)).text == "I cannot help with that."
    assert ask(wire.model(server, stream=True)).text == "I cannot."


def test_a_task_whose_model_writes_no_text_fails_in_a_sentence(server: ProviderServer) -> None:
    """Through an agent, a reply whose text is a number is no reply: the task ends Failed, told
    in a sentence, and what was reserved for the call stays spent (it went out and was
    answered); ``do`` raised AttributeError."""
    body = openai_completion("x")
    body["choices"][0]["message"]["content"] = 5
    server.answer(Canned(body=body))
    shop = repair_shop()
    outcome = estimator_outcome(shop, Wire("openai").model(server), budget_usd=1.0)
    assert outcome.status is TaskStatus.FAILED
    assert outcome.problem.startswith("The model failed: openai-compatible:local-model answered "
                                      "with something that does not read as a reply (5).")
    assert outcome.spend_usd > 0


def _openai_shapes() -> list[dict[str, Any]]:
    finish = openai_completion("x")
    finish["choices"][0]["finish_reason"] = ["stop"]
    name = openai_completion(None, [("c1", "add", "{}")])
    name["choices"][0]["message"]["tool_calls"][0]["function"]["name"] = {"n": 1}
    choice = openai_completion("x")
    choice["choices"] = [5]
    return [finish, name, choice]


def _anthropic_shapes() -> list[dict[str, Any]]:
    return [anthropic_message([{"type": "text", "text": 5}]),
            anthropic_message([{"type": "tool_use", "id": 7, "name": "add", "input": {}}]),
            anthropic_message([]) | {"content": {"type": "text", "text": "hi"}}]


@pytest.mark.parametrize(("wire", "body"), [
    *[(Wire("openai"), body) for body in _openai_shapes()],
    *[(Wire("anthropic"), body) for body in _anthropic_shapes()],
], ids=lambda value: getattr(value, "name", ""))
def test_a_reply_of_no_reply_shape_is_a_bad_response(wire: Wire, server: ProviderServer,
                                                     body: dict[str, Any]) -> None:
    """A finish reason, a text, a tool's name or id that is not text, a choice that is a
    number, content that is no list: `ModelBadResponse` in a sentence, counted as spent (each
    was a TypeError or AttributeError, or a reply with nothing in it)."""
    server.answer(Canned(body=body))
    failure = _failure(wire.model(server))
    assert type(failure) is ModelBadResponse
    assert "answered with no message" in failure.message or (
        "answered with something that does not read as a reply" in failure.message)
    assert not failure.cost_nothing


@wires
@pytest.mark.parametrize("payload", [b'{"id": "x", "choices": [', b'{"text": "\xff\xfe"}',
                                     b"<html><body>Sign in to the proxy</body></html>"])
def test_a_body_that_is_not_json_in_utf8_is_a_bad_response(wire: Wire, payload: bytes) -> None:
    """A 200 whose body is cut JSON or not UTF-8 is `ModelBadResponse` saying so (the SDK let a
    JSONDecodeError or a UnicodeDecodeError out, and the task failed as "JSONDecodeError");
    a proxy's page of HTML is no reply either."""
    raw = RawServer(_body(payload, "text/html" if payload.startswith(b"<") else
                          "application/json"))
    try:
        failure = _failure(wire.model(raw))
    finally:
        raw.stop()
    assert type(failure) is ModelBadResponse
    assert not failure.cost_nothing
    assert raw.requests == 1


@wires
@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_a_count_of_more_digits_than_json_reads_is_a_bad_response(wire: Wire,
                                                                  stream: bool) -> None:
    """A usage count of 5000 digits, which Python's JSON refuses to read as a number (a
    ValueError, let out by the SDK), is `ModelBadResponse`, counted as spent: it failed the
    task as "The model failed: ValueError"."""
    digits = "9" * 5000
    if wire.name == "openai":
        body = json.dumps(openai_completion("Hi.")).replace('"prompt_tokens": 10',
                                                            f'"prompt_tokens": {digits}')
        answer = _events(f"data: {body}\n\n".encode()) if stream else _body(body.encode())
    else:
        body = json.dumps(anthropic_message([{"type": "text", "text": "Hi."}]))
        start = json.dumps(anthropic_stream(["Hi."])[0][1]).replace('"input_tokens": 10',
                                                                   f'"input_tokens": {digits}')
        answer = (_events(f"event: message_start\ndata: {start}\n\n".encode()) if stream else
                  _body(body.replace('"input_tokens": 10', f'"input_tokens": {digits}').encode()))
    raw = RawServer(answer)
    try:
        failure = _failure(wire.model(raw, stream=stream))
    finally:
        raw.stop()
    assert type(failure) is ModelBadResponse
    assert "answered with something that is not a reply" in failure.message
    assert not failure.cost_nothing


@wires
def test_a_stream_that_is_not_utf8_is_a_bad_response(wire: Wire) -> None:
    """A streamed piece that is not UTF-8 is `ModelBadResponse` (a UnicodeDecodeError)."""
    if wire.name == "openai":
        broken = (b'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m",'
                  b'"choices":[{"index":0,"delta":{"content":"\xff"},"finish_reason":null}]}\n\n')
    else:
        broken = (b'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,'
                  b'"delta":{"type":"text_delta","text":"\xff"}}\n\n')
    raw = RawServer(_events(broken))
    try:
        failure = _failure(wire.model(raw, stream=True))
    finally:
        raw.stop()
    assert type(failure) is ModelBadResponse
    assert "not JSON in UTF-8 (UnicodeDecodeError)" in failure.message


# -- a stream cut before its end ---------------------------------------------------------------


def _cut(wire: Wire) -> Canned:
    """A stream that stops after one whole tool call and half of another, with no end."""
    if wire.name == "openai":
        events = openai_stream([], [("c1", "add", ['{"a": 1, "b": 2}']), ("c2", "add", ['{"a":'])])
        return Canned(events=events[:-4])  # (no finish, no usage, no [DONE])
    events = anthropic_stream([], [("c1", "add", ['{"a": 1, "b": 2}']), ("c2", "add", ['{"a":'])])
    return Canned(events=events[:-4])  # (no ping, message_delta nor message_stop)


@wires
def test_a_stream_cut_before_its_end_is_a_cut_connection(wire: Wire,
                                                         server: ProviderServer) -> None:
    """A stream that ends before its finish (a connection closed part way reads as an end) is
    no reply: `ModelUnavailable`, asked once, that may have been billed. It was taken whole: its
    first tool call would have run, and Anthropic's usage was the stand-in count of one token
    out, so a cut reply was recorded as all but free."""
    server.answer(_cut(wire), wire.stream(["Again."]))
    failure = _failure(wire.model(server, stream=True))
    assert type(failure) is ModelUnavailable
    assert "was cut off as it answered: its stream ended before the reply did" in failure.message
    assert not failure.cost_nothing
    assert len(server.received) == 1


@wires
def test_a_cut_stream_in_a_task_is_counted_as_spent_and_runs_nothing(
        wire: Wire, server: ProviderServer) -> None:
    """Through an agent, a cut stream ends the task Failed in a sentence, runs no tool call of
    it, and the worst case reserved for the call is spent and told on the receipt."""
    server.answer(_cut(wire))
    shop = repair_shop()
    outcome = estimator_outcome(shop, wire.model(server, stream=True), budget_usd=1.0)
    assert outcome.status is TaskStatus.FAILED
    assert "was cut off as it answered" in outcome.problem
    receipt = shop.app.receipt(outcome.task)
    assert [e.kind.value for e in receipt.entries if e.kind.value == "tool_call"] == []
    assert outcome.spend_usd > 0
    assert receipt.cost_usd == pytest.approx(outcome.spend_usd)


def test_an_anthropic_stream_with_no_count_out_is_counted_at_its_worst(
        server: ProviderServer) -> None:
    """A stream whose end gives no output tokens is counted at the whole output limit, not at
    the stand-in count its start gives (one token: spend recorded as less than it may be)."""
    events = anthropic_stream(["Pads."], usage=(12, 40))
    for name, data in events:
        if name == "message_delta":
            data["usage"] = {}
    server.answer(Canned(events=events))
    reply = ask(Wire("anthropic").model(server, stream=True), max_output_tokens=300)
    assert reply.usage == Usage(input_tokens=12, output_tokens=300)


def test_streamed_tool_calls_with_no_index_are_told_apart(server: ProviderServer) -> None:
    """A compatible server that gives a streamed tool call no index starts a call with each id
    (a call with none and one with an index in one stream was a TypeError)."""
    def chunk(call: dict[str, Any], finish: str | None = None) -> tuple[None, dict[str, Any]]:
        return None, {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
                      "choices": [{"index": 0, "delta": {"tool_calls": [call]},
                                   "finish_reason": finish}]}
    server.answer(Canned(events=[
        chunk({"id": "a", "type": "function", "function": {"name": "add", "arguments": '{"a": 1,'}}),
        chunk({"function": {"arguments": ' "b": 2}'}}),
        chunk({"index": 1, "id": "b", "type": "function",
               "function": {"name": "add", "arguments": '{"a": 3, "b": 4}'}}, "tool_calls"),
        (None, "[DONE]")]))
    model = Wire("openai").model(server, stream=True)
    bound = model.count_tokens(ASK, TOOLS)
    reply = ask(model)
    assert [(c.id, c.name, json.loads(c.arguments)) for c in reply.tool_calls] == [
        ("a", "add", {"a": 1, "b": 2}), ("b", "add", {"a": 3, "b": 4})]
    assert reply.usage.input_tokens == bound
