"""A provider's failures as a hostile or flaky server gives them, read by the real SDKs on
loopback: a wait of NaN, a gateway's timeout, an error part way through a stream, a key said
back. Each is a `ModelError` in a sentence; what may have been billed is never given back, and
the API key is never repeated.
"""

from __future__ import annotations

import traceback
from types import SimpleNamespace

import pytest

from signoff import TaskStatus, UserError
from signoff.models import (
    ModelError,
    ModelRequestRejected,
    ModelTimeout,
    ModelUnavailable,
    OpenAICompatibleModel,
    Price,
    Retries,
)
from tests.ports import free_port
from tests.provider_servers import Canned, ProviderServer, anthropic_stream
from tests.providers.wire import (
    Wire,
    ask,
    estimator_outcome,
    repair_shop,
    wires,
)

KEY = "sk-test-0123456789abcdef"
"""An API key that a hostile server says back."""


@wires
@pytest.mark.parametrize(("status", "header"), [(429, "retry-after"), (503, "retry-after"),
                                                (429, "retry-after-ms"), (503, "retry-after-ms")])
def test_a_wait_of_nan_is_no_wait_asked_for(wire: Wire, server: ProviderServer, status: int,
                                            header: str) -> None:
    """A ``retry-after`` of ``nan`` is taken as no wait asked for (the backoff): it was waited
    for, and ``time.sleep`` failed the call with a ValueError, no sentence."""
    server.answer(wire.error(status, "Slow down.", **{header: "nan"}), wire.reply("Done."))
    assert ask(wire.model(server)).text == "Done."
    assert len(server.received) == 2


@wires
def test_a_wait_of_infinity_is_not_waited_for(wire: Wire, server: ProviderServer) -> None:
    """A ``retry-after`` of ``inf`` (or beyond what a float holds) is longer than signoff waits:
    it gives up at once, in words."""
    server.answer(wire.error(429, "Slow down.", **{"retry-after": "1e400"}))
    with pytest.raises(ModelError, match="It asked to wait without end, past what signoff waits"):
        ask(wire.model(server))
    assert len(server.received) == 1


@wires
@pytest.mark.parametrize("status", [504, 524])
def test_a_gateways_timeout_is_a_timeout_not_asked_again(wire: Wire, server: ProviderServer,
                                                         status: int) -> None:
    """A gateway's timeout (504, Cloudflare's 524) means the request reached the provider, which
    may answer and bill it all the same: `ModelTimeout`, asked once, that may have cost
    something. Each was asked again as a failing provider, up to four times, with what was
    reserved for the call given back."""
    server.answer(*[wire.error(status, "Upstream timed out.") for _ in range(3)])
    with pytest.raises(ModelTimeout) as raised:
        ask(wire.model(server))
    assert raised.value.message.startswith(
        f"{wire.model_name} did not answer in time: a server on the way gave up waiting for it "
        f"(HTTP {status}).")
    assert raised.value.status == status
    assert not raised.value.cost_nothing
    assert len(server.received) == 1


@wires
def test_a_408_is_asked_again(wire: Wire, server: ProviderServer) -> None:
    """A 408 says the request did not arrive in time (nothing was asked): it is asked again."""
    server.answer(wire.error(408, "Request Timeout"), wire.reply("Done."))
    assert ask(wire.model(server)).text == "Done."
    assert len(server.received) == 2


@wires
def test_a_gateways_timeout_in_a_task_stays_spent(wire: Wire, server: ProviderServer) -> None:
    """Through an agent, a 504 fails the task in its sentence and what was reserved for the
    call stays spent, told on the receipt."""
    server.answer(wire.error(504, "Gateway Timeout"))
    shop = repair_shop()
    outcome = estimator_outcome(shop, wire.model(server), budget_usd=1.0)
    assert outcome.status is TaskStatus.FAILED
    assert "(HTTP 504)" in outcome.problem
    assert outcome.spend_usd > 0
    assert shop.app.receipt(outcome.task).cost_usd == pytest.approx(outcome.spend_usd)


def test_an_error_part_way_through_an_anthropic_stream_may_have_been_billed(
        server: ProviderServer) -> None:
    """Anthropic's ``error`` event after its stream began (an overload, at HTTP 200) is
    `ModelUnavailable` that may have been billed, asked once: it was "refused the request
    (HTTP 200) … Check the model's name", and what was reserved for it was given back."""
    events = anthropic_stream(["Pads and "])[:4]
    events.append(("error", {"type": "error",
                             "error": {"type": "overloaded_error", "message": "Overloaded"}}))
    server.answer(Canned(events=events), Wire("anthropic").stream(["Again."]))
    with pytest.raises(ModelUnavailable) as raised:
        ask(Wire("anthropic").model(server, stream=True))
    assert raised.value.message == ("anthropic:claude-test stopped with an error part way "
                                    "through its reply. It said: “Overloaded”. It was not asked "
                                    "again: what it wrote before may have been billed. Try "
                                    "again later.")
    assert not raised.value.cost_nothing
    assert len(server.received) == 1


@wires
def test_the_api_key_a_provider_says_back_is_not_repeated(wire: Wire,
                                                          server: ProviderServer) -> None:
    """A provider (or a proxy) that says the key back in its error has it blotted out of the
    sentence, which a task's problem, its receipt and the log keep."""
    server.answer(wire.error(401, f"The key {KEY} is not valid."),
                  wire.error(400, f"Bad request from {KEY}."))
    for _ in range(2):
        with pytest.raises(ModelError) as raised:
            ask(wire.model(server, api_key=KEY, retries=Retries(attempts=1)))
        assert KEY not in raised.value.message
        assert "[the API key]" in raised.value.message
    assert server.received[0].headers.get("x-api-key", server.received[0].headers.get(
        "authorization", "")).endswith(KEY)


def test_a_password_in_the_base_url_is_not_repeated() -> None:
    """A base URL that carries a user and password, unreachable, is named without them."""
    port = free_port()
    model = OpenAICompatibleModel("m", base_url=f"http://me:hunter2-secret@127.0.0.1:{port}/v1",
                                  price=Price(input_per_mtok=0, output_per_mtok=0),
                                  retries=Retries(attempts=1))
    with pytest.raises(ModelUnavailable) as raised:
        ask(model)
    assert "hunter2" not in raised.value.message
    assert f"could not be reached at http://127.0.0.1:{port}/v1/chat/completions" in (
        raised.value.message)



@pytest.mark.parametrize("given", [{"attempts": 0}, {"attempts": 2.5}, {"attempts": "3"},
                                   {"attempts": True}, {"backoff": -1.0},
                                   {"backoff": float("inf")}, {"max_wait": float("nan")},
                                   {"total_wait": "60"}])
def test_retries_that_are_not_retries_are_refused_in_a_sentence(given: dict[str, object]) -> None:
    """A number of attempts that is no whole number, or a wait that is no number of seconds, is
    a `UserError` as `Retries` is made: a negative backoff failed the first retried call with
    ``time.sleep``'s ValueError (and so counted what was reserved for it as spent), a text a
    TypeError."""
    with pytest.raises(UserError, match=r"Retries"):
        Retries(**given)  # type: ignore[arg-type]


@wires
def test_waits_without_end_are_never_waited_for(wire: Wire, server: ProviderServer) -> None:
    """Retries that would wait for anything (``max_wait`` and ``total_wait`` infinite) still
    never wait for an infinite ``retry-after``: it gives up in a sentence (``time.sleep``
    raised OverflowError)."""
    server.answer(wire.error(503, "Later.", **{"retry-after": "inf"}))
    endless = Retries(attempts=3, max_wait=float("inf"), total_wait=float("inf"))
    with pytest.raises(ModelUnavailable, match="It asked to wait without end"):
        ask(wire.model(server, retries=endless))
    assert len(server.received) == 1


@wires
def test_the_api_key_a_provider_says_back_is_not_in_the_logged_chain(
        wire: Wire, server: ProviderServer) -> None:
    """The error's chain, which the log writes with a model failure (its traceback, at DEBUG),
    does not hold the key a provider said back: the SDK's own error, kept as the cause, wrote
    it in full."""
    server.answer(wire.error(401, f"Incorrect API key provided: {KEY}."))
    with pytest.raises(ModelError) as raised:
        ask(wire.model(server, api_key=KEY, retries=Retries(attempts=1)))
    logged = "".join(traceback.format_exception(raised.value))
    assert "Incorrect API key provided: [the API key]" in logged
    assert KEY not in logged


@pytest.mark.parametrize(("wire", "base", "asked", "told"), [
    (Wire("openai"), "", "/chat/completions", "usually ends in /v1"),
    (Wire("anthropic"), "/v1", "/v1/v1/messages", "ends before /v1"),
], ids=["openai-without-v1", "anthropic-with-v1"])
def test_a_base_url_that_leads_to_no_api_is_told_where_it_asked(
        server: ProviderServer, wire: Wire, base: str, asked: str, told: str) -> None:
    """A 404 (Ollama's plain "404 page not found" for a base URL without /v1; Anthropic's for
    one with it) names the address asked and how each provider's base URL is written: it said
    only "refused the request (HTTP 404) … Check the model's name and its limits"."""
    server.answer(Canned(status=404, body="404 page not found"))
    where = SimpleNamespace(url=server.url + base)
    made = (OpenAICompatibleModel("llama3.1", base_url=where.url, price=Price(
        input_per_mtok=0, output_per_mtok=0)) if wire.name == "openai" else wire.model(where))
    with pytest.raises(ModelRequestRejected) as raised:
        ask(made)
    assert server.received[0].path == asked
    assert f"found nothing to answer at {server.url}{asked} (HTTP 404)" in raised.value.message
    assert told in raised.value.message
    assert raised.value.cost_nothing
