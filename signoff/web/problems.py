"""Errors as RFC 9457 problem details (``application/problem+json``) for the API, and as pages
for the inbox.

signoff's refusals are translated where they enter the web layer: `to_problem` is the one map
from a library error to a status. Anything unforeseen is a 500 whose details reach the log only.
"""

from __future__ import annotations

import logging
import re
from http import HTTPStatus
from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from signoff.exceptions import (
    AgentRefused,
    ConsentError,
    Invalid,
    NotAuthorized,
    NotFound,
    SignoffError,
    StoreError,
    Unavailable,
    UserError,
)

__all__ = [
    "MEDIA_TYPE",
    "PROBLEM_RESPONSES",
    "UNAVAILABLE_RESPONSE",
    "UNSUPPORTED_BODY_RESPONSE",
    "Problem",
    "ProblemError",
    "instance_of",
    "prefers_problem",
    "problem_response",
    "title_of",
    "to_problem",
]

log = logging.getLogger("signoff.web")

MEDIA_TYPE = "application/problem+json"
UNFORESEEN = "It failed for a reason the app did not foresee — the app's log has the details."


class Problem(BaseModel):
    """An RFC 9457 problem: what went wrong, for a program (`type`, `status`) and a person
    (`title`, `detail`)."""

    model_config = ConfigDict(extra="allow")

    type: str = Field("about:blank", description="A URI naming the kind of problem.")
    title: str = Field(description="The kind of problem, in a few words.")
    status: int = Field(description="The HTTP status code.")
    detail: str = Field("", description="What went wrong this time, in a sentence.")
    instance: str = Field("", description="The path the problem happened at.")


class ProblemError(Exception):
    """Raised in the web layer to answer with a problem."""

    def __init__(self, status: int, detail: str, *, type_: str = "about:blank",
                 headers: dict[str, str] | None = None, **extra: Any) -> None:
        detail = detail if len(detail) <= _MOST_SAID else (
            f"{detail[:_MOST_SAID]}… (cut short: it ran to {len(detail):,} characters)")
        super().__init__(detail)
        self.status = status
        """The HTTP status."""
        self.detail = detail
        """The sentence a person reads (its beginning, when it ran past `_MOST_SAID`
        characters: one naming each of 80,000 values a client sent was half a megabyte)."""
        self.type = type_
        """A URI naming the kind of problem."""
        self.headers = headers or {}
        """Headers to send with it (``WWW-Authenticate`` with a 401)."""
        self.extra = extra
        """Extension members (``errors`` with a 422)."""


_MOST_SAID = 2000
"""The most characters of a problem's detail said (the rest cut)."""

_MOST_ERRORS = 20
"""The most values a 422 names in its ``errors``: a body of 90,000 unknown fields, under the
size limit, was otherwise answered with 8 MB naming each."""


def to_problem(error: Exception) -> ProblemError:
    """The problem a library error is (the one place the map lives)."""
    if isinstance(error, ProblemError):
        return error
    if isinstance(error, NotFound):
        return ProblemError(404, error.message, type_="urn:signoff:problem:not-found")
    if isinstance(error, NotAuthorized):
        return ProblemError(403, error.message, type_="urn:signoff:problem:not-authorized")
    if isinstance(error, Invalid):
        return ProblemError(422, error.message, type_="urn:signoff:problem:invalid")
    if isinstance(error, Unavailable):  # nothing was sent: the same request may work later
        return ProblemError(503, error.message, type_="urn:signoff:problem:unavailable")
    if isinstance(error, AgentRefused):
        return ProblemError(403, str(error), type_="urn:signoff:problem:refused")
    if isinstance(error, ConsentError):
        return ProblemError(403, str(error), type_="urn:signoff:problem:consent")
    if isinstance(error, StoreError):  # (its sentence names the database: for the log alone)
        log.error("A request found the app's database unusable: %s", error)
        return ProblemError(503, "The app's database cannot be used now, so nothing was done: "
                                 "try again later (the server's log says why).",
                            type_="urn:signoff:problem:unavailable")
    if isinstance(error, UserError | SignoffError):
        log.error("signoff refused a request: %s", error)
        return ProblemError(500, UNFORESEEN)
    log.exception("An unforeseen error answered a request", exc_info=error)
    return ProblemError(500, UNFORESEEN)


def problem_response(request: Request, problem: ProblemError) -> Response:
    """`problem` as ``application/problem+json``."""
    body = Problem(type=problem.type, title=title_of(problem.status), status=problem.status,
                   detail=problem.detail, instance=instance_of(request.url.path),
                   **problem.extra)
    return JSONResponse(_writable(body.model_dump(mode="json")), status_code=problem.status,
                        media_type=MEDIA_TYPE, headers=problem.headers)


_HALF = re.compile("[\ud800-\udfff]")
"""Half of a character (a lone surrogate): a JSON body's ``"\\ud800"`` reads as one, and no
UTF-8 writes it."""


def _writable(value: Any) -> Any:
    """`value` (JSON's: text, lists, objects, numbers) with each half of a character in its text
    replaced by U+FFFD: a problem says back what a client sent (a changed argument's name, say),
    and one holding half a character could not be written, so that the answer was a 500."""
    if isinstance(value, str):
        return _HALF.sub("\ufffd", value)
    if isinstance(value, dict):
        return {_writable(k): _writable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_writable(v) for v in value]
    return value


def prefers_problem(accept: str) -> bool:
    """Whether a client sending this ``Accept`` header would rather read JSON than HTML (a
    program asking an inbox's address: it is answered as the API's problems read): JSON
    (``application/json`` or ``application/problem+json``) is named, at a higher quality than
    HTML is given (by ``text/html``, else ``text/*``, else ``*/*``). No header, or a browser's,
    is HTML."""
    quality: dict[str, float] = {}
    for item in accept.split(","):
        kind, *parameters = (part.strip() for part in item.split(";"))
        q = 1.0
        for parameter in parameters:
            name, _, value = parameter.partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:  # (a quality that is no number: not wanted)
                    q = 0.0
        kind = kind.lower()
        quality[kind] = max(quality.get(kind, 0.0), q)
    as_json = max(quality.get("application/json", 0.0),
                  quality.get("application/problem+json", 0.0))
    as_html = next((quality[kind] for kind in ("text/html", "text/*", "*/*") if kind in quality),
                   0.0)
    return as_json > as_html


def instance_of(path: str) -> str:
    """The path a problem happened at, as its problem says it: cut past 200 characters (an id
    of any length was said back whole)."""
    return path if len(path) <= 200 else path[:200] + "…"


def from_http(error: StarletteHTTPException, *, form: bool = False) -> ProblemError:
    """A problem for Starlette's own errors (an unknown path, a method not allowed, a body that
    could not be read), for the inbox's pages and forms (`form`), or else the API's, each saying
    what to do."""
    detail = error.detail if isinstance(error.detail, str) else title_of(error.status_code)
    if error.status_code == 400 and form:
        detail = (f"This form could not be read ({detail.rstrip('.')}): go back to its page, "
                  "and send it as the page gives it.")
    elif error.status_code == 400:
        digits = _LONG_NUMBER.search(str(error.__cause__ or ""))
        if digits:
            told = (f"A number in the body has {int(digits[1]):,} digits, more than any value "
                    "takes: send a shorter one.")
        elif isinstance(error.__cause__, RecursionError):  # (valid JSON, too deep for the parser)
            told = ("The body nests lists or objects inside each other more deeply than this "
                    "server reads (no value an operation takes is nested so deep): send a "
                    "flatter JSON object.")
        else:
            told = "The body could not be read as JSON (in UTF-8): send a JSON object."
        return ProblemError(400, told, type_="urn:signoff:problem:invalid",
                            headers=dict(error.headers or {}))
    elif error.status_code == 404:  # (each says where to go instead)
        detail = ("There is nothing at this address: check it, or start again from the inbox "
                  "(/)." if form else "There is nothing at this address: the API's addresses "
                  "are in /api/openapi.json.")
    elif error.status_code == 405:
        detail = ("This address takes only what a page's form or link sends: go back to the "
                  "page, and use its buttons and links." if form else "This address does not "
                  "answer that method: /api/openapi.json says which methods it answers.")
    return ProblemError(error.status_code, detail, headers=dict(error.headers or {}))


_LONG_NUMBER = re.compile(r"integer string conversion: value has (\d+) digits")
"""Python's refusal of a number too long to read (``sys.get_int_max_str_digits``), which the
body's parser raised: valid JSON, told by its length, not as Python's advice to raise a limit."""


def from_validation(error: RequestValidationError, *, asked: str = "") -> ProblemError:
    """A 422 problem naming each value that does not fit (the first `_MOST_ERRORS`, and how
    many more), where it is, and what would, in signoff's words (the validator's own stay in
    the log). `asked` is what the operation's body is, in words (`signoff.web.schemas.asked_of`):
    a body missing, or not a JSON object, is told what to send."""
    found = error.errors()
    named = found[:_MOST_ERRORS]
    errors = [{"where": _where_of(e), "problem": _in_words(e, asked or _ASKED)} for e in named]
    log.info("A request did not validate (%d values): %s", len(found), named)
    first = errors[0]["problem"] if errors else "The request does not fit this operation."
    if len(found) > len(named):
        first += (f" {len(found) - 1:,} more values do not fit either: `errors` names the first "
                  f"{len(named)}.")
    return ProblemError(422, first, type_="urn:signoff:problem:invalid", errors=errors)


def _where_of(e: Any) -> str:
    """Where the value of one validation error is (a body that is not JSON: the body, not the
    character where reading it failed)."""
    return "the body" if e.get("type") == "json_invalid" else _where(e.get("loc", ()))


def _where(loc: Any) -> str:
    """``("body", "edited", "price")`` → ``edited.price``; the body itself → ``the body``."""
    parts = [str(part) for part in loc]
    if parts and parts[0] in ("body", "query", "path", "header", "cookie"):
        parts = parts[1:]
    return ".".join(parts) or "the body"


_ASKED = "a JSON object of this operation's fields (/api/openapi.json describes them)"
"""What to send as a body, said of an operation whose body is not known (`from_validation`)."""


def _in_words(e: Any, asked: str) -> str:
    """One validation error as a sentence a person can act on; `asked` is what to send as the
    body, in words."""
    kind, where = e.get("type", ""), _where_of(e)
    context = e.get("ctx") or {}
    what = "The body" if where == "the body" else where
    if where == "reason" and kind in ("string_too_short", "string_pattern_mismatch", "missing"):
        return "Say why: a no needs a reason, and the agent is told it."
    if where == "the body" and kind == "missing":  # (it was "The body is missing: give it.")
        return f"The body is missing: send {asked} (Content-Type: application/json)."
    sentences = {
        "missing": f"{what} is missing: give it.",
        "extra_forbidden": f"{what} is not something this operation takes; leave it out.",
        "json_invalid": f"The body is not JSON: send {asked}.",
        "model_attributes_type": f"The body is not a JSON object: send {asked}.",
        "string_unicode": f"{what} holds half of a character, which cannot be written alone: "
                          "send the text whole.",
        "dict_type": f"{what} is a JSON object (names and values).",
        "bool_parsing": f"{what} is true or false.",
        "bool_type": f"{what} is true or false.",
        "string_type": f"{what} is text.",
        "string_too_long": f"{what} is at most {context.get('max_length', 'so many')} characters.",
        "string_too_short": f"{what} needs at least {context.get('min_length', 1)} "
                            "character(s).",
        "int_parsing": f"{what} is a whole number.",
        "int_type": f"{what} is a whole number.",
        "greater_than_equal": f"{what} is at least {context.get('ge')}.",
        "less_than_equal": f"{what} is at most {context.get('le')}.",
        "enum": f"{what} is one of: {context.get('expected', '')}.",
    }
    return sentences.get(kind, f"{what} does not fit this operation: see its description in "
                               "/api/openapi.json.")


def title_of(status: int) -> str:
    """The standard phrase of an HTTP status ("Payload Too Large")."""
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


def _content() -> dict[str, Any]:
    return {MEDIA_TYPE: {"schema": {"$ref": "#/components/schemas/Problem"}}}


PROBLEM_RESPONSES: dict[int | str, dict[str, Any]] = {
    401: {"description": "No token, or one that is unknown, revoked or expired, or whose owner "
                         "is disabled.",
          "content": _content()},
    403: {"description": "Refused: not yours to decide or do.", "content": _content()},
    404: {"description": "Nothing with this id that you may see.", "content": _content()},
    409: {"description": "Already decided (or revoked).", "content": _content()},
    422: {"description": "A value that does not fit.", "content": _content(), "model": Problem},
}
"""The problems every API operation may answer, as its OpenAPI says."""

UNAVAILABLE_RESPONSE: dict[int | str, dict[str, Any]] = {
    503: {"description": "What the call needs outside could not be reached: nothing was sent, "
                         "so nothing ran, and the proposal still waits. Try again later.",
          "content": _content()},
}
"""What an approval may answer besides: its call could not reach what it needs."""

UNSUPPORTED_BODY_RESPONSE: dict[int | str, dict[str, Any]] = {
    415: {"description": "A body sent as another type than application/json (in UTF-8), or "
                         "with none: nothing was read, nor done.",
          "content": _content()},
}
"""What an operation taking a body may answer besides: a body of another type than JSON's."""
