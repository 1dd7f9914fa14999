"""The guard: a gateway in front of other MCP servers, serving their tools as one MCP server,
each call gated like an agent's call of an action.

Each upstream tool becomes an action of the guard's own app (``{server}_{tool}``) that calls it
with exactly the arguments given. signoff's analysis sees that call reach the upstream server,
and nothing else (plain data in, plain data out), so it counts the action as reaching outside;
the tool's annotations are hints only: a read-only hint lets it run alone only when the config
trusts its server, and everything else is proposed unless the config says otherwise (and the
client is served the hints only where the guard believes them). What an
upstream answers is outside content (unless the config says ``outside = false`` for its server):
once a session has seen some, a call with an argument it may have steered — or one traced to
nothing, as the guard never sees the person's request — is proposed, whatever the leaves or a
standing rule say, and the proposal says where the argument came from. That holds for tools
hinted read-only too: nothing proves an upstream tool only reads, and a read can carry data out
in its arguments (a fetched link). Proposals, standing rules and receipts are the app's own,
decided in its inbox. When an upstream changes a tool's description or schema, the standing
rules on it are suspended (the person who made each is told what changed, as the rule's reason),
and a yes to a pending proposal of it does not run it (it goes stale). A tool an upstream adds
is offered once the guard lists it, with its leave from the config.
"""

from __future__ import annotations

import contextlib
import difflib
import json
import logging
import re
import threading
import types
import uuid
import weakref
from contextlib import AsyncExitStack
from dataclasses import dataclass
from typing import Annotated, Any

import anyio
from jsonschema import Draft202012Validator  # type: ignore[import-untyped]  # a dependency of mcp
from jsonschema.exceptions import SchemaError  # type: ignore[import-untyped]
from mcp.server.subscriptions import ToolsListChanged
from mcp.types import (
    INVALID_PARAMS,
    CallToolResult,
    ContentBlock,
    TextContent,
    Tool,
    ToolAnnotations,
)
from pydantic import TypeAdapter
from referencing import Registry
from sqlalchemy import String, Text, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, mapped_column

from signoff.actions.declare import ActionFunction, Label, Untrusted
from signoff.agents.agent import Agent
from signoff.agents.labelling import listed_before
from signoff.agents.permits import Leave, Permits
from signoff.agents.rules import StandingRule
from signoff.agents.skills import Skill
from signoff.app import App
from signoff.exceptions import (
    AgentRefused,
    Failed,
    Invalid,
    NotFound,
    OutcomeUnknown,
    Unavailable,
    UserError,
)
from signoff.mcp import results
from signoff.mcp.config import GuardConfig, Upstream
from signoff.mcp.listings import listing_of
from signoff.mcp.patterns import LinearValidator
from signoff.mcp.served import ServedAgent
from signoff.mcp.upstreams import UpstreamError, Upstreams, UpstreamUnavailable, digest_of
from signoff.security.principals import Principal
from signoff.store import points

__all__ = ["AGENT_NAME", "Guard", "GuardedTool", "open_guard", "open_guard_app", "reads_outside"]

log = logging.getLogger("signoff.mcp")

AGENT_NAME = "mcp_guard"
"""The agent whose proposals, rules and receipts are the guard's."""

_BLOCKS = TypeAdapter(list[ContentBlock])
"""What an upstream's answer held beside its text (images, sounds, resources), read back."""

_TOOL_RECORDS: weakref.WeakKeyDictionary[App, Any] = weakref.WeakKeyDictionary()
"""The record class keeping what each upstream tool said of itself, by guard app."""
_DOUBT_RECORDS: weakref.WeakKeyDictionary[App, Any] = weakref.WeakKeyDictionary()
"""The record class keeping the tools whose read-only hint is no longer believed, by guard app."""


@dataclass(frozen=True, kw_only=True)
class GuardedTool:
    """One upstream tool as the guard serves it."""

    action: str
    """The action (and served tool) name: ``{server}_{tool}``."""
    server: Upstream
    """The server it is on."""
    tool: Tool
    """What the server last said of it."""
    leave: Leave
    """Its leave, from the config and (for a trusted server) its read-only hint."""


def open_guard_app(config: GuardConfig) -> App:
    """The guard's own app (its database keeps proposals, rules, receipts, and what each
    upstream tool said of itself), with the config's people made when missing."""
    app = App(config.name, database=config.database)
    for person in config.people:
        if app.people.find(person.handle) is None:
            try:
                app.people.add(person.handle, person.name, roles=list(person.roles))
            except UserError:
                if app.people.find(person.handle) is None:
                    raise
                # (another guard opened on the database at once added them)

    class UpstreamTool(app.Record):  # type: ignore[name-defined, misc]
        """What an upstream tool said of itself when the guard last listed it."""

        __tablename__ = "signoff_mcp_upstream_tools"
        action: Mapped[str] = mapped_column(String(200), unique=True)
        digest: Mapped[str] = mapped_column(String(64))
        description: Mapped[str] = mapped_column(Text, default="")
        __security__: list[Any] = []

    class UpstreamDoubt(app.Record):  # type: ignore[name-defined, misc]
        """A tool listed once as doing more than read: its read-only hint is not believed
        since, by this guard or the next (a tool that said it deletes does not run alone on
        its word that it reads, after a restart either). The config may name its leave."""

        __tablename__ = "signoff_mcp_upstream_doubts"
        action: Mapped[str] = mapped_column(String(200), unique=True)
        __security__: list[Any] = []

    _TOOL_RECORDS[app] = UpstreamTool
    _DOUBT_RECORDS[app] = UpstreamDoubt
    return app


class Guard(ServedAgent):
    """The guard's MCP server: the upstream tools the config does not rule out, each call gated
    by the guard's agent. Made by `open_guard`."""

    def __init__(self, app: App, upstreams: Upstreams, tools: dict[str, GuardedTool], *,
                 for_: Any, wait_seconds: float, doubted: set[str]) -> None:
        self.upstreams = upstreams
        self.guarded = tools
        self._doubted = doubted
        """The tools whose read-only hint is not believed (`UpstreamDoubt`)."""
        self._validators: dict[str, tuple[Any, Draft202012Validator]] = {}
        """Each tool's arguments' validator, with the input schema it checks (one listed
        since with another schema gets a validator of that)."""
        self._clashes: set[str] = set()
        """The names of tools added upstream that another tool is served as (told once)."""
        self._noticing = threading.Lock()
        self._remembered: dict[str, str] = {}
        """What each tool said of itself when this guard last kept it (`remember`), by digest:
        a listing that says the same again is not looked up in the database."""
        super().__init__(app, AGENT_NAME, for_=for_, wait_seconds=wait_seconds)
        upstreams.changed = self.tools_changed

    async def tools_changed(self, server: str) -> None:
        """`server` said its list of tools changed: it is listed again, and the change taken as
        any listing takes it (`notice_changes`: a changed tool's standing rules suspended, an
        added one offered); then every client listening is told the guard's list changed."""
        try:
            await self.upstreams.refresh(server)
            await anyio.to_thread.run_sync(self.notice_changes)
            await self.changes.publish(ToolsListChanged())
        except Exception:  # (its own task: nothing else would hear of it)
            log.exception("The guard could not take the change %s said its tools had", server)

    def stopping(self) -> None:
        """The guard is told to stop: the calls still out upstream are cut (each is told that
        whether it ran is not known), and those kept open for a decision are answered."""
        super().stopping()
        self.upstreams.cut_calls()

    def _offer(self) -> dict[str, Any]:
        from signoff.mcp.served import _Offered

        skill = self._skills[0]
        return {name: _Offered(skill=skill, tool=Tool(
            name=name, title=g.tool.title or (g.tool.annotations.title if g.tool.annotations
                                              else None),
            description=f"{g.tool.description or ''} (On {g.server.name}; "
                        f"{_leave_words(g.leave)})".strip(),
            input_schema=g.tool.input_schema, output_schema=g.tool.output_schema,
            annotations=_hints_told(g, self._doubted)))
            for name, g in self.guarded.items() if g.leave is not Leave.NEVER}

    async def list_tools(self) -> list[Tool]:
        """The guarded tools, after listing the upstreams again (a changed tool suspends the
        standing rules on it)."""
        await self.upstreams.refresh()
        await anyio.to_thread.run_sync(self.notice_changes)
        return await super().list_tools()

    def notice_changes(self) -> list[str]:
        """Compare what each upstream says of its tools with what it said before; suspend the
        standing rules on each tool that changed, and offer each tool an upstream has added.
        A changed tool's leave is the stricter of what it was and what the tool's hints give
        now: a tool a trusted server said only reads, listed since as one that does not, is
        proposed from now on; one that says it only reads now, having said otherwise, is not
        believed. The tools that changed. (One at a time: taken at once by two threads, a
        tool one added was offered by neither, the other seeing it known.)"""
        with self._noticing:
            return self._notice_changes()

    def _notice_changes(self) -> list[str]:
        changed = []
        stricter = doubted = False
        for name, guarded in list(self.guarded.items()):
            now = self.upstreams.tools.get(guarded.server.name, {}).get(guarded.tool.name)
            if now is None:
                continue
            if self._remember(name, now):
                changed.append(name)
            doubted = self._doubt(name, now) or doubted
            leave = max(guarded.leave, _guarded_tool(guarded.server, now, self._doubted).leave)
            stricter = stricter or leave is not guarded.leave
            self.guarded[name] = GuardedTool(action=name, server=guarded.server, tool=now,
                                             leave=leave)
        if stricter:
            self.handle.registered.agent.may = _permits(self.guarded)
        added = self._take_new_tools()  # (taken whatever else changed: it was not, with a
        # changed tool in the same listing, until the next listing)
        if changed or added or doubted:  # (a hint doubted is not served)
            self._offered = self._offer()
        return changed

    def _remember(self, action: str, tool: Tool) -> bool:
        """`remember`, unless `tool` says of itself what it said when this guard last kept it
        (a listing of many tools, each unchanged, costs no statement)."""
        digest = digest_of(tool)
        if self._remembered.get(action) == digest:
            return False
        changed = remember(self.app, action, tool)
        self._remembered[action] = digest
        return changed

    def _doubt(self, action: str, tool: Tool) -> bool:
        """Keep `action` among the tools whose read-only hint is not believed, from the first
        time `tool` is listed without one; whether it was not among them before."""
        if action in self._doubted or _read_only_hint(tool) is True:
            return False
        self._doubted.add(action)
        record = _DOUBT_RECORDS[self.app]
        try:
            with self.app.session(as_=self.app.system) as session:
                if session.scalars(select(record).where(record.action == action)).first() is None:
                    session.add(record(action=action))
        except IntegrityError:
            pass  # another guard on the database doubted it first: it is kept
        return True

    def _take_new_tools(self) -> list[str]:
        """The tools the upstreams list now that the guard did not know: each becomes an action
        of the guard's app, its leave from the config as at the start, and is offered from now
        on. Their names."""
        added = []
        skill = self._skills[0]
        for server in self.upstreams.servers.values():
            for tool in self.upstreams.tools.get(server.name, {}).values():
                guarded = _guarded_tool(server, tool, self._doubted)
                if not _name_kept(guarded):
                    continue
                known = self.guarded.get(guarded.action)
                if known is not None:
                    if (known.server.name, known.tool.name) != (server.name, tool.name) and (
                            guarded.action not in self._clashes):
                        self._clashes.add(guarded.action)
                        log.warning("%s It is not offered.", _same_name(known, guarded))
                    continue
                self.guarded[guarded.action] = guarded
                self._remember(guarded.action, tool)
                self._doubt(guarded.action, tool)
                skill.tools.append(_register(self.app, self.upstreams, guarded))
                added.append(guarded.action)
        if added:
            self.handle.registered.agent.may = _permits(self.guarded)
            log.warning("The guard now offers %s, which its servers added.", ", ".join(added))
        return added

    def loop_arguments(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any] | str:
        """The arguments checked against the upstream tool's input schema, as the action's."""
        guarded = self.guarded.get(tool)
        if guarded is None:
            return {"arguments": arguments}
        unusable = (f"{guarded.server.name} gives {guarded.tool.name} an input schema that is "
                    "not JSON Schema the guard can check arguments against, so no call of it "
                    "can be.")
        schema = guarded.tool.input_schema
        schema_and_validator = self._validators.get(tool)
        if schema_and_validator is not None and schema_and_validator[0] == schema:
            validator = schema_and_validator[1]
        else:
            try:
                Draft202012Validator.check_schema(schema)
            except SchemaError as error:
                log.warning("%s: %s", unusable, error.message)
                return unusable
            # A registry of nothing: a `$ref` to a URL is refused, never fetched (by default
            # the validator fetched it — from the guard's host, wherever a server said, on the
            # event loop, with no timeout).
            # Its patterns are matched without backtracking (`patterns`): a server's pattern
            # and a long argument stalled the event loop.
            validator = LinearValidator(schema, registry=Registry())
            self._validators[tool] = (schema, validator)
        try:
            problems = sorted(validator.iter_errors(arguments), key=lambda e: list(e.path))
        except Exception as error:  # what the schema's check cannot do (a $ref to nowhere)
            log.warning("%s: %s", unusable, error)
            return unusable
        if problems:
            first = problems[0]
            where = ".".join(str(p) for p in first.path) or "the arguments"
            return f"{where}: {first.message}."
        return {"arguments": arguments}

    def ran(self, tool: str, answer: str, value: Any) -> CallToolResult:
        """What the upstream answered, passed through (its structured content only when the
        tool has an output schema; an answer cut for its size, as an error for such a tool:
        no structured content is left to fit its schema)."""
        value = value if isinstance(value, dict) else {}
        text = value.get("text", answer)
        others = _BLOCKS.validate_python(value.get("content") or [])
        content = [TextContent(text=text)] if text or not others else []
        guarded = self.guarded.get(tool)
        structured = value.get("structured")
        if guarded is None or guarded.tool.output_schema is None:
            return CallToolResult(content=[*content, *others])
        if value.get("cut"):  # (no structured content left to fit its schema: said in words)
            return CallToolResult(content=content, is_error=True)
        return CallToolResult(content=[*content, *others], structured_content=structured)

    def not_run(self, tool: str, text: str, **extra: str) -> CallToolResult:
        """Nothing ran: said in words. A tool with the upstream's output schema cannot say it as
        an ordinary result (it has no such structured content), so it says it as an error."""
        guarded = self.guarded.get(tool)
        if guarded is not None and guarded.tool.output_schema is not None:
            return results.error(text)
        return CallToolResult(content=[TextContent(text=text)])


def remember(app: App, action: str, tool: Tool, *, again: bool = True) -> bool:
    """Keep what `tool` says of itself now; when it said something else before, suspend the
    standing rules on `action` (their makers are told what changed) and say True."""
    record = _TOOL_RECORDS[app]
    digest = digest_of(tool)
    try:
        with app.session(as_=app.system) as session:
            known = session.scalars(select(record).where(record.action == action)).first()
            if known is None:
                points.reached("mcp.tool_unknown", action=action)
                session.add(record(action=action, digest=digest,
                                   description=tool.description or ""))
                return False
            if known.digest == digest:
                return False
            before = known.description
            known.digest, known.description = digest, tool.description or ""
    except IntegrityError:  # another guard on the database kept it first: go on from its row
        if not again:
            raise
        return remember(app, action, tool, again=False)
    what = (f"its description changed from “{before}” to “{tool.description or ''}”"
            if before != (tool.description or "") else "its schema or hints changed")
    for rule in app.rules(active_only=True):
        if rule.tool != action:
            continue
        points.reached("mcp.rule_to_suspend", rule=rule.id)
        maker = app.people.find(rule.made_by)
        if maker is not None:
            with contextlib.suppress(AgentRefused):  # (taken back meanwhile, by another guard
                # that saw the same change at once: it is suspended all the same)
                app.revoke(rule, by=maker, why=f"Suspended by the guard: {action}'s server "
                                              f"changed the tool — {what}. Look at it again, "
                                              "and make a new rule if it still should run "
                                              "alone.")
    return True


def reads_outside(config: GuardConfig, rule: StandingRule) -> bool:
    """Whether the guard's agent reads outside content where `rule` applies, told from `config`
    alone (without connecting, its tools are not known): when a server of the config gives
    outside content (`Upstream.outside`), since every server's tools are in the agent's one
    skill. So a rule's words say, without its servers, what they say with them."""
    return rule.agent == AGENT_NAME and any(server.outside for server in config.servers)


def sponsor_of(config: GuardConfig) -> str | None:
    """The handle of the guard's agent's sponsor: the person its work is for, else the config's
    first person (its proposals for nobody are put to them)."""
    return config.for_ or (config.people[0].handle if config.people else None)


def sponsored_by(config: GuardConfig, person: Principal) -> list[str]:
    """The guard's agent, when `person` is its sponsor, told from `config` alone (without
    connecting, the agent is not registered): so the work it does for nobody is theirs to see
    from the command line, as it is in the inbox served beside the guard."""
    sponsor = sponsor_of(config)
    return [AGENT_NAME] if sponsor is not None and sponsor in (person.handle, person.id) else []


async def open_guard(config: GuardConfig, stack: AsyncExitStack, *,
                     wait_seconds: float) -> Guard:
    """Connect to every upstream (closed with `stack`), make the guard's app and agent, and the
    MCP server that serves their tools through it."""
    upstreams = Upstreams(config)
    await upstreams.open(stack)
    app = await anyio.to_thread.run_sync(open_guard_app, config)
    doubted = await anyio.to_thread.run_sync(_doubted_of, app)
    guarded: dict[str, GuardedTool] = {}
    for server in config.servers:
        _check_named_tools(server, upstreams.tools.get(server.name, {}))
        for tool in upstreams.tools.get(server.name, {}).values():
            each = _guarded_tool(server, tool, doubted)
            if not _name_kept(each):
                continue
            if each.action in guarded:
                raise UserError(_same_name(guarded[each.action], each))
            guarded[each.action] = each
    functions = [_register(app, upstreams, g) for g in guarded.values()]
    agent = _agent(app, functions, guarded, upstreams)
    app.add_agent(agent, sponsor=sponsor_of(config))
    for_ = app.people.find(config.for_) if config.for_ else None
    if config.for_ and for_ is None:
        raise UserError(f"The guard's config says the work is for {config.for_}, who is not "
                        "known: add them under [[people]].")
    guard = Guard(app, upstreams, guarded, for_=for_, wait_seconds=wait_seconds,
                  doubted=doubted)
    await anyio.to_thread.run_sync(guard.notice_changes)
    # An approved call whose process stopped while it ran (a guard's or a command's, killed)
    # is settled now: the guard has no worker of its own to do it.
    settled = await anyio.to_thread.run_sync(lambda: app.worker().settle_stopped_runs())
    ended = await anyio.to_thread.run_sync(guard.end_stopped)
    if ended:
        log.warning("%d task(s) whose guard stopped while a call of theirs was out ended: each "
                    "receipt tells the call as of unknown outcome.", ended)
    if settled:
        log.warning("%s whose process stopped while it ran %s settled: its receipt tells what "
                    "became of it (an outside call's outcome is unknown: check whether it "
                    "happened).", "An approved call" if settled == 1 else
                    f"{settled} approved calls", "was" if settled == 1 else "were")
    return guard


_MISSPELT = 0.85
"""How close (difflib's ratio, in any case) a name the config gives a tool must be to one its
server lists to be taken for a misspelling of it: delete_fil, Delete_File, delete-file for
delete_file, not write_file for read_file (0.74)."""


def _check_named_tools(server: Upstream, listed: dict[str, Tool]) -> None:
    """Refuse a config naming a tool `server` does not list when the name is close to one it
    lists that the config does not name (a misspelt ``delete_fil = "never"`` left delete_file
    to its hints, unsaid). A named tool with no such neighbour may come in a later version of
    the server (it takes its leave once listed): the log says it is not listed now."""

    unnamed = {name.lower(): name for name in sorted(set(listed) - set(server.tools))}
    for named in sorted(set(server.tools) - set(listed)):
        close = [unnamed[c] for c in difflib.get_close_matches(named.lower(), unnamed, n=1,
                                                               cutoff=_MISSPELT)]
        if close:
            raise UserError(
                f"The guard's config names the tool {named} under [servers.{server.name}.tools], "
                f"which {server.name} does not list: did you mean {close[0]}? As written, "
                f"{close[0]} would take the leave "
                f"{server.leave_of(close[0], _read_only_hint(listed[close[0]])).words.lower()!r}, "
                f"not {server.tools[named].words.lower()!r}. Correct the name in the config, then "
                "run the command again.")
        log.warning("The guard's config names the tool %s under [servers.%s.tools], which %s "
                    "does not list now: it takes its leave once the server lists it.", named,
                    server.name, server.name)


def _hints_told(guarded: GuardedTool, doubted: set[str]) -> ToolAnnotations | None:
    """The hints the guard serves `guarded` with: its server's own when the guard believes them
    (a trusted server's, of a tool never listed as doing more than read); else its title alone,
    so that no client is told, on the word of a server the guard does not believe, that a tool
    only reads, destroys nothing, or stays inside (MCP's hints left out are the cautious ones)."""
    hints = guarded.tool.annotations
    if hints is None or (guarded.server.trusted and guarded.action not in doubted):
        return hints
    return ToolAnnotations(title=hints.title) if hints.title else None


def _read_only_hint(tool: Tool) -> bool | None:
    """Whether `tool`'s hints say it only reads (None: they say nothing of it). Hints that say
    so and say too that it destroys contradict each other: it is not taken to only read (MCP
    has a client ignore the destructive hint of a read-only tool, and so it ran alone)."""
    if tool.annotations is None:
        return None
    if tool.annotations.destructive_hint is True:
        return False
    return tool.annotations.read_only_hint


def _guarded_tool(server: Upstream, tool: Tool, doubted: set[str]) -> GuardedTool:
    """`tool` of `server` as the guard serves it, with its leave from the config (its
    read-only hint not believed for a tool among `doubted`)."""
    action = f"{server.name}_{tool.name}"
    hint = None if action in doubted else _read_only_hint(tool)
    return GuardedTool(action=action, server=server, tool=tool,
                       leave=server.leave_of(tool.name, hint))


def _doubted_of(app: App) -> set[str]:
    """The tools of the guard `app` whose read-only hint is not believed (`UpstreamDoubt`)."""
    record = _DOUBT_RECORDS[app]
    with app.session(as_=app.system) as session:
        return set(session.scalars(select(record.action)))


_NAME_AT_MOST = 200
"""The longest name an action (a served tool) is kept under, in proposals, rules and receipts."""
_TOO_LONG: set[tuple[str, str]] = set()
"""The tools whose served name is too long that the log has told of (told once a process)."""


def _name_kept(guarded: GuardedTool) -> bool:
    """Whether `guarded` can be served under its name: a tool whose ``{server}_{tool}`` is
    longer than `_NAME_AT_MOST` is not offered, the log says which (once), and the other tools
    are served as ever: one server's name for a tool never keeps the guard from starting."""
    if len(guarded.action) <= _NAME_AT_MOST:
        return True
    told = (guarded.server.name, guarded.tool.name)
    if told not in _TOO_LONG:
        _TOO_LONG.add(told)
        log.warning("The server %s lists a tool whose name has %d characters (%s…): served as "
                    "%s_…, it would be longer than the %d characters a tool's name is kept "
                    "under, so it is not offered.", guarded.server.name, len(guarded.tool.name),
                    guarded.tool.name[:40], guarded.server.name, _NAME_AT_MOST)
    return False


def _same_name(first: GuardedTool, second: GuardedTool) -> str:
    """Two upstream tools the guard would serve by one name: which, and what to do."""
    return (f"The server {first.server.name}'s tool {first.tool.name} and the server "
            f"{second.server.name}'s tool {second.tool.name} would both be served as "
            f"{first.action}: rename one of the servers in the config.")


def _register(app: App, upstreams: Upstreams, guarded: GuardedTool) -> ActionFunction[..., Any]:
    server, tool = guarded.server.name, guarded.tool.name

    # Its one parameter is the tool's arguments, taken whole: it reads as "Arguments" where a
    # value is given (a proposal's form), and is not named in how the action reads in a
    # catalogue ("delete_file on files"; "… (Arguments)" told nothing of the tool).
    def forward(arguments: Annotated[dict[str, Any], Label("Arguments", listed=False)]
                ) -> dict[str, Any]:
        try:
            answer = upstreams.call_from_thread(server, tool, arguments)
        except UpstreamUnavailable as error:
            if error.sent:  # out when it was cut off: it may have run
                raise OutcomeUnknown(str(error)) from None
            # Never sent: it did not run, and nothing about its arguments was wrong (an
            # Invalid would tell a model to call it otherwise). Why is in the log.
            raise Unavailable(str(error)) from None
        except UpstreamError as error:
            raise _refusal_of(server, tool, error) from None
        return _answer_of(server, tool, answer)

    forward.__doc__ = (f"{guarded.tool.description or tool} — the tool {tool} of the MCP server "
                       f"{server}, called with exactly these arguments.")
    listed_before(forward, lambda: listing_of(upstreams, server, tool))
    title = guarded.tool.title or (guarded.tool.annotations.title if guarded.tool.annotations
                                   else None)
    return app.add_action(forward, name=guarded.action, label=f"{title or tool} on {server}",
                          untrusted=_outside(guarded.server))


def _answer_of(server: str, tool: str, answer: CallToolResult) -> dict[str, Any]:
    """What an upstream tool answered, as its action's result: its text and its structured
    content; `Invalid` with its text when it answered with an error (the server was reached,
    and said what is wrong with the call), `NotFound` when that error is the server's saying
    it has no tool `tool` (removed since the guard listed it)."""
    text = "\n".join(c.text for c in answer.content if isinstance(c, TextContent))
    if answer.is_error and _result_says_no_such_tool(text, tool):
        raise _gone(server, tool, text.strip())
    if answer.is_error:
        raise Invalid(f"{server} answered with an error: "
                      f"{_cut(server, tool, text, len(text)) or 'it gave no reason'}")
    # An image, a sound, a resource: passed on to the client as the server gave it.
    others = [block.model_dump(mode="json", by_alias=True, exclude_none=True)
              for block in answer.content if not isinstance(block, TextContent)]
    structured = answer.structured_content
    size = len(text) + sum(len(json.dumps(part, default=str)) for part in (*others, structured)
                           if part is not None)
    if size > _ANSWER_AT_MOST:  # the text's beginning only, told so
        return {"text": _cut(server, tool, text, size), "structured": None, "cut": True}
    return {"text": text, "structured": structured, **({"content": others} if others else {})}


_ANSWER_AT_MOST = 1_000_000
"""The most characters of an upstream's answer the guard takes (its text, and its structured
content and other blocks as JSON, together). What it takes is kept in the receipt and the
proposals it steers, and every later argument is traced through it: a server answering with
more would fill the guard's database and hold each call up."""


def _cut(server: str, tool: str, text: str, size: int) -> str:
    """`text`, whole when the answer it is of (`size` characters in all) is within
    `_ANSWER_AT_MOST`; else its beginning, saying that the rest is left out."""
    if size <= _ANSWER_AT_MOST:
        return text
    log.warning("The server %s answered the call of %s with %d characters: the guard takes the "
                "first %d of its text.", server, tool, size, _ANSWER_AT_MOST)
    return (f"{text[:_ANSWER_AT_MOST]}\n[The server {server} answered the call of {tool} with "
            f"{size:,} characters, more than the {_ANSWER_AT_MOST:,} the guard takes: the rest "
            "of its answer is left out (its structured content and other blocks too). The call "
            "ran.]")


def _refusal_of(server: str, tool: str, error: UpstreamError) -> Invalid | NotFound | Failed:
    """What a server's JSON-RPC error answering a call of `tool` is, in words that quote it:
    `NotFound` when it says it has no such tool (it was removed since the guard listed it),
    `Invalid` when it said the arguments were wrong (so a model calls it otherwise), else
    `Failed`."""
    said = _error_words(server, tool, str(error).strip()) or "it gave no reason"
    if error.code == INVALID_PARAMS and _says_unknown_tool(said, tool):
        return _gone(server, tool, said)
    if error.code == INVALID_PARAMS:
        return Invalid(f"The server {server} refused the arguments of {tool}: “{said}” — call "
                       "it again with arguments that fit.")
    return Failed(f"The server {server} answered the call of {tool} with the error “{said}” "
                  f"(JSON-RPC {error.code}): look at what the tool keeps before calling it "
                  "again.")


def _error_words(server: str, tool: str, said: str) -> str:
    """A server's JSON-RPC error message, whole when it is within `_ANSWER_AT_MOST`; else its
    beginning, saying that the rest is left out (kept whole, it filled the receipt, and was
    told to the client, however long)."""
    if len(said) <= _ANSWER_AT_MOST:
        return said
    log.warning("The server %s answered the call of %s with an error of %d characters: the "
                "guard takes the first %d.", server, tool, len(said), _ANSWER_AT_MOST)
    return (f"{said[:_ANSWER_AT_MOST]} [the rest of the server's {len(said):,} characters is "
            "left out]")


_UNKNOWN_TOOL = re.compile(r"\b(?:unknown|no such) tool\b|\btool (?:is )?not found\b",
                           re.IGNORECASE)
"""How servers say they have no tool of the name called ("Unknown tool: x", "No such tool",
"Tool not found"), beside "Tool x not found" (see `_says_unknown_tool`)."""


def _says_unknown_tool(said: str, tool: str) -> bool:
    """Whether a server's invalid-params error says it has no tool `tool` (in the words MCP
    servers use: "Unknown tool: x", "Tool x not found"), rather than that the arguments were
    wrong."""
    named = re.search(rf"\btool [\"'“]?{re.escape(tool)}[\"'”]? (?:was )?not found\b", said,
                      re.IGNORECASE)
    return named is not None or _UNKNOWN_TOOL.search(said) is not None


def _result_says_no_such_tool(text: str, tool: str) -> bool:
    """Whether an error result (isError) is the server's answer that it has no tool `tool`:
    all of its text in the words an SDK answers a name it does not have with ("Unknown tool:
    x" from the Python SDK's MCPServer, formerly FastMCP; "Tool x not found" from the
    TypeScript SDK's, which may begin "MCP error -32602: "), naming the tool called. Any other
    error result is the tool's own, in words it chose, and stays `Invalid`: the Python SDK
    begins a tool's own error "Error executing tool x: ", so one saying "Unknown tool" of
    anything is not taken for the server's answer. (A JSON-RPC error's words are the server's
    alone: `_says_unknown_tool` reads them more widely.)"""
    name = re.escape(tool)
    return re.fullmatch(rf"(?:MCP error -32602: )?(?:Unknown tool: {name}|Tool {name} not found)",
                        text.strip()) is not None


def _gone(server: str, tool: str, said: str) -> NotFound:
    """A server's answer that it has no tool `tool` (removed since the guard listed it): nothing
    ran there, and nothing about the arguments was wrong (an Invalid would tell a model to call
    it otherwise)."""
    return NotFound(f"The server {server} no longer has the tool {tool} (it answered “{said}”), "
                    "so nothing ran there: go on without it, or ask for the tools again to see "
                    "what the server offers now.")


def _outside(server: Upstream) -> Untrusted:
    """What an upstream's answers are: outside content, said with the server's name, unless the
    config vouches for them. The guard never sees the person's request (the MCP client keeps
    it), so once outside content has entered a session, an argument of a later call is traced
    to an answer or to nothing, and the call is proposed (a word the model wrote, or an
    argument the guard's own skill was given, excepted)."""
    if not server.outside:
        return False
    said = f"from the MCP server {server.name}"
    return lambda value: said


def _agent(app: App, functions: list[ActionFunction[..., Any]],
           guarded: dict[str, GuardedTool], upstreams: Upstreams) -> type[Agent]:
    def version_of(self: Skill[None, str], action: str, arguments: dict[str, Any]) -> str:
        """What the tool says of itself: as the client was last offered it and, when its server
        lists it otherwise now, as it lists it now. So a yes to a call of a tool its server
        changed since it was proposed finds it stale, though nobody listed the guard's tools
        again meanwhile. A server that cannot be reached is gone by its last listing (nothing
        is sent to it either); one reached that does not list its tools gives a version no
        other reads the same, since what it says of the tool now is not known: a yes then finds
        the call stale, never runs it unseen. A yes claiming the call holds the database's write
        lock as it asks, so it waits on the server `LIST_IN_CLAIM_SECONDS` at most (it waited
        ten, every other writer with it); a proposal or a look at the inbox takes a listing a
        moment old (`LISTED_FRESH_SECONDS`)."""
        found = guarded.get(action)
        if found is None:
            return ""
        server, tool = found.server.name, found.tool.name
        offered = _digest_or_gone(upstreams.tools.get(server, {}).get(tool))
        try:  # (a yes claiming the call holds the database's write lock: it waits less)
            listed = upstreams.listed_now(server, claiming=app.database.in_transaction())
        except UpstreamUnavailable:
            return f"{offered}→unlisted {uuid.uuid4().hex[:12]}"
        now = offered if listed is None else _digest_or_gone(listed.get(tool))
        return offered if now == offered else f"{offered}→{now}"

    skill = types.new_class("UseServerTools", (Skill[None, str],), {}, lambda ns: ns.update({
        "description": "Use the tools of the MCP servers this guard stands in front of.",
        "tools": functions, "version_of": version_of,
        "free_text": False,  # (it never sees the person's request: no text is theirs)
    }))
    return types.new_class("McpGuard", (Agent,), {}, lambda ns: ns.update({
        "purpose": "You use other MCP servers' tools through signoff's guard.",
        "skills": [skill()], "may": _permits(guarded), "roles": [],
    }))


def _digest_or_gone(tool: Tool | None) -> str:
    """A tool's digest, short, as a version ("gone" for a tool its server does not list)."""
    return digest_of(tool)[:12] if tool is not None else "gone"


def _permits(guarded: dict[str, GuardedTool]) -> Permits:
    """The guard's agent's permits: each tool listed under its leave."""
    lists: dict[Leave, list[str]] = {leave: [] for leave in Leave}
    for name, g in guarded.items():
        lists[g.leave].append(name)
    return Permits(alone=lists[Leave.ALONE], propose=lists[Leave.PROPOSE],
                   propose_every_time=lists[Leave.PROPOSE_EVERY_TIME], never=lists[Leave.NEVER])


def _leave_words(leave: Leave) -> str:
    return {
        Leave.ALONE: "runs at once",
        Leave.PROPOSE: "each call is put to a person, who decides",
        Leave.PROPOSE_EVERY_TIME: "every call is put to a person, who decides",
        Leave.NEVER: "never runs",
    }[leave]
