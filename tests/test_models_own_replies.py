"""A model of the app's own that answers with something that is no `Reply` (None, text, tool
calls as dicts, a `ToolCall` whose parts are not text, usage that is no `Usage`): the task fails
in a sentence saying what a model answers, and what was reserved for the call is counted as
spent, in the receipt (it raised AttributeError or TypeError out of `do()`, leaving the task
Running with its step counted and told nowhere)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from signoff import Agent, App, Permits, Skill, TaskStatus
from signoff.models import Price, Reply, ToolCall
from signoff.models.base import Message, ToolSpec


class _Own:
    """A model of the app's own, following the Model protocol, answering `answer`."""

    def __init__(self, answer: Any) -> None:
        self.name = "mine"
        self.price = Price(input_per_mtok=1.0, output_per_mtok=1.0)
        self.answer = answer

    def count_tokens(self, messages: Any, tools: Any) -> int:
        return 100

    def complete(self, messages: list[Message], tools: list[ToolSpec], *,
                 max_output_tokens: int) -> Any:
        return self.answer


class Plain(Skill[None, str]):
    """Say something (no tools)."""

    description = "Say something."
    tools: list[Any] = []


class Speaker(Agent):
    """Speaks."""

    purpose = "You speak."
    skills = [Plain()]
    may = Permits()


@pytest.mark.parametrize(("answer", "what"), [
    pytest.param(None, "None", id="none"),
    pytest.param("Done.", "a str", id="text"),
    pytest.param(Reply(text=None), "a Reply whose text is None", id="text-none"),  # type: ignore[arg-type]
    pytest.param(Reply(tool_calls=({"name": "hand_back"},)),  # type: ignore[arg-type]
                 "a Reply with a tool call that is a dict", id="call-dict"),
    pytest.param(Reply(tool_calls=(ToolCall(id=None, name="hand_back",  # type: ignore[arg-type]
                                            arguments="{}"),)),
                 "a Reply with a tool call whose id is None", id="call-id-none"),
    pytest.param(Reply(tool_calls=(ToolCall(id="c1", name="hand_back",
                                            arguments={"result": "x"}),)),  # type: ignore[arg-type]
                 "a Reply with a tool call whose arguments are a dict", id="call-arguments-dict"),
    pytest.param(Reply(usage=(10, 5)), "a Reply whose usage is a tuple", id="usage-tuple"),  # type: ignore[arg-type]
])
def test_an_answer_that_is_no_reply_fails_the_task_in_a_sentence(
        tmp_path: Path, answer: Any, what: str) -> None:
    app = App("own", database=f"sqlite:///{tmp_path / 'own.db'}", key=b"k" * 32)
    app.add_agent(Speaker)
    outcome = app.agent(Speaker).do(Plain(), model=_Own(answer))
    assert outcome.status is TaskStatus.FAILED
    assert outcome.problem == (
        f"The model failed: mine answered with {what}, which is no reply: a model's complete "
        "returns a signoff.models.Reply (its text as str, its tool calls as ToolCall(id, name, "
        "arguments), each a str, the arguments JSON text; its usage a Usage).")
    kinds = [e.kind for e in app.receipt(outcome.task).entries]
    assert kinds[-2:] == ["reserved", "failure"]
    assert outcome.steps == 1
    assert outcome.spend_usd > 0  # (the reservation, counted as spent: it was asked)
    app.database.dispose()


class _Counting(_Own):
    """A model of the app's own whose count of tokens is `count` (raised, when an exception)."""

    def __init__(self, count: Any) -> None:
        super().__init__(Reply(text="never"))
        self.count = count

    def count_tokens(self, messages: Any, tools: Any) -> int:
        if isinstance(self.count, Exception):
            raise self.count
        return self.count  # type: ignore[no-any-return]

    def complete(self, messages: list[Message], tools: list[ToolSpec], *,
                 max_output_tokens: int) -> Any:
        raise AssertionError("never asked: its cost could not be reserved")


@pytest.mark.parametrize(("count", "told"), [
    pytest.param(RuntimeError("no tokenizer"), "mine's count_tokens raised RuntimeError, so "
                 "what its next call could cost cannot be kept within the budget (the log has "
                 "the details). Nothing was asked of it.", id="raises"),
    pytest.param("100", "mine's count_tokens answered a str, not a count of tokens (a whole "
                 "number, 0 or more), so what its next call could cost cannot be kept within "
                 "the budget. Nothing was asked of it.", id="text"),
    pytest.param(-1, "mine's count_tokens answered an int, not a count of tokens (a whole "
                 "number, 0 or more), so what its next call could cost cannot be kept within "
                 "the budget. Nothing was asked of it.", id="negative"),
])
def test_a_count_of_tokens_that_is_none_fails_the_task_before_the_model_is_asked(
        tmp_path: Path, count: Any, told: str) -> None:
    """Its `count_tokens` raising, or answering no count: the task fails in a sentence, nothing
    spent nor counted as a step (it raised out of `do()`, or a TypeError)."""
    app = App("own", database=f"sqlite:///{tmp_path / 'own.db'}", key=b"k" * 32)
    app.add_agent(Speaker)
    outcome = app.agent(Speaker).do(Plain(), model=_Counting(count))
    assert outcome.status is TaskStatus.FAILED
    assert outcome.problem == told
    assert (outcome.steps, outcome.spend_usd) == (0, 0)
    assert [e.kind for e in app.receipt(outcome.task).entries][-1] == "failure"
    app.database.dispose()
