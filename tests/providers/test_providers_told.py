"""What a provider that is busy, misconfigured or misreporting is told as, read by the real SDKs
on loopback: every failure a sentence that says what to do, a wait in words, a missing key
refused before anything is reserved, and a streamed count never taken lower than it was.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from signoff.models import (
    AnthropicModel,
    ModelBadResponse,
    ModelError,
    ModelNotConfigured,
    ModelRateLimited,
    ModelUnavailable,
    Retries,
)
from tests.provider_servers import Canned, ProviderServer, anthropic_stream
from tests.providers.wire import PRICE, Wire, ask, wires


@wires
def test_a_rate_limit_that_lasts_says_what_to_do(wire: Wire, server: ProviderServer) -> None:
    """A 429 still said when the retries run out ends in what to do, as every other failure
    does (it said only that the provider said to slow down)."""
    server.answer(*[wire.error(429, "Slow down.") for _ in range(3)])
    with pytest.raises(ModelRateLimited) as raised:
        ask(wire.model(server))
    assert raised.value.message == (
        f"{wire.model_name} is rate limited (HTTP 429): asked 3 times, it still said to slow "
        "down. It said: “Slow down.”. Try again later.")
    assert raised.value.cost_nothing


@wires
@pytest.mark.parametrize(("status", "asked", "told"), [
    (429, "1000000000", "about 32 years"),
    (529, "1000000000", "about 32 years"),
    (429, "7200", "2 hours"),
    (503, "90", "90 seconds"),
    (429, "Wed, 21 Oct 2099 07:28:00 GMT", r"about \d+ years"),
])
def test_a_wait_too_long_to_wait_is_told_in_words(wire: Wire, server: ProviderServer,
                                                  status: int, asked: str, told: str) -> None:
    """A ``retry-after`` past what signoff waits is told as a person says a wait, and when to
    try again is said once: it was "1e+09 seconds" (a date: "2.29967e+09 seconds"), with
    "Try again later" and "try again later" both."""
    server.answer(wire.error(status, "Busy.", **{"retry-after": asked}))
    with pytest.raises((ModelRateLimited, ModelUnavailable)) as raised:
        ask(wire.model(server))
    message = raised.value.message
    assert re.search(f"It asked to wait {told} more, past what signoff waits for one call "
                     r"\(see Retries\): try again after that\.$", message), message
    assert "e+" not in message
    assert message.lower().count("try again") == 1
    assert len(server.received) == 1


@wires
def test_a_negative_wait_is_no_wait_asked_for(wire: Wire, server: ProviderServer) -> None:
    """A ``retry-after`` below 0 asks for no wait at all: the backoff is waited, as for none
    (it was taken as 0, and the busy provider asked again at once). With a backoff longer than
    the longest wait, signoff gives up after one request, saying so."""
    server.answer(wire.error(503, "Busy.", **{"retry-after": "-5"}), wire.reply("Done."))
    slow = Retries(attempts=3, backoff=100.0, max_wait=1.0, total_wait=2.0)
    with pytest.raises(ModelUnavailable) as raised:
        ask(wire.model(server, retries=slow))
    assert raised.value.message == (
        f"{wire.model_name} failed to answer (HTTP 503): asked once, it failed. It said: "
        "“Busy.”. To wait and ask again would go past what signoff waits for one call (see "
        "Retries): try again later.")
    assert len(server.received) == 1


@pytest.mark.parametrize(("wire", "body", "said"), [
    (Wire("openai"), {"id": "x", "object": "chat.completion", "choices": []},
     "answered with no choices. It was not used. Check that the server speaks OpenAI's Chat "
     "Completions API."),
    (Wire("openai"), {"id": "x", "object": "chat.completion",
                      "choices": [{"index": 0, "finish_reason": "stop"}]},
     "answered with no message. It was not used. Check that the server speaks OpenAI's Chat "
     "Completions API."),
    (Wire("anthropic"), {"id": "x", "type": "message"},
     "answered with no content. It was not used. Check that the server speaks Anthropic's "
     "Messages API."),
], ids=["no-choices", "no-message", "no-content"])
def test_an_answer_with_nothing_in_it_says_what_to_check(wire: Wire, server: ProviderServer,
                                                        body: dict[str, object],
                                                        said: str) -> None:
    """An answer with no choices, no message or no content says what to check, as an answer of
    any other shape of no reply does (it said only what was missing)."""
    server.answer(Canned(body=body))
    with pytest.raises(ModelBadResponse) as raised:
        ask(wire.model(server))
    assert raised.value.message == f"{wire.model_name} {said}"
    assert not raised.value.cost_nothing


def test_an_error_in_an_openai_stream_says_what_to_do(server: ProviderServer) -> None:
    """An error event part way through a Chat Completions stream says that what was written
    may have been billed, and to try again later (it said only that there was an error)."""
    server.answer(Canned(events=[(None, {"error": {"message": "Boom."}})]))
    wire = Wire("openai")
    with pytest.raises(ModelError) as raised:
        ask(wire.model(server, stream=True))
    assert raised.value.message == (
        f"{wire.model_name} answered with an error in its stream. It said: “Boom.”. It was not "
        "asked again: what it wrote before may have been billed. Try again later.")
    assert not raised.value.cost_nothing


def test_an_anthropic_model_with_no_key_is_refused_when_made(
        server: ProviderServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """An `AnthropicModel` given no key, with none in the environment, is refused when it is
    made, in a sentence, as an `OpenAIModel` is: it was made, and each request failed with the
    SDK's TypeError before it was sent, so that a task failed as "TypeError" with what was
    reserved for the call counted as spent, as if it had gone out."""
    for variable in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_PROFILE",
                     "ANTHROPIC_CONFIG_DIR"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))  # (no profile found there)
    with pytest.raises(ModelNotConfigured) as raised:
        AnthropicModel("claude-test", base_url=server.url, price=PRICE).close()
    assert raised.value.message == (
        "anthropic:claude-test cannot be asked: set ANTHROPIC_API_KEY (or pass api_key).")
    assert raised.value.cost_nothing
    assert server.received == []


@pytest.mark.parametrize(("start", "delta", "tokens_in"), [
    ({"input_tokens": 5000}, {"input_tokens": 0, "output_tokens": 5}, 5000),
    ({"input_tokens": 10, "cache_read_input_tokens": 1000},
     {"input_tokens": 10, "output_tokens": 5}, 1010),
    ({"input_tokens": 10}, {"input_tokens": 40, "output_tokens": 5}, 40),
], ids=["delta-says-0", "delta-leaves-out-the-cache", "delta-says-more"])
def test_a_streamed_count_of_tokens_in_is_never_lowered(server: ProviderServer,
                                                        start: dict[str, int],
                                                        delta: dict[str, int],
                                                        tokens_in: int) -> None:
    """Anthropic's stream counts are cumulative: a ``message_delta`` that reports fewer tokens
    in than ``message_start`` did (a proxy's 0, or no cache reads) does not lower what the call
    is recorded to cost (it replaced the start's count, recording less than was billed)."""
    events = anthropic_stream(["Hi."])
    events[0][1]["message"]["usage"] = start | {"output_tokens": 1}
    events[-2][1]["usage"] = delta
    server.answer(Canned(events=events))
    reply = ask(Wire("anthropic").model(server, stream=True), max_output_tokens=400)
    assert (reply.usage.input_tokens, reply.usage.output_tokens) == (tokens_in, 5)


def test_anthropic_credentials_that_cannot_be_loaded_are_told_as_not_configured(
        server: ProviderServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A config folder named (``ANTHROPIC_CONFIG_DIR``) with no profile in it is
    `ModelNotConfigured`, in the SDK's words of what to set, when no key is given: the SDK's
    own CredentialsError came out of `AnthropicModel(...)` as itself."""
    for variable in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_PROFILE"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("ANTHROPIC_CONFIG_DIR", str(tmp_path))
    with pytest.raises(ModelNotConfigured) as raised:
        AnthropicModel("claude-test", base_url=server.url, price=PRICE).close()
    assert raised.value.message.startswith(
        "anthropic:claude-test cannot be asked: its credentials could not be loaded (Config "
        "file not found at ")
    assert raised.value.message.endswith(
        "Set ANTHROPIC_API_KEY (or pass api_key), or fix what the SDK names.")
    assert server.received == []


@wires
def test_a_provider_that_says_not_to_retry_is_not_asked_again(wire: Wire,
                                                              server: ProviderServer) -> None:
    """``x-should-retry: false`` (which both SDKs honour) is honoured: the call fails after one
    request, in words (it was asked again, up to every attempt, as if it had not said)."""
    server.answer(wire.error(529, "Overloaded.", **{"x-should-retry": "false"}),
                  wire.reply("Done."))
    with pytest.raises(ModelUnavailable) as raised:
        ask(wire.model(server))
    assert raised.value.message == (
        f"{wire.model_name} failed to answer (HTTP 529): asked once, it failed. It said: "
        "“Overloaded.”. Try again later.")
    assert raised.value.cost_nothing
    assert len(server.received) == 1


KEY = "sk-test-0123456789abcdef"
"""An API key that a hostile proxy says back."""


def test_a_proxys_error_at_200_is_told_in_its_words_without_the_key(
        server: ProviderServer) -> None:
    """A Chat Completions answer at 200 that is an error (``{"error": {"message": …}}``, as
    some proxies answer) is told in the error's words, with the API key it says back blotted
    out (it was "answered with no choices", and what it said was lost)."""
    server.answer(Canned(body={"error": {"message": f"Key {KEY} is over its quota.",
                                         "code": 429}}))
    with pytest.raises(ModelBadResponse) as raised:
        ask(Wire("openai").model(server, api_key=KEY))
    assert raised.value.message == (
        "openai-compatible:local-model answered with an error instead of a reply: “Key [the "
        "API key] is over its quota.”. It was not used, and it may have been billed. Try again "
        "later, or check the server.")
    assert KEY not in str(raised.value)
    assert not raised.value.cost_nothing
