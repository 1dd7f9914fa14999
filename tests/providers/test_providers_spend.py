"""What a reply costs, as real providers report it in their newer usage fields, read by the real
SDKs on loopback: reasoning a compatible server leaves out of its completion, Anthropic's cache
writes, counts no float holds, and a snapshot dearer than its model. Spend is never recorded as
less than the provider bills.
"""

from __future__ import annotations

from typing import Any

import pytest

from signoff import Permits, TaskStatus
from signoff.models import ModelBadResponse, Price, price_of
from tests.provider_servers import (
    ProviderServer,
)
from tests.providers.wire import (
    PRICE,
    Wire,
    anthropic_usage_reply,
    ask,
    estimator_outcome,
    openai_usage_reply,
    repair_shop,
    wires,
)


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize(("usage", "out"), [
    # OpenAI: the reasoning is in the completion, and the total adds up
    ({"prompt_tokens": 10, "completion_tokens": 305, "total_tokens": 315,
      "completion_tokens_details": {"reasoning_tokens": 300}}, 305),
    # a server that counts its reasoning only in the total
    ({"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 315}, 305),
    # a server that counts it only in the details
    ({"prompt_tokens": 10, "completion_tokens": 5,
      "completion_tokens_details": {"reasoning_tokens": 300}}, 305),
], ids=["in-the-completion", "in-the-total", "in-the-details"])
def test_reasoning_a_server_leaves_out_of_its_completion_is_counted_as_output(
        server: ProviderServer, usage: dict[str, Any], out: int, stream: bool) -> None:
    """Reasoning is billed as output: a compatible server that reports it beside its
    ``completion_tokens`` (in ``total_tokens``, or ``reasoning_tokens`` larger than the
    completion) has it counted as output; it was recorded as free (5 tokens out, not 305)."""
    server.answer(openai_usage_reply(usage, stream=stream))
    reply = ask(Wire("openai").model(server, stream=stream), max_output_tokens=400)
    assert (reply.usage.input_tokens, reply.usage.output_tokens) == (10, out)


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize(("usage", "tokens_in"), [
    ({"input_tokens": 10, "output_tokens": 5}, 10),
    ({"input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": 1000}, 1010),
    # writes with no breakdown: at the dearer write, twice an input token
    ({"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 100,
      "cache_read_input_tokens": 1000}, 1210),
    # writes broken down: five minutes' at 1.25 (rounded up), an hour's at 2
    ({"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 101,
      "cache_creation": {"ephemeral_5m_input_tokens": 81, "ephemeral_1h_input_tokens": 20}},
     10 + 102 + 40),
    # a breakdown that does not add up is not believed
    ({"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 100,
      "cache_creation": {"ephemeral_5m_input_tokens": 1, "ephemeral_1h_input_tokens": 0}}, 210),
], ids=["none", "reads", "writes", "writes-broken-down", "breakdown-wrong"])
def test_anthropic_cache_writes_are_counted_as_they_cost(
        server: ProviderServer, usage: dict[str, Any], tokens_in: int, stream: bool) -> None:
    """A cache write costs 1.25 or 2 input tokens (five minutes', an hour's): it is counted as
    what it costs, not as one input token, which recorded less than was billed."""
    server.answer(anthropic_usage_reply(usage, stream=stream))
    reply = ask(Wire("anthropic").model(server, stream=stream), max_output_tokens=400)
    assert reply.usage.input_tokens == tokens_in


def test_a_task_whose_cache_writes_cost_more_than_reserved_stops_having_recorded_them(
        server: ProviderServer) -> None:
    """In a task, cache writes are recorded at what they cost; where that is more than was
    reserved for the call, the task stops, told, instead of going on as if within budget."""
    shop = repair_shop(may=Permits.everything())
    usage = {"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 40_000}
    server.answer(anthropic_usage_reply(usage, stream=False))
    outcome = estimator_outcome(shop, Wire("anthropic").model(server), budget_usd=1.0)
    assert outcome.status is TaskStatus.HALTED
    assert "more than was reserved for the call" in outcome.problem
    assert outcome.spend_usd == pytest.approx(PRICE.cost(80_010, 5))
    assert shop.app.receipt(outcome.task).cost_usd == pytest.approx(outcome.spend_usd)


@wires
@pytest.mark.parametrize("count", [2**63, 10**30])
def test_a_count_no_float_holds_is_no_count_of_tokens(wire: Wire, server: ProviderServer,
                                                     count: int) -> None:
    """A reported count too large for a cost to be worked out from it (an OverflowError, or a
    spend of infinity, for whoever prices the reply) is `ModelBadResponse`, which may have been
    billed, in a sentence naming it."""
    if wire.name == "openai":
        server.answer(openai_usage_reply({"prompt_tokens": count, "completion_tokens": 5}, stream=False))
    else:
        server.answer(anthropic_usage_reply({"input_tokens": count, "output_tokens": 5}, stream=False))
    with pytest.raises(ModelBadResponse, match="which is no count of tokens") as raised:
        ask(wire.model(server))
    assert not raised.value.cost_nothing


def test_a_snapshot_dearer_than_its_model_is_priced_as_itself() -> None:
    """``gpt-4o-2024-05-13`` costs $5/$15 per million tokens, twice ``gpt-4o``'s input: it was
    priced as ``gpt-4o`` (a dated snapshot, its model), and a task's spend recorded at half."""
    assert price_of("openai", "gpt-4o-2024-05-13") == Price(input_per_mtok=5.0,
                                                            output_per_mtok=15.0)
    assert price_of("openai", "gpt-4o-2024-08-06") == Price(input_per_mtok=2.5,
                                                            output_per_mtok=10.0)
