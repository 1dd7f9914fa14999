"""What the real providers share: the SDK import, the HTTP client that holds a call to its total
timeout, usage when a server reports none, the bound, and the most a tool call's arguments may
be."""

from __future__ import annotations

import contextlib
import importlib
import time
from collections.abc import Callable, Iterator, Sequence
from types import ModuleType
from typing import Any, Self
from urllib.parse import urlsplit

from signoff._extras import install_extra
from signoff.models.base import (
    MAX_ARGUMENTS,
    Message,
    Price,
    ToolCall,
    ToolSpec,
    Usage,
    kept_arguments,
    upper_bound_tokens,
)
from signoff.models.errors import ModelBadResponse, ModelNotConfigured
from signoff.models.prices import price_of
from signoff.models.retries import PastTotalTimeout, Retries, call_ends

__all__ = ["MAX_NAME", "ArgumentPieces", "OnText", "SdkClientModel", "checked_base_url",
           "import_sdk", "input_bound", "kept_call", "not_a_stream", "not_an_answer",
           "token_count", "unreadable", "usage_or_bound"]

OnText = Callable[[str], None]
"""Called with each piece of text as the model writes it."""


MAX_NAME = 1_000
"""The most characters a tool call's id or name may have as a reply gives it: a provider's are
some tens (a tool's name on the wire 64 at most). Past it, kept, one was sent back with every
later request, as arguments too large are."""


def kept_call(*, id: str, name: str, arguments: str) -> ToolCall:
    """A reply's tool call, with what no real call has left out: an id too long is none (the
    loop gives the call one of its own), a name too long is cut (ending in "…", which no tool
    offered has on the wire: it names no tool, and the model is told so), and arguments too
    large are `kept_arguments`."""
    return ToolCall(id=id if len(id) <= MAX_NAME else "",
                    name=name if len(name) <= MAX_NAME else f"{name[:200]}…",
                    arguments=kept_arguments(arguments))


class ArgumentPieces:
    """A tool call's arguments as a stream writes them, piece by piece, joined at the end (added
    to a text piece by piece, 5 MB of them took minutes); past `MAX_ARGUMENTS` bytes only
    counted, not kept."""

    __slots__ = ("_pieces", "given", "size")

    def __init__(self) -> None:
        self._pieces: list[str] = []
        self.given = False
        """Whether any piece came, if only an empty one."""
        self.size = 0
        """Their UTF-8 bytes so far."""

    def add(self, piece: str) -> None:
        """Take the next piece."""
        self.given = True
        self.size += len(piece.encode("utf-8", "surrogatepass"))
        if self.size <= MAX_ARGUMENTS:
            self._pieces.append(piece)
        elif self._pieces:
            self._pieces.clear()

    def text(self) -> str:
        """The arguments (`kept_arguments`)."""
        return kept_arguments("".join(self._pieces), self.size)


def import_sdk(module: str, extra: str, model: str) -> ModuleType:
    """The official SDK, imported on first use (so ``import signoff`` does not pay for it)."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise ModelNotConfigured(
            f"{model} needs the {module} package, which is not installed: install signoff's "
            f"{extra} extra, {install_extra(extra)}.", model=model) from error


def checked_base_url(base_url: str | None, model: str) -> str | None:
    """`base_url` if it is an http(s) address with a host (or None: the provider's own);
    else `ModelNotConfigured`, saying how to write it (``127.0.0.1:11434/v1``, with no scheme,
    would be read as a path, and every request would fail as "could not be reached")."""
    if base_url is None:
        return None
    parts = urlsplit(base_url.strip())
    if parts.scheme in ("http", "https") and parts.hostname:
        return base_url.strip()
    guess = base_url.strip().partition("//")[2] if "//" in base_url else base_url.strip()
    raise ModelNotConfigured(
        f"The base URL “{base_url}” for {model} is not an http or https address: write it with "
        f"its scheme, e.g. http://{guess}.", model=model)


def input_bound(messages: Sequence[Message], tools: Sequence[ToolSpec], *,
                per_message: int, per_tool: int, tools_at_all: int) -> int:
    """`upper_bound_tokens` plus what a provider adds around messages and tools that the caller
    does not see (role markers, the tool-use instructions it writes itself)."""
    extra = per_message * len(messages) + per_tool * len(tools) + (tools_at_all if tools else 0)
    return upper_bound_tokens(messages, tools) + extra


def usage_or_bound(input_tokens: Any, output_tokens: Any, *, bound_in: int, bound_out: int,
                   model: str) -> Usage:
    """The usage a server reported; where it reported none, the worst case (so spend is never
    recorded as less than it may have been). A count that is none (`token_count`) is refused."""
    return Usage(
        input_tokens=bound_in if input_tokens is None else token_count(
            input_tokens, model=model, what="tokens in"),
        output_tokens=bound_out if output_tokens is None else token_count(
            output_tokens, model=model, what="tokens out"))


def token_count(reported: Any, *, model: str, what: str) -> int:
    """`reported`, a count of tokens a server's usage gave, as an int: a whole number, 0 or
    more (an int, a float with no fraction, or decimal digits as text). Anything else is
    `ModelBadResponse`, naming `model` and what it reported (`what`: ``"tokens in"``): a
    count past 2**63 made a cost of no float (an OverflowError, or spend of infinity); a
    negative count lowered the spend recorded, so that more calls were made than the budget
    paid for; NaN or text failed the call with no sentence. (The request went out: the loop
    counts what it reserved for the call as spent.)"""
    count: int | None = None
    if isinstance(reported, int) and not isinstance(reported, bool):
        count = reported
    elif isinstance(reported, float) and reported.is_integer():
        count = int(reported)
    elif isinstance(reported, str) and reported.strip().isascii() and reported.strip().isdigit():
        count = int(reported.strip())
    if count is None or not 0 <= count < 2**63:  # (a cost worked out from more: no float)
        shown = repr(reported) if len(repr(reported)) <= 40 else f"{repr(reported)[:36]}…"
        raise ModelBadResponse(
            f"{model} reported {shown} {what}, which is no count of tokens (a whole number, 0 "
            "or more), so what its answer cost is not known: it was not used, and what was "
            "reserved for the call is counted as spent. Check the server's usage reporting.",
            model=model, attempts=1)
    return count


class _HeldToTotal:
    """An answer's bytes as they come in, until the call's total timeout passes (`ends`,
    ``time.monotonic()``): a piece that comes after it raises `PastTotalTimeout`. (The SDKs'
    timeout is the longest wait for the next piece, so that a server that trickles its answer
    could hold the call for ever.)"""

    def __init__(self, stream: Any, ends: float) -> None:
        self._stream = stream
        self._ends = ends

    def __iter__(self) -> Iterator[bytes]:
        for piece in self._stream:
            if time.monotonic() > self._ends:
                raise PastTotalTimeout
            yield piece

    def close(self) -> None:
        self._stream.close()


def unreadable(model: str, what: Any, *, api: str) -> ModelBadResponse:
    """`ModelBadResponse` for an answer that does not read as a reply of `api` (a text that is
    a number, content that is no list), showing the start of `what` was read."""
    shown = repr(what[:61] if isinstance(what, str | bytes | list) else what)
    shown = shown if len(shown) <= 60 else f"{shown[:56]}…"
    return ModelBadResponse(
        f"{model} answered with something that does not read as a reply ({shown}). It was not "
        f"used. Check that the server speaks {api}.", model=model, attempts=1)


def not_an_answer(model: str, body: Any, *, api: str) -> ModelBadResponse | None:
    """`ModelBadResponse` for a whole answer that is no reply at all: an error a server (a
    proxy, a gateway) wrote in its place at status 200, told in its own words; a body that is
    no JSON object (a page sent as text/html, which the SDK hands on as text; ``null``; a
    list), showing its start. None for an object, read as a reply."""
    error = getattr(body, "error", None)
    said = error.get("message") if isinstance(error, dict) else None
    if isinstance(said, str) and said.strip():
        told = " ".join(said.split())
        told = told if len(told) <= 200 else f"{told[:199]}…"
        return ModelBadResponse(
            f"{model} answered with an error instead of a reply: “{told}”. It was not used, "
            "and it may have been billed. Try again later, or check the server.",
            model=model, attempts=1)
    if body is None or isinstance(body, str | bytes | list | int | float):
        return unreadable(model, body, api=api)
    return None


def not_a_stream(model: str, stream: Any) -> ModelBadResponse | None:
    """`ModelBadResponse` for a streamed call whose server answered with something other than
    a stream of events (its content type says so: a whole reply, a page), which reads as a
    stream of no events; None when it is one (a stream that ended early was cut off)."""
    headers = getattr(getattr(stream, "response", None), "headers", None)
    kind = str(headers.get("content-type") or "") if headers is not None else ""
    if not kind or "text/event-stream" in kind.lower():
        return None
    kind = kind if len(kind) <= 60 else f"{kind[:59]}…"
    return ModelBadResponse(
        f"{model} was asked for a streamed reply, and answered with “{kind}”, not a stream of "
        "events. It was not used, and it may have been billed. Check that the server streams "
        "its replies, or make the model with stream=False.", model=model, attempts=1)


LONGEST_WAIT = 86_400.0
"""The longest `timeout` or `total_timeout` a model takes, in seconds: a day (no wait a person
means is longer; past some 300 years, none a connection can hold)."""


def _check_settings(name: str, price: Any, timeout: Any, retries: Any,
                    total_timeout: Any) -> None:
    """`ModelNotConfigured`, in a sentence, for a price, a timeout or retries that are not one
    (a price written as the command line takes it, a timeout as text): taken, they failed at
    the model's first call, as a traceback or "The model failed: TypeError"."""
    if price is not None and not isinstance(price, Price):
        raise ModelNotConfigured(
            f"The price of {name} is a Price, not {type(price).__name__} {price!r}: give "
            "price=Price(input_per_mtok=0.15, output_per_mtok=0.60), dollars per million input "
            "and output tokens (Price(input_per_mtok=0, output_per_mtok=0) for a free model).",
            model=name)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not timeout > 0:
        raise ModelNotConfigured(f"The timeout of {name} is a number of seconds above 0, not "
                                 f"{timeout!r}: e.g. timeout=120.", model=name)
    if isinstance(total_timeout, bool) or not isinstance(total_timeout, int | float) or not (
            total_timeout > 0):
        raise ModelNotConfigured(f"The total_timeout of {name} is a number of seconds above 0, "
                                 f"not {total_timeout!r}: e.g. total_timeout=1200.", model=name)
    for which, seconds in (("timeout", timeout), ("total_timeout", total_timeout)):
        if not seconds <= LONGEST_WAIT:  # (1e12 was taken, and failed at the first call with
            # an OverflowError no sentence told; infinity as well)
            raise ModelNotConfigured(f"The {which} of {name} is {seconds:g} seconds, longer "
                                     f"than the {LONGEST_WAIT:,.0f} (a day) a wait for a model "
                                     f"may be: give at most that.", model=name)
    if retries is not None and not isinstance(retries, Retries):
        raise ModelNotConfigured(f"The retries of {name} are a Retries, not "
                                 f"{type(retries).__name__} {retries!r}: e.g. "
                                 "retries=Retries(attempts=4).", model=name)


class SdkClientModel:
    """What every provider model built on an official SDK client shares: where it sends
    requests, and closing its connections (also as a context manager)."""

    provider: str = ""
    """The provider, as in ``--model provider:NAME``."""
    _client: Any
    _sdk: ModuleType

    def _settings(self, model: str, *, price: Price | None, timeout: float,
                  total_timeout: float, retries: Retries | None, on_text: OnText | None,
                  stream: bool | None) -> None:
        """Keep what every provider model is told when it is made (refused in a sentence when
        it is not what it should be: a `Price`, a number of seconds, a `Retries`)."""
        _check_settings(f"{self.provider}:{model}", price, timeout, retries, total_timeout)
        self.model = model
        """The model's name as the server knows it."""
        self.name = f"{self.provider}:{model}"
        """The model's name as receipts show it: ``provider:model``."""
        self.price: Price | None = price if price is not None else self._listed_price(model)
        """What it costs: the price given, else the table's, else unknown (None)."""
        self.timeout = timeout
        """Seconds to wait for an answer (for a streamed one: between two pieces of it)."""
        self.total_timeout = total_timeout
        """Seconds one call may take in all, from its first request to the end of its answer,
        retries and their waits included: an answer still coming after it (a server that
        writes a piece every few seconds, each within `timeout`) ends the call as
        `ModelTimeout` at its next piece, and what was reserved for it is counted as spent."""
        self.retries = retries or Retries()
        """How often, and how long, a busy or failing server is asked again."""
        self.on_text = on_text
        """Called with each piece of text as it comes (streaming), or once with the whole."""
        self.stream = on_text is not None if stream is None else stream
        """Whether replies are streamed (by default, when there is an ``on_text``)."""

    def _listed_price(self, model: str) -> Price | None:
        return price_of(self.provider, model)

    def _http_client(self) -> Any:
        """The HTTP client the SDK is given: the SDK's own defaults (its connection limits,
        proxies from the environment), with each answer read through `_HeldToTotal`."""
        class Client(self._sdk.DefaultHttpxClient):  # type: ignore[misc,name-defined]
            def __del__(self) -> None:  # (as the SDK's own client: a model let go unclosed
                # closes its connections as it goes)
                if not self.is_closed:
                    with contextlib.suppress(Exception):
                        self.close()

        client = Client()
        # (of httpx, or of httpx2 for the SDKs' later versions: a stream in its place is
        # read only if it is one of that library's)
        library = next(c for c in Client.__mro__ if c.__name__ == "Client" and c is not Client)
        byte_stream = importlib.import_module(library.__module__.partition(".")[0]).SyncByteStream

        class HeldToTotal(_HeldToTotal, byte_stream):  # type: ignore[misc,valid-type]
            pass

        def held(response: Any) -> None:
            ends = call_ends()
            if ends is not None:
                response.stream = HeldToTotal(response.stream, ends)

        client.event_hooks = {"response": [held]}
        return client

    @property
    def base_url(self) -> str:
        """Where requests go."""
        return str(self._client.base_url)

    def close(self) -> None:
        """Close the connections this model holds."""
        self._client.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
