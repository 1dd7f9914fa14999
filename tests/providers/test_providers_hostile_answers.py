"""Answers a hostile or broken server writes in place of a reply, read by the real SDKs on
loopback: each is a `ModelBadResponse` whose sentence says what came (an error in the server's
own words, the start of a body that is no JSON object, a content type that is no stream), is
counted as spent, and is not asked again; a call that names nothing, or too much, is kept
small, so that the model is told and the task goes on."""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler

import pytest

from signoff import TaskStatus
from signoff.models import ModelBadResponse, ModelError, ModelUnavailable
from tests.provider_servers import (
    Canned,
    ProviderServer,
    anthropic_stream,
    openai_completion,
    openai_stream,
)
from tests.providers.test_providers_replies import Answer, RawServer, _body, _events, _failure
from tests.providers.wire import Wire, ask, estimator_outcome, repair_shop, wires

KEY = "sk-test-0123456789abcdef"


def test_an_anthropic_error_at_200_is_told_in_its_words_without_the_key(
        server: ProviderServer) -> None:
    """A Messages answer at 200 that is an error (``{"type": "error", "error": {…}}``, as a
    proxy answers) is told in the error's words, the key it says back blotted out, as a Chat
    Completions one is (it was "answered with no content … Check that the server speaks
    Anthropic's Messages API", and what it said was lost)."""
    server.answer(Canned(body={"type": "error", "error": {
        "type": "overloaded_error", "message": f"Key {KEY} is\n over its quota."}}))
    with pytest.raises(ModelBadResponse) as raised:
        ask(Wire("anthropic").model(server, api_key=KEY))
    assert raised.value.message == (
        "anthropic:claude-test answered with an error instead of a reply: “Key [the API key] "
        "is over its quota.”. It was not used, and it may have been billed. Try again later, "
        "or check the server.")
    assert not raised.value.cost_nothing
    assert len(server.received) == 1


@wires
@pytest.mark.parametrize(("payload", "content_type", "shown"), [
    (b"<html><body>Sign in</body></html>", "text/html", "('<html><body>Sign in</body></html>')"),
    (b"null", "application/json", "(None)"),
    (b'["a", "b"]', "application/json", "(['a', 'b'])"),
], ids=["page", "null", "list"])
def test_a_body_that_is_no_json_object_shows_its_start(
        wire: Wire, payload: bytes, content_type: str, shown: str) -> None:
    """A 200 whose body is a page, ``null`` or a list (the SDK hands on text, None, a list) is
    told with the start of what came (it was "answered with no choices", which said nothing of
    the page that came instead)."""
    raw = RawServer(_body(payload, content_type))
    try:
        failure = _failure(wire.model(raw))
    finally:
        raw.stop()
    api = ("OpenAI's Chat Completions API" if wire.name == "openai"
           else "Anthropic's Messages API")
    assert type(failure) is ModelBadResponse
    assert failure.message == (f"{wire.model_name} answered with something that does not read "
                               f"as a reply {shown}. It was not used. Check that the server "
                               f"speaks {api}.")
    assert not failure.cost_nothing
    assert raw.requests == 1


@wires
@pytest.mark.parametrize("content_type", ["application/json", "text/html"])
def test_a_whole_answer_to_a_streamed_call_says_it_is_no_stream(
        wire: Wire, content_type: str) -> None:
    """A server asked for a stream that answers with a whole reply or a page (read as a stream
    of no events) is told so, naming its content type, and what to do; it was "cut off as it
    answered … Try again later", which no retry would mend."""
    whole = openai_completion("Three.") if wire.name == "openai" else wire.reply("Three.").body
    raw = RawServer(_body(json.dumps(whole).encode(), content_type))
    try:
        failure = _failure(wire.model(raw, stream=True))
    finally:
        raw.stop()
    assert type(failure) is ModelBadResponse
    assert failure.message == (
        f"{wire.model_name} was asked for a streamed reply, and answered with “{content_type}”,"
        " not a stream of events. It was not used, and it may have been billed. Check that the "
        "server streams its replies, or make the model with stream=False.")
    assert not failure.cost_nothing
    assert raw.requests == 1


def test_an_anthropic_call_streamed_with_no_start_is_a_call_of_no_name(
        server: ProviderServer) -> None:
    """The pieces of a call's arguments for a block the stream never started are a call of no
    id and no name (which the model is told names no tool), as a Chat Completions call of no
    name is; they were dropped without a word, and the reply said it stopped for tool calls
    with none."""
    events = [e for e in anthropic_stream([], [("toolu_1", "add", ['{"a": 1, ', '"b": 2}'])])
              if e[0] != "content_block_start"]
    server.answer(Canned(events=events))
    reply = ask(Wire("anthropic").model(server, stream=True))
    assert [(c.id, c.name, c.arguments) for c in reply.tool_calls] == [
        ("", "", '{"a": 1, "b": 2}')]


@wires
@pytest.mark.parametrize("part", ["name", "id"])
def test_a_call_of_a_huge_name_or_id_is_told_and_the_task_goes_on(
        wire: Wire, part: str, server: ProviderServer) -> None:
    """A call whose name or id is 5 MB is kept small (a name cut, naming no tool; an id left
    for the loop to give): the model is told, and the next request's reservation fits the
    budget (it halted the task, the 5 MB sent back with every later request)."""
    huge = "x" * 5_000_000
    call = (("call_a", huge, '{"fault": "brake"}') if part == "name"
            else (huge, "parts_for", '{"fault": "brake"}'))
    server.answer(wire.reply(None, [call]),
                  wire.reply(None, [("call_b", "hand_back",
                                     json.dumps({"hours": 1, "summary": "Pads."}))]))
    shop = repair_shop()
    outcome = estimator_outcome(shop, wire.model(server), budget_usd=1.0)
    assert outcome.status is TaskStatus.DONE, outcome.problem
    told = list(wire.tool_results(server.received[1].body).values())
    assert len(told) == 1
    assert told[0].startswith("There is no tool named" if part == "name" else "[")
    assert len(json.dumps(server.received[1].body)) < 100_000


def _lying(lie: str, payload: bytes) -> Answer:
    """An answer whose headers lie about its body: gzip it is not, a length it does not have,
    a chunk header that is none."""
    def answer(handler: BaseHTTPRequestHandler) -> None:
        body = payload if lie != "chunks" else b"zz\r\n" + payload
        handler.send_response(200)
        handler.send_header("content-type", "application/json")
        if lie == "encoding":
            handler.send_header("content-encoding", "gzip")
            handler.send_header("content-length", str(len(body)))
        elif lie == "length":
            handler.send_header("content-length", str(len(body) + 500))
        else:
            handler.send_header("transfer-encoding", "chunked")
        handler.end_headers()
        handler.wfile.write(body)
        handler.wfile.flush()
    return answer


@wires
@pytest.mark.parametrize(("lie", "kind", "said"), [
    ("encoding", ModelBadResponse, "answered with a body that does not decode as its headers "
                                   "say (its content-encoding). It was not used, and it may "
                                   "have been billed. Check the server, or a proxy in front of "
                                   "it."),
    ("length", ModelUnavailable, "was cut off as it answered: the connection closed before the "
                                 "whole of its answer came. It was not asked again: what it "
                                 "wrote may have been billed. Try again later."),
    ("chunks", ModelBadResponse, "answered with something that does not read as HTTP. It was "
                                 "not used, and it may have been billed. Check the server, or "
                                 "a proxy in front of it."),
], ids=["encoding", "length", "chunks"])
def test_an_answer_whose_headers_lie_is_told_as_one_that_came(
        wire: Wire, lie: str, kind: type[ModelError], said: str) -> None:
    """An answer that began and broke as it was read (a body that is not the gzip its headers
    say, one cut short of its length, chunks that are none) is told as the answer it was,
    counted as spent and not asked again (it was "could not be reached … Check the base URL
    and the network", which sent a person to look for a fault that was not there)."""
    payload = json.dumps(openai_completion("Three.") if wire.name == "openai"
                         else wire.reply("Three.").body).encode()
    raw = RawServer(_lying(lie, payload))
    try:
        failure = _failure(wire.model(raw))
    finally:
        raw.stop()
    assert type(failure) is kind
    assert failure.message == f"{wire.model_name} {said}"
    assert not failure.cost_nothing
    assert raw.requests == 1


DEEP = "[" * 100_000 + "]" * 100_000
"""A JSON array nested 100,000 deep: Python's JSON reader gives up on it (a RecursionError)."""


@wires
@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_an_answer_nested_too_deeply_to_read_is_a_bad_response(wire: Wire,
                                                              stream: bool) -> None:
    """A reply whose JSON nests 100,000 deep (which the SDK's reader lets out as a
    RecursionError) is `ModelBadResponse` in a sentence, counted as spent and not asked again:
    through an agent, the task failed as "The model failed: RecursionError"."""
    if wire.name == "openai":
        written = (json.dumps(openai_stream(["x"])[1][1]) if stream
                   else json.dumps(openai_completion("x")))
    else:
        written = (json.dumps(anthropic_stream(["x"])[2][1]) if stream
                   else json.dumps(wire.reply("x").body))
    written = written.replace('"x"', DEEP, 1)
    head = "" if wire.name == "openai" else "event: content_block_delta\n"
    raw = RawServer(_events(f"{head}data: {written}\n\n".encode()) if stream
                    else _body(written.encode()))
    try:
        failure = _failure(wire.model(raw, stream=stream))
    finally:
        raw.stop()
    assert type(failure) is ModelBadResponse
    assert failure.message == (f"{wire.model_name} answered with JSON nested too deeply to "
                               "read. It was not used, and it may have been billed. Check the "
                               "server.")
    assert not failure.cost_nothing
    assert raw.requests == 1
