"""Anthropic's cache writes told only by their breakdown (``cache_creation``), or by a
breakdown larger than the sum it should add up to, are counted at no less than the breakdown
says they cost: spend is never recorded as less than was billed.

(Found in review: `_input_tokens` believed a breakdown only when it added up to
``cache_creation_input_tokens``, and else counted that sum twice, so that writes a proxy
reported only broken down were counted as none, and a breakdown larger than the sum was cut
down to it.)
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.provider_servers import ProviderServer
from tests.providers.wire import Wire, anthropic_usage_reply, ask


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize(("usage", "at_least"), [
    # writes told by their breakdown alone: an hour's at twice an input token
    ({"input_tokens": 10, "output_tokens": 5,
      "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 1000}},
     10 + 2000),
    # the sum given as null, the breakdown given
    ({"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": None,
      "cache_creation": {"ephemeral_5m_input_tokens": 800, "ephemeral_1h_input_tokens": 0}},
     10 + 1000),
    # a breakdown larger than its sum: the larger, at the dearer write
    ({"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 100,
      "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 1000}},
     10 + 2000),
], ids=["breakdown-only", "sum-null", "breakdown-larger"])
def test_cache_writes_told_by_their_breakdown_are_counted(
        server: ProviderServer, usage: dict[str, Any], at_least: int, stream: bool) -> None:
    server.answer(anthropic_usage_reply(usage, stream=stream))
    reply = ask(Wire("anthropic").model(server, stream=stream), max_output_tokens=400)
    assert reply.usage.input_tokens >= at_least
