"""Serving an MCP server over stdio or streamable HTTP, with signoff's bearer tokens over HTTP.

Over HTTP every request carries ``Authorization: Bearer so_…``, a client's token (from ``signoff
users token HANDLE --client``); a request without a valid one is answered 401 before MCP sees
it, one with a person's own token 403 (a client holding it could approve what it proposed), each
in a sentence saying what to do that the SDK's client shows its caller (a JSON-RPC error); and
the calls of a connection act for the token's person. The inbox and the REST API can be served beside MCP (at
``/`` and ``/api``, MCP at ``/mcp``), so that what a call proposes is decided in the process that
can run it.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from signoff.app import App
from signoff.exceptions import NotAuthorized
from signoff.security.credentials import TokenPurpose
from signoff.security.principals import Principal

if TYPE_CHECKING:
    from signoff.mcp.served import ServedAgent

__all__ = ["ISSUING", "BearerGate", "PersonsToken", "StdinLines", "bearer_person", "gated_person",
           "http_app", "serve_http", "serve_stdio"]

_PERSON = "signoff.person"
"""Where a `BearerGate` keeps the person of a request, in its ASGI scope's state."""

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


ISSUING = "signoff users token HANDLE --client"
"""The command that gives a person a client's token, as the documentation names it: told with a
401 or 403 (in backticks) unless the server is told how it was run (``signoff mcp serve`` says
its own)."""


class PersonsToken(NotAuthorized):
    """A person's own token, sent to an MCP endpoint: it is refused (403), as a client holding
    it could say yes to what it proposed."""


def bearer_person(app: App, headers: Mapping[str, str], *,
                  issuing: str = ISSUING) -> Principal:
    """The person whose client token the request carries; `PersonsToken` for a person's own
    token, `NotAuthorized` for none or one that does not work (each naming `issuing`, the
    command that gives a client's token for this server)."""
    scheme, _, token = headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise NotAuthorized("Send a signoff client token: Authorization: Bearer so_… (from "
                            f"`{issuing}`).")
    token = token.strip()
    person = app.credentials.principal_for_token(token, purpose=TokenPurpose.CLIENT)
    if person is None and app.credentials.purpose_of_token(token) is TokenPurpose.PERSON:
        raise PersonsToken(
            "This is a person's own token, which can decide proposals, and an MCP client must "
            "not hold one: the model's side could say yes to what it proposed. Give the client "
            f"a client token instead, made with `{issuing}`, and keep this one for deciding.")
    if person is None:
        raise NotAuthorized("This token is unknown, revoked or expired, or its owner is "
                            f"disabled: ask for a new one (`{issuing}`).")
    return person


class BearerGate:
    """ASGI middleware: requests under `prefix` without a valid signoff client token are
    refused (401, or 403 for a person's own token: see `_refuse`); the others pass."""

    def __init__(self, inner: ASGIApp, app: App, *, prefix: str = "/mcp",
                 issuing: str = ISSUING) -> None:
        self.inner = inner
        self.app = app
        self.prefix = prefix
        self.issuing = issuing

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not str(scope.get("path", "")).startswith(self.prefix):
            await self.inner(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", [])}
        try:
            person = await self._checked(headers)
        except NotAuthorized as refused:
            await _refuse(send, refused, accept=headers.get("accept", ""))
            return
        scope.setdefault("state", {})[_PERSON] = person  # the request's, checked once
        scope["user"] = _owner(person)
        await self.inner(scope, receive, send)

    async def _checked(self, headers: Mapping[str, str]) -> Principal:
        """The token's person. A SQLite file is read here, on the event loop: the check is one
        read that takes no lock (WAL), and a worker thread's round trip would cost more than
        the read. Any other database is read in a worker thread."""
        if self.app.database.is_sqlite:
            return bearer_person(self.app, headers, issuing=self.issuing)
        import anyio

        return await anyio.to_thread.run_sync(
            lambda: bearer_person(self.app, headers, issuing=self.issuing))


def _owner(person: Principal) -> Any:
    """The SDK's user of a request made with `person`'s client token: the SDK binds each MCP
    session to the user whose request opened it, and answers a request of anyone else that
    names it as for a session that does not exist (404). Without one, a client holding another
    person's session id called tools in it, and ended it."""
    from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
    from mcp.server.auth.provider import AccessToken

    # (the person, not the token: a client given a new token of the same person goes on)
    return AuthenticatedUser(AccessToken(token="", client_id=person.id, scopes=[],
                                         subject=person.id))


async def _refuse(send: Send, refused: NotAuthorized, *, accept: str) -> None:
    """Answer a request whose token `BearerGate` refused: 403 for a person's own token (a good
    token, of the wrong kind), 401 otherwise, saying why and what to do.

    An MCP client is answered in JSON-RPC, the refusal's sentence as the error's message and
    the problem's kind in its data, as ``application/json``: the only answer to a status of 400
    or more that the SDK's streamable HTTP client hands its caller (it reads nothing else of
    the body, and tells every other one as "Server returned an error response"). Any other
    client is answered a problem (``application/problem+json``), as the REST API answers. The
    status is the same for both; an MCP client is one whose Accept names what one must
    (``application/json``, ``text/event-stream``) and no problem."""
    status, title, kind = ((403, "Forbidden", "person-token") if isinstance(refused, PersonsToken)
                           else (401, "Unauthorized", "bad-token"))
    problem: dict[str, Any] = {"type": f"urn:signoff:problem:{kind}", "title": title,
                               "status": status}
    if _speaks_json_rpc(accept):
        from mcp.types import INVALID_REQUEST

        # (id null: the request's body is not read before its token is checked)
        answer: dict[str, Any] = {"jsonrpc": "2.0", "id": None, "error": {
            "code": INVALID_REQUEST, "message": refused.message, "data": problem}}
        content_type = b"application/json"
    else:
        answer, content_type = {**problem, "detail": refused.message}, b"application/problem+json"
    body = json.dumps(answer).encode()
    headers = [(b"content-type", content_type), (b"content-length", str(len(body)).encode()),
               (b"vary", b"accept")]
    if status == 401:
        headers.append((b"www-authenticate", b'Bearer realm="signoff"'))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _speaks_json_rpc(accept: str) -> bool:
    """Whether a request with this Accept header is an MCP client's, which reads a refusal as
    JSON-RPC: it names ``application/json`` or ``text/event-stream`` (a streamable HTTP client
    names both), and not ``application/problem+json``."""
    named = {kind.partition(";")[0].strip().lower() for kind in accept.split(",")}
    return "application/problem+json" not in named and bool(
        named & {"application/json", "text/event-stream"})


def gated_person(scope: Mapping[str, Any]) -> Principal | None:
    """The person a `BearerGate` found for an HTTP request, by its ASGI scope (None: it
    passed no gate)."""
    found = scope.get("state", {}).get(_PERSON)
    return found if isinstance(found, Principal) else None


IDLE_SECONDS = 1800.0
"""How long an MCP session over HTTP is kept with no request under way (the SDK's own default):
then the SDK forgets it, and its tasks end as when the client ends it."""


def http_app(server: ServedAgent, app: App, *, host: str, inbox: bool = False,
             idle_seconds: float = IDLE_SECONDS) -> ASGIApp:
    """The ASGI app serving `server` at ``/mcp`` behind signoff's tokens, and `app`'s inbox and
    REST API beside it when `inbox` (a session left with no request under way for
    `idle_seconds` ends: see `IDLE_SECONDS`)."""
    mcp_app = _ending_sessions(server, _parse_errors_in_words(_members_once(
        server.streamable_http_app(host=host, session_idle_timeout=idle_seconds))), idle_seconds)
    if not inbox:
        return BearerGate(mcp_app, app, issuing=server.issuing)
    from signoff.web import create_web_app

    # Served on loopback over plain http as often as behind a proxy speaking https: its cookies
    # are Secure when a request came over https (to it, or to the proxy, which says so).
    web = create_web_app(app, secure_cookies=False)

    async def both(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan" or str(scope.get("path", "")).startswith("/mcp"):
            await mcp_app(scope, receive, send)
        else:
            await web(scope, receive, send)

    return BearerGate(both, app, issuing=server.issuing)


_UNPARSED = ("Parse error: the request's body is not JSON, or is nested too deep to read. Send "
             "one JSON-RPC message, a JSON object, as the body of the POST.")
"""What a client is told of a body the SDK could not parse (it says "Parse error", and no more)."""


def _parse_errors_in_words(inner: ASGIApp) -> ASGIApp:
    """`inner`, its answer to a body that is no JSON (the SDK's 400, "Parse error") saying what
    is wrong and what to send (`_UNPARSED`). Only a 400's body is looked at: no other answer
    is held back."""

    async def answering(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await inner(scope, receive, send)
            return
        held: list[MutableMapping[str, Any]] = []

        async def sending(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start" and message.get("status") == 400:
                held.append(message)
                return
            if not held or message["type"] != "http.response.body":
                await send(message)
                return
            held.append(message)
            if message.get("more_body"):
                return
            start, *parts = held
            held.clear()
            body = b"".join(part.get("body", b"") for part in parts)
            told = _told_unparsed(body)
            if told is not None:
                body = told
                start = {**start, "headers": [
                    (key, str(len(body)).encode() if key.lower() == b"content-length" else value)
                    for key, value in start.get("headers", [])]}
            await send(start)
            await send({"type": "http.response.body", "body": body})

        await inner(scope, receive, sending)

    return answering


def _members_once(inner: ASGIApp) -> ASGIApp:
    """`inner`, a POST whose body gives a member twice in one object refused before the SDK
    reads it (its parser keeps the last value given: a call's ``"price": 1, "price": 2`` ran at
    2): answered 400 with the JSON-RPC error saying which member and where
    (`given_twice_error`), as the SDK answers params that do not fit. The body is read whole
    here, as the SDK reads it, and handed on as it came."""

    async def reading(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST":
            await inner(scope, receive, send)
            return
        came: list[MutableMapping[str, Any]] = []
        while True:
            message = await receive()
            came.append(message)
            if message["type"] != "http.request" or not message.get("more_body"):
                break
        from signoff.mcp.params import given_twice_error

        body = b"".join(m.get("body", b"") for m in came if m["type"] == "http.request")
        error = given_twice_error(body) if came[-1]["type"] == "http.request" else None
        if error is not None:
            answer = error.model_dump(mode="json", by_alias=True, exclude_none=True)
            answer["id"] = error.id  # (null when none could be read: JSON-RPC says it so)
            told = json.dumps(answer).encode()
            await send({"type": "http.response.start", "status": 400, "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(told)).encode())]})
            await send({"type": "http.response.body", "body": told})
            return

        async def again() -> MutableMapping[str, Any]:
            return came.pop(0) if came else await receive()

        await inner(scope, again, send)

    return reading


def _told_unparsed(body: bytes) -> bytes | None:
    """`body` (a 400's) with `_UNPARSED` as its error's message when it is the SDK's answer to a
    body that is no JSON; else None."""
    from mcp.types import PARSE_ERROR

    try:
        answer = json.loads(body)
    except ValueError:
        return None
    error = answer.get("error") if isinstance(answer, dict) else None
    if not isinstance(error, dict) or error.get("code") != PARSE_ERROR:
        return None
    return json.dumps({**answer, "error": {**error, "message": _UNPARSED}}).encode()


@dataclass(kw_only=True)
class _Open:
    """An MCP session the server gave a client over HTTP, as `_ending_sessions` sees it."""

    person: Principal | None
    going: int = 0
    """Its requests under way (a stream kept open counts)."""
    since: float
    """When its last request ended, or it opened (`time.monotonic`)."""


_IDLE_MARGIN = 1.0
"""How much longer than the SDK's idle timeout a session is seen idle before its tasks end: the
SDK has forgotten it by then."""


def _ending_sessions(server: ServedAgent, inner: ASGIApp, idle_seconds: float) -> ASGIApp:
    """`inner`, telling `server` of each MCP session a client closed (its DELETE answered), of
    each the SDK forgot once it was left idle for `idle_seconds` (a client that went without
    ending it: told once a later request comes, which sees it idle that long), and of every
    session still open when the server stops (its lifespan shuts down)."""
    import time

    import anyio

    opened: dict[str, _Open] = {}

    async def forget_idle() -> None:
        now = time.monotonic()
        idle = [key for key, seen in opened.items()
                if not seen.going and now - seen.since > idle_seconds + _IDLE_MARGIN]
        for key in idle:
            seen = opened.pop(key)
            with anyio.CancelScope(shield=True):
                await server.session_closed(key, seen.person)

    async def ending(scope: Scope, receive: Receive, send: Send) -> None:
        answered: list[int] = []
        given: list[str] = []

        async def sending(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                answered.append(int(message["status"]))
                named = dict(message.get("headers", [])).get(b"mcp-session-id")
                if named:
                    given.append(named.decode("latin-1"))
            await send(message)

        async def receiving() -> MutableMapping[str, Any]:
            message = await receive()
            if message["type"] == "lifespan.shutdown":
                with anyio.CancelScope(shield=True):
                    await server.close_sessions()
            return message

        if scope["type"] == "lifespan":
            await inner(scope, receiving, send)
            return
        if scope["type"] != "http":
            await inner(scope, receive, send)
            return
        asked = dict(scope.get("headers", [])).get(b"mcp-session-id")
        session = asked.decode("latin-1") if asked else None
        person = gated_person(scope)
        seen = opened.get(session) if session else None
        if seen is not None and (seen.person and seen.person.id) != (person and person.id):
            seen = None  # (another person's request, refused as for no such session)
        if seen is not None:
            seen.going += 1
        try:
            await inner(scope, receive, sending)
        finally:
            if seen is not None:
                seen.going -= 1
                if not answered or answered[0] != 404:  # (a 404: the SDK has forgotten it)
                    seen.since = time.monotonic()
        if session is None and given and answered and answered[0] < 300:
            opened[given[0]] = _Open(person=person, since=time.monotonic())
        if scope.get("method") == "DELETE" and session and answered and answered[0] < 300:
            opened.pop(session, None)
            await server.session_closed(session, person)
        await forget_idle()

    return ending


async def serve_stdio(server: ServedAgent, *, signals: bool = False) -> None:
    """Serve `server` on this process's stdin and stdout; its client's session ends with
    them, or when the task serving it is cancelled (see `StdinLines`). Given `signals` (when
    nothing else in the process listens for them), SIGTERM and SIGHUP stop it as a client
    that leaves does: what is open is answered first (`ServedAgent.wind_down`), and the
    session's tasks end (the default action ended the process there, its tasks left Running
    or Waiting for good)."""
    import anyio
    from mcp.server.stdio import stdio_server

    lines = StdinLines()
    try:
        async with anyio.create_task_group() as group:
            if signals:  # (its cancel stops the stdio server too: stdin is never read to its end)
                group.start_soon(_stopped_by_signal, server, group.cancel_scope)
            async with stdio_server(stdin=lines) as (read, write):  # type: ignore[arg-type]
                lines.answer = write.send
                await server.serve_streams(read, write)
            group.cancel_scope.cancel()  # the client went
    finally:
        with anyio.CancelScope(shield=True):
            await server.close_sessions()


async def _stopped_by_signal(server: ServedAgent, serving: Any) -> None:
    """Wait for SIGTERM or SIGHUP; then answer what is open, and stop `serving` (a cancel
    scope)."""
    import signal

    import anyio

    with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGHUP) as received:
        async for _ in received:
            await server.wind_down()
            serving.cancel()
            return


class StdinLines:
    """The client's lines on this process's stdin, read by a daemon thread of their own.

    A read of a pipe cannot be interrupted: the SDK's own reader waits for the next line in a
    worker thread that its task waits for, so a server told to stop (a signal, through the
    inbox beside it) would wait for its client's next line, and the process for the thread. Here
    the task only waits for a queue, and the thread dies with the process. As the SDK does, fd 0
    then reads the null device, so that a child process cannot take the client's lines."""

    def __init__(self) -> None:
        import os
        import threading

        import anyio

        private = os.dup(0)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        # (bytes, each line decoded as it is taken: a line that is no UTF-8 is refused whole,
        # where reading it as text with errors replaced kept a note's \xff as U+FFFD)
        self._file = os.fdopen(private, "rb")
        self._send, self._receive = anyio.create_memory_object_stream[bytes](16)
        threading.Thread(target=self._read, args=(anyio.lowlevel.current_token(),),
                         name="signoff-stdin", daemon=True).start()

    def _read(self, token: Any) -> None:
        import anyio

        try:
            while line := self._file.readline():
                anyio.from_thread.run(self._send.send, line, token=token)
        except Exception:  # the event loop is gone, or nobody reads any more: stop reading
            return
        try:
            anyio.from_thread.run_sync(self._send.close, token=token)
        except Exception:  # the event loop is gone
            return

    answer: Callable[[Any], Awaitable[None]] | None = None
    """Sends a message to the client (the stdio server's write stream): a line that is no
    JSON-RPC message is answered with an error here, since the SDK leaves it unanswered and the
    client waiting until its own timeout."""

    def __aiter__(self) -> StdinLines:
        return self

    async def __anext__(self) -> str:
        import anyio

        while True:
            try:
                given = await self._receive.receive()
            except anyio.EndOfStream:
                raise StopAsyncIteration from None
            try:
                line = given.decode("utf-8")
            except UnicodeDecodeError as error:
                if self.answer is None:  # (nobody to tell: the SDK reads no message of it)
                    continue
                await self.answer(_not_utf8(given, error))
                continue
            refusal = _unreadable(line) if self.answer is not None and line.strip() else None
            if refusal is None or self.answer is None:
                return line
            await self.answer(refusal)


def _not_utf8(line: bytes, error: UnicodeDecodeError) -> Any:
    """The parse error (-32700) answering a line that is no UTF-8 text, saying where; with the
    request's id, when one can be read in it."""
    from mcp.shared.message import SessionMessage
    from mcp.types import PARSE_ERROR, ErrorData, JSONRPCError

    try:
        found = json.loads(line.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        found = None
    ident = found.get("id") if isinstance(found, dict) else None
    if isinstance(ident, bool) or not isinstance(ident, (int, str)):
        ident = None
    said = (f"Parse error: the line is not UTF-8 text (its byte 0x{line[error.start]:02x}, at "
            f"offset {error.start:,}, is no character of it). Send each message as JSON in "
            "UTF-8. Nothing was done.")
    return SessionMessage(JSONRPCError(jsonrpc="2.0", id=ident,
                                       error=ErrorData(code=PARSE_ERROR, message=said)))


def _unreadable(line: str) -> Any:
    """The error that answers a line that is no JSON-RPC message (-32700 when it is not JSON,
    else -32600, with the request's id when it has one that can be read), or one giving a
    member twice in one object (`given_twice_error`), or None."""
    from mcp.shared.message import SessionMessage
    from mcp.types import (
        INVALID_REQUEST,
        PARSE_ERROR,
        ErrorData,
        JSONRPCError,
        JSONRPCNotification,
        jsonrpc_message_adapter,
    )

    from signoff.mcp.params import given_twice_error

    twice = given_twice_error(line)
    if twice is not None:
        return SessionMessage(twice)
    try:
        message = jsonrpc_message_adapter.validate_json(line, by_name=False)
    except Exception as error:  # what the SDK's reader would find, and leave unanswered
        problem: Exception | None = error
    else:
        # A request whose id is of no kind JSON-RPC takes (9.5, true) reads as a notification,
        # which nobody answers.
        if not isinstance(message, JSONRPCNotification) or '"id"' not in line:
            return None
        problem = None
    try:
        found = json.loads(line)
    except RecursionError:
        found, code, said = None, PARSE_ERROR, "Parse error: the line is nested too deep to read."
    except ValueError:
        found, code, said = None, PARSE_ERROR, "Parse error: the line is not JSON."
    else:
        code = INVALID_REQUEST
        if problem is None and not (isinstance(found, dict) and "id" in found):
            return None  # (a notification whose text holds "id" elsewhere)
        said = ("Invalid request: a line holds one JSON-RPC message, an object (a batch is not "
                "taken)." if isinstance(found, list) else
                "Invalid request: a line holds one JSON-RPC message, an object, not "
                f"{_KINDS.get(type(found), 'null')}."
                if not isinstance(found, dict) else
                "Invalid request: a request's id is a whole number or a text." if problem is None
                else "Invalid request: it is not a JSON-RPC message this server can read ("
                f"{_first_problem(problem, found)}).")
    ident = found.get("id") if isinstance(found, dict) else None
    if isinstance(ident, bool) or not isinstance(ident, (int, str)):
        ident = None
    return SessionMessage(JSONRPCError(jsonrpc="2.0", id=ident,
                                       error=ErrorData(code=code, message=said)))


_KINDS = {bool: "true or false", int: "a number", float: "a number", str: "a text"}
"""What JSON a line that is no object holds, in words."""


def _first_problem(error: Exception, message: dict[str, Any]) -> str:
    """The first thing pydantic found wrong with `message`, in a few words: as the kind of
    message it reads as (a request when it has a method and an id, a notification when it has
    a method alone, else an answer), not as each kind it was tried as."""
    from pydantic import ValidationError

    if not isinstance(error, ValidationError) or not error.errors():
        return type(error).__name__
    kind = ("JSONRPCRequest" if "id" in message else "JSONRPCNotification") if (
        "method" in message) else ("JSONRPCError" if "error" in message else "JSONRPCResponse")
    problems = error.errors()
    first = next((p for p in problems if p["loc"][:1] == (kind,)), problems[0])
    where = ".".join(str(p) for p in first["loc"][1:] if first["loc"][:1] == (kind,)) or (
        ".".join(str(p) for p in first["loc"]))
    return f"{where}: {first['msg']}" if where else str(first["msg"])


GRACE_SECONDS = 10
"""How long a stopping server waits for the requests under way before it cancels them."""


async def serve_http(target: ASGIApp, *, host: str, port: int,
                     started: Callable[[], None] | None = None,
                     stopping: Callable[[], Awaitable[None]] | None = None,
                     stop: Any = None) -> None:
    """Serve an ASGI app with uvicorn until it is stopped: by a signal, or by `stop` (an
    `anyio.Event`) being set (`started`: called once it listens; `stopping`: awaited as soon as
    it is told to stop, before it closes the connections and waits for the requests under way,
    at most `GRACE_SECONDS`)."""
    import signal

    import anyio
    import uvicorn

    class Server(uvicorn.Server):
        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets)
            if self.started and started is not None:
                started()

        async def shutdown(self, sockets: Any = None) -> None:
            if stopping is not None:
                await stopping()
            await super().shutdown(sockets)

        def handle_exit(self, sig: int, frame: Any) -> None:
            # Stop as told, without raising the signal again once stopped (uvicorn's way, which
            # would end the process before the caller closes what it opened: the upstreams).
            if self.should_exit and sig == signal.SIGINT:
                self.force_exit = True
            else:
                self.should_exit = True

    # No access log: over stdio, stdout is the MCP stream. No proxy's headers either: served
    # as it is, a client on this machine could name itself any address (the login form counts
    # wrong passwords by address).
    config = uvicorn.Config(target, host=host, port=port, log_level="warning", lifespan="on",
                            access_log=False, timeout_graceful_shutdown=GRACE_SECONDS,
                            proxy_headers=False)
    server = Server(config)
    async with anyio.create_task_group() as group:
        if stop is not None:

            async def stop_when_told() -> None:
                await stop.wait()
                server.should_exit = True  # its own way to stop: no task cancelled under it

            group.start_soon(stop_when_told)
        await server.serve()
        group.cancel_scope.cancel()
