"""An app's agent served over MCP: the connected client acts as the agent's model.

The tools are the agent's skills' tools that its declaration does not rule out, described from
what signoff proved of them. Every call goes through the agent's loop as a model's tool call
would: the gate, standing rules, proposals routed as the skill says, the receipt. A call that
must be proposed is kept open until a person decides it (as long as the client can wait), then
answered with the approved call's result or the reason of a no.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import anyio
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.subscriptions import InMemorySubscriptionBus
from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER
from mcp.types import CallToolResult, Tool
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from sqlalchemy import select

from signoff.agents import serving
from signoff.agents.agency import AgentHandle
from signoff.agents.agent import Agent
from signoff.agents.permits import Leave
from signoff.agents.proposals import ProposalStatus
from signoff.agents.skills import Skill
from signoff.agents.tasks import TaskStatus
from signoff.agents.turns import CallAnswer
from signoff.app import App
from signoff.exceptions import Refusal, StoreError, UserError
from signoff.mcp import results
from signoff.mcp.params import ParamsInWords
from signoff.mcp.transport import ISSUING
from signoff.models.base import Reply, ToolCall
from signoff.security.acting import ActingAs
from signoff.security.principals import Principal
from signoff.store.tables import tasks as tasks_table

log = logging.getLogger("signoff.mcp")

__all__ = ["DEFAULT_WAIT_SECONDS", "WAIT_META", "WHY_META", "ServedAgent", "served_skills"]

PAUSE_SECONDS = 1800.0
"""On the protocol that keeps no sessions (2026-07-28), a person's calls over HTTP are one
session: how long they pause before the next is taken as the start of another go, with
`max_calls` of its own, in new tasks of the same work (what it has read still holds back a
call it may have steered). Without it, a person who had made `max_calls` calls was refused
until the server was started again."""

_SETTLE_EVERY = 2.0
"""How often, in seconds, a call kept open on an approved proposal looks whether the process
running it has stopped (a process of this machine is seen stopped at once, another machine's once
its lease has run out)."""

DEFAULT_WAIT_SECONDS = 240.0
"""How long a proposed call is kept open for a decision: under the 300 s the SDK's HTTP client
waits for an answer."""

WHY_META = "signoff/why"
"""The ``_meta`` key of a ``tools/call`` under which a client may say why it calls."""

WAIT_META = "signoff/wait"
"""The ``_meta`` key under which a client may say how many seconds it can wait for a decision
(at most the server's own wait; 0: answer at once with the proposal)."""

_MODEL_NAME = "an MCP client"

_END_TRIES = 50
"""How many times (0.1 s apart) a closed session's task is tried to end while another holds
it."""

_UNTOLD_KEPT = 256
"""How many proposed calls whose outcome the client has not been told a session keeps."""

_CLOSED_FOR = 60.0
"""How long a closed session is remembered (its calls still on their way are refused)."""


_WHY_AT_MOST = 4000
"""The most characters of a client's why (`WHY_META`) kept: it is the proposal's why, which the
person reads, and goes into the receipt; a client's why past it is cut, saying so."""

_NAME_TOLD = 80
"""The most characters of a tool's name a client is told back (one it made up may be long)."""

_PAUSED = ("The person's calls paused, over a protocol that keeps no sessions, so this task "
           "ends here; their next calls go on in new tasks of the same work.")

_STOPPED = ("The MCP session ended: the server serving it stopped while it took this task's "
            "turn, so the task ends here.")

_SERVER_STOPPED = ("The MCP session ended: the server serving it stopped, so the task ends here; "
                   "a call it proposed can still be decided, and an approved one runs once.")

_UNFORESEEN = ("It failed for a reason the app did not foresee — the app's log has the "
               "details, and the task's receipt tells the person what happened.")
"""Why a client's work failed, as it is told: never what the app's code raised."""

_DATABASE = ("The app's database could not be used just now (the app's log has the details), so "
             "whether this call was taken is not known here: before calling it again, check "
             "whether it happened.")
"""What a client is told of a call the database failed under (its message names the database)."""

_SESSION_CLOSED = ("The MCP session ended (the client closed it, or the server stopped), so the "
                   "task ends here; a call it proposed can still be decided, and an approved "
                   "one runs once.")


@dataclass(kw_only=True)
class _Session:
    """One MCP session: who it acts for; its work, which its tasks share (a task per skill,
    one more for each call made while every other took a turn, and those its calls went on
    from while they waited)."""

    person: Principal | None
    work: str = field(default_factory=lambda: str(uuid.uuid4()))
    started: list[str] = field(default_factory=list)
    """Every task it has started (ended when it closes)."""
    free: dict[str, list[str]] = field(default_factory=dict)
    """By skill, its tasks that have no turn under way, the latest last: a call goes to the
    latest (a new task when there is none, or when it cannot take the turn)."""
    untold: dict[tuple[str, str], tuple[str, CallAnswer]] = field(default_factory=dict)
    """Each proposed call whose outcome the client has not been told yet (by tool and
    arguments), with its task: the same call asked again waits on that proposal."""
    taking: dict[tuple[str, str], anyio.Event] = field(default_factory=dict)
    """The calls being taken now (by tool and arguments), each set once it has been."""
    calls: int = 0
    """The calls it has made or is making: each is a step of one of its tasks."""
    turns: int = 0
    """How many of its calls are being taken now."""
    closed: bool = False
    sessionless: bool = False
    """Whether it is a person's calls over the protocol that keeps no sessions."""
    used_at: float = field(default_factory=time.monotonic)
    """When a call of it was last taken or answered (`time.monotonic`)."""
    lease: serving.Serving | None = None
    """Its lease to this process (`signoff.agents.serving`), from before its first task is
    started until it closes."""
    _leasing: threading.Lock = field(default_factory=threading.Lock)

    def serve(self, database: Any, agent: str) -> None:
        """Lease the session to this process, before its first task is started (each of its
        calls is taken on a thread of its own: the first to come leases it)."""
        with self._leasing:
            if self.lease is None:
                lease = serving.Serving(database, self.work, agent)
                lease.start()
                self.lease = lease

    def paused(self, seconds: float) -> list[str]:
        """When it keeps no session and its calls have paused for `seconds` with none under
        way, take the next as the start of another go: its calls counted from 0, in new tasks
        of the same work (what it has read still holds). The tasks let go of, to end."""
        if not self.sessionless or self.turns or time.monotonic() - self.used_at < seconds:
            return []
        self.calls = 0
        idle = [task for tasks in self.free.values() for task in tasks]
        self.free.clear()
        return idle

    def took(self, same: tuple[str, str], skill: str, task: str | None,
             answers: list[CallAnswer]) -> None:
        """A call of `skill` has been taken, in `task`, with these `answers` (none: it took no
        turn, and so none of the session's calls): its task is free for the next call, and
        the same call asked again waits on what it proposed."""
        self.turns -= 1
        self.used_at = time.monotonic()
        if not answers or task is None:
            self.calls -= 1
        else:
            self.free.setdefault(skill, []).append(task)
            if answers[0].waiting and answers[0].proposal is not None:
                self.keep_untold(same, task, answers[0])
        self.taking.pop(same).set()

    def keep_untold(self, same: tuple[str, str], task: str, answer: CallAnswer) -> None:
        """Keep a call just proposed until the client is told how it came out (the oldest
        are let go past `_UNTOLD_KEPT`: asked again, such a call is proposed anew)."""
        self.untold.pop(same, None)
        self.untold[same] = (task, answer)
        while len(self.untold) > _UNTOLD_KEPT:
            del self.untold[next(iter(self.untold))]

    def forget_told(self, same: tuple[str, str], answer: CallAnswer) -> None:
        """The client has been told how the call of `answer` came out: asked again, it is a
        new call (unless the key now keeps another proposal)."""
        kept = self.untold.get(same)
        if kept is not None and kept[1].call == answer.call:
            del self.untold[same]


@dataclass(frozen=True, kw_only=True)
class _Offered:
    skill: Skill[Any, Any]
    tool: Tool


def served_skills(handle: AgentHandle, skill: str | None, subject: Any, *,
                  subject_option: str | None = None) -> list[Skill[Any, Any]]:
    """The skills of `handle`'s agent to serve (`skill` alone, when named) that work on
    `subject`; when none does, a `UserError` saying why, and how to give what the work is on:
    ``subject=`` of `ServedAgent`, or `subject_option` (``--subject``) for a command's message."""
    cls = handle.registered.agent
    wanted = [handle.skill(skill)] if skill is not None else list(cls.skills)
    served = []
    problems = []
    for own in wanted:
        problem = handle.subject_problem(own, subject)
        if problem:
            problems.append(problem)
        else:
            served.append(own)
    if not served:
        give = (f"with {subject_option}" if subject_option else
                f"with subject=, as in ServedAgent(app, {cls.__name__}, subject=...)")
        raise UserError(f"None of {cls.__name__}'s skills can be served so: "
                        f"{' '.join(problems)} Give what the work is on {give}.")
    return served


class ServedAgent(MCPServer):
    """An MCP server offering one agent's tools, each call gated as the agent's model's would
    be: ``ServedAgent(app, Estimator, for_=noor, subject=repair)``.

    Over stdio the calls are for `for_`; over HTTP, for whoever the bearer token is, a client's
    token, never a person's own, which decides (see `signoff.mcp.transport`). `subject` is what
    the work is on, for skills that work on something; `wait_seconds` how long a proposed call
    is kept open for its decision (0: answer at once with the proposal's id and whom it waits
    on); `max_calls` the most calls one session makes, whichever of its tasks they go to (on
    the protocol that keeps no sessions, a person's calls in one go: see `PAUSE_SECONDS`, which
    `pause_seconds` replaces)."""

    def __init__(
        self,
        app: App,
        agent: type[Agent] | str,
        *,
        for_: Principal | None = None,
        skill: str | None = None,
        subject: Any = None,
        wait_seconds: float = DEFAULT_WAIT_SECONDS,
        poll_seconds: float = 0.2,
        max_calls: int = 1000,
        pause_seconds: float = PAUSE_SECONDS,
    ) -> None:
        self.app = app
        self.handle: AgentHandle = app.agent(agent)
        self.for_ = for_
        self.subject = subject
        self.wait_seconds = wait_seconds
        self.poll_seconds = poll_seconds
        self.max_calls = max_calls
        self.pause_seconds = pause_seconds
        self._skills = served_skills(self.handle, skill, subject)
        self._offered = self._offer()
        self._sessions: dict[object, _Session] = {}
        self._closed: dict[object, float] = {}
        """The sessions closed lately, with when (`time.monotonic`): a call still on its way
        as its session closed is refused, not given a session of its own that nothing would
        close (each is forgotten after `_CLOSED_FOR` seconds)."""
        self._read_before: dict[str, tuple[_Session, float]] = {}
        """By person, their session that closed last, with when: the next session of theirs
        goes on in its work, with its calls proposed and not yet told (`_went_on`)."""
        self._stopping = False
        self._calls_open = 0
        self.changes = InMemorySubscriptionBus()
        """Where what the server serves changing is told (`ToolsListChanged`), to every client
        listening (``subscriptions/listen``)."""
        self.issuing = ISSUING
        """The command that gives a person a client's token for this server (told with a 401
        or 403)."""
        cls = self.handle.registered.agent
        # The SDK's server configures the root logger as it is made, when nothing has (a
        # handler of its own, through basicConfig): the app's logging is left as the app set
        # it, and signoff's warnings are not printed twice, once by each handler.
        root = logging.getLogger()
        handlers, level = list(root.handlers), root.level
        try:
            super().__init__(name=f"{app.name}-{cls.agent_name()}",
                             instructions="\n\n".join([
                                 cls.purpose, *self._briefs(subject),
                                 "A call that changes things may be put to a person, who "
                                 "decides; the call answers once they have."]),
                             log_level="WARNING", subscriptions=self.changes)
        finally:
            root.handlers[:] = handlers
            root.setLevel(level)
        self.middleware.append(ParamsInWords())  # (inside the SDK's tracing, which sees it)

    def _briefs(self, subject: Any) -> list[str]:
        """What the client is told of the work, skill by skill, as a model would be told it:
        the skill, then its brief of the subject (which names what the tools act on)."""
        told = []
        for own in self._skills:
            try:  # each served skill takes this subject (`served_skills`)
                brief = own.brief(subject)
            except Exception:  # a brief that cannot be written of this subject: the skill alone
                log.warning("The brief of %s could not be written for the MCP client",
                            own.name, exc_info=True)
                brief = ""
            told.append(f"{own.description} {brief}".strip())
        return [words for words in told if words]

    # -- what is offered -----------------------------------------------------------------

    def _offer(self) -> dict[str, _Offered]:
        cls = self.handle.registered.agent
        offered: dict[str, _Offered] = {}
        for own in self._skills:
            lines = {line.tool: line for line in self.app.skills.catalog(cls, own)}
            for name in own.tool_names:
                line = lines.get(name)
                if name in offered or line is None or line.leave is Leave.NEVER:
                    continue
                info = self.app.actions.info(name)
                how = ("It runs at once." if line.leave is Leave.ALONE else
                       f"Each call is put to {line.decided_by}, who decides; the call answers "
                       "once they have.")
                offered[name] = _Offered(skill=own, tool=Tool(
                    name=name, title=info.label,
                    description=f"{info.label}. {info.description} {how}".replace("..", "."),
                    input_schema=info.parameters_schema,
                    output_schema=results.served_output_schema(info.result_schema),
                    annotations=results.annotations_of(info),
                ))
        return offered

    async def list_tools(self) -> list[Tool]:
        """The agent's tools that its declaration does not rule out."""
        return [o.tool for o in self._offered.values()]

    # -- calling -------------------------------------------------------------------------

    async def call_tool(self, name: str, arguments: dict[str, Any],
                        context: Context[Any, Any] | None = None) -> CallToolResult:
        """Hand the call to the agent's loop as its model's turn; answer with what came of it."""
        self._calls_open += 1
        try:
            return await self._call_tool(name, arguments, context)
        except Refusal as refused:  # (a sentence for whoever calls: a token that does not work)
            return results.error(refused.message)
        except Exception as error:  # the SDK would tell the client its message: the log has it
            log.exception("The MCP call of %s could not be taken", name)
            return results.error(_DATABASE if isinstance(error, StoreError) else
                                 f"Failed: {_UNFORESEEN}")
        finally:
            self._calls_open -= 1

    async def _call_tool(self, name: str, arguments: dict[str, Any],
                         context: Context[Any, Any] | None) -> CallToolResult:
        person = await self._person(context)
        session = self._session(context, person)
        offered = self._offered.get(name)
        ruled_out = [own for own in self._skills if name in own.tool_names]
        if offered is None and not ruled_out:
            named = name if len(name) <= _NAME_TOLD else f"{name[:_NAME_TOLD]}…"
            return results.error(f"There is no tool named {named} that you may use here. "
                                 "Nothing was run, and nothing was proposed.")
        # A tool the declaration rules out is refused by the loop, and the receipt says so.
        skill = offered.skill if offered else ruled_out[0]
        loop_arguments = self.loop_arguments(name, arguments)
        if isinstance(loop_arguments, str):
            return results.error(f"Invalid: {loop_arguments} Nothing was run or proposed.")
        if offered is not None and person is not None:
            # A record the person may not read is answered as one that is not there, whoever
            # it runs as (the agent may read it): else their client would read it through the
            # agent, or learn from a proposal that it exists.
            gone = await anyio.to_thread.run_sync(self._unreadable, person, name,
                                                  loop_arguments)
            if gone:
                return results.error(f"Gone: {gone} Nothing was run or proposed.")
        why = _kept_why(_meta(context, WHY_META, str) or "")
        wait = _meta(context, WAIT_META, (int, float))
        wait = self.wait_seconds if wait is None else max(0.0, min(wait, self.wait_seconds))
        # A client asking again for a call that was proposed, before it has been told how the
        # proposal came out (its wait ran out, or it gave up and retried), is asking for the
        # same call: it waits on the same proposal. Proposed twice, a yes to each would run it
        # twice.
        same = (name, json.dumps(loop_arguments, sort_keys=True, default=str))
        reply = Reply(text=why, tool_calls=(ToolCall(
            id=f"mcp_{uuid.uuid4().hex[:12]}", name=name,
            arguments=json.dumps(loop_arguments, default=str)),))

        def turn(task: str | None, left: int) -> tuple[str, list[CallAnswer]]:
            if task is None:  # (one of its tasks may wait on a decision: the new one goes on
                # from it, as when it is found waiting below)
                task = self._start(session, skill, left, going_on_from=self._waiting(session, skill))
            answers = self.handle.take_turn(task, reply, model_name=_MODEL_NAME)
            if not answers:
                outcome = self.app.outcome(task)
                if not outcome.status.ended:
                    # It waits on a decision (or whoever decided holds it a moment): the call
                    # goes on in a new task of the session's work, which has seen all the
                    # others have, so it need not wait behind the decision.
                    task = self._start(session, skill, left,
                                       going_on_from=task if outcome.waiting else None)
                    answers = self.handle.take_turn(task, reply, model_name=_MODEL_NAME)
            return task, answers

        for idle in session.paused(self.pause_seconds):  # (before the checks: it awaits)
            await anyio.to_thread.run_sync(self._end_paused, idle)
        while True:
            if session.closed:
                return results.error("Nothing ran: this session has ended.")
            untold = session.untold.get(same)
            taking = session.taking.get(same)
            if untold is not None or taking is None:
                break
            # The same call is being taken now: of the two, the second waits on what the
            # first proposed (or is a call of its own once the first has run).
            await taking.wait()
        if untold is not None:
            return await self._wait(session, same, *untold, context, wait)
        # (from here to the admission nothing awaits: no other call comes between)
        left = self._calls_left(session)
        if left <= 0 and session.sessionless:
            return results.error(
                f"Nothing ran: {self.max_calls} calls have been made in one go, the most this "
                f"server takes; the next is taken once the calls pause for "
                f"{_duration(self.pause_seconds)}.")
        if left <= 0:
            return results.error(
                f"Nothing ran: this session has made {self.max_calls} calls, the most one "
                "session may make. Start a new session to go on.")
        # Admitted: the call takes one of the session's calls, and a task of the skill that
        # has no turn under way (a task started for it when every one has: a call out
        # upstream holds up no other call of the session).
        session.calls += 1
        session.taking[same] = anyio.Event()
        session.turns += 1
        session.used_at = time.monotonic()
        free = session.free.get(skill.name)
        try:
            task, answers = await anyio.to_thread.run_sync(
                turn, free.pop() if free else None, left)
        except BaseException:
            session.took(same, skill.name, None, [])
            raise
        session.took(same, skill.name, task, answers)
        if not answers:
            return results.error(await anyio.to_thread.run_sync(self._why_no_turn, task))
        answer = answers[0]
        if answer.waiting and answer.proposal is not None:
            return await self._wait(session, same, task, answer, context, wait)
        if answer.state == "done" and answer.outcome == "Done":
            return self.ran(name, answer.answer, answer.value)
        if not answer.answer:  # nothing came of it: the task ended as the call was taken
            return results.error(await anyio.to_thread.run_sync(self._why_no_turn, task))
        return results.error(answer.answer)

    def _unreadable(self, person: Principal, tool: str, arguments: dict[str, Any]) -> str:
        """Why a call of `tool` with `arguments` names a record that is not there for `person`
        to read ("" when each is there, none is named, or the arguments do not fit: the loop
        tells those). A record that does not exist and one they may not read are told alike."""
        action = self.app.actions.get(tool)
        if action.takes_plain_data:  # (no record to look up: no transaction either)
            return ""
        with self.app.database.reading() as db:
            return self.app.actions.unreadable(action, arguments, acting=ActingAs.of(person),
                                               within=db)

    def _start(self, session: _Session, skill: Skill[Any, Any], left: int, *,
               going_on_from: str | None = None) -> str:
        """A new task of the session's work for `skill`, which may take the `left` calls the
        session has left (`going_on_from`: the task it goes on from, which waits on a
        decision)."""
        session.serve(self.app.database, self.handle.registered.agent.agent_name())
        task = self.handle.start(skill, self.subject, for_=session.person,
                                 model_name=_MODEL_NAME, max_steps=left, work=session.work,
                                 continues=going_on_from)
        session.started.append(task)
        return task

    def _waiting(self, session: _Session, skill: Skill[Any, Any]) -> str | None:
        """The last of the session's tasks of `skill` that waits on a decision, if one does."""
        if not session.started:
            return None
        with self.app.database.reading() as db:
            waiting = set(db.scalars(select(tasks_table.c.id).where(
                tasks_table.c.id.in_(session.started), tasks_table.c.skill == skill.name,
                tasks_table.c.status == TaskStatus.WAITING.value)))
        return next((task for task in reversed(session.started) if task in waiting), None)

    def _calls_left(self, session: _Session) -> int:
        """How many more calls the session may make: `max_calls` is the session's, whichever of
        its tasks took them (a task per skill, and one for each wait its calls went on from)."""
        return self.max_calls - session.calls

    def _why_no_turn(self, task: str) -> str:
        """What the client is told of a call its task took no turn for, or that came to
        nothing: a task that failed is told in fixed words, since its problem may quote what
        the app's code raised (for the person and the log, never the client)."""
        outcome = self.app.outcome(task)
        if not outcome.status.ended:
            return "Nothing ran, and nothing was proposed: try the call again."
        why = _UNFORESEEN if outcome.status is TaskStatus.FAILED else outcome.problem
        return (f"Nothing ran: the work these calls belong to has ended "
                f"({outcome.status.value}). {why}").strip()

    async def _wait(self, session: _Session, same: tuple[str, str], task: str,
                    answer: CallAnswer, context: Context[Any, Any] | None,
                    wait: float) -> CallToolResult:
        """Keep the call open until the proposal is decided (or the wait is over). Once the
        client is told how it came out, the same call asked again is a new call."""
        told, decided = await self._wait_for_decision(task, answer, context, wait)
        if decided:
            session.forget_told(same, answer)
        return told

    async def _wait_for_decision(self, task: str, answer: CallAnswer,
                                 context: Context[Any, Any] | None,
                                 wait: float) -> tuple[CallToolResult, bool]:
        """What the client is told of a proposed call, and whether that is how it came out
        (False: it still waits on its decision)."""
        assert answer.proposal is not None
        proposal = answer.proposal
        waited = looked = 0.0
        while True:
            proposal = await anyio.to_thread.run_sync(self.app.proposal, proposal.id)
            if proposal.status is ProposalStatus.APPROVED and waited - looked >= _SETTLE_EVERY:
                # Its yes was given: when the process running it has stopped (a command's,
                # killed), it is settled here, and the client told how (it waited on nothing).
                looked = waited
                if await anyio.to_thread.run_sync(self._settle_stopped, proposal.id):
                    continue
            if proposal.status not in (ProposalStatus.WAITING, ProposalStatus.APPROVED):
                break
            if waited >= wait or self._stopping:
                return self.not_run(proposal.action, results.waiting_words(proposal),
                                    proposal=proposal.id, decide_by=proposal.decide_by), False
            await anyio.sleep(self.poll_seconds)
            waited += self.poll_seconds
            if context is not None and int(waited / self.poll_seconds) % 50 == 0:
                await _progress(context, waited, f"waiting on {proposal.decide_by}")
        now = await anyio.to_thread.run_sync(self.handle.answers, task, answer.turn)
        call = next(a for a in now if a.call == answer.call)
        if proposal.status is ProposalStatus.DONE:
            return self.ran(proposal.action, call.answer,
                            (proposal.result or {}).get("value")), True
        if proposal.status is ProposalStatus.REJECTED:
            return self.not_run(proposal.action, f"{call.answer} {results.DO_NOT_RETRY}",
                                proposal=proposal.id), True
        if proposal.status in (ProposalStatus.STALE, ProposalStatus.WITHDRAWN):
            return self.not_run(proposal.action, call.answer, proposal=proposal.id), True
        return results.error(call.answer or f"{proposal.action} did not run "
                                            f"({proposal.status.value})."), True

    def _settle_stopped(self, proposal: str) -> bool:
        """Settle `proposal`'s approved call when whoever ran it has stopped (see
        `Worker.settle_stopped_runs`); whether it was."""
        return self.app.worker().settle_stopped_runs(proposal=proposal) > 0

    # -- what a subclass may change (the guard does) -------------------------------------

    def loop_arguments(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any] | str:
        """The arguments the agent's loop is given for a call (or what is wrong with them: the
        loop checks an action's own arguments itself)."""
        return arguments

    def ran(self, tool: str, answer: str, value: Any) -> CallToolResult:
        """The result of a call that ran."""
        return results.ran(answer, value)

    def not_run(self, tool: str, text: str, **extra: str) -> CallToolResult:
        """The ordinary result of a call that did not run (yet), in words."""
        return results.words(text, **extra)

    # -- who and which session -----------------------------------------------------------

    async def _person(self, context: Context[Any, Any] | None) -> Principal | None:
        """Whom the call acts for: over stdio `for_`; over HTTP the person whose token the
        request carries (as the gate in front found it, else checked here)."""
        headers = _headers(context)
        if headers is None:
            return self.for_
        from signoff.mcp.transport import bearer_person, gated_person

        gated = gated_person(getattr(context.request_context.request, "scope", {})) if (
            context) else None
        return gated or await anyio.to_thread.run_sync(
            lambda: bearer_person(self.app, headers, issuing=self.issuing))

    def _session(self, context: Context[Any, Any] | None, person: Principal | None) -> _Session:
        key = _session_key(context, person)
        if key in self._closed:
            return _Session(person=person, closed=True)
        session = self._sessions.get(key)
        if session is None:
            session = self._sessions[key] = _Session(
                person=person, sessionless=isinstance(key, tuple) and not key[1],
                **self._went_on(person))
        return session

    def _went_on(self, person: Principal | None) -> dict[str, Any]:
        """What a new session of `person` goes on from: their session that closed last, when it
        closed within `pause_seconds` (and no open session holds its work): its work, and its
        calls proposed whose outcome the client was not told. A client whose session ended (it
        closed it, left it idle, or the server ended it) starts another and goes on with what
        its model read in the old: in a new work, the new session would have read nothing, and
        a call steered by what the old one read would not be held back; a call it asks again
        waits on the proposal it made (proposed twice, a yes to each would run it twice)."""
        kept = self._read_before.pop(_person_key(person), None)
        if kept is None or time.monotonic() - kept[1] >= self.pause_seconds:
            return {}
        old = kept[0]
        if any(open_.work == old.work for open_ in self._sessions.values()):
            return {}
        return {"work": old.work, "untold": dict(old.untold)}

    async def session_closed(self, session_id: str | None = None,
                             person: Principal | None = None) -> None:
        """A client's session closed (`session_id` None: the stdio client's; else the HTTP
        session of that id, connected as `person`): its tasks end, and their receipts say so.
        A call still being taken in it is let finish first."""
        key = "stdio" if session_id is None else _http_key(session_id, person)
        now = time.monotonic()
        self._closed = {k: at for k, at in self._closed.items() if now - at < _CLOSED_FOR}
        self._closed[key] = now
        session = self._sessions.pop(key, None)
        if session is None:
            return
        session.closed = True  # none is taken after this; those under way finish first
        while session.turns:
            await anyio.sleep(0.05)
        ended = True
        for task in session.started:
            for _ in range(_END_TRIES):  # whoever decided a call of it may hold it a moment
                if await anyio.to_thread.run_sync(self._end, task):
                    break
                await anyio.sleep(0.1)
            else:
                ended = False
                log.warning("The MCP session closed, but its task %s could not be ended: "
                            "another process held it for %d s. Its receipt does not say that "
                            "the session ended, until the next server of the agent ends it "
                            "once this one has stopped.", task, _END_TRIES // 10)
        if not ended:  # (its lease kept, for the next server to end them)
            return
        if session.lease is not None:
            await anyio.to_thread.run_sync(session.lease.end)
        # What it read holds in the person's next session (`_went_on`).
        self._read_before[_person_key(session.person)] = (session, time.monotonic())

    def _end(self, task: str) -> bool:
        return self.handle.end(task, why=_SESSION_CLOSED)

    def _end_paused(self, task: str) -> bool:
        return self.handle.end(task, why=_PAUSED)

    def end_stopped(self) -> int:
        """End the agent's tasks whose sessions went with a server that has stopped: one whose
        turn a process of this machine that has stopped was taking (a server killed while a
        call of theirs was out: the call is told as of unknown outcome), and every other task
        of a session whose server's lease shows it has stopped (between turns, or waiting on a
        decision: a call it proposed can still be decided). Each halts, its receipt saying
        why. How many ended. (A task of a session still served, here or elsewhere, is never
        taken: only one whose server is seen to have stopped.)"""
        from sqlalchemy import select

        from signoff.agents import holds
        from signoff.store.tables import tasks

        name = self.handle.registered.agent.agent_name()
        with self.app.database.reading() as db:
            held = db.execute(select(tasks.c.id, tasks.c.holder).where(
                tasks.c.agent == name, tasks.c.status == TaskStatus.RUNNING.value,
                tasks.c.holder.is_not(None))).all()
        ended = sum(1 for task, holder in held if holds.process_runs(holder) is False and (
            self.handle.end(task, why=_STOPPED)))
        for work in serving.stopped(self.app.database, name):
            with self.app.database.reading() as db:
                left = db.execute(select(tasks.c.id).where(
                    tasks.c.work_id == work, tasks.c.agent == name,
                    tasks.c.status.in_([TaskStatus.RUNNING.value, TaskStatus.WAITING.value])
                )).scalars().all()
            done = [self.handle.end(task, why=_SERVER_STOPPED) for task in left]
            ended += sum(done)
            if all(done):
                serving.forget(self.app.database, work)
        return ended

    def stopping(self) -> None:
        """The server is told to stop: a call kept open for its decision is answered now with
        the proposal that still waits (it runs once if they say yes, in a server that holds
        what it needs: started again, or `signoff mcp approve`)."""
        self._stopping = True

    async def wind_down(self, at_most_seconds: float = 10.0) -> None:
        """Answer what is open before the server stops (`stopping`), and wait until every
        call is answered, for at most `at_most_seconds`: so that no client is left without
        an answer when the connections close."""
        self.stopping()
        with anyio.move_on_after(at_most_seconds):
            while self._calls_open:
                await anyio.sleep(0.05)
        await anyio.sleep(0.1)  # the answers just given, on their way to the transport

    async def serve_streams(self, read: Any, write: Any) -> None:
        """Serve one client on these streams (the SDK's transport gives them) until it ends.
        (`run_stdio_async` does this with the SDK's own stdin reader, which cannot be stopped:
        see `transport.StdinLines`. The low-level server has no public name on MCPServer.)"""
        lowlevel = self._lowlevel_server
        await lowlevel.run(read, write, lowlevel.create_initialization_options())

    async def close_sessions(self) -> None:
        """The server stops: what is still open is answered first (`stopping`), then every
        session still open closes (over HTTP on the 2026-07-28 protocol, which keeps no
        sessions, the calls of each person are one until then)."""
        self.stopping()
        for key, session in list(self._sessions.items()):
            await self.session_closed(None if key == "stdio" else key[1],  # type: ignore[index]
                                      session.person)


def _kept_why(why: str) -> str:
    """A client's why, cut to `_WHY_AT_MOST` characters, saying so, when it is longer."""
    if len(why) <= _WHY_AT_MOST:
        return why
    return (f"{why[:_WHY_AT_MOST]}… [the client's why had {len(why):,} characters: the rest is "
            "left out]")


def _duration(seconds: float) -> str:
    """A while, in words: "30 minutes", "1.5 seconds"."""
    if seconds >= 60:
        return f"{seconds / 60:g} minute{'' if seconds == 60 else 's'}"
    return f"{seconds:g} second{'' if seconds == 1 else 's'}"


def _headers(context: Context[Any, Any] | None) -> Any:
    if context is None:
        return None
    try:
        return context.headers
    except ValueError:  # no request: called in process
        return None


def _session_key(context: Context[Any, Any] | None, person: Principal | None) -> object:
    """Which session a call belongs to: over stdio the process serves one client; over HTTP,
    the MCP session when the protocol keeps one (2025-11-25), else the person connecting (the
    2026-07-28 protocol keeps no sessions)."""
    headers = _headers(context)
    if headers is None:
        return "stdio"
    version = headers.get(MCP_PROTOCOL_VERSION_HEADER)
    if version is not None and version not in HANDSHAKE_PROTOCOL_VERSIONS:
        # The SDK serves this request on the protocol that keeps no sessions (it routes by this
        # header alone), and checks no session id on it: one the client sends is its own
        # choice, and made a session (a work of its own, forgetting what was read) per call.
        return _http_key("", person)
    return _http_key(headers.get("mcp-session-id") or "", person)


def _person_key(person: Principal | None) -> str:
    return person.id if person is not None else ""


def _http_key(session_id: str, person: Principal | None) -> tuple[str, str, str]:
    return ("http", session_id, person.id if person else "")


def _meta(context: Context[Any, Any] | None, key: str, kind: Any) -> Any:
    """What the client put under `key` in the call's ``_meta`` (None: nothing of that kind)."""
    if context is None:
        return None
    try:
        meta = context.request_context.meta
    except ValueError:  # no request: called in process
        return None
    found = meta.get(key) if isinstance(meta, dict) else None
    return found if isinstance(found, kind) and not isinstance(found, bool) else None


async def _progress(context: Context[Any, Any], waited: float, message: str) -> None:
    try:
        await context.report_progress(waited, None, message)
    except Exception:  # a client that asked for no progress: nothing to tell
        return
