"""A conversation knows the tool calls it asks for without going over its messages again at
each step (the loop checks a new call's id against them before each model call): what it says
is what its own messages ask, whatever was grown from it or from the conversation before it."""

from __future__ import annotations

import copy
import pickle

from signoff.models.base import Conversation, Message, ToolCall


def asking(*ids: str) -> Message:
    return Message(role="assistant", tool_calls=tuple(
        ToolCall(id=i, name="note", arguments="{}") for i in ids))


def test_a_conversation_asks_its_own_calls_and_not_those_grown_after_it() -> None:
    first = Conversation([asking("a")])
    second = first.grown([asking("b", "c"), Message(role="tool", text="ok", tool_call_id="b")])
    third = second.grown([asking("d")])
    assert [i in first.call_ids for i in "abcd"] == [True, False, False, False]
    assert [i in second.call_ids for i in "abcd"] == [True, True, True, False]
    assert [i in third.call_ids for i in "abcd"] == [True, True, True, True]
    assert 7 not in third.call_ids
    assert "" not in third.call_ids


def test_two_conversations_grown_from_one_ask_each_its_own() -> None:
    """Grown twice (two lines from one), each line holds its own calls and not the other's —
    one index shared by both would let the second line see the first's."""
    start = Conversation([asking("a")])
    left = start.grown([asking("l")])
    right = start.grown([asking("r")])
    further = left.grown([asking("m")])
    assert ("l" in left.call_ids, "r" in left.call_ids) == (True, False)
    assert ("r" in right.call_ids, "l" in right.call_ids) == (True, False)
    assert ("m" in further.call_ids, "r" in further.call_ids, "m" in right.call_ids) == (
        True, False, False)
    again = right.grown([asking("l")])  # an id the other line asked, asked here later
    assert "l" in again.call_ids
    assert "l" not in right.call_ids


def test_a_copied_or_pickled_conversation_asks_the_same_calls() -> None:
    grown = Conversation([asking("a")]).grown([asking("b")])
    for made in (pickle.loads(pickle.dumps(grown)), copy.deepcopy(grown), copy.copy(grown)):
        assert isinstance(made, Conversation)
        assert made == grown
        assert made.size == grown.size
        assert "a" in made.call_ids
        assert "b" in made.call_ids
        assert "c" not in made.call_ids
