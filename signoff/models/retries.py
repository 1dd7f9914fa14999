"""Asking a provider again, within bounds: how many times, how long between, how long in all;
and one call held to its total timeout (`call_ends`, `PastTotalTimeout`).

Both official SDKs are built alike (their errors carry ``status_code`` and the ``response``), so one
translation serves both; each provider passes its own SDK module. The SDKs' own retries are
turned off, so that every request passes the guard (`model_requests_allowed`) and the bounds here.
"""

from __future__ import annotations

import contextlib
import contextvars
import email.utils
import itertools
import json
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from types import ModuleType
from typing import Any, TypeVar

from signoff.exceptions import UserError
from signoff.models.base import ModelRequestsRefused, model_requests_allowed
from signoff.models.errors import (
    ModelBadResponse,
    ModelCredentialsRefused,
    ModelError,
    ModelNotConfigured,
    ModelRateLimited,
    ModelRequestRejected,
    ModelTimeout,
    ModelUnavailable,
)

__all__ = ["PastTotalTimeout", "Retries", "call_ends", "call_with_retries", "translate"]

T = TypeVar("T")


@dataclass(frozen=True, kw_only=True)
class Retries:
    """How a provider is asked again after a 429, a 5xx or a failed connection.

    Timeouts are not retried (see `ModelTimeout`); nor is anything the provider refused outright.
    """

    attempts: int = 4
    """Requests in all, the first one included (1: never ask again)."""
    backoff: float = 0.5
    """The first wait, in seconds, when the provider does not say how long; it doubles each time
    (with jitter: between half and all of it)."""
    max_wait: float = 20.0
    """The longest single wait: a provider that asks for longer (``retry-after``) is not waited for."""
    total_wait: float = 60.0
    """The longest time spent waiting in all, over every retry of one call."""

    def __post_init__(self) -> None:
        # (a negative wait failed a call with a ValueError from `time.sleep`, after the failure
        # it was to wait on, and a text or a fraction of attempts with a TypeError)
        attempts = self.attempts
        if isinstance(attempts, bool) or not isinstance(attempts, int) or attempts < 1:
            raise UserError(f"Retries needs a whole number of attempts, 1 or more (1: never ask "
                            f"again), not {attempts!r}: e.g. Retries(attempts=4).")
        for name in ("backoff", "max_wait", "total_wait"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0 or (
                    name == "backoff" and value == float("inf")):
                raise UserError(f"A wait of Retries is a number of seconds, 0 or more: its {name} "
                                f"is {value!r} (e.g. Retries(backoff=0.5, max_wait=20, "
                                "total_wait=60)).")


class PastTotalTimeout(Exception):
    """Raised as a piece of an answer comes in after the call's total timeout passed (see
    `call_ends`); `call_with_retries` tells it as a `ModelTimeout`."""


_ENDS: contextvars.ContextVar[float | None] = contextvars.ContextVar("signoff_call_ends",
                                                                     default=None)


def call_ends() -> float | None:
    """When the model call being made in this context must be over (``time.monotonic()``),
    or None outside one: each piece of an answer that comes in later ends it."""
    return _ENDS.get()


def call_with_retries(
    send: Callable[[], T],
    *,
    sdk: ModuleType,
    model: str,
    timeout: float,
    retries: Retries,
    key: str,
    secret: str | None = None,
    sleep: Callable[[float], None] | None = None,
    total_timeout: float = math.inf,
) -> T:
    """``send()``, asked again within `retries` when the provider is busy or failing (never
    after a request that went out and got no answer: it may have been billed), all within
    `total_timeout` seconds: the answer's pieces (read by the model's HTTP client, see
    `call_ends`) end the call as `ModelTimeout` once it has passed, and no retry is waited for
    past it.

    `key` says where the model's API key came from (``OPENAI_API_KEY``, "the api_key given"),
    for the message of a key the provider refuses; `secret`, the key itself, is never repeated
    in a message (a provider or a proxy may echo it back in what it says).

    `sleep` waits between attempts (`time.sleep`, looked up when it waits). Every attempt first
    checks that real model requests are allowed. A provider error comes out
    as a `ModelError`; the SDK's exception is its ``__cause__``.
    """
    ends = time.monotonic() + total_timeout
    held = _ENDS.set(ends)
    try:
        return _attempts(send, sdk=sdk, model=model, timeout=timeout, retries=retries, key=key,
                         secret=secret, sleep=sleep, total_timeout=total_timeout, ends=ends)
    finally:
        _ENDS.reset(held)


def _attempts(send: Callable[[], T], *, sdk: ModuleType, model: str, timeout: float,
              retries: Retries, key: str, secret: str | None,
              sleep: Callable[[float], None] | None, total_timeout: float, ends: float) -> T:
    """`call_with_retries`, its total timeout ending at `ends`."""
    waited = 0.0
    free = True  # every attempt so far cost nothing (see `ModelError.cost_nothing`)
    for attempt in range(1, retries.attempts + 1):
        if not model_requests_allowed():
            raise ModelRequestsRefused(
                f"Real model requests are off here (as in tests), so {model} was not asked.",
                model=model)
        try:
            return send()
        except ModelError as error:  # (read from the answer: which may say the key back)
            if secret and len(secret) >= 8 and secret in error.message:
                error.message = error.message.replace(secret, "[the API key]")
                error.args = (error.message,)
            raise
        except Exception as error:
            _blot_key(error, secret)  # (its chain is logged: the key is not written there)
            if _past_total(error):
                raise _total_timeout(model, total_timeout, attempt) from error
            failure = translate(error, sdk=sdk, model=model, attempts=attempt, timeout=timeout,
                                key=key, secret=secret)
            if failure is None:
                raise
            free = free and failure.cost_nothing
            failure.cost_nothing = free  # (an attempt before it may have been billed)
            # (a request that went out and was cut off may have been billed: as a timeout, it
            # is not asked again, which could spend past what was reserved for the call)
            retryable = isinstance(failure, ModelRateLimited | ModelUnavailable) and (
                failure.cost_nothing) and not _told_not_to_retry(error)
            if not retryable or attempt == retries.attempts:
                raise failure from error
            asked = failure.retry_after if isinstance(failure, ModelRateLimited) else _retry_after(
                error)
            wait = asked if asked is not None else (
                retries.backoff * 2.0 ** min(attempt - 1, 64) * random.uniform(0.5, 1.0))
            if not math.isfinite(wait) or wait > retries.max_wait or (
                    waited + wait > retries.total_wait) or time.monotonic() + wait > ends:
                gave_up = _gave_up(failure, wait, asked=asked is not None)
                gave_up.cost_nothing = free
                raise gave_up from error
            (sleep or time.sleep)(wait)
            waited += wait
    raise AssertionError("unreachable: the last attempt returns or raises")  # pragma: no cover


def _past_total(error: BaseException) -> bool:
    """Whether `error` is, or was raised from, `PastTotalTimeout` (an SDK wraps what its HTTP
    client raises as a whole answer is read in a connection error of its own)."""
    seen: BaseException | None = error
    for _ in range(8):  # (a chain of causes is short; a cycle is not followed for ever)
        if seen is None:
            return False
        if isinstance(seen, PastTotalTimeout):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _total_timeout(model: str, total_timeout: float, attempts: int) -> ModelTimeout:
    """The `ModelTimeout` of a call whose answer was still coming when its total timeout
    passed (a server that writes a piece every few seconds, each within the timeout, would
    hold the task, and what was reserved for it, for ever). Its request went out, and what it
    wrote may have been billed: what was reserved for it is counted as spent."""
    return ModelTimeout(
        f"{model} was still answering when the call's total timeout of {total_timeout:g} "
        "seconds passed, so its answer was not used. It was not asked again: what it wrote "
        "may have been billed. Try again; if its replies are this slow, give it a longer "
        "total_timeout.", model=model, attempts=attempts, timeout=total_timeout)


def _gave_up(failure: ModelError, wait: float, *, asked: bool) -> ModelError:
    """`failure`, told with the wait it asked for (`asked`; else the backoff's), which signoff
    does not wait: in words a person reads ("about 32 years", not "1e+09 seconds"), and when
    to try again."""
    told = failure.message.removesuffix(_LATER)  # (said once, below)
    if not asked:  # (the backoff's next wait: the provider asked for none)
        message = (f"{told} To wait and ask again would go past what signoff waits for one "
                   "call (see Retries): try again later.")
    elif math.isfinite(wait):
        message = (f"{told} It asked to wait {_duration(wait)} more, past what signoff waits "
                   "for one call (see Retries): try again after that.")
    else:
        message = (f"{told} It asked to wait without end, past what signoff waits for one "
                   "call (see Retries): try again later.")
    if isinstance(failure, ModelRateLimited):
        return ModelRateLimited(message, model=failure.model, attempts=failure.attempts,
                                retry_after=failure.retry_after)
    return ModelUnavailable(message, model=failure.model, attempts=failure.attempts,
                            status=failure.status)


_LATER = " Try again later."
"""How a provider's failure that may pass says what to do."""


def _duration(seconds: float) -> str:
    """`seconds` as a person says a wait: "45 seconds", "3 minutes", "1 hour", "4 days",
    "about 32 years" (in the largest unit it is a whole number of, below 120 of the next
    smaller; else rounded up, so never told shorter than asked)."""
    if seconds >= 730 * 86400:
        return f"about {seconds / (365.25 * 86400):,.0f} years"
    units = (("day", 86400), ("hour", 3600), ("minute", 60), ("second", 1))
    exact = next((u for u in units if seconds >= u[1] and seconds % u[1] == 0), None)
    rough = next((u for u, below in itertools.pairwise(units)
                  if seconds >= 120 * below[1]), units[-1])
    unit, size = exact if exact is not None and exact[1] >= rough[1] else rough
    count = math.ceil(seconds / size)
    return f"{count} {unit}{'' if count == 1 else 's'}"


def _never_connected(error: BaseException) -> bool:
    """Whether `error` (or what caused it) is a failure to connect, so that no request went
    out (httpx's ``ConnectError``, ``ConnectTimeout``), rather than one cut off after it did."""
    seen: BaseException | None = error
    for _ in range(8):  # (a chain of causes is short; a cycle is not followed for ever)
        if seen is None:
            return False
        if _names(seen) & {"ConnectError", "ConnectTimeout"}:
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _broken_answer(error: BaseException, model: str, attempts: int) -> ModelError | None:
    """The `ModelError` of an answer that began and broke as it was read, which the SDKs call a
    connection error ("could not be reached … Check the base URL and the network" said the
    server was never found): a body cut short of the length its headers gave, one that does
    not decode as its content-encoding says, or an answer that breaks HTTP. Its request went
    out, and what it wrote may have been billed (not asked again). None for any other
    error."""
    seen: BaseException | None = error
    for _ in range(8):  # (a chain of causes is short; a cycle is not followed for ever)
        if seen is None:
            return None
        if "DecodingError" in _names(seen):
            return ModelBadResponse(
                f"{model} answered with a body that does not decode as its headers say (its "
                "content-encoding). It was not used, and it may have been billed. Check the "
                "server, or a proxy in front of it.", model=model, attempts=attempts)
        if "RemoteProtocolError" in _names(seen) and "complete message body" in str(seen):
            return ModelUnavailable(
                f"{model} was cut off as it answered: the connection closed before the whole "
                "of its answer came. It was not asked again: what it wrote may have been "
                "billed. Try again later.", model=model, attempts=attempts, sent=True)
        if "RemoteProtocolError" in _names(seen) and not str(seen).startswith(
                "Server disconnected"):  # (not a request cut off unanswered: an answer that
            # breaks HTTP, as a chunk header that is none)
            return ModelBadResponse(
                f"{model} answered with something that does not read as HTTP. It was not "
                "used, and it may have been billed. Check the server, or a proxy in front of "
                "it.", model=model, attempts=attempts)
        seen = seen.__cause__ or seen.__context__
    return None


def _at(error: BaseException) -> str:
    """" at URL", the address the failed request went to (without its query, nor a user and
    password written in it), when the error knows it; else ""."""
    try:  # (httpx's errors raise RuntimeError when they were made with no request)
        url = getattr(error, "request", None).url  # type: ignore[union-attr]
    except (AttributeError, RuntimeError):
        return ""
    try:
        return f" at {url.copy_with(query=None, userinfo=b'')}"
    except Exception:  # not httpx's URL: as it reads
        return f" at {url}"


def _blot_key(error: BaseException, secret: str | None) -> None:
    """The API key (`secret`) blotted out of what `error` and the errors it was raised from
    say (their message, and the body a provider answered with), so that the error's chain,
    written to the log with a model failure, never holds it: a provider or a proxy may say a
    refused key back in full. A short stand-in (a local server's "none") is no secret."""
    if not secret or len(secret) < 8:
        return
    seen: BaseException | None = error
    for _ in range(8):  # (a chain of causes is short; a cycle is not followed for ever)
        if seen is None:
            return
        seen.args = tuple(_blotted(a, secret) for a in seen.args)
        for name in ("message", "body"):
            if isinstance(getattr(seen, name, None), str | dict | list):
                with contextlib.suppress(AttributeError):  # (a read-only attribute)
                    setattr(seen, name, _blotted(getattr(seen, name), secret))
        seen = seen.__cause__ or seen.__context__


def _blotted(value: Any, secret: str) -> Any:
    """`value` with `secret` replaced wherever a text in it holds it."""
    if isinstance(value, str):
        return value.replace(secret, "[the API key]")
    if isinstance(value, dict):
        return {k: _blotted(v, secret) for k, v in value.items()}
    if isinstance(value, list):
        return [_blotted(v, secret) for v in value]
    return value


def _in_json(error: BaseException) -> bool:
    """Whether `error` is a ValueError raised as JSON was read (a number too long to read as
    one: its 4300 digits), or a RecursionError (arrays nested 100,000 deep), not one of the
    caller's own (an ``on_text`` that failed)."""
    trace = error.__traceback__ if isinstance(error, ValueError | RecursionError) else None
    while trace is not None:
        if str(trace.tb_frame.f_globals.get("__name__", "")).partition(".")[0] == "json":
            return True
        trace = trace.tb_next
    return False


def _names(error: BaseException) -> set[str]:
    return {cls.__name__ for cls in type(error).__mro__}


def _tries(attempts: int) -> str:
    return "once" if attempts == 1 else f"{attempts} times"


def _said(error: BaseException, secret: str | None = None) -> str:
    """What the provider said, briefly (its own explanation; none of ours), with the API key
    (`secret`) blotted out wherever it repeats it."""
    body = getattr(error, "body", None)
    said: Any = None
    if isinstance(body, dict):
        inner = body.get("error", body)
        said = inner.get("message") if isinstance(inner, dict) else inner
    text = " ".join(str(said or "").split())
    if secret and len(secret) >= 8:  # (a local server's stand-in, "none", is no secret)
        text = text.replace(secret, "[the API key]")
    return f" It said: “{text[:200]}”." if text else ""


def translate(error: BaseException, *, sdk: ModuleType, model: str, attempts: int,
              timeout: float, key: str, secret: str | None = None) -> ModelError | None:
    """The `ModelError` for an SDK (or HTTP transport) error; None for anything else. `key`:
    where the API key came from, named when the provider refuses it; `secret`: the key, never
    repeated."""
    names = _names(error)
    if isinstance(error, sdk.APITimeoutError) or "TimeoutException" in names:
        return ModelTimeout(
            f"{model} did not answer within the timeout of {timeout:g} seconds. It was not asked "
            "again: a request that timed out may still have been answered and billed. Try again, "
            "or give it a longer timeout.", model=model, attempts=attempts, timeout=timeout)
    if isinstance(error, sdk.APIStatusError):
        status = int(error.status_code)
        said = _said(error, secret)
        if status < 400:  # an error event in a stream that had begun (Anthropic's, at 200)
            return ModelUnavailable(
                f"{model} stopped with an error part way through its reply.{said} It was not "
                "asked again: what it wrote before may have been billed. Try again later.",
                model=model, attempts=attempts, sent=True)
        if status in _GATEWAY_TIMEOUTS:
            return ModelTimeout(
                f"{model} did not answer in time: a server on the way gave up waiting for it "
                f"(HTTP {status}).{said} It was not asked again: the provider may still have "
                "answered and billed it. Try again later.", model=model, attempts=attempts,
                timeout=timeout, status=status)
        if status in (401, 402, 403):
            what = {401: "refused the API key", 402: "refused the request: payment is required",
                    403: "refused the API key for this request"}[status]
            return ModelCredentialsRefused(
                f"The provider of {model} {what} (HTTP {status}).{said} Check the key "
                f"({key}) and the account.",
                model=model, attempts=attempts, status=status)
        if status == 429:
            still = "still " if attempts > 1 else ""
            return ModelRateLimited(
                f"{model} is rate limited (HTTP 429): asked {_tries(attempts)}, it {still}said "
                f"to slow down.{said}{_LATER}", model=model, attempts=attempts,
                retry_after=_retry_after(error))
        if status >= 500 or status in (408, 409):
            failing = "went on failing" if attempts > 1 else "failed"
            return ModelUnavailable(
                f"{model} failed to answer (HTTP {status}): asked {_tries(attempts)}, it "
                f"{failing}.{said}{_LATER}", model=model, attempts=attempts, status=status)
        if status == 404:  # (no such model, or a base URL that leads to no API)
            return ModelRequestRejected(
                f"The provider of {model} found nothing to answer{_at(error)} (HTTP 404).{said} "
                f"Check the model's name, and the base URL: {_BASE_URLS.get(sdk.__name__, '')}",
                model=model, attempts=attempts, status=status)
        return ModelRequestRejected(
            f"The provider of {model} refused the request (HTTP {status}).{said} Check the "
            "model's name and its limits.", model=model, attempts=attempts, status=status)
    if isinstance(error, RecursionError) and _in_json(error):  # (the SDK lets it out, and
        # the call failed as "The model failed: RecursionError")
        return ModelBadResponse(
            f"{model} answered with JSON nested too deeply to read. It was not used, and it may "
            "have been billed. Check the server.", model=model, attempts=attempts)
    if isinstance(error, json.JSONDecodeError | UnicodeDecodeError) or _in_json(error):  # (the
        # SDK lets these out, and json's refusal of a number of more than 4300 digits)
        return ModelBadResponse(
            f"{model} answered with something that is not a reply: it is not JSON in UTF-8 "
            f"({type(error).__name__}). Check that the base URL leads to the model's server.",
            model=model, attempts=attempts)
    if isinstance(error, sdk.APIResponseValidationError):
        speaks = _API_OF.get(sdk.__name__, "its provider's API")
        return ModelBadResponse(f"{model} answered with something that is not a reply. It was "
                                f"not used. Check that the server speaks {speaks}.",
                                model=model, attempts=attempts)
    if (broken := _broken_answer(error, model, attempts)) is not None:
        return broken
    if isinstance(error, sdk.APIConnectionError) or "TransportError" in names:
        return ModelUnavailable(
            f"{model} could not be reached{_at(error)}: asked {_tries(attempts)}, the connection "
            "failed. Check the base URL and the network.", model=model, attempts=attempts,
            sent=not _never_connected(error))
    if isinstance(error, sdk.APIError):  # (an error event in a stream that had begun)
        return ModelBadResponse(f"{model} answered with an error in its stream."
                                f"{_said(error, secret)} It was not asked again: what it wrote "
                                "before may have been billed. Try again later.",
                                model=model, attempts=attempts)
    base = getattr(sdk, "OpenAIError", None) or getattr(sdk, "AnthropicError", None)
    if base is not None and isinstance(error, base):
        return ModelNotConfigured(f"{model} cannot be asked as configured: {error}",
                                  model=model, attempts=attempts)
    return None


_BASE_URLS = {
    "openai": "a server that speaks the Chat Completions API is asked at the base URL with "
              "/chat/completions added, so its base URL usually ends in /v1 "
              "(http://127.0.0.1:11434/v1).",
    "anthropic": "Anthropic's is asked with /v1/messages added, so its base URL ends before "
                 "/v1 (https://api.anthropic.com).",
}
"""Where each SDK's requests go from its base URL, for a 404 (a base URL with /v1 left out,
or written twice, is the usual cause when the model's name is right)."""

_API_OF = {"openai": "OpenAI's Chat Completions API", "anthropic": "Anthropic's Messages API"}
"""The API each SDK speaks, named where an answer does not read as a reply of it."""

_GATEWAY_TIMEOUTS = frozenset({504, 524})
"""Statuses with which a server on the way (a gateway, Cloudflare's 524) says it gave up waiting
for the provider's answer: the request reached the provider, which may answer it and bill it
all the same. (A 408 says the request itself did not arrive in time: nothing was asked.)"""


def _seconds(text: str) -> float | None:
    """`text` as a number of seconds, 0 or more (infinity: longer than any wait); None when it
    is none (NaN too: a wait of NaN, waited for, failed the call with a ValueError; and a
    negative one, no wait at all, which was taken as 0: the busy provider was asked again at
    once, every retry, instead of after the backoff)."""
    try:
        seconds = float(text)
    except ValueError:
        return None
    return None if math.isnan(seconds) or seconds < 0 else seconds


def _told_not_to_retry(error: BaseException) -> bool:
    """Whether the provider said not to ask again (``x-should-retry: false``, which both SDKs
    honour): asked again all the same, it refused again, each time."""
    headers = getattr(getattr(error, "response", None), "headers", None)
    return headers is not None and str(headers.get("x-should-retry", "")).lower() == "false"


def _retry_after(error: BaseException) -> float | None:
    """The wait a provider asked for (``retry-after-ms`` or ``retry-after``), in seconds."""
    response = getattr(error, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    millis = _seconds(headers.get("retry-after-ms") or "")
    if millis is not None:
        return millis / 1000
    value = headers.get("retry-after")
    if value is None:
        return None
    if (seconds := _seconds(value)) is not None:
        return seconds
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max((when - datetime.now(UTC)).total_seconds(), 0.0)
