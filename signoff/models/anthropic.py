"""Anthropic's models, through its Messages API.

Built on the official ``anthropic`` SDK (signoff's ``anthropic`` extra), imported when a
model is made. The system messages become the request's ``system``; tools go out with their
``input_schema``; the model's ``tool_use`` blocks come back as tool calls (with the text beside
them kept as the *why*) and their answers go back as ``tool_result`` blocks naming the call's id.
With ``on_text`` the reply is streamed and each piece of text is handed to it as it comes; a
streamed tool call's arguments are kept exactly as written, malformed or not.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Literal

from signoff.actions.nesting import too_deep
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
from signoff.models.base import Message, Price, Reply, ToolSpec, left_out_reason
from signoff.models.errors import ModelBadResponse, ModelNotConfigured, ModelUnavailable
from signoff.models.retries import Retries, call_with_retries
from signoff.models.wire_names import on_the_wire, read_back

__all__ = ["AnthropicModel"]

_API = "Anthropic's Messages API"

_STOPS: dict[str, Literal["end", "tool_calls", "max_tokens"]] = {
    "max_tokens": "max_tokens", "model_context_window_exceeded": "max_tokens",
    "tool_use": "tool_calls",
}


class AnthropicModel(SdkClientModel):
    """A Claude model behind Anthropic's Messages API.

    ``AnthropicModel("claude-sonnet-4-5")`` asks Anthropic with ``ANTHROPIC_API_KEY``; its price
    comes from `signoff.models.prices` unless one is given. Its input is counted by a safe upper
    bound, never by a network call (the bound allows for the tool-use instructions Anthropic adds).

    ``timeout`` is the longest wait, in seconds, for an answer (for a streamed one, for its
    next piece); ``total_timeout`` (20 minutes) the longest one call may take in all, its
    retries included: an answer still coming after it ends the call as `ModelTimeout`.
    """

    provider = "anthropic"
    """The provider, as in ``--model anthropic:NAME``."""

    def __init__(
        self,
        model: str,
        *,
        price: Price | None = None,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = 300.0,
        total_timeout: float = 1200.0,
        retries: Retries | None = None,
        on_text: OnText | None = None,
        stream: bool | None = None,
    ) -> None:
        self._settings(model, price=price, timeout=timeout, total_timeout=total_timeout,
                       retries=retries, on_text=on_text, stream=stream)
        base_url = checked_base_url(base_url, self.name)
        self._sdk = import_sdk("anthropic", "anthropic", self.name)
        self._key = "the api_key given" if api_key else "ANTHROPIC_API_KEY"
        http = self._http_client()
        try:
            self._client: Any = self._sdk.Anthropic(api_key=api_key, base_url=base_url,
                                                    timeout=timeout, max_retries=0,
                                                    http_client=http)
        except self._sdk.AnthropicError as error:  # (credentials it found and could not load:
            # a profile named in ANTHROPIC_PROFILE, a config folder with none in it)
            http.close()
            raise ModelNotConfigured(
                f"{self.name} cannot be asked: its credentials could not be loaded ({error}). "
                "Set ANTHROPIC_API_KEY (or pass api_key), or fix what the SDK names.",
                model=self.name) from error
        if all(getattr(self._client, way, None) is None
               for way in ("api_key", "auth_token", "credentials")):
            # (the SDK makes a client with no key, and fails each request with a TypeError
            # before sending it: the task failed as "TypeError", with what was reserved for
            # the call counted as spent, as if it had gone out)
            self._client.close()
            raise ModelNotConfigured(
                f"{self.name} cannot be asked: set ANTHROPIC_API_KEY (or pass api_key).",
                model=self.name)

    def count_tokens(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> int:
        """A safe upper bound of the input tokens (no tokenizer, no network)."""
        messages, tools, _ = on_the_wire(messages, tools)  # (as they are sent)
        return input_bound(messages, tools, per_message=8, per_tool=16, tools_at_all=600)

    def complete(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec], *, max_output_tokens: int
    ) -> Reply:
        """Ask the model once (retried within `retries` when Anthropic is busy or failing)."""
        messages, tools, back = on_the_wire(messages, tools)  # (names as providers take them)
        bound_in = self.count_tokens(messages, tools)
        system, conversation = wire_messages(messages)
        request: dict[str, Any] = {"model": self.model, "max_tokens": max_output_tokens,
                                   "messages": conversation}
        if system:
            request["system"] = system
        if tools:
            request["tools"] = [wire_tool(t) for t in tools]

        def send() -> Reply:
            if self.stream:
                return self._streamed(request, bound_in, max_output_tokens)
            response = self._client.messages.create(**request)
            reply = reply_of(response, model=self.name, bound_in=bound_in,
                             bound_out=max_output_tokens)
            if self.on_text is not None and reply.text:
                self.on_text(reply.text)
            return reply

        return read_back(call_with_retries(
            send, sdk=self._sdk, model=self.name, timeout=self.timeout, retries=self.retries,
            key=self._key, secret=getattr(self._client, "api_key", None),
            total_timeout=self.total_timeout), back)

    def _streamed(self, request: dict[str, Any], bound_in: int, bound_out: int) -> Reply:
        """The streamed reply. Its output tokens are those of its ``message_delta`` (the count
        ``message_start`` gives is a stand-in: kept, a stream cut before the delta recorded one
        token out); a stream that ends before its stop reason was cut off (a connection closed
        part way reads as an end), and is `ModelUnavailable`: what it wrote may have been
        billed. An event of a shape of no reply is `ModelBadResponse`, never a TypeError."""
        blocks: dict[int, dict[str, Any]] = {}
        stop: str | None = None
        input_tokens: int | None = None
        output_tokens: int | None = None
        stream = self._client.messages.create(**request, stream=True)
        with stream:
            for event in stream:
                piece = ""
                try:
                    kind = getattr(event, "type", "")
                    if kind == "message_start":
                        input_tokens = _input_tokens(event.message.usage, self.name)
                    elif kind == "message_delta":
                        stop = _text(event.delta.stop_reason) or stop
                        usage = event.usage
                        if getattr(usage, "output_tokens", None) is not None:
                            output_tokens = usage.output_tokens
                        if getattr(usage, "input_tokens", None) is not None:
                            # (counts are cumulative: a delta's lower than the start's, as a
                            # proxy writes 0, is not taken to lower what the call cost)
                            input_tokens = max(input_tokens or 0,
                                               _input_tokens(usage, self.name) or 0)
                    else:
                        piece = _block_event(kind, event, blocks)
                except (AttributeError, TypeError, ValueError, KeyError) as error:
                    raise unreadable(self.name, event, api=_API) from error
                if piece and self.on_text is not None:
                    self.on_text(piece)
        if stop is None:
            if (refused := not_a_stream(self.name, stream)) is not None:
                raise refused
            raise ModelUnavailable(
                f"{self.name} was cut off as it answered: its stream ended before the reply "
                "did (with no stop reason). It was not asked again: what it wrote may have "
                "been billed. Try again later.", model=self.name, attempts=1, sent=True)
        try:
            text = "".join("".join(b["text"]) for _, b in sorted(blocks.items())
                           if b["type"] == "text")
            calls = tuple(
                kept_call(id=_text(b["id"]), name=_text(b["name"]),
                          arguments=b["json"].text() if b["json"].given else _arguments(
                              b["input"]))
                for _, b in sorted(blocks.items()) if b["type"] == "tool_use"
            )
        except (TypeError, ValueError) as error:
            raise unreadable(self.name, blocks, api=_API) from error
        return Reply(text=text, tool_calls=calls,
                     usage=usage_or_bound(input_tokens, output_tokens, bound_in=bound_in,
                                          bound_out=bound_out, model=self.name),
                     stop=_stop(stop, bool(calls)))


def _block_event(kind: str, event: Any, blocks: dict[int, dict[str, Any]]) -> str:
    """A content block's event taken into `blocks`; the text it adds ("" for none)."""
    if kind == "content_block_start":
        block = event.content_block
        blocks[_index(event.index)] = {
            "type": block.type, "text": [_text(getattr(block, "text", ""))],
            "id": getattr(block, "id", ""), "name": getattr(block, "name", ""),
            "input": getattr(block, "input", None), "json": ArgumentPieces()}
    elif kind == "content_block_delta":
        delta = event.delta
        slot = blocks.get(_index(event.index))
        if slot is None:  # (a delta of a block never started: a call's, of no id nor name,
            # which the model is told names no tool; else text)
            slot = blocks[_index(event.index)] = {
                "type": "tool_use" if delta.type == "input_json_delta" else "text",
                "text": [], "id": "", "name": "", "input": None, "json": ArgumentPieces()}
        if delta.type == "text_delta":  # (pieces, joined at the end: added to a text piece by
            # piece, a long reply took time of the square of its length)
            slot["text"].append(_text(delta.text))
            return _text(delta.text)
        if delta.type == "input_json_delta":
            slot["json"].add(_text(delta.partial_json))
    return ""


def _index(value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise TypeError(f"{value!r} is no index")


def _text(value: Any) -> str:
    """Text a reply gives (a block's text, an id, a name, a stop reason): text, or none ("");
    anything else is a TypeError, read by the caller as a shape of no reply."""
    if value is None or isinstance(value, str):
        return value or ""
    raise TypeError(f"{type(value).__name__} is not text")


def wire_tool(tool: ToolSpec) -> dict[str, Any]:
    """A tool as the Messages API takes it."""
    return {"name": tool.name, "description": tool.description, "input_schema": tool.parameters}


def wire_messages(messages: Sequence[Message]) -> tuple[str, list[dict[str, Any]]]:
    """The system prompt, and the conversation as the Messages API takes it.

    System messages are joined into the request's ``system``. Tool answers are ``tool_result``
    blocks in a user turn; turns of the same role are merged (the API alternates them). A tool
    call whose arguments are not a JSON object is sent back with empty ``input`` (the API takes
    only objects there); the model was told what was wrong in the call's ``tool_result``. One
    whose arguments were too large to keep is sent back with why, as its ``input``'s
    ``arguments_left_out``.
    """
    system = "\n\n".join(m.text for m in messages if m.role == "system" and m.text)
    turns: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "system":
            continue
        role = "assistant" if message.role == "assistant" else "user"
        blocks: list[dict[str, Any]] = []
        if message.role == "tool":
            result: dict[str, Any] = {"type": "tool_result", "tool_use_id": message.tool_call_id}
            if message.text:
                result["content"] = message.text
            blocks.append(result)
        elif message.text.strip():
            blocks.append({"type": "text", "text": message.text})
        for call in message.tool_calls:
            blocks.append({"type": "tool_use", "id": call.id, "name": call.name,
                           "input": _input_of(call.arguments)})
        if not blocks:
            continue
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})
    return system, turns


def reply_of(response: Any, *, model: str, bound_in: int, bound_out: int) -> Reply:
    """A Messages API response read as a `Reply`; one of any other shape (a block's text that
    is no text: a TypeError) is `ModelBadResponse`."""
    content = getattr(response, "content", None)
    if content is None:
        if (refused := not_an_answer(model, response, api=_API)) is not None:
            raise refused
        raise ModelBadResponse(f"{model} answered with no content. It was not used. Check that "
                               f"the server speaks {_API}.", model=model, attempts=1)
    try:
        if not isinstance(content, list):
            raise TypeError("the content is no list of blocks")
        text = "".join(_text(b.text) for b in content if getattr(b, "type", "") == "text")
        calls = tuple(kept_call(id=_text(b.id), name=_text(b.name), arguments=_arguments(b.input))
                      for b in content if getattr(b, "type", "") == "tool_use")
        stop = _text(getattr(response, "stop_reason", None)) or None
    except (AttributeError, TypeError, ValueError) as error:  # (a shape of no reply)
        raise unreadable(model, content, api=_API) from error
    usage = getattr(response, "usage", None)
    return Reply(text=text, tool_calls=calls,
                 usage=usage_or_bound(_input_tokens(usage, model),
                                      getattr(usage, "output_tokens", None),
                                      bound_in=bound_in, bound_out=bound_out, model=model),
                 stop=_stop(stop, bool(calls)))


def _input_tokens(usage: Any, model: str) -> int | None:
    """Input tokens as the input price counts them, cache reads and writes included, each a
    count of tokens (`token_count`: a negative cache count lowered the sum). A cache read costs
    less than an input token, and is counted as one; a cache write costs more (1.25 times for a
    five-minute cache, 2 for an hour's), and is counted as what it costs: as 1.25 or 2 tokens,
    by the breakdown ``cache_creation`` gives, else as 2, the dearer, so that spend is never
    recorded as less than it was. (signoff sends no ``cache_control``: a write reported is a
    server's or a proxy's own doing.)"""
    if usage is None or getattr(usage, "input_tokens", None) is None:
        return None

    def count(value: Any, what: str) -> int:
        return token_count(0 if value is None else value, model=model,
                           what=what.replace("_", " "))

    written = count(getattr(usage, "cache_creation_input_tokens", None),
                    "cache_creation_input_tokens")
    hour = count(getattr(getattr(usage, "cache_creation", None), "ephemeral_1h_input_tokens",
                         None), "ephemeral_1h_input_tokens")
    five = count(getattr(getattr(usage, "cache_creation", None), "ephemeral_5m_input_tokens",
                         None), "ephemeral_5m_input_tokens")
    if getattr(usage, "cache_creation_input_tokens", None) is None:
        written = hour + five  # (a breakdown alone: its sum)
    told = hour + five == written  # (a breakdown that adds up; else each write at the dearer)
    writes = (2 * hour + -(-5 * five // 4)) if told else 2 * max(written, hour + five)
    return (count(usage.input_tokens, "tokens_in")
            + count(getattr(usage, "cache_read_input_tokens", None), "cache_read_input_tokens")
            + writes)


def _input_of(arguments: str) -> dict[str, Any]:
    try:
        value = json.loads(arguments) if arguments else {}
    except (ValueError, RecursionError):  # a call the model made malformed, refused when made
        # (arguments too large to keep: the model reads why in its own call)
        reason = left_out_reason(arguments)
        return {"arguments_left_out": reason} if reason else {}
    # Arguments too deep to read were refused when made; the API is sent no such value back.
    return value if isinstance(value, dict) and not too_deep(value) else {}


def _arguments(value: Any) -> str:
    if value is None:
        return "{}"
    return value if isinstance(value, str) else json.dumps(value)


def _stop(stop: str | None, has_calls: bool) -> Literal["end", "tool_calls", "max_tokens"]:
    mapped = _STOPS.get(stop or "", "end")
    return "tool_calls" if mapped == "end" and has_calls else mapped
