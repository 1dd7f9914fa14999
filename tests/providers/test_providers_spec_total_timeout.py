"""A model made from words (`model_from`) takes its total timeout as it takes its timeout: a
server on loopback that trickles its answer past it ends the call in the timeout's sentence."""

from __future__ import annotations

import pytest

from signoff.models import AnthropicModel, ModelTimeout, OpenAIModel, model_from
from tests.providers.test_providers_total_timeout import Trickling
from tests.providers.wire import ASK, FAST, PRICE, TOOLS, Wire, wires


@wires
def test_a_model_from_words_is_held_to_the_total_timeout_given(
        wire: Wire, monkeypatch: pytest.MonkeyPatch) -> None:
    """`model_from(spec, total_timeout=0.5)` makes a model whose call ends once half a second
    has passed, each trickled piece well within its timeout, in the sentence saying so."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    with Trickling(wire, streamed=True) as server:
        spec, url = (("openai-compatible:local-model", f"{server.url}/v1") if wire.name == "openai"
                     else ("anthropic:claude-test", server.url))
        model = model_from(spec, price=PRICE, base_url=url, timeout=5.0, total_timeout=0.5,
                           retries=FAST, on_text=lambda _: None)
        assert isinstance(model, OpenAIModel | AnthropicModel)
        try:
            with pytest.raises(ModelTimeout) as raised:
                model.complete(ASK, TOOLS, max_output_tokens=64)
        finally:
            model.close()
    assert model.total_timeout == 0.5
    assert "the call's total timeout of 0.5 seconds passed" in raised.value.message
    assert server.requests == 1
