"""The Model protocol and the messages, tool calls and usage that pass through it."""

from __future__ import annotations

import functools
import numbers
import os
import re
import threading
from collections.abc import Container, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from signoff.exceptions import UserError
from signoff.models.errors import ModelError
from signoff.store import json_text

__all__ = [
    "MAX_ARGUMENTS",
    "Conversation",
    "Message",
    "Model",
    "ModelRequestsRefused",
    "Price",
    "Reply",
    "ToolCall",
    "ToolSpec",
    "Usage",
    "allow_model_requests",
    "kept_arguments",
    "kind_of",
    "left_out_reason",
    "model_requests_allowed",
    "not_a_reply",
    "refuse_model_requests",
]


@dataclass(frozen=True, kw_only=True)
class Price:
    """What a model costs, in US dollars per million tokens."""

    input_per_mtok: float
    """Per million input tokens."""
    output_per_mtok: float
    """Per million output tokens."""

    def __post_init__(self) -> None:
        # (a text, NaN or infinity was taken, to fail the first model call, or to halt a task
        # on "$nan"; a negative price recorded negative spend)
        for name in ("input_per_mtok", "output_per_mtok"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not (
                    0 <= value < float("inf")):
                raise UserError(f"A price is US dollars per million tokens, a number of 0 or "
                                f"more (Price(input_per_mtok=0.15, output_per_mtok=0.60); 0 for "
                                f"a free model): its {name} is {value!r}.")

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        """The cost of this many tokens."""
        return (input_tokens * self.input_per_mtok + output_tokens * self.output_per_mtok) / 1e6


@dataclass(frozen=True, kw_only=True)
class Usage:
    """What one model call used."""

    input_tokens: int = 0
    """Tokens read, as the input price counts them (a provider's dearer input, as Anthropic's
    cache writes, counted as many tokens as it costs)."""
    output_tokens: int = 0
    """Tokens written, the model's reasoning included (it is billed as output)."""

    @property
    def counted(self) -> bool:
        """Whether both are counts of tokens (`is_token_count`): else what the call cost is
        not known (a model of the app's own may report anything)."""
        return is_token_count(self.input_tokens) and is_token_count(self.output_tokens)


def is_token_count(count: Any) -> bool:
    """Whether a model's reported `count` is a count of tokens: a whole number, 0 or more (and
    less than 2**63: a cost worked out from more would not fit a float)."""
    if type(count) is int:  # (as nearly every model reports it)
        return 0 <= count < 2**63
    return isinstance(count, numbers.Integral) and not isinstance(count, bool) and (
        0 <= int(count) < 2**63)


@dataclass(frozen=True, kw_only=True)
class ToolSpec:
    """A tool as a model is offered it."""

    name: str
    """The name the model calls it by."""
    description: str
    """What it does, for the model."""
    parameters: dict[str, Any]
    """The JSON Schema of its one JSON object of arguments."""

    @functools.cached_property
    def size(self) -> int:
        """Its name, description and schema in UTF-8 bytes (worked out once)."""
        return (json_text.size(self.parameters) + len(self.name)
                + len(self.description.encode()))


@dataclass(frozen=True, kw_only=True)
class ToolCall:
    """One tool call a model asked for."""

    id: str
    """The call's id within its turn (the provider's, or made up)."""
    name: str
    """The tool asked for (it may name no tool at all)."""
    arguments: str
    """The arguments as the model wrote them: JSON text, possibly malformed."""


MAX_ARGUMENTS = 1_000_000
"""The most UTF-8 bytes a tool call's arguments may have, as a provider's reply gives them: a
real call's are some kilobytes, and no model writes a megabyte of them within its output limit.
Kept, a server's 5 MB call was sent back with every later request, and made each later call's
reservation so large that the task halted on it."""

_LEFT_OUT = re.compile(r"\(left out: (the arguments were [\d,]+ bytes, more than the [\d,]+ a tool "
                       r"call may have; give the values themselves, each no longer than it "
                       r"needs to be)\)")


def kept_arguments(arguments: str, size: int | None = None) -> str:
    """`arguments`, or, past `MAX_ARGUMENTS` UTF-8 bytes (`size`, when counted already), what
    stands for them: a sentence that is not JSON, so that nothing reads it as values and the
    call is refused as malformed (the model told so in the call's answer), which the model
    reads back in its own call."""
    if size is None:
        if len(arguments) <= MAX_ARGUMENTS // 4:  # (4 bytes a character at most: not encoded)
            return arguments
        size = len(arguments.encode("utf-8", "surrogatepass"))
    if size <= MAX_ARGUMENTS:
        return arguments
    return (f"(left out: the arguments were {size:,} bytes, more than the {MAX_ARGUMENTS:,} a "
            "tool call may have; give the values themselves, each no longer than it needs to "
            "be)")


def left_out_reason(arguments: str) -> str:
    """Why a call's arguments were left out (`kept_arguments`), or "" when they were not."""
    found = _LEFT_OUT.fullmatch(arguments) if arguments.startswith("(left out: ") else None
    return found[1] if found else ""


@dataclass(frozen=True, kw_only=True)
class Message:
    """One message of a task's conversation."""

    role: Literal["system", "user", "assistant", "tool"]
    """Who speaks."""
    text: str = ""
    """What is said."""
    tool_calls: tuple[ToolCall, ...] = ()
    """For an assistant message: the tools it asks for."""
    tool_call_id: str = ""
    """For a tool message: the call it answers."""

    @functools.cached_property
    def size(self) -> int:
        """Its size in UTF-8 bytes, written as JSON (worked out once: messages never change)."""
        return json_text.size(self.to_json())

    def to_json(self) -> dict[str, Any]:
        """The message as JSON, for storage."""
        data: dict[str, Any] = {"role": self.role, "text": self.text}
        if self.tool_calls:
            data["tool_calls"] = [
                {"id": c.id, "name": c.name, "arguments": c.arguments} for c in self.tool_calls
            ]
        if self.tool_call_id:
            data["tool_call_id"] = self.tool_call_id
        return data

    @staticmethod
    def from_json(data: dict[str, Any]) -> Message:
        """A message read back from storage."""
        return Message(
            role=data["role"],
            text=data.get("text", ""),
            tool_calls=tuple(ToolCall(**c) for c in data.get("tool_calls", [])),
            tool_call_id=data.get("tool_call_id", ""),
        )


class Conversation(tuple[Message, ...]):
    """A conversation that knows its size in UTF-8 bytes and the tool calls it asks for without
    going over it again: a loop grows its conversation by a message or two per step, so
    counting its tokens and checking a new call's id before each model call cost the same at
    the 200th step as at the first."""

    size: int
    """The sum of its messages' sizes."""
    _asked: _Asked
    """Where each tool call its messages ask for is asked, shared along a line of growths."""

    def __new__(cls, messages: Iterable[Message] = (), *, size: int | None = None) -> Conversation:
        made = super().__new__(cls, messages)
        made.size = sum(m.size for m in made) if size is None else size
        made._asked = _Asked(made)
        return made

    @property
    def call_ids(self) -> Container[str]:
        """The ids of the tool calls its messages ask for (each answer names one): ``id in
        conversation.call_ids``."""
        return _CallIds(self._asked, len(self))

    def __reduce__(self) -> tuple[Any, ...]:  # (copied, pickled: its messages; indexed anew)
        return (Conversation, (tuple(self),))

    def grown(self, added: Sequence[Message]) -> Conversation:
        """This conversation with `added` after it."""
        size = self.size
        for m in added:  # (a loop, not a generator: a step grows a conversation twice)
            size += m.size
        made = tuple.__new__(Conversation, self + tuple(added))
        made.size = size
        made._asked = self._asked.grown(self, added)
        return made


class _Asked:
    """The message at which each tool call of a line of conversations is first asked for,
    shared by each conversation and the one grown from it, which adds its own: a conversation
    asks for a call when it is asked for at a message within its length. A conversation grown
    a second time (two lines from one) gives the second line an index of its own."""

    __slots__ = ("_at", "_length", "_lock")

    def __init__(self, messages: Sequence[Message]) -> None:
        self._at: dict[str, int] = {}
        self._length = 0
        self._lock = threading.Lock()
        self._add(0, messages)

    def _add(self, start: int, messages: Sequence[Message]) -> None:
        for position, m in enumerate(messages, start):
            for call in m.tool_calls:
                self._at.setdefault(call.id, position)
        self._length = start + len(messages)

    def grown(self, of: Sequence[Message], added: Sequence[Message]) -> _Asked:
        """The index of `of` with `added` after it: this one, when `of` is the longest of its
        line (as it is, but for a conversation grown twice)."""
        with self._lock:
            if self._length == len(of):
                self._add(len(of), added)
                return self
        anew = _Asked(of)
        anew._add(len(of), added)
        return anew

    def within(self, call_id: str, length: int) -> bool:
        at = self._at.get(call_id)
        return at is not None and at < length


class _CallIds(Container[str]):
    """The ids of the tool calls of a conversation of `length` messages (see `_Asked`)."""

    __slots__ = ("_asked", "_length")

    def __init__(self, asked: _Asked, length: int) -> None:
        self._asked, self._length = asked, length

    def __contains__(self, call_id: object) -> bool:
        return isinstance(call_id, str) and self._asked.within(call_id, self._length)


@dataclass(frozen=True, kw_only=True)
class Reply:
    """What a model answered."""

    text: str = ""
    """What it said (beside its tool calls, this is its *why*)."""
    tool_calls: tuple[ToolCall, ...] = ()
    """The tools it asks for, in order."""
    usage: Usage = field(default_factory=Usage)
    """What the call used."""
    stop: Literal["end", "tool_calls", "max_tokens"] = "end"
    """Why it stopped."""


def whole(text: str) -> str:
    """`text` with each half of a character in it (a lone surrogate, ``"\\udc80"``: JSON may
    escape one, and a reply decoded from it then holds it) and each NUL (U+0000, which no
    PostgreSQL text column keeps) replaced by U+FFFD, as a decoder replaces what it cannot
    read: a database's text column, a terminal or a page can write it."""
    if "\x00" in text:
        text = text.replace("\x00", "\ufffd")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _HALVES.sub("\ufffd", text)
    return text


_HALVES = re.compile("[\ud800-\udfff]")


@runtime_checkable
class Model(Protocol):
    """Anything that answers messages and tool schemas with text and/or tool calls."""

    name: str
    """The model's name, as receipts show it."""
    price: Price | None
    """What it costs (None: unknown; with a budget, signoff refuses to guess)."""

    def complete(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec], *, max_output_tokens: int
    ) -> Reply:
        """Answer the conversation, offering these tools."""
        ...

    def count_tokens(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> int:
        """The input tokens this call would use, or an upper bound of them."""
        ...


def upper_bound_tokens(messages: Sequence[Message], tools: Sequence[ToolSpec]) -> int:
    """A safe upper bound of the tokens in a request: one token per UTF-8 byte, plus overhead.

    No tokenizer in use encodes fewer than one byte per token, so this never undercounts.
    """
    size = messages.size if isinstance(messages, Conversation) else sum(m.size for m in messages)
    for tool in tools:  # (a loop: each item a generator yields is a call of its own)
        size += tool.size
    return size + 16 * (len(messages) + len(tools)) + 64


class ModelRequestsRefused(ModelError):
    """A request to a real model was refused: real model requests are off (as in tests). Nothing
    was sent, so nothing was billed (``cost_nothing``); a task's model call refused so ends
    Failed, told in this sentence, as any other model error ends it."""

    def __init__(self, message: str, *, model: str = "") -> None:
        super().__init__(message, model=model, attempts=0, sent=False)


_REFUSED = {"value": os.environ.get("SIGNOFF_ALLOW_MODEL_REQUESTS", "1") == "0"}


def model_requests_allowed() -> bool:
    """Whether a real model may be asked now. Real providers check this before every request."""
    return not _REFUSED["value"]


@contextmanager
def refuse_model_requests() -> Iterator[None]:
    """Within the block, any real model request raises `ModelRequestsRefused`."""
    before = _REFUSED["value"]
    _REFUSED["value"] = True
    try:
        yield
    finally:
        _REFUSED["value"] = before


@contextmanager
def allow_model_requests() -> Iterator[None]:
    """Within the block, real model requests may be made (in tests: to servers on loopback)."""
    before = _REFUSED["value"]
    _REFUSED["value"] = False
    try:
        yield
    finally:
        _REFUSED["value"] = before


def not_a_reply(reply: Any) -> str:
    """What `reply` is, in words, when it is no `Reply` the loop can read (a model of the app's
    own may answer anything); "" when it is one."""
    if type(reply) is Reply and type(reply.text) is str and type(reply.usage) is Usage and type(
            reply.tool_calls) is tuple:  # (as a model answers: said at once, each step)
        for call in reply.tool_calls:
            if type(call) is not ToolCall or type(call.id) is not str or type(
                    call.name) is not str or type(call.arguments) is not str:
                break
        else:
            return ""
    if not isinstance(reply, Reply):
        return kind_of(reply)
    if not isinstance(reply.text, str):
        return f"a Reply whose text is {kind_of(reply.text)}"
    if not isinstance(reply.tool_calls, tuple | list):
        return f"a Reply whose tool calls are {kind_of(reply.tool_calls)}"
    for call in reply.tool_calls:
        if isinstance(call, ToolCall) and isinstance(call.id, str) and isinstance(
                call.name, str) and isinstance(call.arguments, str):
            continue  # (as a model answers: said at once, each call of each step)
        if not isinstance(call, ToolCall):
            return f"a Reply with a tool call that is {kind_of(call)}"
        part = next(p for p in ("id", "name", "arguments")
                    if not isinstance(getattr(call, p), str))
        return (f"a Reply with a tool call whose {part} {'are' if part == 'arguments' else 'is'}"
                f" {kind_of(getattr(call, part))}")
    if not isinstance(reply.usage, Usage):
        return f"a Reply whose usage is {kind_of(reply.usage)}"
    return ""


def kind_of(value: Any) -> str:
    """`value`'s kind, as a sentence names it ("None", "a dict")."""
    if value is None:
        return "None"
    name = type(value).__name__
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"
