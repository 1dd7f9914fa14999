"""The guard's connections to the MCP servers it stands in front of.

One SDK client per upstream, opened when the guard starts (and again when a call finds it
broken, its server stopped): a command
started over stdio (with only the environment the config gives it), or a URL over streamable
HTTP with the guard's own headers from the config. Nothing of a connecting client — its token
above all — is ever passed on. Calls made from worker threads (the agent's loop, an approval in
the inbox) are run on the guard's event loop.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import hashlib
import json
import logging
import math
import time
from collections.abc import Callable, Coroutine
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.abc
from mcp import Client, StdioServerParameters
from mcp.client.session import MessageHandlerFnT
from mcp.client.subscriptions import ListenNotSupportedError
from mcp.shared.exceptions import MCPError
from mcp.types import (
    CONNECTION_CLOSED,
    REQUEST_TIMEOUT,
    CallToolResult,
    Tool,
    ToolListChangedNotification,
)

from signoff.exceptions import SignoffError
from signoff.mcp.config import GuardConfig, Upstream

__all__ = [
    "CALL_TIMEOUT_SECONDS",
    "ServerUnreachable",
    "UpstreamError",
    "UpstreamUnavailable",
    "Upstreams",
    "digest_of",
]

log = logging.getLogger("signoff.mcp")

CALL_TIMEOUT_SECONDS = 300.0
"""How long one upstream call may take before the guard gives up on it."""
CONNECT_TIMEOUT_SECONDS = 30.0
"""How long a server may take to be started (or reached) and answer MCP's handshake before the
guard takes it for unreachable (one that starts and never answers would hold the guard up)."""

LIST_NOW_SECONDS = 10.0
"""How long a server may take to list its tools as a call of one of them is checked against what
it says of it now, as it is proposed or shown in the inbox."""
LIST_IN_CLAIM_SECONDS = 2.0
"""How long a server may take to list its tools as a yes to a call of one of them is claimed:
the claim holds the database's write lock meanwhile (on SQLite every other writer waits on it),
so a server that has not listed them by then has the call found stale, never run unseen."""
LISTED_FRESH_SECONDS = 2.0
"""How long what a server listed is taken for what it lists now by a proposal or a look at the
inbox (a yes being claimed asks again, whatever the age; a server that says its list changed is
asked again at once): an inbox page showing many proposals of one server's tools asks it once."""

_LISTEN_AGAIN_SECONDS = 5.0
"""How long the guard waits to open a server's stream of changes again once it is lost."""

_STOPPING = ("The guard is stopping, so nothing was sent to {server} and nothing ran there: "
             "try again once the guard is back.")


def digest_of(tool: Tool) -> str:
    """A digest of what a tool says of itself: description, schemas, title, annotations. A
    change to any of them is a change to the tool."""
    text = json.dumps({
        "description": tool.description or "", "title": tool.title or "",
        "input": tool.input_schema, "output": tool.output_schema,
        "annotations": tool.annotations.model_dump(mode="json") if tool.annotations else None,
    }, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


class UpstreamUnavailable(Exception):
    """An upstream could not take a call: it cannot be reached, or its connection broke while
    the call was out. The message says which server, what is known of the call, and what to
    do; `sent`, whether the call was sent (then whether it ran there is not known). The
    guard's action raises it on as `Unavailable` when it was not sent, else `OutcomeUnknown`."""

    def __init__(self, message: str, *, sent: bool = False) -> None:
        super().__init__(message)
        self.sent = sent


class UpstreamError(Exception):
    """An upstream answered a call with a JSON-RPC error: the server was reached, and refused
    the call or failed it. `code` is the error's code (`INVALID_PARAMS`: the arguments were
    wrong), the message the server's own words. The guard's action raises it on as `NotFound`
    when the server says it has no such tool, as `Invalid` when the arguments were wrong, else
    as `Failed`, quoting the server."""

    def __init__(self, message: str, *, code: int) -> None:
        super().__init__(message)
        self.code = code
        """The JSON-RPC error's code."""


class ServerUnreachable(SignoffError):
    """The guard could not reach some of its servers as it opened: the message says which, and
    why; `servers` are their names. Like a database that cannot be used, it is something that
    could not be done (the command line's exit 5), not a misuse."""

    def __init__(self, message: str, *, servers: tuple[str, ...]) -> None:
        super().__init__(message)
        self.servers = servers


@dataclass(kw_only=True)
class _Link:
    """One upstream's connection, opened and closed by a task of its own (a connection's tasks
    must end in the task that began them), which opens it again when it is found lost and a
    call wants it."""

    client: Client | None = None
    """The open connection; None while there is none."""
    error: str = ""
    """Why the last attempt to connect failed."""
    lost: anyio.Event = field(default_factory=anyio.Event)
    """Set by whoever finds the connection closed: its task then closes it."""
    wanted: anyio.Event = field(default_factory=anyio.Event)
    """Set by a call that finds no connection: its task then tries again."""
    tried: anyio.Event = field(default_factory=anyio.Event)
    """Set when the attempt under way has ended, connected or not."""


class Upstreams:
    """The connections to every upstream server, and their tools as last listed. A connection
    that breaks (its server stopped) is opened again by the next call that needs it."""

    def __init__(self, config: GuardConfig) -> None:
        self.servers = {s.name: s for s in config.servers}
        self.tools: dict[str, dict[str, Tool]] = {}
        """Each server's tools, by name, as it last listed them."""
        self.unlisted: dict[str, str] = {}
        """Why each server whose tools the last listing could not read could not be listed."""
        self._links: dict[str, _Link] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._out: dict[asyncio.Task[Any], str] = {}
        """The calls out now, each with its server."""
        self._garbled: set[asyncio.Task[Any]] = set()
        """The calls cut because their server answered a call with what is no JSON-RPC
        message."""
        self._stopping = False
        self.changed: Callable[[str], Coroutine[Any, Any, None]] | None = None
        """Run (in a task of its own) when a server says its list of tools changed."""
        self._group: anyio.abc.TaskGroup | None = None
        self._changing: dict[str, bool] = {}
        """The servers whose change `changed` is taking now, each with whether it said its
        list changed again meanwhile."""
        self._latest: dict[str, tuple[float, dict[str, Tool]]] = {}
        """What each server listed last, with when (``time.monotonic``): see
        `LISTED_FRESH_SECONDS`."""

    async def open(self, stack: AsyncExitStack) -> None:
        """Connect to every server (closed with `stack`) and list its tools; a server that
        cannot be reached now is a `ServerUnreachable`."""
        self._loop = asyncio.get_running_loop()
        group = await stack.enter_async_context(anyio.create_task_group())
        stack.callback(group.cancel_scope.cancel)  # run first: the connections' tasks end
        self._group = group
        missed: dict[str, str] = {}
        for server in self.servers.values():
            link = self._links[server.name] = _Link()
            tried = link.tried
            group.start_soon(self._keep, server, link)
            await tried.wait()
            if link.client is None:
                missed[server.name] = f"{server.name} ({_where(server)}): {link.error}"
        if missed:
            which = "the server" if len(missed) == 1 else "the servers"
            raise ServerUnreachable(
                f"The guard could not reach {which} {'; '.join(missed.values())}. It does not try "
                "again by itself: check each one's command or url in the config and the env a "
                "command needs (a server the guard starts sees only its env, beside a few basics "
                "such as PATH and HOME), see that each one it reaches by url is running, then "
                "try again.", servers=tuple(missed))
        await self.refresh()
        unlisted = {name: why for name, why in self.unlisted.items() if name not in self.tools}
        if unlisted:
            which = "the server" if len(unlisted) == 1 else "the servers"
            raise ServerUnreachable(
                f"The guard reached {which} "
                f"{'; '.join(f'{n} ({_where(self.servers[n])}): {w}' for n, w in unlisted.items())}"
                " — so it cannot say which tools it guards. It does not try again by itself: "
                "see to the server, then try again.", servers=tuple(unlisted))

    async def _keep(self, server: Upstream, link: _Link) -> None:
        """Keep `server`'s connection: open it, hold it until it is found lost, then wait until
        a call wants it to open it again. Whoever waits on an attempt is woken however it ends,
        cancelled included (the guard stops)."""
        while True:
            tried = link.tried
            link.wanted = anyio.Event()
            try:
                # The handshake has `CONNECT_TIMEOUT_SECONDS`; the connection, once made, none.
                # (Cut off, the SDK ends a server it started, with all it started.)
                with anyio.CancelScope(deadline=anyio.current_time() + CONNECT_TIMEOUT_SECONDS
                                       ) as handshake:
                    async with AsyncExitStack() as own:
                        link.client = await own.enter_async_context(
                            await self._client(server, own))
                        handshake.deadline = math.inf
                        link.error = ""
                        self._latest.pop(server.name, None)  # (connected again: asked again)
                        link.tried = anyio.Event()
                        tried.set()
                        async with anyio.create_task_group() as listening:
                            listening.start_soon(self._listen, server.name, link.client)
                            await link.lost.wait()
                            listening.cancel_scope.cancel()
                if handshake.cancelled_caught:
                    link.error = (f"it did not answer MCP's handshake within "
                                  f"{CONNECT_TIMEOUT_SECONDS:g} seconds")
            except Exception as error:  # the SDK's and the OS's errors, kept as a phrase
                link.error = _phrase(error)
            finally:
                link.client = None
                if not tried.is_set():
                    link.error = link.error or "the guard is stopping"
                    link.tried = anyio.Event()
                    tried.set()
            link.lost = anyio.Event()
            await link.wanted.wait()

    async def _listen(self, server: str, client: Client) -> None:
        """Hear `server` say its list of tools changed, for as long as its connection lasts (a
        ``subscriptions/listen`` stream; a server of an earlier protocol says it in a
        notification, which `_heard` takes). A stream lost (an HTTP read timing out) is opened
        again, its server taken to have changed meanwhile (nothing said while none was open is
        told again). One that does not tell of changes is asked at each listing, as ever."""
        lost = False
        while True:
            try:
                async with client.listen(tools_list_changed=True) as heard:
                    if not heard.honored.tools_list_changed:
                        return
                    if lost:
                        self.list_changed(server)
                    async for _ in heard:
                        self.list_changed(server)
                return  # (ended by the server: it tells no more)
            except (ListenNotSupportedError, MCPError):
                return  # (an earlier protocol's, heard by `_heard`; or refused, or closed)
            except Exception as error:  # the SDK's and the transport's
                log.info("The guard's stream of %s's changes was lost, and is opened again: %s",
                         server, _phrase(error))
            if _closed(client):
                return
            lost = True
            await anyio.sleep(_LISTEN_AGAIN_SECONDS)

    def list_changed(self, server: str) -> None:
        """`server` said its list of tools changed: what it listed is not taken for what it
        lists now, and `changed` (the guard's) is run, to list it again — once at a time for a
        server: said again meanwhile, it is run once more after (a server saying it a thousand
        times at once had it listed a thousand times, each of the guard's clients told each)."""
        self.forget_listing(server)
        if self.changed is None or self._group is None or self._stopping:
            return
        if server in self._changing:
            self._changing[server] = True
            return
        self._changing[server] = False
        self._group.start_soon(self._take_changes, server, self.changed)

    async def _take_changes(self, server: str,
                            changed: Callable[[str], Coroutine[Any, Any, None]]) -> None:
        try:
            while True:
                await changed(server)
                if not self._changing.get(server):
                    return
                self._changing[server] = False
        finally:
            self._changing.pop(server, None)

    async def _client(self, server: Upstream, stack: AsyncExitStack) -> Client:
        if server.command:
            return Client(StdioServerParameters(command=server.command, args=list(server.args),
                                                env=server.env or None, cwd=server.cwd),
                          cache=None, message_handler=self._heard(server.name))
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        http = await stack.enter_async_context(httpx2.AsyncClient(
            headers=server.headers, timeout=httpx2.Timeout(30, read=CALL_TIMEOUT_SECONDS)))
        return Client(streamable_http_client(server.url, http_client=http), cache=None,
                      message_handler=self._heard(server.name))

    def is_connected(self, server: str) -> bool:
        """Whether the guard holds an open connection to `server` now (as far as it knows: a
        server that stopped a moment ago may not be noticed yet)."""
        link = self._links.get(server)
        return link is not None and link.client is not None and not link.lost.is_set() and (
            not _closed(link.client))

    async def _connection(self, server: str) -> tuple[Client, anyio.Event]:
        """`server`'s open connection, opened again if it was lost, and the event that marks it
        lost; else `UpstreamUnavailable`."""
        link = self._links[server]
        if link.client is not None and _closed(link.client):
            link.lost.set()  # its server stopped since: nothing is sent on it
        if link.client is None or link.lost.is_set():  # none, or one found lost and closing
            tried = link.tried
            link.wanted.set()
            await tried.wait()
        if link.client is None:
            # What went wrong, and where the server is, are the guard's to know: the log's.
            log.warning("The guard could not reach the server %s (%s): %s", server,
                        _where(self.servers[server]), link.error or "its connection closed")
            # One sentence, for a model and a person alike: a yes to a call of it is not used
            # up, and whoever said it is told this too.
            raise UpstreamUnavailable(
                f"The server {server} cannot be reached now, so nothing was sent to it and "
                "nothing ran there: try again later, as the guard tries to reach it again at "
                "each call.")
        return link.client, link.lost

    async def refresh(self, *only: str) -> dict[str, dict[str, Tool]]:
        """List every server's tools again (or `only` those named); what each lists now. A
        server that cannot be listed keeps the tools it listed before, and the log says why."""
        for name in only or list(self._links):
            try:
                self.tools[name] = await self._listing(name)
            except (UpstreamUnavailable, MCPError, _Unlisted) as error:
                self.unlisted[name] = str(error)
                log.warning("The guard could not list the tools of %s, and offers those it "
                            "listed before: %s", name, error)
            else:
                self.unlisted.pop(name, None)
        return self.tools

    async def _listing(self, server: str) -> dict[str, Tool]:
        """What `server` lists now (its connection opened again when it is found closed)."""
        asked = time.monotonic()
        client, lost = await self._connection(server)
        try:
            listed = await _listed(client)
        except MCPError as error:
            if error.code != CONNECTION_CLOSED:
                raise
            lost.set()
            client, lost = await self._connection(server)
            listed = await _listed(client)
        self._latest[server] = (asked, listed)
        return listed

    def forget_listing(self, server: str) -> None:
        """What `server` listed is not taken for what it lists now any more (it said its list
        changed): the next look asks it."""
        self._latest.pop(server, None)

    def listed_now(self, server: str, *, claiming: bool = False) -> dict[str, Tool] | None:
        """What `server` lists now, from a thread other than the guard's event loop, within
        `LIST_NOW_SECONDS` — or, when a yes is `claiming` the call, `LIST_IN_CLAIM_SECONDS`,
        and asked afresh; else what it listed within `LISTED_FRESH_SECONDS` is taken (the tools
        it keeps in `tools` are left as they were: they are what the client was last offered).
        None when it cannot be reached: nothing would be sent to it either.
        `UpstreamUnavailable` when it is reached and does not list its tools (in time, or at
        all): what it says of them now is not known (the log says why)."""
        if self._loop is None or server not in self._links:
            return None
        latest = self._latest.get(server)
        if not claiming and latest is not None and (
                time.monotonic() - latest[0] <= LISTED_FRESH_SECONDS):
            return latest[1]
        with contextlib.suppress(RuntimeError):  # (no loop runs in this thread: it may wait)
            if asyncio.get_running_loop() is self._loop:
                return None  # (waited on here, the listing could never run: the guard's
                # own calls are made from threads, as the loop's and the inbox's are)
        future = asyncio.run_coroutine_threadsafe(self._listing(server), self._loop)
        try:
            return future.result(timeout=LIST_IN_CLAIM_SECONDS if claiming else LIST_NOW_SECONDS)
        except UpstreamUnavailable:
            return None
        except (concurrent.futures.TimeoutError, MCPError, _Unlisted) as error:
            future.cancel()
            log.warning("The guard could not list the tools of %s as it checked a call of one "
                        "of them: %s", server, str(error) or "it did not answer in time")
            raise UpstreamUnavailable(f"The server {server} did not list its tools just now."
                                      ) from None

    async def call(self, server: str, tool: str, arguments: dict[str, Any]) -> CallToolResult:
        """Call one upstream tool with exactly these arguments; `UpstreamUnavailable` when its
        server cannot be reached, when the guard stops, when its connection closed while the
        call was out, or when it answered with what is not a tool result (each saying whether
        it was sent); `UpstreamError` when the server answered with a JSON-RPC error."""
        task = asyncio.current_task()
        if task is not None:
            self._out[task] = server  # from here on, `cut_calls` ends it
        sent, lost, client = False, None, None
        try:
            if self._stopping:
                raise UpstreamUnavailable(_STOPPING.format(server=server))
            client, lost = await self._connection(server)
            if self._stopping:
                raise UpstreamUnavailable(_STOPPING.format(server=server))
            sent = True
            return await client.call_tool(tool, arguments,
                                          read_timeout_seconds=CALL_TIMEOUT_SECONDS)
        except MCPError as error:
            if error.code == REQUEST_TIMEOUT:
                raise UpstreamUnavailable(
                    f"The server {server} did not answer the call of {tool} within "
                    f"{CALL_TIMEOUT_SECONDS:g} seconds: whether it ran is not known; look at "
                    "what the tool keeps before calling it again.", sent=True) from None
            if error.code == CONNECTION_CLOSED and (lost is None or _connection_lost(
                    error, client, self.servers[server])):
                if lost is None:
                    raise
                lost.set()
                raise UpstreamUnavailable(
                    f"The connection to the server {server} closed while the call of {tool} "
                    "was out: whether it ran is not known. The guard connects again at the next "
                    "call; look at what the tool keeps before calling it again.",
                    sent=True) from None
            # The server answered the call with an error of its own: its words are told on,
            # whatever else it gave (the error's data) is the log's.
            log.info("The server %s answered the call of %s with the JSON-RPC error %s: %.2000s "
                     "(data: %.2000r)", server, tool, error.code, error.message, error.data)
            raise UpstreamError(error.message, code=error.code) from None
        except asyncio.CancelledError:
            if task in self._garbled:
                raise UpstreamUnavailable(
                    f"The server {server} answered a call with what is not a JSON-RPC message "
                    f"while the call of {tool} was out, so its answer cannot be read: whether it "
                    "ran is not known; look at what the tool keeps before calling it again.",
                    sent=True) from None
            if not self._stopping:
                raise
            if not sent:
                raise UpstreamUnavailable(_STOPPING.format(server=server)) from None
            raise UpstreamUnavailable(
                f"The guard stopped while the call of {tool} on {server} was out: whether it "
                "ran is not known; look at what the tool keeps before calling it again.",
                sent=True) from None
        except Exception as error:
            if not sent:
                raise
            # It was sent, and answered with what is no tool result the SDK can read (no
            # content, structured content its own schema refuses): it may well have run. (The
            # SDK's ValidationError was told as Invalid, "it did not run", and a yes used up.)
            log.warning("The server %s answered the call of %s with what is not a tool result: "
                        "%s", server, tool, error)
            raise UpstreamUnavailable(
                f"The server {server} answered the call of {tool} with what is not a tool result "
                "it can be read as: whether it ran is not known; look at what the tool keeps "
                "before calling it again.", sent=True) from None
        finally:
            if task is not None:
                self._out.pop(task, None)
                self._garbled.discard(task)

    def cut_calls(self) -> None:
        """The guard stops: every call still out ends now, told that whether it ran is not
        known, and no other is sent (on the guard's event loop)."""
        self._stopping = True
        for task in list(self._out):
            task.cancel()

    def _heard(self, server: str) -> MessageHandlerFnT:
        """What `server`'s connection does with what the server sends that is no request or
        notification of its own: an answer to a call that cannot be read (the SDK drops it, and
        the call would wait its whole timeout) cuts the calls out on that server, each told that
        whether it ran is not known (which of them it answered cannot be told). Other lines
        that are no JSON-RPC message (a server's stray output) are left to the log."""

        async def heard(message: Any) -> None:
            if isinstance(message, ToolListChangedNotification):
                self.list_changed(server)
                return
            if not (isinstance(message, Exception) and _unreadable_answer(message)):
                return
            cut = [task for task, on in self._out.items() if on == server]
            log.warning("The server %s answered a call with what is not a JSON-RPC message (%s): "
                        "the %d call(s) out on it are told that whether they ran is not known.",
                        server, message, len(cut))
            for task in cut:
                self._garbled.add(task)
                task.cancel()

        return heard

    def call_from_thread(self, server: str, tool: str, arguments: dict[str, Any]
                         ) -> CallToolResult:
        """`call`, from a thread other than the guard's event loop."""
        if self._loop is None or server not in self._links:
            raise RuntimeError(f"the guard holds no connection to {server} in this process")
        future = asyncio.run_coroutine_threadsafe(self.call(server, tool, arguments), self._loop)
        return future.result(timeout=CALL_TIMEOUT_SECONDS + 5)


def _unreadable_answer(error: Exception) -> bool:
    """Whether `error` (the SDK's, reading what a server sent) is about an answer: a JSON-RPC
    object with an id and a result or an error that is not what the protocol says (a result
    that is a string, or null)."""
    from pydantic import ValidationError

    if not isinstance(error, ValidationError):
        return False
    for problem in error.errors():
        given = problem.get("input")
        if isinstance(given, dict) and "id" in given and ("result" in given or "error" in given):
            return True
    return False


_PAGES_AT_MOST = 1_000
"""The most pages of tools a server's listing is read to (a listing that goes on past them is
taken for one that never ends)."""


class _Unlisted(Exception):
    """A server's tools could not be listed: it did not answer in time, or its pages never
    end. The message says which."""


async def _listed(client: Client) -> dict[str, Tool]:
    """Every tool `client`'s server lists, page after page, by name, within
    `CONNECT_TIMEOUT_SECONDS`; `_Unlisted` when it does not answer by then, or its pages go on
    past `_PAGES_AT_MOST` or come back to a cursor they gave before."""
    listed: dict[str, Tool] = {}
    cursor: str | None = None
    seen: set[str] = set()
    with anyio.move_on_after(CONNECT_TIMEOUT_SECONDS):
        while len(seen) < _PAGES_AT_MOST:
            page = await client.list_tools(cursor=cursor)
            for tool in page.tools:  # (one name listed twice: the listing that says more
                earlier = listed.get(tool.name)  # than reading, whichever came last)
                if earlier is None or not _only_reads(tool) or _only_reads(earlier):
                    listed[tool.name] = tool
            cursor = page.next_cursor
            if not cursor:
                return listed
            if cursor in seen:
                raise _Unlisted(f"its listing of tools came back to a page it gave before "
                                f"(cursor {cursor[:40]!r}), so it never ends")
            seen.add(cursor)
        raise _Unlisted(f"its listing of tools went on past {_PAGES_AT_MOST:,} pages")
    raise _Unlisted(f"it did not list its tools within {CONNECT_TIMEOUT_SECONDS:g} seconds")


def _only_reads(tool: Tool) -> bool:
    """Whether `tool` is listed as one that only reads (its ``readOnlyHint``, and no
    ``destructiveHint`` contradicting it)."""
    hints = tool.annotations
    return bool(hints and hints.read_only_hint and hints.destructive_hint is not True)


_SDK_CLOSED = "Connection closed"
"""What the SDK's client says of a call whose connection closed under it."""


def _connection_lost(error: MCPError, client: Client | None, server: Upstream) -> bool:
    """Whether a call's `CONNECTION_CLOSED` error is the SDK's own, its connection lost (or,
    over HTTP, its answer's stream ended without the answer), rather than the server's own
    JSON-RPC error of that code (-32000, the first of those JSON-RPC leaves to servers, which
    many answer a failure with): such an error is the server's answer to the call, and its
    connection is kept — taken for a lost one, a server started over stdio was stopped and
    started again, every other call out on it told that whether it ran is not known."""
    if client is None or _closed(client) or error.message == _SDK_CLOSED:
        return True
    # (over HTTP the SDK's client says so of a stream that ended without the call's answer)
    return bool(server.url) and error.message.startswith("SSE stream")


def _closed(client: Client) -> bool:
    """Whether `client`'s connection is known to be closed (its server stopped), so that a call
    is not sent on it. The SDK's dispatcher knows, though not in its public API: when it cannot
    be asked, the call finds out, and is told that whether it ran is not known."""
    try:
        dispatcher = client.session._dispatcher
    except Exception:  # not connected, or the SDK keeps it elsewhere
        return False
    return getattr(dispatcher, "_closed", False) is True


def _phrase(error: BaseException) -> str:
    """What went wrong, from the first error a group of them holds (the SDK's task groups wrap
    what the OS said)."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return f"{type(error).__name__}: {error}"


def _where(server: Upstream) -> str:
    return server.url or " ".join([server.command, *server.args])
