"""One model call is held to its total timeout: a server on loopback that trickles its answer,
each piece well within the timeout, no longer holds the call (and the task, and what was
reserved for it) for as long as it goes on. The call fails in a sentence, what was reserved for
it stays spent, and nothing is asked again."""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from signoff import TaskStatus
from signoff.models import ModelNotConfigured, ModelTimeout
from tests.provider_servers import anthropic_stream, loopback_server, openai_stream
from tests.providers.wire import Wire, ask, estimator_outcome, repair_shop, wires

TRICKLE = 6.0
"""Seconds the server trickles before it ends its answer properly (so that, without a total
timeout, a call ends with the reply, not never)."""


class Trickling:
    """A server that answers every request slowly: the start of a reply, then a few bytes every
    20 ms (SSE comments, as a proxy keeps a stream alive, or the spaces JSON may begin with)
    for `TRICKLE` seconds, then the rest of it."""

    def __init__(self, wire: Wire, *, streamed: bool) -> None:
        self.streamed = streamed
        """Whether it answers as a stream of events (else as one JSON body)."""
        self.requests = 0
        """How many requests it got."""
        self._stopping = threading.Event()
        trickling = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet."""

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length") or 0))
                trickling.requests += 1
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    trickling._answer(self, wire, streamed=streamed)

        self._server = loopback_server(0, Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        kwargs={"poll_interval": 0.02}, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def _answer(self, handler: BaseHTTPRequestHandler, wire: Wire, *, streamed: bool) -> None:
        if streamed:
            events = (openai_stream(["Three."]) if wire.name == "openai"
                      else anthropic_stream(["Three."]))
            lines = [(f"event: {e}\n" if e else "") + "data: " + (
                d if isinstance(d, str) else json.dumps(d)) + "\n\n" for e, d in events]
            start, rest, keep_alive = lines[:2], lines[2:], b": still here\n\n"
            handler.send_response(200)
            handler.send_header("content-type", "text/event-stream")
            handler.send_header("connection", "close")
            handler.end_headers()
        else:
            payload = json.dumps(wire.reply("Three.").body).encode()
            pauses = int(TRICKLE / 0.02)
            start, rest, keep_alive = [], [payload.decode()], b" "
            handler.send_response(200)
            handler.send_header("content-type", "application/json")
            handler.send_header("content-length", str(pauses + len(payload)))
            handler.end_headers()
        for line in start:
            handler.wfile.write(line.encode())
        handler.wfile.flush()
        ends = time.monotonic() + TRICKLE
        sent = 0
        while (time.monotonic() < ends if streamed else sent < int(TRICKLE / 0.02)):
            if self._stopping.wait(0.02):
                return
            handler.wfile.write(keep_alive)
            handler.wfile.flush()
            sent += 1
        for line in rest:
            handler.wfile.write(line.encode())
        handler.wfile.flush()
        handler.close_connection = True

    def __enter__(self) -> Trickling:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


@pytest.fixture
def trickling(request: pytest.FixtureRequest, wire: Wire) -> Iterator[Trickling]:
    with Trickling(wire, streamed=request.param) as server:
        yield server


streamed_or_whole = pytest.mark.parametrize("trickling", [True, False], indirect=True,
                                            ids=["streamed", "whole"])


@wires
@streamed_or_whole
def test_an_answer_trickled_past_the_total_timeout_ends_the_call(
        wire: Wire, trickling: Trickling) -> None:
    """Each piece comes well within the timeout (5 s), yet the call ends once its total
    timeout has passed, in a sentence saying so and what to do; it is not asked again."""
    model = wire.model(trickling, timeout=5.0, total_timeout=0.5, stream=trickling.streamed)
    with pytest.raises(ModelTimeout) as raised:
        ask(model)
    assert raised.value.message == (
        f"{wire.model_name} was still answering when the call's total timeout of 0.5 seconds "
        "passed, so its answer was not used. It was not asked again: what it wrote may have "
        "been billed. Try again; if its replies are this slow, give it a longer total_timeout.")
    assert not raised.value.cost_nothing
    assert trickling.requests == 1


@wires
def test_a_task_whose_call_passes_its_total_timeout_keeps_the_reserve_spent(wire: Wire) -> None:
    """Through an agent, the trickled call fails the task in the call's sentence, and what
    was reserved for it stays spent, on the receipt as on the task."""
    shop = repair_shop()
    with Trickling(wire, streamed=True) as server:
        model = wire.model(server, timeout=5.0, total_timeout=0.5, stream=True)
        outcome = estimator_outcome(shop, model, budget_usd=1.0)
    assert outcome.status is TaskStatus.FAILED
    assert "was still answering when the call's total timeout of 0.5 seconds passed" in (
        outcome.problem)
    assert outcome.spend_usd > 0
    assert shop.app.receipt(outcome.task).cost_usd == pytest.approx(outcome.spend_usd)


@wires
@pytest.mark.parametrize("total", [0, -1, "600", True, float("nan")])
def test_a_total_timeout_that_is_no_number_of_seconds_is_refused(wire: Wire, total: Any) -> None:
    """A total timeout that is no number of seconds above 0 is refused as the model is made,
    in a sentence with an example."""
    with pytest.raises(ModelNotConfigured, match=r"The total_timeout of .* is a number of "
                                                 r"seconds above 0, not .*: e\.g\. "
                                                 r"total_timeout=1200\."):
        wire.model(_Nowhere(), total_timeout=total)


class _Nowhere:
    url = "http://127.0.0.1:9"


@wires
@pytest.mark.parametrize(("which", "seconds"), [
    ("timeout", 1e12), ("timeout", float("inf")), ("total_timeout", 86_401),
    ("total_timeout", 1e23)])
def test_a_wait_longer_than_a_day_is_refused_as_the_model_is_made(
        wire: Wire, which: str, seconds: float) -> None:
    """A timeout past a day is refused in a sentence naming the most (1e12 was taken, and the
    first call failed with an OverflowError); a day is taken."""
    shown = re.escape(f"{seconds:g}")
    with pytest.raises(ModelNotConfigured, match=rf"The {which} of .* is {shown} seconds, longer "
                                                 r"than the 86,400 \(a day\) a wait for a model "
                                                 r"may be: give at most that\."):
        wire.model(_Nowhere(), **{which: seconds})
    wire.model(_Nowhere(), **{which: 86_400})
