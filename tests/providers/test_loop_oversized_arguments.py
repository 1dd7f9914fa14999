"""A tool call whose arguments are far larger than any real one (5 MB) is refused as malformed,
the model told why in a sentence, whichever model made it (a provider's, or the app's own),
and the next model call's reservation is not made too large for the budget by it."""

from __future__ import annotations

import json

from signoff import TaskStatus
from signoff.testing import ScriptedModel, says
from tests.provider_servers import ProviderServer
from tests.providers.wire import Estimate, Wire, estimator_outcome, repair_shop, wires

TOLD = ("Invalid: The arguments were 5,000,013 bytes, more than the 1,000,000 a tool call may "
        "have; give the values themselves, each no longer than it needs to be. Nothing was run "
        "or proposed.")
HUGE = json.dumps({"fault": "x" * 5_000_000})


@wires
def test_a_providers_call_of_five_megabytes_is_told_why(wire: Wire,
                                                        server: ProviderServer) -> None:
    """Through a provider, the call's answer says why, not that the arguments are no JSON."""
    server.answer(wire.reply(None, [("call_a", "parts_for", HUGE)]),
                  wire.reply(None, [("call_b", "hand_back",
                                     json.dumps({"hours": 1, "summary": "Pads."}))]))
    shop = repair_shop()
    outcome = estimator_outcome(shop, wire.model(server), budget_usd=1.0)
    assert outcome.status is TaskStatus.DONE, outcome.problem
    assert wire.tool_results(server.received[1].body)["call_a"] == TOLD


def test_an_own_models_call_of_five_megabytes_is_refused_and_the_task_goes_on() -> None:
    """A model of the app's own that asks a 5 MB call is refused the same way, and the
    conversation it is asked with next holds no 5 MB."""
    shop = repair_shop()
    seen: list[int] = []
    told: list[str] = []

    class Measuring(ScriptedModel):
        def complete(self, messages, tools, *, max_output_tokens):  # type: ignore[no-untyped-def]
            seen.append(sum(len(json.dumps(m.to_json())) for m in messages))
            told[:] = [m.text for m in messages if m.role == "tool"]
            return super().complete(messages, tools, max_output_tokens=max_output_tokens)

    model = Measuring(says.raw("parts_for", HUGE),
                      says.hand_back(Estimate(hours=1, summary="Pads.")))
    outcome = shop.app.agent(shop.Estimator).do(shop.skill, shop.repair, for_=shop.mia,
                                                model=model)
    assert outcome.status is TaskStatus.DONE, outcome.problem
    assert max(seen) < 100_000
    assert told == [TOLD]
