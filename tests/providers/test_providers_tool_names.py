"""A tool whose name a provider does not take (not only A–Z, digits, ``_`` and ``-``, or past
64 characters: an action named in the app's own words, a served MCP tool's ``server.tool``) is
offered under a name it takes, and the model's call by that name comes back as a call of the
tool: the OpenAI API refused every request that offered one, and so every step of the task."""

from __future__ import annotations

import json
import re

from signoff.models import Message, ToolCall, ToolSpec
from signoff.models.wire_names import wire_name
from tests.provider_servers import ProviderServer
from tests.providers.wire import ASK, TOOLS, Wire, wires

TAKEN = re.compile(r"[A-Za-z0-9_-]{1,64}")
NAMES = ["déjà_vu", "shop.set price!", "workshop/" + "x" * 190, "add"]


def offered(wire: Wire, body: dict) -> list[str]:
    if wire.name == "openai":
        return [t["function"]["name"] for t in body["tools"]]
    return [t["name"] for t in body["tools"]]


def asked_before(wire: Wire, body: dict) -> list[str]:
    if wire.name == "openai":
        return [c["function"]["name"] for m in body["messages"] for c in m.get("tool_calls", [])]
    return [b["name"] for m in body["messages"] if isinstance(m["content"], list)
            for b in m["content"] if b["type"] == "tool_use"]


@wires
def test_a_name_the_provider_does_not_take_goes_out_as_one_it_does(
        wire: Wire, server: ProviderServer) -> None:
    tools = [ToolSpec(name=n, description="A tool.", parameters=TOOLS[0].parameters)
             for n in NAMES]
    earlier = [*ASK, Message(role="assistant", tool_calls=(
        ToolCall(id="c0", name="déjà_vu", arguments='{"a": 1, "b": 2}'),)),
        Message(role="tool", tool_call_id="c0", text="3")]
    server.answer(wire.reply("Both.", [("c1", wire_name("shop.set price!"), '{"a": 1, "b": 2}'),
                                       ("c2", "add", '{"a": 3, "b": 4}')]))
    model = wire.model(server)
    try:
        reply = model.complete(earlier, tools, max_output_tokens=64)
    finally:
        model.close()
    (body,) = server.bodies()
    sent = offered(wire, body)
    assert all(TAKEN.fullmatch(n) for n in sent), sent
    assert len(set(sent)) == len(NAMES)
    assert sent[-1] == "add"
    assert sent[0].startswith("deja_vu-")
    assert asked_before(wire, body) == [sent[0]]  # the conversation's call, by the same name
    assert [(c.id, c.name) for c in reply.tool_calls] == [("c1", "shop.set price!"), ("c2", "add")]
    assert json.loads(reply.tool_calls[0].arguments) == {"a": 1, "b": 2}


def test_names_that_differ_go_out_as_names_that_differ() -> None:
    """Two names that read alike in ASCII ("déjà", "deja?") are told apart by their digest."""
    assert wire_name("déjà") != wire_name("deja?")
    assert wire_name("deja") == "deja"
    assert all(TAKEN.fullmatch(wire_name(n)) for n in ("…", "", "a" * 65, "\udc80", "名前"))
