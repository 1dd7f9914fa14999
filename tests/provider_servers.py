"""Loopback HTTP servers that speak the providers' wire formats, for the provider tests.

A `ProviderServer` listens on 127.0.0.1 (a port the system picks), keeps every request it gets
(`Received`: path, headers, JSON body) and answers each with the next `Canned` answer of its
script: JSON, a stream of server-sent events, an error status with headers, or an answer only
after a delay. The builders below write the bodies as OpenAI's Chat Completions and Anthropic's
Messages APIs do.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections import deque
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.ports import kept_range

__all__ = [
    "Canned",
    "ProviderServer",
    "Received",
    "anthropic_message",
    "anthropic_stream",
    "loopback_server",
    "openai_completion",
    "openai_stream",
    "serving",
]


@dataclass(frozen=True, kw_only=True)
class Canned:
    """One answer of a server's script."""

    status: int = 200
    """The HTTP status."""
    body: Any = None
    """A JSON body (when `events` is None)."""
    events: list[tuple[str | None, Any]] | None = None
    """Server-sent events (name or None, data: JSON or a literal string) instead of a body."""
    headers: dict[str, str] = field(default_factory=dict)
    """Extra response headers (e.g. ``retry-after``)."""
    delay: float = 0.0
    """Seconds to wait before answering."""
    hang_up: bool = False
    """Close the connection without answering, once the request is read (a request that went
    out and was cut off)."""


@dataclass(frozen=True, kw_only=True)
class Received:
    """One request the server got."""

    path: str
    """The request path."""
    headers: dict[str, str]
    """Its headers, names in lower case."""
    body: Any
    """Its JSON body."""
    at: float
    """When it arrived (``time.monotonic()``)."""


class ProviderServer:
    """A scripted HTTP server on loopback."""

    def __init__(self, port: int = 0) -> None:
        self.received: list[Received] = []
        """Every request, in order."""
        self._script: deque[Canned] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet: the tests read `received` instead."""

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                with server._lock:
                    server.received.append(Received(
                        path=self.path, headers={k.lower(): v for k, v in self.headers.items()},
                        body=json.loads(raw or b"null"), at=time.monotonic()))
                    canned = server._script.popleft() if server._script else Canned(
                        status=599, body={"error": {"message": "The test's script ran out."}})
                if canned.delay and server._stopping.wait(canned.delay):
                    return
                if canned.hang_up:
                    self.close_connection = True
                    return
                # the client may have given up (a timeout test): then there is no one to answer
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self._answer(canned)

            def _answer(self, canned: Canned) -> None:
                if canned.events is None:
                    payload = json.dumps(canned.body).encode()
                    self.send_response(canned.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(payload)))
                    for name, value in canned.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(payload)
                    return
                self.send_response(canned.status)
                self.send_header("content-type", "text/event-stream")
                self.send_header("connection", "close")
                for name, value in canned.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                for event, data in canned.events:
                    text = data if isinstance(data, str) else json.dumps(data)
                    head = f"event: {event}\n" if event else ""
                    self.wfile.write(f"{head}data: {text}\n\n".encode())
                    self.wfile.flush()
                self.close_connection = True

        self._server = loopback_server(port, Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02},
                                        daemon=True)

    @property
    def url(self) -> str:
        """The server's root URL, e.g. ``http://127.0.0.1:54321``."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def answer(self, *canned: Canned) -> ProviderServer:
        """Add answers to the script, in order."""
        with self._lock:
            self._script.extend(canned)
        return self

    def bodies(self) -> list[Any]:
        """The JSON bodies received, in order."""
        return [r.body for r in self.received]

    def start(self) -> None:
        """Start serving."""
        self._thread.start()

    def stop(self) -> None:
        """Stop serving, and end any delayed answer at once."""
        self._stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def loopback_server(port: int, handler: type[BaseHTTPRequestHandler]) -> ThreadingHTTPServer:
    """A server on 127.0.0.1 at `port`; for 0, one the system picks, or the first free one of
    the range the tests are kept to (`tests.ports.kept_range`)."""
    kept = kept_range()
    if port or kept is None:
        return ThreadingHTTPServer(("127.0.0.1", port), handler)
    for candidate in kept:
        with contextlib.suppress(OSError):
            return ThreadingHTTPServer(("127.0.0.1", candidate), handler)
    raise OSError(f"No port of {kept} is free.")


@contextmanager
def serving(port: int = 0) -> Iterator[ProviderServer]:
    """A started server (on `port`, else one the system picks), stopped after the block."""
    server = ProviderServer(port)
    server.start()
    try:
        yield server
    finally:
        server.stop()


# -- OpenAI Chat Completions -----------------------------------------------------------------


def openai_completion(text: str | None = None, calls: Sequence[tuple[str, str, str]] = (),
                      *, finish: str | None = None, usage: tuple[int, int] | None = (10, 5),
                      model: str = "m") -> dict[str, Any]:
    """A ``chat.completion`` body: text, tool calls ``(id, name, arguments)``, usage."""
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = [
            {"id": i, "type": "function", "function": {"name": n, "arguments": a}}
            for i, n, a in calls
        ]
    body: dict[str, Any] = {
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": model,
        "choices": [{"index": 0, "message": message, "logprobs": None,
                     "finish_reason": finish or ("tool_calls" if calls else "stop")}],
    }
    if usage is not None:
        body["usage"] = {"prompt_tokens": usage[0], "completion_tokens": usage[1],
                         "total_tokens": sum(usage)}
    return body


def openai_stream(text_pieces: Sequence[str] = (), calls: Sequence[tuple[str, str, Sequence[str]]] = (),
                  *, finish: str | None = None, usage: tuple[int, int] | None = (10, 5),
                  model: str = "m") -> list[tuple[str | None, Any]]:
    """``chat.completion.chunk`` events: text pieces, then tool calls ``(id, name, argument
    pieces)`` streamed as OpenAI does (id and name first, then the arguments in pieces), then
    the finish, the usage chunk and ``[DONE]``."""

    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        return {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": model,
                "choices": [{"index": 0, "delta": delta, "logprobs": None,
                             "finish_reason": finish_reason}]}

    events: list[tuple[str | None, Any]] = [(None, chunk({"role": "assistant", "content": ""}))]
    events += [(None, chunk({"content": piece})) for piece in text_pieces]
    for index, (call_id, name, pieces) in enumerate(calls):
        events.append((None, chunk({"tool_calls": [{
            "index": index, "id": call_id, "type": "function",
            "function": {"name": name, "arguments": ""}}]})))
        events += [(None, chunk({"tool_calls": [{"index": index, "function": {"arguments": p}}]}))
                   for p in pieces]
    events.append((None, chunk({}, finish or ("tool_calls" if calls else "stop"))))
    if usage is not None:
        events.append((None, {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1,
                              "model": model, "choices": [],
                              "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1],
                                        "total_tokens": sum(usage)}}))
    events.append((None, "[DONE]"))
    return events


# -- Anthropic Messages ----------------------------------------------------------------------


def anthropic_message(blocks: list[dict[str, Any]], *, stop: str | None = None,
                      usage: tuple[int, int] = (10, 5), model: str = "m") -> dict[str, Any]:
    """A ``message`` body with these content blocks."""
    has_tool = any(b["type"] == "tool_use" for b in blocks)
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": model,
            "content": blocks, "stop_reason": stop or ("tool_use" if has_tool else "end_turn"),
            "stop_sequence": None,
            "usage": {"input_tokens": usage[0], "output_tokens": usage[1]}}


def anthropic_stream(text_pieces: Sequence[str] = (), calls: Sequence[tuple[str, str, Sequence[str]]] = (),
                     *, stop: str | None = None, usage: tuple[int, int] = (10, 5),
                     model: str = "m") -> list[tuple[str | None, Any]]:
    """Messages stream events: a text block in pieces, then ``tool_use`` blocks ``(id, name,
    partial JSON pieces)``, then ``message_delta`` with the stop reason and output tokens."""
    events: list[tuple[str | None, Any]] = [("message_start", {"type": "message_start", "message": {
        "id": "msg_1", "type": "message", "role": "assistant", "model": model, "content": [],
        "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": usage[0], "output_tokens": 1}}})]
    index = 0
    if text_pieces:
        events.append(("content_block_start", {"type": "content_block_start", "index": 0,
                                               "content_block": {"type": "text", "text": ""}}))
        events += [("content_block_delta", {"type": "content_block_delta", "index": 0,
                                            "delta": {"type": "text_delta", "text": p}})
                   for p in text_pieces]
        events.append(("content_block_stop", {"type": "content_block_stop", "index": 0}))
        index = 1
    for call_id, name, pieces in calls:
        events.append(("content_block_start", {"type": "content_block_start", "index": index,
                                               "content_block": {"type": "tool_use", "id": call_id,
                                                                 "name": name, "input": {}}}))
        events += [("content_block_delta", {"type": "content_block_delta", "index": index,
                                            "delta": {"type": "input_json_delta", "partial_json": p}})
                   for p in pieces]
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
        index += 1
    events.append(("ping", {"type": "ping"}))
    events.append(("message_delta", {"type": "message_delta",
                                     "delta": {"stop_reason": stop or ("tool_use" if calls else "end_turn"),
                                               "stop_sequence": None},
                                     "usage": {"output_tokens": usage[1]}}))
    events.append(("message_stop", {"type": "message_stop"}))
    return events
