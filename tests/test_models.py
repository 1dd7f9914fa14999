"""Models: the scripted model, messages that round-trip, and the guard against real requests."""

from __future__ import annotations

import json
from decimal import Decimal

from pydantic import BaseModel

from signoff.models import Message, Price, ToolCall, Usage, model_requests_allowed
from signoff.models.base import upper_bound_tokens
from signoff.testing import ScriptedModel, says


def test_real_model_requests_are_refused_in_tests() -> None:
    """The suite runs with real model requests refused (providers check this before a call)."""
    assert model_requests_allowed() is False


def test_messages_round_trip_through_json() -> None:
    """A message with tool calls is stored as JSON and read back unchanged."""
    message = Message(role="assistant", text="why",
                      tool_calls=(ToolCall(id="c1", name="t", arguments='{"a": 1}'),))
    assert Message.from_json(json.loads(json.dumps(message.to_json()))) == message


def test_price_and_upper_bound() -> None:
    """Cost is tokens at the price; the token bound is at least the bytes of the request."""
    assert Price(input_per_mtok=3.0, output_per_mtok=15.0).cost(1_000_000, 100_000) == 4.5
    messages = [Message(role="user", text="é" * 100)]
    assert upper_bound_tokens(messages, []) >= 200


class Answer(BaseModel):
    """A result."""

    n: Decimal


def test_a_script_plays_by_turn() -> None:
    """The scripted model answers by how many turns the conversation has, with its usage."""
    model = ScriptedModel(says.tool("because", "add", a=1), says.hand_back(Answer(n=Decimal(2))),
                          usage=Usage(input_tokens=7, output_tokens=3))
    first = model.complete([Message(role="user", text="go")], [], max_output_tokens=10)
    assert (first.text, first.tool_calls[0].name, json.loads(first.tool_calls[0].arguments)) == (
        "because", "add", {"a": 1})
    assert first.usage == Usage(input_tokens=7, output_tokens=3)
    history = [Message(role="user", text="go"), Message(role="assistant", tool_calls=first.tool_calls)]
    second = model.complete(history, [], max_output_tokens=10)
    assert json.loads(second.tool_calls[0].arguments) == {"n": "2"}


def test_a_growing_conversation_bounds_its_tokens_as_a_list_of_it_does() -> None:
    """A `Conversation` keeps its size as it grows; its token bound is the bound of the same
    messages given as a plain list, at every length."""
    from signoff.models.base import Conversation, ToolSpec

    tools = [ToolSpec(name="add", description="Add ä and b.", parameters={"type": "object"})]
    said = [Message(role="system", text="You add."), Message(role="user", text="1 + ü")]
    conversation = Conversation(said)
    for i in range(5):
        assert upper_bound_tokens(conversation, tools) == upper_bound_tokens(list(said), tools)
        added = [Message(role="assistant", text=f"turn {i}",
                         tool_calls=(ToolCall(id=f"c{i}", name="add", arguments='{"a": 1}'),)),
                 Message(role="tool", text="2", tool_call_id=f"c{i}")]
        conversation, said = conversation.grown(added), said + added
    assert conversation == tuple(said)


def test_a_script_shared_by_two_conversations_counts_each_ones_turns() -> None:
    """The scripted model counts turns from where the conversation it saw last ended only when
    this one grew from it; another conversation is counted afresh."""
    model = ScriptedModel(says.text("one"), says.text("two"), says.text("three"))
    first = [Message(role="user", text="go")]
    assert model.complete(first, [], max_output_tokens=5).text == "one"
    grown = [*first, Message(role="assistant", text="one"), Message(role="user", text="more")]
    assert model.complete(grown, [], max_output_tokens=5).text == "two"
    other = [Message(role="user", text="go")]  # another task, at its start
    assert model.complete(other, [], max_output_tokens=5).text == "one"
