"""OpenAI, and any server that speaks its Chat Completions API (vLLM, llama.cpp, Ollama, …).

Built on the official ``openai`` SDK (signoff's ``openai`` extra), imported when a model is
made. Tools go out as ``tools`` of ``type: function``; the model's tool calls come back as they were
written (arguments as JSON text, malformed or not), with the text beside them kept as the *why*.
With ``on_text`` the reply is streamed and each piece of text is handed to it as it comes.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any, Literal

from signoff.models._provider import (
    ArgumentPieces,
    OnText,
    SdkClientModel,
    checked_base_url,
    import_sdk,
    input_bound,
    kept_call,
    not_a_stream,
    not_an_answer,
    token_count,
    unreadable,
    usage_or_bound,
)
from signoff.models.base import Message, Price, Reply, ToolSpec, Usage
from signoff.models.errors import ModelBadResponse, ModelNotConfigured, ModelUnavailable
from signoff.models.retries import Retries, call_with_retries
from signoff.models.wire_names import on_the_wire, read_back

__all__ = ["OpenAICompatibleModel", "OpenAIModel"]

_API = "OpenAI's Chat Completions API"

_CHECK = f" It was not used. Check that the server speaks {_API}."
"""What to do about an answer that is no reply."""

_STOPS: dict[str, Literal["end", "tool_calls", "max_tokens"]] = {
    "length": "max_tokens", "tool_calls": "tool_calls", "function_call": "tool_calls",
}


class OpenAIModel(SdkClientModel):
    """A model behind OpenAI's Chat Completions API.

    ``OpenAIModel("gpt-4o-mini")`` asks OpenAI with ``OPENAI_API_KEY``; its price comes from
    `signoff.models.prices` unless one is given. Its input is counted by a safe upper bound
    (`signoff.models.base.upper_bound_tokens`), never by a network call.

    ``timeout`` is the longest wait, in seconds, for an answer (for a streamed one, for its
    next piece); ``total_timeout`` (20 minutes) the longest one call may take in all, its
    retries included: an answer still coming after it ends the call as `ModelTimeout`.
    """

    provider = "openai"
    """The provider, as in ``--model openai:NAME``."""

    def __init__(
        self,
        model: str,
        *,
        price: Price | None = None,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = 120.0,
        total_timeout: float = 1200.0,
        retries: Retries | None = None,
        on_text: OnText | None = None,
        stream: bool | None = None,
        max_tokens_parameter: Literal["max_completion_tokens", "max_tokens"] = "max_completion_tokens",
    ) -> None:
        self._settings(model, price=price, timeout=timeout, total_timeout=total_timeout,
                       retries=retries, on_text=on_text, stream=stream)
        self.max_tokens_parameter = max_tokens_parameter
        """How the output limit is sent: OpenAI's ``max_completion_tokens``, or ``max_tokens``
        (what most compatible servers read)."""
        base_url = checked_base_url(base_url, self.name)
        self._sdk = import_sdk("openai", "openai", self.name)
        self._key = _key_from(api_key)
        http = self._http_client()
        try:
            self._client: Any = self._sdk.OpenAI(
                api_key=self._api_key(api_key), base_url=base_url, timeout=timeout, max_retries=0,
                http_client=http)
        except self._sdk.OpenAIError as error:
            http.close()
            raise ModelNotConfigured(
                f"{self.name} cannot be asked: set OPENAI_API_KEY (or pass api_key).",
                model=self.name) from error

    def _api_key(self, api_key: str | None) -> str | None:
        return api_key

    def count_tokens(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> int:
        """A safe upper bound of the input tokens (no tokenizer, no network)."""
        messages, tools, _ = on_the_wire(messages, tools)  # (as they are sent)
        return input_bound(messages, tools, per_message=8, per_tool=16, tools_at_all=32)

    def complete(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec], *, max_output_tokens: int
    ) -> Reply:
        """Ask the model once (retried within `retries` when the server is busy or failing)."""
        messages, tools, back = on_the_wire(messages, tools)  # (names as providers take them)
        bound_in = self.count_tokens(messages, tools)
        request: dict[str, Any] = {
            "model": self.model,
            "messages": [wire_message(m) for m in messages],
            self.max_tokens_parameter: max_output_tokens,
        }
        if tools:
            request["tools"] = [wire_tool(t) for t in tools]

        def send() -> Reply:
            if self.stream:
                return self._streamed(request, bound_in, max_output_tokens)
            completion = self._client.chat.completions.create(**request)
            reply = reply_of(completion, model=self.name, bound_in=bound_in,
                             bound_out=max_output_tokens)
            if self.on_text is not None and reply.text:
                self.on_text(reply.text)
            return reply

        return read_back(call_with_retries(
            send, sdk=self._sdk, model=self.name, timeout=self.timeout, retries=self.retries,
            key=self._key, secret=getattr(self._client, "api_key", None),
            total_timeout=self.total_timeout), back)

    def _streamed(self, request: dict[str, Any], bound_in: int, bound_out: int) -> Reply:
        reading = _Stream(self.name)
        stream = self._client.chat.completions.create(
            **request, stream=True, stream_options={"include_usage": True})
        with stream:
            for chunk in stream:
                for piece in reading.take(chunk):
                    if self.on_text is not None:
                        self.on_text(piece)
        if reading.finish is None and (refused := not_a_stream(self.name, stream)) is not None:
            raise refused
        return reading.reply(bound_in=bound_in, bound_out=bound_out)


class _Stream:
    """A streamed Chat Completions reply, read chunk by chunk as a server of any kind writes it:
    what it is not (a piece of text that is no text, a tool call's name that is no name) is
    `ModelBadResponse`, never a TypeError; a stream that ends before its finish reason was cut
    off (a connection closed part way reads as an end), and is `ModelUnavailable`."""

    def __init__(self, model: str) -> None:
        self.model = model
        self.text: list[str] = []
        self.refusal: list[str] = []
        self.calls: list[dict[str, Any]] = []  # (its arguments `ArgumentPieces`)
        self.at: dict[int, dict[str, Any]] = {}
        self.finish: str | None = None
        self.usage: Any = None

    def take(self, chunk: Any) -> list[str]:
        """Read one chunk; the pieces of text in it, to be handed on as they come."""
        try:
            return self._take(chunk)
        except (AttributeError, TypeError, ValueError) as error:  # (a shape of no reply)
            raise unreadable(self.model, chunk, api=_API) from error

    def _take(self, chunk: Any) -> list[str]:
        if getattr(chunk, "usage", None) is not None:
            self.usage = chunk.usage
        pieces: list[str] = []
        for choice in getattr(chunk, "choices", None) or ():
            if getattr(choice, "index", 0) not in (0, None):
                continue
            delta = getattr(choice, "delta", None)
            if (piece := text_of(getattr(delta, "content", None), model=self.model)):
                self.text.append(piece)
                pieces.append(piece)
            self.refusal.append(text_of(getattr(delta, "refusal", None), model=self.model))
            for call in getattr(delta, "tool_calls", None) or ():
                self._call(call)
            if finish := _piece(getattr(choice, "finish_reason", None)):
                self.finish = finish
        return pieces

    def _call(self, call: Any) -> None:
        """A piece of a tool call: its index says which (a server that gives none starts a
        call with each id, and goes on with the last one otherwise)."""
        given = _piece(getattr(call, "id", None))
        index = getattr(call, "index", None)
        number = index if isinstance(index, int) and not isinstance(index, bool) else None
        last = None if given or not self.calls else self.calls[-1]  # (a call that gives none)
        slot = self.at.get(number) if number is not None else last
        if slot is None:
            slot = {"id": "", "name": "", "arguments": ArgumentPieces()}
            self.calls.append(slot)
            if number is not None:
                self.at[number] = slot
        slot["id"] = given or slot["id"]
        function = getattr(call, "function", None)
        if function is not None:
            slot["name"] += _piece(getattr(function, "name", None))
            slot["arguments"].add(_arguments(getattr(function, "arguments", None)))

    def reply(self, *, bound_in: int, bound_out: int) -> Reply:
        """The reply the stream wrote, once it has ended."""
        if self.finish is None:
            raise ModelUnavailable(
                f"{self.model} was cut off as it answered: its stream ended before the reply "
                "did (with no finish reason). It was not asked again: what it wrote may have "
                "been billed. Try again later.", model=self.model, attempts=1, sent=True)
        calls = tuple(kept_call(id=c["id"], name=c["name"], arguments=c["arguments"].text())
                      for c in self.calls)
        return Reply(
            text="".join(self.text) or "".join(self.refusal), tool_calls=calls,
            usage=usage_of(self.usage, bound_in=bound_in, bound_out=bound_out,
                           model=self.model),
            stop=_stop(self.finish, bool(calls)),
        )


class OpenAICompatibleModel(OpenAIModel):
    """A model behind any server that speaks OpenAI's Chat Completions API, found by base URL.

    ``OpenAICompatibleModel("llama3", base_url="http://127.0.0.1:8000/v1")``. The key is
    ``OPENAI_API_KEY`` when set (a local server usually needs none). Its price is unknown unless
    given: give ``Price(input_per_mtok=0, output_per_mtok=0)`` for a model that costs nothing.
    """

    provider = "openai-compatible"

    def __init__(
        self,
        model: str,
        *,
        base_url: str,
        price: Price | None = None,
        api_key: str | None = None,
        timeout: float = 300.0,
        total_timeout: float = 1200.0,
        retries: Retries | None = None,
        on_text: OnText | None = None,
        stream: bool | None = None,
        max_tokens_parameter: Literal["max_completion_tokens", "max_tokens"] = "max_tokens",
    ) -> None:
        super().__init__(model, price=price, api_key=api_key, base_url=base_url, timeout=timeout,
                         total_timeout=total_timeout, retries=retries, on_text=on_text, stream=stream,
                         max_tokens_parameter=max_tokens_parameter)

    def _listed_price(self, model: str) -> Price | None:
        return None  # a local or third-party server: only the user knows what it costs

    def _api_key(self, api_key: str | None) -> str | None:
        return api_key or os.environ.get("OPENAI_API_KEY") or "none"


def _key_from(api_key: str | None) -> str:
    """Where the key sent comes from, in words: the one given, else the variable (which an
    OpenAI-compatible server may do without)."""
    if api_key:
        return "the api_key given"
    return "OPENAI_API_KEY" if os.environ.get("OPENAI_API_KEY") else "OPENAI_API_KEY, which is not set"


def wire_tool(tool: ToolSpec) -> dict[str, Any]:
    """A tool as Chat Completions takes it."""
    return {"type": "function", "function": {
        "name": tool.name, "description": tool.description, "parameters": tool.parameters,
    }}


def wire_message(message: Message) -> dict[str, Any]:
    """A message as Chat Completions takes it."""
    if message.role == "tool":
        return {"role": "tool", "tool_call_id": message.tool_call_id, "content": message.text}
    if message.role == "assistant":
        data: dict[str, Any] = {"role": "assistant",
                                "content": message.text or (None if message.tool_calls else "")}
        if message.tool_calls:
            data["tool_calls"] = [
                {"id": c.id, "type": "function",
                 "function": {"name": c.name, "arguments": c.arguments}}
                for c in message.tool_calls
            ]
        return data
    return {"role": message.role, "content": message.text}


def reply_of(completion: Any, *, model: str, bound_in: int, bound_out: int) -> Reply:
    """A Chat Completions response read as a `Reply`: its text (written as parts, as some
    servers write it, joined; a refusal is its text when it has no other), its tool calls
    and its usage. A response of any other shape is `ModelBadResponse` (it was a TypeError,
    or a list kept as the reply's text that failed the task with a traceback)."""
    choices = getattr(completion, "choices", None)
    if not choices:
        if (refused := not_an_answer(model, completion, api=_API)) is not None:
            raise refused
        raise ModelBadResponse(f"{model} answered with no choices.{_CHECK}", model=model,
                               attempts=1)
    try:
        choice = choices[0]
        message = getattr(choice, "message", None)
        if message is None:
            raise ModelBadResponse(f"{model} answered with no message.{_CHECK}", model=model,
                                   attempts=1)
        calls = tuple(
            kept_call(id=_piece(getattr(c, "id", None)), name=_piece(c.function.name),
                      arguments=_arguments(c.function.arguments))
            for c in getattr(message, "tool_calls", None) or ()
            if getattr(c, "function", None) is not None
        )
        text = text_of(getattr(message, "content", None), model=model) or text_of(
            getattr(message, "refusal", None), model=model)
        finish = _piece(getattr(choice, "finish_reason", None)) or None
    except (AttributeError, TypeError, ValueError) as error:  # (a shape of no reply)
        raise unreadable(model, completion, api=_API) from error
    return Reply(
        text=text, tool_calls=calls,
        usage=usage_of(getattr(completion, "usage", None), bound_in=bound_in,
                       bound_out=bound_out, model=model),
        stop=_stop(finish, bool(calls)),
    )


def usage_of(usage: Any, *, bound_in: int, bound_out: int, model: str) -> Usage:
    """A Chat Completions ``usage`` as a `Usage` (the worst case for what it does not report).
    OpenAI counts the reasoning a model does in its ``completion_tokens``, and bills it as
    output; some compatible servers leave it out of them, and count it only in their
    ``total_tokens`` or ``completion_tokens_details.reasoning_tokens``: the output is then the
    more of the two readings, so that reasoning billed is never recorded as free."""
    read = usage_or_bound(getattr(usage, "prompt_tokens", None),
                          getattr(usage, "completion_tokens", None),
                          bound_in=bound_in, bound_out=bound_out, model=model)
    if getattr(usage, "completion_tokens", None) is None:
        return read  # (counted at its worst already)
    out = read.output_tokens
    if (total := getattr(usage, "total_tokens", None)) is not None:
        out = max(out, token_count(total, model=model, what="tokens in all") - read.input_tokens)
    details = getattr(usage, "completion_tokens_details", None)
    if (reasoning := getattr(details, "reasoning_tokens", None)) is not None:
        thought = token_count(reasoning, model=model, what="reasoning tokens")
        if thought > read.output_tokens or total is None:  # (the completion cannot hold
            # it; or no total says whether it does: at the worst reading)
            out = max(out, read.output_tokens + thought)
    return Usage(input_tokens=read.input_tokens, output_tokens=out)


def text_of(content: Any, *, model: str) -> str:
    """A message's ``content`` as text: text, none, or a list of parts whose text parts are
    joined (``[{"type": "text", "text": "…"}]``, as some compatible servers write it).
    Anything else is `ModelBadResponse`."""
    if content is None or isinstance(content, str):
        return content or ""
    if isinstance(content, list) and all(isinstance(part, dict) for part in content):
        texts = [part.get("text") for part in content if part.get("type") in ("text", "output_text")]
        if all(isinstance(text, str) for text in texts):
            return "".join(texts)
    raise unreadable(model, content, api=_API)


def _piece(value: Any) -> str:
    """A name, an id or a finish reason: text, or none ("")."""
    if value is None or isinstance(value, str):
        return value or ""
    raise TypeError(f"{type(value).__name__} is not text")


def _arguments(arguments: Any) -> str:
    if arguments is None:
        return ""
    return arguments if isinstance(arguments, str) else json.dumps(arguments)


def _stop(finish: str | None, has_calls: bool) -> Literal["end", "tool_calls", "max_tokens"]:
    stop = _STOPS.get(finish or "", "end")
    return "tool_calls" if stop == "end" and has_calls else stop
