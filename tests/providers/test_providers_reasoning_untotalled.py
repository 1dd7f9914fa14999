"""Reasoning a compatible server reports beside its ``completion_tokens`` with no
``total_tokens`` to tell whether the completion holds it is counted at the worst reading (the
completion and the reasoning both): spend is never recorded as less than the provider bills.

(Found in review: `usage_of` took reasoning no larger than the completion to be inside it, so
that a server that bills it beside a longer completion, and sends no total, had it recorded as
free: 400 tokens out where 700 were billed. With a total, which OpenAI always sends, the total
says which it is, and nothing changes.)
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.provider_servers import ProviderServer
from tests.providers.wire import Wire, ask, openai_usage_reply


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize(("usage", "out"), [
    # no total: the reasoning may be beside the completion, so it is counted so
    ({"prompt_tokens": 10, "completion_tokens": 400,
      "completion_tokens_details": {"reasoning_tokens": 300}}, 700),
    # a total that says the completion holds it (OpenAI's own): as before
    ({"prompt_tokens": 10, "completion_tokens": 400, "total_tokens": 410,
      "completion_tokens_details": {"reasoning_tokens": 300}}, 400),
], ids=["no-total", "total-says-inside"])
def test_reasoning_no_total_places_is_counted_at_its_worst(
        server: ProviderServer, usage: dict[str, Any], out: int, stream: bool) -> None:
    server.answer(openai_usage_reply(usage, stream=stream))
    reply = ask(Wire("openai").model(server, stream=stream), max_output_tokens=800)
    assert reply.usage.output_tokens == out
