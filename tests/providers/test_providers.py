"""Real providers: the official SDKs against loopback servers that speak each wire format.

Nothing here is a mock of an SDK object: each model is the real ``openai`` or ``anthropic`` client
pointed by base URL at a `ProviderServer` on 127.0.0.1, and the tests read what that server got.
Real model requests are allowed only inside this folder's fixture (conftest.py), and only to
those servers.
"""

from __future__ import annotations

import json
import logging
import time
from types import SimpleNamespace
from typing import Any

import pytest

from signoff import Permits, TaskStatus
from signoff.models import (
    PRICES,
    ModelCredentialsRefused,
    ModelError,
    ModelNotConfigured,
    ModelRateLimited,
    ModelRequestRejected,
    ModelRequestsRefused,
    ModelTimeout,
    ModelUnavailable,
    OpenAIModel,
    Price,
    Retries,
    Usage,
    model_from,
    refuse_model_requests,
)
from tests.ports import free_port
from tests.provider_servers import (
    Canned,
    ProviderServer,
    openai_completion,
)
from tests.providers.wire import (
    ASK,
    FAST,
    PRICE,
    TOOLS,
    Estimate,
    Wire,
    ask,
    estimator_outcome,
    note_of,
    repair_shop,
    wires,
)


def _parallel_turn_then_hand_back(wire: Wire, server: ProviderServer) -> SimpleNamespace:
    """A turn with two calls (a query that runs alone, a note that is proposed) and a why;
    approved, the task goes on and hands back."""
    shop = repair_shop()
    repair = str(shop.repair.id)
    server.answer(
        wire.reply("Brakes need pads; noting that.", [
            ("call_a", "parts_for", json.dumps({"fault": "rear brake"})),
            ("call_b", "note_repair", json.dumps({"repair": repair, "note": "Pads and a cable."})),
        ], usage=(120, 30)),
        wire.reply(None, [("call_c", "hand_back", json.dumps({"hours": 1, "summary": "Pads."}))],
                   usage=(200, 20)),
    )
    model = wire.model(server)
    try:
        waiting = shop.app.agent(shop.Estimator).do(shop.skill, shop.repair, for_=shop.mia,
                                                    model=model)
        proposal = shop.app.proposals_for(shop.mia)[0]
        shop.app.approve(proposal, by=shop.mia)
        done = shop.app.outcome(waiting.task)
    finally:
        model.close()
    return SimpleNamespace(shop=shop, waiting=waiting, proposal=proposal, done=done,
                           bodies=server.bodies(), received=server.received)


# -- the wire: what is sent, what comes back -------------------------------------------------


def test_openai_wire_tools_results_parallel_calls_why_and_usage(server: ProviderServer) -> None:
    """Through the openai SDK: tool schemas go out as functions, the system prompt first; two
    calls in one turn are gated one by one, the why is the proposal's, the tool answers go back
    as tool messages with the call ids, and the spend is the server's usage at the price."""
    run = _parallel_turn_then_hand_back(Wire("openai"), server)
    assert run.waiting.status is TaskStatus.WAITING
    assert run.proposal.action == "note_repair"
    assert run.proposal.why == "Brakes need pads; noting that."
    assert run.done.status is TaskStatus.DONE
    assert run.done.result == Estimate(hours=1, summary="Pads.")
    assert [r.path for r in run.received] == ["/v1/chat/completions"] * 2
    assert run.received[0].headers["authorization"] == "Bearer test-key"
    first, second = run.bodies
    assert first["model"] == "local-model"
    assert first["max_tokens"] == 1024
    assert first["messages"][0] == {"role": "system", "content": first["messages"][0]["content"]}
    assert "You estimate bicycle repairs." in first["messages"][0]["content"]
    assert first["messages"][1]["role"] == "user"
    tools = {t["function"]["name"]: t for t in first["tools"]}
    assert set(tools) == {"parts_for", "note_repair", "hand_back"}
    assert tools["parts_for"]["type"] == "function"
    assert tools["parts_for"]["function"]["description"].startswith("Look up the parts a fault needs")
    assert tools["parts_for"]["function"]["parameters"]["properties"]["fault"]["type"] == "string"
    assert tools["note_repair"]["function"]["parameters"]["properties"]["repair"]["format"] == "uuid"
    assistant = second["messages"][2]
    assert assistant["role"] == "assistant"
    assert assistant["content"] == "Brakes need pads; noting that."
    assert [(c["id"], c["type"], c["function"]["name"]) for c in assistant["tool_calls"]] == [
        ("call_a", "function", "parts_for"), ("call_b", "function", "note_repair")]
    assert Wire("openai").tool_results(second) == {"call_a": '["brake pads", "cable"]',
                                                  "call_b": "Noted on T-7."}
    assert [m["role"] for m in second["messages"][3:]] == ["tool", "tool"]
    assert note_of(run.shop) == "Pads and a cable."
    assert run.done.spend_usd == pytest.approx(PRICE.cost(120 + 200, 30 + 20))


def test_anthropic_wire_tools_results_parallel_calls_why_and_usage(server: ProviderServer) -> None:
    """Through the anthropic SDK: the system prompt is the request's ``system``, tools carry
    ``input_schema``; two ``tool_use`` blocks in one turn are gated one by one, the text block is
    the proposal's why, the answers go back as ``tool_result`` blocks with the ``tool_use`` ids
    in one user turn, and the spend is the server's usage at the price."""
    run = _parallel_turn_then_hand_back(Wire("anthropic"), server)
    assert run.waiting.status is TaskStatus.WAITING
    assert run.proposal.why == "Brakes need pads; noting that."
    assert run.done.status is TaskStatus.DONE
    assert run.done.result == Estimate(hours=1, summary="Pads.")
    assert [r.path for r in run.received] == ["/v1/messages"] * 2
    headers = run.received[0].headers  # the SDK sends the key as x-api-key or as a bearer token
    assert "test-key" in (headers.get("x-api-key"), headers.get("authorization", "")[7:])
    assert "anthropic-version" in headers
    first, second = run.bodies
    assert first["model"] == "claude-test"
    assert first["max_tokens"] == 1024
    assert "You estimate bicycle repairs." in first["system"]
    assert [m["role"] for m in first["messages"]] == ["user"]
    assert all(m["role"] != "system" for m in second["messages"])
    tools = {t["name"]: t for t in first["tools"]}
    assert set(tools) == {"parts_for", "note_repair", "hand_back"}
    assert tools["parts_for"]["description"].startswith("Look up the parts a fault needs")
    assert tools["parts_for"]["input_schema"]["properties"]["fault"]["type"] == "string"
    assert tools["note_repair"]["input_schema"]["properties"]["repair"]["format"] == "uuid"
    assert [m["role"] for m in second["messages"]] == ["user", "assistant", "user"]
    said = second["messages"][1]["content"]
    assert said[0] == {"type": "text", "text": "Brakes need pads; noting that."}
    assert [(b["type"], b["id"], b["name"]) for b in said[1:]] == [
        ("tool_use", "call_a", "parts_for"), ("tool_use", "call_b", "note_repair")]
    assert said[1]["input"] == {"fault": "rear brake"}
    results = second["messages"][2]["content"]
    assert [b["type"] for b in results] == ["tool_result", "tool_result"]
    assert Wire("anthropic").tool_results(second) == {"call_a": '["brake pads", "cable"]',
                                                     "call_b": "Noted on T-7."}
    assert note_of(run.shop) == "Pads and a cable."
    assert run.done.spend_usd == pytest.approx(PRICE.cost(120 + 200, 30 + 20))


@wires
def test_parallel_calls_text_and_usage_in_one_reply(wire: Wire, server: ProviderServer) -> None:
    """One response with two tool calls gives both, in order, with the text beside them and the
    usage the response reports."""
    server.answer(wire.reply("Adding twice.", [("c1", "add", '{"a": 1, "b": 2}'),
                                               ("c2", "add", '{"a": 3, "b": 4}')], usage=(33, 7)))
    reply = ask(wire.model(server))
    assert reply.text == "Adding twice."
    assert [(c.id, c.name, json.loads(c.arguments)) for c in reply.tool_calls] == [
        ("c1", "add", {"a": 1, "b": 2}), ("c2", "add", {"a": 3, "b": 4})]
    assert reply.usage == Usage(input_tokens=33, output_tokens=7)
    assert reply.stop == "tool_calls"


@wires
def test_a_reply_cut_at_max_tokens_keeps_its_text(wire: Wire, server: ProviderServer) -> None:
    """A response stopped by the output limit says ``max_tokens`` and keeps the text so far; the
    limit sent is the one asked for."""
    server.answer(wire.reply("The estimate is one hour of work and", cut=True))
    reply = ask(wire.model(server), max_output_tokens=9)
    assert reply.stop == "max_tokens"
    assert reply.text == "The estimate is one hour of work and"
    body = server.bodies()[0]
    assert body["max_tokens"] == 9


def test_openai_proper_sends_max_completion_tokens(server: ProviderServer) -> None:
    """OpenAI itself takes the output limit as ``max_completion_tokens``; its price is the
    table's."""
    server.answer(Wire("openai").reply("Hi."))
    model = OpenAIModel("gpt-4o-mini", api_key="test-key", base_url=f"{server.url}/v1",
                        retries=FAST)
    assert model.price == PRICES["openai:gpt-4o-mini"]
    try:
        assert model.complete(ASK, [], max_output_tokens=12).text == "Hi."
    finally:
        model.close()
    body = server.bodies()[0]
    assert body["max_completion_tokens"] == 12
    assert "max_tokens" not in body
    assert "tools" not in body


@wires
def test_streamed_text_is_handed_over_piece_by_piece(wire: Wire, server: ProviderServer) -> None:
    """With ``on_text`` the reply is streamed (SSE): each text piece is handed over as it comes,
    tool calls are put together from their pieces, and the usage is the stream's."""
    server.answer(wire.stream(["Adding ", "both."], [("c1", "add", ['{"a": 1,', ' "b": 2}']),
                                                    ("c2", "add", ['{"a": 3, "b": 4}'])],
                              usage=(40, 9)))
    pieces: list[str] = []
    reply = ask(wire.model(server, on_text=pieces.append))
    assert pieces == ["Adding ", "both."]
    assert reply.text == "Adding both."
    assert [(c.id, c.name, json.loads(c.arguments)) for c in reply.tool_calls] == [
        ("c1", "add", {"a": 1, "b": 2}), ("c2", "add", {"a": 3, "b": 4})]
    assert reply.usage == Usage(input_tokens=40, output_tokens=9)
    assert server.bodies()[0]["stream"] is True


def test_openai_stream_asks_for_usage(server: ProviderServer) -> None:
    """A streamed OpenAI request asks for the usage chunk (``stream_options.include_usage``)."""
    server.answer(Wire("openai").stream(["Hi."]))
    ask(Wire("openai").model(server, on_text=lambda _: None))
    assert server.bodies()[0]["stream_options"] == {"include_usage": True}


@wires
def test_without_streaming_on_text_gets_the_whole_text(wire: Wire, server: ProviderServer) -> None:
    """With ``stream=False`` and an ``on_text``, the whole text is handed over once."""
    server.answer(wire.reply("All at once."))
    pieces: list[str] = []
    ask(wire.model(server, on_text=pieces.append, stream=False))
    assert pieces == ["All at once."]
    assert "stream" not in server.bodies()[0]


def test_usage_a_server_does_not_report_is_counted_at_its_worst(server: ProviderServer) -> None:
    """A compatible server that reports no usage is charged the worst case: the input bound and
    the whole output limit (spend is never recorded as less than it may have been)."""
    server.answer(Canned(body=openai_completion("Hi.", usage=None)))
    model = Wire("openai").model(server)
    bound = model.count_tokens(ASK, TOOLS)
    reply = ask(model, max_output_tokens=77)
    assert reply.usage == Usage(input_tokens=bound, output_tokens=77)


@wires
def test_the_token_bound_covers_the_request(wire: Wire, server: ProviderServer) -> None:
    """The reservation's input count is at least the bytes of the conversation and tools sent
    (no tokenizer writes fewer than one byte a token), and no request is made to count."""
    model = wire.model(server)
    bound = model.count_tokens(ASK, TOOLS)
    model.close()
    sent = sum(len(m.text.encode()) for m in ASK) + len(json.dumps(TOOLS[0].parameters))
    assert bound >= sent
    assert server.received == []


# -- what the model gets wrong, told through the loop ---------------------------------------


@wires
@pytest.mark.parametrize("tail", ["", "[" * 3000 + "]" * 3000 + "}", "[" * 150 + "]" * 150 + "}"])
def test_malformed_arguments_are_told_and_nothing_runs(wire: Wire, server: ProviderServer,
                                                       tail: str) -> None:
    """Arguments that are not JSON, or nest too deeply to read, come back exactly as written;
    the loop tells the model they cannot be read, nothing runs or is proposed, and the next
    request sends the call back as the provider takes it."""
    shop = repair_shop(may=Permits.everything())
    broken = '{"repair": "' + str(shop.repair.id) + '", "note": ' + tail
    hand_back = ("c2", "hand_back", json.dumps({"hours": 1, "summary": "Pads."}))
    if wire.name == "openai":
        server.answer(wire.reply("Noting.", [("c1", "note_repair", broken)]), wire.reply(None, [hand_back]))
    else:  # only a stream can carry broken JSON: the Messages API's input is an object
        server.answer(wire.stream(["Noting."], [("c1", "note_repair", [broken[:10], broken[10:]])]),
                      wire.stream([], [(hand_back[0], hand_back[1], [hand_back[2]])]))
    model = wire.model(server, on_text=lambda _: None) if wire.name == "anthropic" else wire.model(server)
    outcome = estimator_outcome(shop, model)
    assert outcome.status is TaskStatus.DONE
    told = wire.tool_results(server.bodies()[1])["c1"]
    assert told.startswith("Invalid: The arguments are nested" if tail
                           else "Invalid: The arguments are not JSON")
    assert not tail or "nested too deeply to read" in told
    assert told.endswith("Nothing was run or proposed.")
    assert note_of(shop) == ""
    assert shop.app.proposals() == []
    calls = [e for e in shop.app.receipt(outcome).entries if e.kind == "tool_call"]
    assert [e.data["arguments"] for e in calls] == [broken]  # kept exactly as written
    if wire.name == "anthropic":  # sent back as an empty object: the API takes only objects
        said = server.bodies()[1]["messages"][1]["content"]
        assert said[-1] == {"type": "tool_use", "id": "c1", "name": "note_repair", "input": {}}


@wires
def test_a_tool_that_does_not_exist_is_told_and_nothing_runs(wire: Wire,
                                                            server: ProviderServer) -> None:
    """A call naming no tool of the skill is answered with the tools there are; nothing runs."""
    shop = repair_shop(may=Permits.everything())
    server.answer(
        wire.reply("Scrapping it.", [("c1", "scrap_everything", '{"why": "old"}')]),
        wire.reply(None, [("c2", "hand_back", json.dumps({"hours": 0, "summary": "None."}))]),
    )
    outcome = estimator_outcome(shop, wire.model(server))
    assert outcome.status is TaskStatus.DONE
    told = wire.tool_results(server.bodies()[1])["c1"]
    assert told.startswith("There is no tool named “scrap_everything” for this work")
    assert "parts_for, note_repair, hand_back" in told
    assert shop.app.proposals() == []


@wires
def test_spend_stays_within_the_budget(wire: Wire, server: ProviderServer) -> None:
    """A task with a price and a small budget against a server that never hands back halts
    before a call that might not fit: spend ≤ budget, and every request made was paid for."""
    shop = repair_shop(may=Permits.everything())
    price = Price(input_per_mtok=10.0, output_per_mtok=10.0)
    server.answer(*[wire.reply("Looking.", [(f"c{i}", "parts_for", '{"fault": "brake"}')],
                               usage=(900, 100)) for i in range(30)])
    budget = 0.06
    outcome = estimator_outcome(shop, wire.model(server, price=price), budget_usd=budget)
    assert outcome.status is TaskStatus.HALTED
    assert outcome.problem.startswith("Halted: the next model call could cost up to $")
    assert outcome.spend_usd <= budget
    assert len(server.received) == outcome.steps >= 2
    assert outcome.spend_usd == pytest.approx(outcome.steps * price.cost(900, 100))


# -- failures: retried within bounds, then a clear ModelError ------------------------------


@wires
def test_429_waits_as_long_as_retry_after_says(
    wire: Wire, server: ProviderServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 429 with ``retry-after: 0.05`` is asked again after exactly that wait (not the backoff,
    which would be seconds), and the second answer is the reply. The waits are recorded as they
    are asked for (and really waited), so a loaded machine cannot make this fail."""
    waits: list[float] = []
    real_sleep = time.sleep

    def recorded(seconds: float) -> None:
        waits.append(seconds)
        real_sleep(seconds)

    monkeypatch.setattr(time, "sleep", recorded)
    server.answer(wire.error(429, "Slow down.", **{"retry-after": "0.05"}), wire.reply("Done."))
    slow_backoff = Retries(attempts=2, backoff=5.0, max_wait=10.0, total_wait=10.0)
    reply = ask(wire.model(server, retries=slow_backoff))
    assert reply.text == "Done."
    assert waits == [0.05]
    first, second = server.received
    assert second.at - first.at >= 0.05


@wires
def test_429_asking_for_too_long_a_wait_gives_up_at_once(wire: Wire, server: ProviderServer) -> None:
    """A 429 asking for a wait longer than signoff waits is not waited for: a `ModelRateLimited`
    that says so, after one request."""
    server.answer(wire.error(429, **{"retry-after": "3600"}))
    with pytest.raises(ModelRateLimited) as raised:
        ask(wire.model(server))
    assert raised.value.retry_after == 3600
    assert "rate limited (HTTP 429)" in raised.value.message
    assert "asked to wait 1 hour more" in raised.value.message
    assert len(server.received) == 1


@wires
def test_500_is_retried_with_backoff_then_fails_clearly(wire: Wire, server: ProviderServer) -> None:
    """A 500 is asked again with a growing wait; when it persists, a `ModelUnavailable` saying
    how often it was asked, after exactly `Retries.attempts` requests."""
    server.answer(*[wire.error(500, "Boom.") for _ in range(3)])
    retries = Retries(attempts=3, backoff=0.04, max_wait=1.0, total_wait=2.0)
    with pytest.raises(ModelUnavailable) as raised:
        ask(wire.model(server, retries=retries))
    assert raised.value.message.startswith(f"{wire.model_name} failed to answer (HTTP 500): "
                                           "asked 3 times")
    assert raised.value.attempts == 3
    assert raised.value.status == 500
    times = [r.at for r in server.received]
    assert len(times) == 3
    assert times[1] - times[0] >= 0.02
    assert times[2] - times[1] >= 0.04


@wires
def test_a_500_then_an_answer_is_an_answer(wire: Wire, server: ProviderServer) -> None:
    """One 500 and then a good answer gives the answer."""
    server.answer(wire.error(503), wire.reply("Back."))
    assert ask(wire.model(server)).text == "Back."
    assert len(server.received) == 2


@wires
def test_retries_are_bounded_in_time(wire: Wire, server: ProviderServer) -> None:
    """However many attempts are allowed, the waits stop at `Retries.total_wait`."""
    server.answer(*[wire.error(500) for _ in range(50)])
    retries = Retries(attempts=50, backoff=0.05, max_wait=5.0, total_wait=0.3)
    started = time.monotonic()
    with pytest.raises(ModelUnavailable, match="past what signoff waits"):
        ask(wire.model(server, retries=retries))
    assert time.monotonic() - started < 2.0
    assert 2 <= len(server.received) < 10


@wires
def test_a_timeout_is_a_model_timeout_and_not_retried(wire: Wire, server: ProviderServer) -> None:
    """A server slower than the timeout gives `ModelTimeout` saying so; it is not asked again
    (a request that timed out may have been billed). The answer would come after 30 seconds
    (the server's stop ends its wait): a ModelTimeout, not "Late.", shows that the client gave
    up at its timeout, and no clock is read (a loaded machine made a bound on it flaky)."""
    server.answer(Canned(delay=30.0, body=openai_completion("Late.")), wire.reply("Again."))
    with pytest.raises(ModelTimeout) as raised:
        ask(wire.model(server, timeout=0.3))
    assert "did not answer within the timeout of 0.3 seconds" in raised.value.message
    assert raised.value.timeout == 0.3
    assert len(server.received) == 1


@wires
@pytest.mark.parametrize(("status", "error"), [
    (400, ModelRequestRejected), (404, ModelRequestRejected), (413, ModelRequestRejected),
    (401, ModelCredentialsRefused), (403, ModelCredentialsRefused),
    (429, ModelRateLimited), (500, ModelUnavailable), (502, ModelUnavailable),
    (529, ModelUnavailable),
])
def test_each_status_is_mapped(wire: Wire, server: ProviderServer, status: int,
                               error: type[ModelError]) -> None:
    """Every provider status comes out as its `ModelError`, carrying the status and the
    provider's own explanation; none of the SDK's exceptions leaks."""
    server.answer(wire.error(status, "The provider's reason."))
    with pytest.raises(ModelError) as raised:
        ask(wire.model(server, retries=Retries(attempts=1)))
    assert type(raised.value) is error
    assert raised.value.status == status
    assert "“The provider's reason.”" in raised.value.message


@wires
@pytest.mark.parametrize("given", [True, False])
def test_a_refused_key_names_where_the_providers_key_came_from(
        wire: Wire, server: ProviderServer, monkeypatch: pytest.MonkeyPatch, given: bool) -> None:
    """A 401 says to check the key where this model's came from — its provider's variable, or
    the api_key given — and names no other provider's variable (it named both)."""
    variable, other = (("OPENAI_API_KEY", "ANTHROPIC_API_KEY") if wire.name == "openai" else
                       ("ANTHROPIC_API_KEY", "OPENAI_API_KEY"))
    monkeypatch.setenv(variable, "from-the-environment")
    monkeypatch.setenv(other, "another-providers")
    server.answer(wire.error(401, "Invalid key."))
    with pytest.raises(ModelCredentialsRefused) as raised:
        ask(wire.model(server, retries=Retries(attempts=1), api_key="k" if given else None))
    where = "the api_key given" if given else variable
    assert f"Check the key ({where}) and the account." in raised.value.message
    assert other not in raised.value.message


def test_a_compatible_server_refusing_no_key_says_the_variable_is_not_set(
        server: ProviderServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """An OpenAI-compatible server that wants a key, given none, is told to check
    OPENAI_API_KEY, which is not set (a local server usually needs none, so none was sent)."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    server.answer(Wire("openai").error(401, "A key is needed."))
    with pytest.raises(ModelCredentialsRefused) as raised:
        ask(Wire("openai").model(server, retries=Retries(attempts=1), api_key=None))
    assert "Check the key (OPENAI_API_KEY, which is not set) and the account." in (
        raised.value.message)


@wires
def test_an_unreachable_server_is_unavailable(wire: Wire) -> None:
    """A base URL where nothing listens gives `ModelUnavailable` naming the connection and the
    address asked; a base URL written with no scheme is refused as the model is made, saying
    how to write it (it was read as a path, and every request failed as unreachable)."""
    port = free_port()
    nowhere = SimpleNamespace(url=f"http://127.0.0.1:{port}")
    with pytest.raises(ModelUnavailable, match=f"could not be reached at http://127.0.0.1:{port}/"
                                               ".*: asked 2 times"):
        ask(wire.model(nowhere, retries=Retries(attempts=2, backoff=0.01)))
    for schemeless in (f"127.0.0.1:{port}", f"//127.0.0.1:{port}", f"ftp://127.0.0.1:{port}"):
        with pytest.raises(ModelNotConfigured, match=f"The base URL “{schemeless}.*” for .* is "
                                                     "not an http or https address: write it "
                                                     "with its scheme, e.g. http://127.0.0.1:"):
            wire.model(SimpleNamespace(url=schemeless))
    with pytest.raises(ModelNotConfigured, match=r"e.g. http://127.0.0.1:11434/v1\."):
        model_from("openai-compatible:llama3@127.0.0.1:11434/v1")


@wires
def test_a_failing_model_fails_the_task_in_words(wire: Wire, server: ProviderServer) -> None:
    """Through an agent, a provider that keeps failing ends the task Failed, told in the
    provider error's own sentence, and nothing of the SDK's."""
    shop = repair_shop()
    server.answer(*[wire.error(500, "Internal detail.") for _ in range(3)])
    outcome = estimator_outcome(shop, wire.model(server))
    assert outcome.status is TaskStatus.FAILED
    assert outcome.problem == f"The model failed: {wire.model_name} failed to answer (HTTP 500): " \
        "asked 3 times, it went on failing. It said: “Internal detail.”. Try again later."
    assert "Error code" not in outcome.problem


def _spend_after_failing(wire: Wire, model_at: ProviderServer | SimpleNamespace,
                         **given: Any) -> tuple[Any, Any]:
    """A task of the shop's, with a price and a budget, whose model fails at its first call:
    its outcome and its receipt."""
    shop = repair_shop()
    outcome = estimator_outcome(shop, wire.model(model_at, **given), budget_usd=1.0)
    assert outcome.status is TaskStatus.FAILED
    return outcome, shop.app.receipt(outcome.task)


@wires
def test_a_model_call_that_cost_nothing_gives_back_its_reservation(
        wire: Wire, server: ProviderServer, caplog: pytest.LogCaptureFixture) -> None:
    """A call that never reached the provider (nothing listens), or that it answered with an
    error status (500, asked three times; 401), cannot have been billed: what was reserved for
    it is given back, and the task's spend and its receipt's cost are both nothing (the spend
    kept the worst case reserved, $0.0013 for a small question, while the receipt said $0)."""
    port = free_port()
    nowhere = SimpleNamespace(url=f"http://127.0.0.1:{port}")
    with caplog.at_level(logging.INFO, logger="signoff"):
        outcome, receipt = _spend_after_failing(wire, nowhere)
    assert "could not be reached" in outcome.problem
    assert (outcome.spend_usd, receipt.cost_usd) == (0.0, 0.0)
    # Told in a sentence, in the log too: a model that fails is not signoff's own failure (its
    # chain of four exceptions was logged as a traceback at ERROR).
    told = [r for r in caplog.records if "failed in task" in r.getMessage()]
    assert [(r.levelno, r.exc_info) for r in told] == [(logging.WARNING, None)]
    assert "could not be reached" in told[0].getMessage()
    for status in (500, 401):
        server.answer(*[wire.error(status, "No.") for _ in range(3)])
        outcome, receipt = _spend_after_failing(wire, server)
        assert f"(HTTP {status})" in outcome.problem
        assert (outcome.spend_usd, receipt.cost_usd) == (0.0, 0.0)
        assert [e for e in receipt.entries if e.kind.value == "reserved"] == []


@wires
def test_a_request_cut_off_after_it_went_out_is_not_asked_again(
        wire: Wire, server: ProviderServer) -> None:
    """A connection cut after the request went out may have been billed: it is not asked again
    (that could spend past what was reserved for the call, unrecorded), as a timeout is not; one
    that never connected is (see test_an_unreachable_server_is_unavailable)."""
    server.answer(Canned(hang_up=True), wire.reply("Again."))
    with pytest.raises(ModelUnavailable) as raised:
        ask(wire.model(server, retries=Retries(attempts=3, backoff=0.01)))
    assert "asked once" in raised.value.message
    assert not raised.value.cost_nothing
    assert len(server.received) == 1


@wires
def test_a_model_call_cut_off_after_it_went_out_is_counted_as_spent_and_told(
        wire: Wire, server: ProviderServer) -> None:
    """A request that went out and got no answer (the connection cut, a timeout) may have been
    billed: what was reserved for it stays spent, and the receipt says so, with that amount in
    its cost, so that the receipt's cost and the task's spend agree."""
    for canned, given in ((Canned(hang_up=True), {"retries": Retries(attempts=1)}),
                          (Canned(delay=30.0, body=openai_completion("Late.")), {"timeout": 0.3})):
        server.answer(canned)
        outcome, receipt = _spend_after_failing(wire, server, **given)
        assert outcome.spend_usd > 0.0
        assert receipt.cost_usd == pytest.approx(outcome.spend_usd)
        (reserved,) = [e for e in receipt.entries if e.kind.value == "reserved"]
        assert "after its request went out, and the provider may have billed it" in reserved.words
        assert reserved.cost_usd == pytest.approx(outcome.spend_usd)
        assert outcome.problem.startswith("The model failed: ")


@wires
def test_the_guard_refuses_before_any_request(wire: Wire, server: ProviderServer) -> None:
    """With real model requests refused, a provider raises `ModelRequestsRefused` and the server
    gets nothing."""
    server.answer(wire.reply("Hi."))
    with refuse_model_requests(), pytest.raises(ModelRequestsRefused):
        ask(wire.model(server))
    assert server.received == []


@wires
def test_a_task_whose_model_requests_are_refused_fails_in_that_sentence(
        wire: Wire, server: ProviderServer) -> None:
    """With real model requests refused, a task of a provider's real model ends Failed like any
    model error, its problem the refusal's own sentence (it was "ModelRequestsRefused. The log
    has the details."), nothing sent to the server and nothing spent."""
    server.answer(wire.reply("Hi."))
    with refuse_model_requests():
        outcome, receipt = _spend_after_failing(wire, server)
    assert outcome.problem == ("The model failed: Real model requests are off here (as in "
                               f"tests), so {wire.model_name} was not asked.")
    assert server.received == []
    assert (outcome.spend_usd, receipt.cost_usd) == (0.0, 0.0)
    refused = ModelRequestsRefused("Off.")
    assert isinstance(refused, ModelError)
    assert refused.cost_nothing
