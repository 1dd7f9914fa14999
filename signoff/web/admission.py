"""What a request must bring before anything reads its body: a valid bearer token (for the API),
and a body no larger than the limit (for every request).

`Admission` is plain ASGI, outside FastAPI: FastAPI reads and parses a body before it solves the
dependencies that check the token, so the check must come first, here. A request refused here is
answered at once and its body is never read: an unauthenticated 150 MB upload costs the server
nothing but the headers. A body that says its length is refused by that length (413); a body
sent in chunks is counted as it comes, and refused (413) the moment it passes the limit.

A body posted to the API is JSON's (``application/json``, in UTF-8), or refused (415) unread,
in a sentence naming the type to send (`_not_json`): the API's operations declare no other.
The method comes before the body's type: a body sent to an address that does not take its
method (``POST /api/me``), or to no address at all, is passed on unread, to be answered 405 (with
``Allow``) or 404 as any other request there; it was refused 415, as if sending JSON would do.

Its answers carry the headers every answer of the web app carries (`security_headers`). HEAD,
which HTTP has answered wherever GET is, is passed on as GET, and its answer sent without a body.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from html import escape
from typing import Any
from urllib.parse import quote

from starlette.concurrency import run_in_threadpool
from starlette.routing import BaseRoute, Match

from signoff.app import App
from signoff.exceptions import StoreError
from signoff.web.addresses import api_address
from signoff.web.auth import PERSON_STATE, bearer_principal_of
from signoff.web.problems import (
    MEDIA_TYPE,
    Problem,
    ProblemError,
    instance_of,
    prefers_problem,
    title_of,
    to_problem,
)

__all__ = ["MAX_BODY_BYTES", "Admission", "is_api", "page_policy", "security_headers", "takes"]

MAX_BODY_BYTES = 1024 * 1024
"""The largest request body taken by default (1 MB): a decision is a few hundred bytes."""

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

_OPEN = ("/api/openapi.json",)
"""API paths anyone may read: the API's own description."""

API_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'"
"""The Content-Security-Policy of the API's answers (JSON): nothing runs or loads there."""


_FORM_VERBS = frozenset({"approve", "reject", "revoke", "login", "logout"})
"""The last part of the address an inbox's form is posted to: its page is the part before."""


class Admission:
    """ASGI middleware: the token before the body, and the body within `max_body_bytes`."""

    def __init__(self, inner: ASGIApp, *, app: App, routes: Sequence[BaseRoute],
                 max_body_bytes: int = MAX_BODY_BYTES) -> None:
        self.inner = inner
        self.app = app
        self.routes = routes
        """The web app's routes: whether one takes a request's method decides whether its body's
        type is looked at (`takes`)."""
        self.max_body_bytes = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.inner(scope, receive, send)
            return
        scope = api_address(scope)  # (an API address ending in a slash: as the one without)
        if scope.get("method") == "HEAD":  # (HTTP has it answered wherever GET is: as GET is)
            scope, send = {**scope, "method": "GET"}, _headers_only(send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", [])}
        path = scope.get("path", "")
        if is_api(path) and path not in _OPEN:
            given = sum(k.lower() == b"authorization" for k, _ in scope.get("headers", []))
            if given > 1:  # (whose token would it be? Each reader of headers picks another)
                await _answer(send, path, ProblemError(
                    400, f"This request carries {given} Authorization headers: send one, with "
                         "your bearer token.", type_="urn:signoff:problem:invalid"))
                return
            try:
                person = await run_in_threadpool(bearer_principal_of, self.app,
                                                 headers.get("authorization", ""))
            except ProblemError as problem:
                await _answer(send, path, problem)
                return
            except StoreError as error:  # (the token could not be read: the database is down)
                await _answer(send, path, to_problem(error))
                return
            scope.setdefault("state", {})[PERSON_STATE] = person
        declared = headers.get("content-length", "")
        if is_api(path) and scope.get("method") not in _BODILESS and (
                declared not in ("", "0") or "transfer-encoding" in headers) and takes(
                self.routes, scope):  # (else a 405 or a 404, as without a body: passed on)
            refusal = _not_json(headers.get("content-type", ""))
            if refusal:  # (the body is read as nothing else: refused before it is read at all)
                await _answer(send, path, refusal)
                return
        as_json = is_api(path) or prefers_problem(headers.get("accept", ""))
        if declared.isdigit() and int(declared) > self.max_body_bytes:
            await _answer(send, path, self.too_large(), as_json=as_json)
            return
        await self.inner(scope, *self._counted(receive, send, path, as_json=as_json))

    def too_large(self) -> ProblemError:
        """The refusal of a body over the limit."""
        return ProblemError(413, f"This request's body is larger than the {self.max_body_bytes} "
                                 "bytes this server takes: send less.",
                            type_="urn:signoff:problem:too-large")

    def _counted(self, receive: Receive, send: Send, path: str, *, as_json: bool
                 ) -> tuple[Receive, Send]:
        """`receive` counting the body as it comes (a 413 once it passes the limit, after which
        the app hears that the client left), and `send` that drops what the app answers then."""
        taken = 0
        refused = False

        async def counted_receive() -> Message:
            nonlocal taken, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                taken += len(message.get("body", b""))
                if taken > self.max_body_bytes:
                    refused = True
                    await _answer(send, path, self.too_large(), as_json=as_json)
                    return {"type": "http.disconnect"}
            return message

        async def guarded_send(message: Message) -> None:
            if not refused:
                await send(message)

        return counted_receive, guarded_send


_BODILESS = frozenset({"GET", "HEAD", "OPTIONS"})
"""Methods whose body, if any, nothing reads: its type is not looked at."""


def takes(routes: Sequence[BaseRoute], scope: Scope) -> bool:
    """Whether one of `routes` takes the request of `scope`: its method, at its address."""
    return any(route.matches(scope)[0] is Match.FULL for route in routes)


def _not_json(content_type: str) -> ProblemError | None:
    """The refusal (415) of an API request's body sent as `content_type`, or None when it is
    JSON's (``application/json``, in UTF-8). The API's operations take JSON objects, and no
    other type: a body sent as ``application/vnd.foo+json`` (or with no type) was read as JSON
    all the same, as if the client meant it so, whatever the type it named asks of a reader."""
    kind, *parameters = (part.strip() for part in content_type.split(";"))
    said = _said_type(kind)
    if kind.lower() != JSON_TYPE:
        told = (f"This body is sent as {said}, and the API reads only JSON: send it as "
                f"Content-Type: {JSON_TYPE}." if kind else
                f"This body is sent with no Content-Type, and the API reads only JSON: send it "
                f"as Content-Type: {JSON_TYPE}.")
    else:
        charsets = [value.strip().strip('"') for name, _, value in
                    (p.partition("=") for p in parameters) if name.strip().lower() == "charset"]
        if all(c.lower().replace("-", "").replace("_", "") == "utf8" for c in charsets):
            return None
        told = (f"This body is sent in {_said_type(charsets[-1])}, and the API reads JSON in "
                f"UTF-8 only: send it in UTF-8 (Content-Type: {JSON_TYPE}).")
    return ProblemError(415, told + " Nothing was read, nor done.",
                        type_="urn:signoff:problem:unsupported-media-type",
                        headers={"Accept-Post": JSON_TYPE})


JSON_TYPE = "application/json"
"""The one type of body the API reads."""


def _said_type(given: str) -> str:
    """A type a client named, fit to be said back: quoted, and cut past 80 characters."""
    shown = given if len(given) <= 80 else given[:80] + "…"
    return f"“{shown}”" if shown.isprintable() else repr(shown)


def _headers_only(send: Send) -> Send:
    """`send` for an answer to HEAD: what GET is answered, without its body (its headers, its
    length among them, as they are)."""

    async def headers_only(message: Message) -> None:
        if message["type"] == "http.response.body":
            message = {**message, "body": b""}
        await send(message)

    return headers_only


def is_api(path: str) -> bool:
    """Whether `path` is the REST API's (its answers are JSON), not the inbox's pages."""
    return path == "/api" or path.startswith("/api/")


def page_policy(nonce: str | None = None) -> str:
    """The Content-Security-Policy of an answer of the inbox's (not the API's): a page's own inline
    script and style run only as they carry `nonce`, this answer's alone (`Pages.render` makes a
    fresh one for each: inline event handlers, ``style`` attributes and ``javascript:`` links run
    under no nonce, and no page has them); an answer with no nonce runs no script and no style.
    Nothing is loaded from elsewhere (a style cannot fetch anything either), nothing sent
    elsewhere (fetch, forms), no frame around them, no <base> to reroute their links."""
    own = f"'nonce-{nonce}'" if nonce else "'none'"
    return (f"default-src 'none'; script-src {own}; style-src {own}; img-src 'self' data:; "
            "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")


def security_headers(path: str) -> dict[str, str]:
    """The headers every answer to `path` carries (unless its route set one itself): no
    sniffing, no frame around it, no referrer to other sites, no copy kept (a decision's page
    nor the API's answers), and a Content-Security-Policy (`API_POLICY`, or `page_policy()`
    with no nonce: a page rendered from a template sets its own, naming its nonce)."""
    return {"x-content-type-options": "nosniff", "x-frame-options": "DENY",
            "referrer-policy": "same-origin", "cache-control": "no-store",
            "content-security-policy": API_POLICY if is_api(path) else page_policy()}


def _back(path: str) -> str:
    """Where the page refusing a form posted to `path` leads back to: the form's page (the path
    before the verb), when it is a path on this site, else the inbox. A path beginning ``//`` or
    ``/\\`` is another site's to a browser, as is one a browser makes so by dropping a tab or a
    newline; the path is sent percent-encoded (it came decoded)."""
    page, _, verb = path.rpartition("/")
    if verb not in _FORM_VERBS or not page.startswith("/") or page.startswith("//") or any(
            c == "\\" or c < " " or c == "\x7f" for c in page):  # (a backslash anywhere: "/\\")
        return "/"
    return quote(page)


async def _answer(send: Send, path: str, problem: ProblemError, *, as_json: bool = True
                  ) -> None:
    """Answer with `problem` (the body is never read): as the API's problems read (for the API,
    or a program asking an inbox's address for JSON: `as_json`), or, for a form of the inbox's,
    as a page that says it and leads back to the form's page (a browser showed the JSON)."""
    if as_json:
        body = Problem(type=problem.type, title=title_of(problem.status), status=problem.status,
                       detail=problem.detail, instance=instance_of(path), **problem.extra)
        payload = json.dumps(body.model_dump(mode="json")).encode()
        kind = MEDIA_TYPE
    else:
        payload = (f'<!doctype html><html lang="en"><meta charset="utf-8"><title>'
                   f"{escape(title_of(problem.status))}</title><p>{escape(problem.detail)}</p>"
                   f'<p><a href="{escape(_back(path))}">Back</a></p></html>').encode()
        kind = "text/html; charset=utf-8"
    given = {**security_headers(path), **{k.lower(): v for k, v in problem.headers.items()},
             "content-type": kind, "content-length": str(len(payload)), "connection": "close"}
    headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in given.items()]
    await send({"type": "http.response.start", "status": problem.status, "headers": headers})
    await send({"type": "http.response.body", "body": payload})
