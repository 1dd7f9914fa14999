"""A tool call whose arguments are far larger than any real one (5 MB), from a server on
loopback, is refused as a malformed call that the model is told about, and does not make the
next model call's reservation so large that the task halts on it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from signoff import TaskStatus
from signoff.agents.states import ReceiptKind
from tests.provider_servers import Canned, ProviderServer
from tests.providers.wire import Wire, estimator_outcome, repair_shop, wires

HUGE = json.dumps({"fault": "x" * 5_000_000})
"""5,000,013 bytes of arguments."""

WHY = ("the arguments were 5,000,013 bytes, more than the 1,000,000 a tool call may have; give "
       "the values themselves, each no longer than it needs to be")


def _called(wire: Wire, streamed: bool, calls: list[tuple[str, str, str]]) -> Canned:
    if not streamed:
        return wire.reply(None, calls)
    return wire.stream((), [(i, n, [a[s:s + 4096] for s in range(0, len(a), 4096)])
                            for i, n, a in calls])


def _sent_back(wire: Wire, body: dict[str, Any], call_id: str) -> Any:
    """The arguments of call `call_id` as a request sends the model's own call back."""
    for m in body["messages"]:
        if wire.name == "openai":
            for c in m.get("tool_calls") or ():
                if c["id"] == call_id:
                    return c["function"]["arguments"]
        elif m["role"] == "assistant":
            for b in m["content"]:
                if b["type"] == "tool_use" and b["id"] == call_id:
                    return b["input"]
    raise AssertionError(f"no call {call_id} sent back")


@wires
@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
def test_a_tool_call_of_five_megabytes_is_refused_and_the_task_goes_on(
        wire: Wire, streamed: bool, server: ProviderServer) -> None:
    """The call is refused as Invalid, and nothing runs; the model reads why in its own call as
    it is sent back; the next request is small, so its reservation fits the budget, and the
    task is done with the model's next answer."""
    server.answer(_called(wire, streamed, [("call_a", "parts_for", HUGE)]),
                  _called(wire, streamed, [("call_b", "hand_back",
                                            json.dumps({"hours": 1, "summary": "Pads."}))]))
    shop = repair_shop()
    outcome = estimator_outcome(shop, wire.model(server, stream=streamed), budget_usd=1.0)
    assert outcome.status is TaskStatus.DONE, outcome.problem
    told = wire.tool_results(server.received[1].body)["call_a"]
    assert told.startswith("Invalid: ")
    assert told.endswith(" Nothing was run or proposed.")
    sent = _sent_back(wire, server.received[1].body, "call_a")
    assert sent == (f"(left out: {WHY})" if wire.name == "openai"
                    else {"arguments_left_out": WHY})
    assert len(json.dumps(server.received[1].body)) < 100_000
    ran = [e.data for e in shop.app.receipt(outcome.task).entries
           if e.kind is ReceiptKind.TOOL_CALL and e.data.get("tool") == "parts_for"]
    assert [d["arguments"] for d in ran] == [f"(left out: {WHY})"], ran
