"""Helpers for testing apps built on signoff: a scripted model, and a guard against real ones.

``ScriptedModel(says.tool(note_repair, repair=r.id, note="..."), says.hand_back(estimate))``
plays its script one model turn at a time. Its place in the script is read from the
conversation itself (the number of turns so far), so a task resumed after a restart goes on
where it was.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic_core import to_jsonable_python

from signoff.models.base import (
    Message,
    Price,
    Reply,
    ToolCall,
    ToolSpec,
    Usage,
    refuse_model_requests,
    upper_bound_tokens,
)
from signoff.models.errors import ModelError
from signoff.security.records import RecordBase

__all__ = ["FREE", "ScriptLine", "ScriptedModel", "refuse_model_requests", "says"]


@dataclass(frozen=True, kw_only=True)
class ScriptLine:
    """One model turn of a script."""

    text: str = ""
    """What the model says (beside tool calls: its why)."""
    calls: tuple[tuple[str, str], ...] = ()
    """(tool, arguments as JSON text), in order."""
    usage: Usage | None = None
    """The usage it reports (the model's default when None)."""


def _json_of(value: Any) -> Any:
    if value.__class__ in _JSON_SCALARS:  # (as it is: most arguments are)
        return value
    if isinstance(value, RecordBase):
        return str(value.id)
    if isinstance(value, enum.Enum):
        return value.name
    return to_jsonable_python(value, fallback=str)


_JSON_SCALARS = frozenset({str, int, float, bool, type(None)})


def _arguments(arguments: dict[str, Any]) -> str:
    return json.dumps({k: _json_of(v) for k, v in arguments.items()})


def _tool_name(action: Any) -> str:
    if isinstance(action, str):
        return action
    return str(getattr(action, "action_name", None) or getattr(action, "__name__", action))


FREE = Price(input_per_mtok=0.0, output_per_mtok=0.0)
"""The price of a scripted model unless a test gives one."""


class says:
    """How a script line is written."""

    @staticmethod
    def tool(why_or_action: Any, action: Any = None, /, **arguments: Any) -> ScriptLine:
        """A turn calling one tool: ``says.tool(note_repair, note="x")`` or, with the model's
        reason, ``says.tool("Pads and a cable.", set_price, price=45)``."""
        if action is None:
            return ScriptLine(calls=((_tool_name(why_or_action), _arguments(arguments)),))
        return ScriptLine(text=str(why_or_action),
                          calls=((_tool_name(action), _arguments(arguments)),))

    @staticmethod
    def raw(tool: str, arguments_json: str, why: str = "") -> ScriptLine:
        """A turn calling `tool` with arguments exactly as written (malformed ones included)."""
        return ScriptLine(text=why, calls=((tool, arguments_json),))

    @staticmethod
    def tools(*lines: ScriptLine, why: str = "") -> ScriptLine:
        """One turn with several tool calls (each written with ``says.tool``)."""
        calls = tuple(call for line in lines for call in line.calls)
        return ScriptLine(text=why or " ".join(line.text for line in lines if line.text),
                          calls=calls)

    @staticmethod
    def hand_back(value: Any, why: str = "") -> ScriptLine:
        """A turn handing back the result."""
        data = _json_of(value)
        if not isinstance(data, dict):
            data = {"result": data}
        return ScriptLine(text=why, calls=(("hand_back", json.dumps(data)),))

    @staticmethod
    def text(text: str) -> ScriptLine:
        """A turn that only talks."""
        return ScriptLine(text=text)


class _Seen:
    """What a scripted model was asked, call by call: the messages and the tools of each call,
    each as a list. (`messages` is one list throughout, brought up to date as it is read.)"""

    def __init__(self) -> None:
        self._messages: list[list[Message]] = []
        self._asked: list[Sequence[Message]] = []
        """Conversations asked since `messages` was last read, kept as they were given: a
        tuple (the loop's conversation, which never changes) is made a list only when read,
        for copying it at every call costs time in proportion to its length, at each step."""
        self.tools: list[list[ToolSpec]] = []

    @property
    def messages(self) -> list[list[Message]]:
        """The messages of each call, in order."""
        if self._asked:
            self._messages.extend([list(m) for m in self._asked])
            self._asked.clear()
        return self._messages

    def asked(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> None:
        """Keep what a call was asked (a list it was given is copied at once: it may change)."""
        self._asked.append(messages if isinstance(messages, tuple) else list(messages))
        self.tools.append(list(tools))


class ScriptedModel:
    """A model that plays a script; what it was asked is kept in `seen`.

    `usage` is what each reply reports it used (a line's own `usage` first): a `Usage`, a
    function of the turn (from 0) giving one, ``"worst"`` (the most its reservation allows:
    every token counted in, `max_output_tokens` out), or None (a quarter of the upper bound in,
    16 out). `price` is what it costs (nothing by default; None: not known)."""

    def __init__(
        self,
        *lines: ScriptLine,
        name: str = "scripted",
        price: Price | None = FREE,
        usage: Usage | Callable[[int], Usage] | Literal["worst"] | None = None,
    ) -> None:
        self.lines = list(lines)
        """The script."""
        self.name = name
        """The model's name."""
        self.price = price
        """What it costs."""
        self._usage = usage
        self.seen = _Seen()
        """What it was asked, call by call."""
        self._counted: tuple[int, Message | None, int] = (0, None, 0)

    def _turns_in(self, messages: Sequence[Message]) -> int:
        """How many turns the model has had in `messages`; a conversation that grew from the
        one asked last time is counted from where that one ended."""
        length, last, turns = self._counted
        if not (length and len(messages) >= length and messages[length - 1] is last):
            length, turns = 0, 0
        turns += sum(1 for m in messages[length:] if m.role == "assistant")
        self._counted = (len(messages), messages[-1] if messages else None, turns)
        return turns

    def count_tokens(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> int:
        """An upper bound, as for any model without a tokenizer here."""
        return upper_bound_tokens(messages, tools)

    def complete(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec], *, max_output_tokens: int
    ) -> Reply:
        """The next line of the script, by how many turns the conversation already has."""
        self.seen.asked(messages, tools)
        turn = self._turns_in(messages)
        if turn >= len(self.lines):
            raise ModelError(f"The script has {len(self.lines)} turn(s), and turn {turn + 1} was "
                             "asked: give the ScriptedModel a line for every model turn the task "
                             "takes.", model=self.name, sent=False)
        line = self.lines[turn]
        calls = tuple(ToolCall(id=f"call_{turn + 1}_{i}", name=name, arguments=arguments)
                      for i, (name, arguments) in enumerate(line.calls))
        if line.usage is not None:
            usage = line.usage
        elif self._usage == "worst":  # the most its reservation allows
            usage = Usage(input_tokens=self.count_tokens(messages, tools),
                          output_tokens=max_output_tokens)
        elif callable(self._usage):
            usage = self._usage(turn)
        else:
            usage = self._usage or Usage(input_tokens=upper_bound_tokens(messages, tools) // 4,
                                         output_tokens=16)
        return Reply(text=line.text, tool_calls=calls, usage=usage,
                     stop="tool_calls" if calls else "end")
