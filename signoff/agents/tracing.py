"""OpenTelemetry spans of agents' work, named by the GenAI semantic conventions, with the gate's
decisions on them under ``signoff.*``.

Turned on with ``app.trace()`` (the ``otel`` extra). The spans:

* ``invoke_agent {agent}`` — a task, for as long as it runs in one process (or, begun in one
  whose tasks run elsewhere — on Temporal —, until it is handed on there). The first is the
  trace's root (or a child of the span current when the task began); a task that goes on later,
  here or in another process or worker, continues the same trace under it: the W3C trace context
  is kept with the task (by the first process that traces a step or a decision of it, when the
  one that began it did not).
* ``chat {model}`` — each model call: provider, model, ``max_tokens``, usage and cost.
* ``execute_tool {tool}`` — each tool call: call id, the gate's verdict and reason, the state and
  outcome it ended in; a proposal is an event ``signoff.proposal`` on it (its id, whom it waits
  on), and the proposal keeps this span's context.
* ``signoff.wait {tool}`` — the wait on a person, under the tool call's span, from the proposal
  until its decision (written when it is decided, in whichever process decides).
* ``signoff.decide {tool}`` — a decision: who, approve / reject / stale / withdrawn, whether the
  values were edited, linked to the tool call's span (and to the span it was made in, when that
  is another trace's: a web request's); the task's next steps run under it.

Arguments, results and messages (which may hold personal data) are exported only when asked:
``include_content=True``, or ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`` (cut at
`CONTENT_LIMIT` characters when the provider cuts nothing itself); a tool the model calls by
what is no tool's name is ``(not a tool name)``. A value the tool's schema says is secret (a
pydantic `SecretStr`) is ``***`` even then.

A span processor of the provider that raises fails no task: it is logged once (``signoff.tracing``).
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Sequence
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import Link, SpanKind, Status, StatusCode
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator
from sqlalchemy import Text, cast, or_, select, update

from signoff.agents.observer import NOTHING, Observer, Span
from signoff.agents.proposals import Decision, ProposalStatus
from signoff.agents.tasks import Outcome, TaskStatus
from signoff.store.tables import proposals, tasks

if TYPE_CHECKING:
    from types import TracebackType

    from signoff.actions.catalog import Action
    from signoff.actions.results import ActionResult
    from signoff.agents.gate import Verdict
    from signoff.agents.proposals import Proposal
    from signoff.agents.repository import CallRow, TaskRow
    from signoff.models.base import Message, Model, Reply, ToolSpec
    from signoff.security.principals import Principal
    from signoff.store.database import Database

__all__ = ["CAPTURE_CONTENT", "CONTENT_LIMIT", "Tracing"]

log = logging.getLogger("signoff.tracing")

CAPTURE_CONTENT = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
"""The environment variable that, set to ``true``, exports arguments, results and messages."""

_W3C = TraceContextTextMapPropagator()
_TOOL: ContextVar[_Tool | None] = ContextVar("signoff_tool_call", default=None)
"""The tool call in hand, with its ``execute_tool`` span (in this thread or task)."""

CONTENT_LIMIT = 32_768
"""The most characters of an argument, result or messages exported when the tracer provider sets
no attribute length limit of its own (the SDK's default): a 10 MB page a tool read would
otherwise make a batch of spans no collector takes, and every other span in it would be lost."""

_NAMED = re.compile(r"[A-Za-z0-9_.\-]{1,64}")
"""A tool's name, as model providers allow one: what a model calls by any other name (text it
wrote there, of any length) is not put on a span, where content is kept out."""
_MISNAMED = "(not a tool name)"
_CALL_ID_LIMIT = 128
"""The most characters of a tool call's id exported (the model's provider, or a client, made it)."""

_DECIDED = {ProposalStatus.DONE: "approve", ProposalStatus.FAILED: "approve",
            ProposalStatus.APPROVED: "approve", ProposalStatus.REJECTED: "reject",
            ProposalStatus.STALE: "stale", ProposalStatus.WITHDRAWN: "withdrawn"}
"""A decision's outcome, as ``signoff.decision.outcome`` says it."""


class Tracing(Observer):
    """Turns the loop's and the decider's points into spans on `tracer_provider` (the global
    one when None)."""

    def __init__(self, *, database: Database, tracer_provider: Any = None,
                 include_content: bool | None = None) -> None:
        from importlib.metadata import version

        self._database = database
        self._tracer = trace.get_tracer("signoff", version("signoff"), tracer_provider)
        processors = getattr(self._tracer, "span_processor", None)  # the SDK's tracer's (its own)
        if processors is not None:
            self._tracer.span_processor = _Guarded(processors)  # type: ignore[attr-defined]
        sampler = getattr(self._tracer, "sampler", None)  # (the SDK's tracer's, as the above)
        if sampler is not None:
            self._tracer.sampler = _GuardedSampler(sampler)  # type: ignore[attr-defined]
        if include_content is None:
            include_content = os.environ.get(CAPTURE_CONTENT, "").strip().lower() == "true"
        self.include_content = include_content
        """Whether arguments, results and messages are exported."""
        limits = getattr(self._tracer, "_span_limits", None)  # the SDK's tracer's, else none
        self._content_limit = None if getattr(limits, "max_span_attribute_length", None) \
            else CONTENT_LIMIT
        """The most characters of content exported, when the provider does not cut it itself."""
        self._steps = self._tracer if include_content else _step_spans(self._tracer,
                                                                       version("signoff"))
        """What the spans of model calls and tool calls are started with."""
        self._open: dict[str, Any] = {}
        """The root span of each task started here that has neither run nor been handed on
        yet."""
        self._models: dict[str, tuple[str, str]] = {}
        self._secret: dict[str, dict[str, Any]] = {}
        """The schemas of the tools offered in each task's last model call here that take a
        secret (a pydantic `SecretStr`: ``writeOnly``), by name, while content is exported."""

    # -- tasks ---------------------------------------------------------------------------

    def started(self, *, task_id: str, agent: str, skill: str, model: Model) -> Any:
        provider, name = self._model(model)
        span = self._tracer.start_span(f"invoke_agent {agent}", attributes={
            "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": agent,
            "gen_ai.conversation.id": task_id, "gen_ai.provider.name": provider,
            "gen_ai.request.model": name, "signoff.task.id": task_id, "signoff.skill": skill,
        })
        self._open[task_id] = span
        return _carrier(span)

    def running(self, task: TaskRow) -> Span:
        return _Run(self, task)

    def handing_on(self, task_id: str) -> Span:
        span = self._open.pop(task_id, None)  # begun here: it ends as this process lets go
        return _HandedOn(span) if span is not None else NOTHING

    # -- model calls ---------------------------------------------------------------------

    def complete(self, task: TaskRow, model: Model, messages: Sequence[Message],
                 tools: Sequence[ToolSpec], *, max_output_tokens: int) -> Reply:
        provider, name = self._model(model)
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "chat", "gen_ai.provider.name": provider,
            "gen_ai.request.model": name, "gen_ai.request.max_tokens": max_output_tokens,
            "gen_ai.conversation.id": task.id,
        }
        secret: dict[str, Any] = {}
        if self.include_content:
            secret = {spec.name: spec.parameters for spec in tools if _holds_secret(spec.parameters)}
            if secret:  # (its tool calls' spans hide the same)
                self._secret[task.id] = secret
            else:
                self._secret.pop(task.id, None)
            attributes["gen_ai.input.messages"] = self._content(
                json.dumps([_message(m, secret) for m in messages]))
        span = self._steps.start_span(f"chat {name}", kind=SpanKind.CLIENT, attributes=attributes)
        token = otel_context.attach(trace.set_span_in_context(span))
        try:
            reply = model.complete(messages, tools, max_output_tokens=max_output_tokens)
        except BaseException as error:
            _failed(span, type(error).__qualname__)
            span.end()
            raise
        finally:
            otel_context.detach(token)
        try:
            self._replied(span, model, reply, secret)
        finally:  # (the reply goes back to the loop as it came, whatever it says)
            span.end()
        return reply

    def _replied(self, span: Any, model: Model, reply: Reply, secret: dict[str, Any]) -> None:
        """What a model call's span says of `reply`: its usage and cost when the usage is a
        count of tokens; else neither (the loop halts the task, and the receipt counts what was
        reserved for the call as spent) and the span fails."""
        usage = reply.usage
        ended: dict[str, Any] = {
            "gen_ai.response.finish_reasons": (_FINISH.get(reply.stop, str(reply.stop)),)}
        if not usage.counted:
            _failed(span, _NO_COUNT)
        else:
            tokens_in, tokens_out = int(usage.input_tokens), int(usage.output_tokens)
            ended.update({"gen_ai.usage.input_tokens": tokens_in,
                          "gen_ai.usage.output_tokens": tokens_out,
                          "signoff.cost_usd": model.price.cost(tokens_in, tokens_out)
                          if model.price else 0.0})
        if self.include_content:
            ended["gen_ai.output.messages"] = self._content(json.dumps([_reply_message(reply, secret)]))
        span.set_attributes(ended)

    def _content(self, text: str) -> str:
        """`text` as exported: cut to `CONTENT_LIMIT` when the provider cuts nothing."""
        limit = self._content_limit
        return text[:limit] if limit is not None and len(text) > limit else text

    def _model(self, model: Model) -> tuple[str, str]:
        """(provider, model) of `model`: ``openai:gpt-4o`` is ("openai", "gpt-4o")."""
        known = self._models.get(model.name)
        if known is None:
            provider, _, name = model.name.partition(":")
            if not name:
                provider, name = getattr(model, "provider", "") or "signoff", model.name
            known = self._models[model.name] = (provider, name)
        return known

    # -- tool calls ----------------------------------------------------------------------

    def tool_call(self, task: TaskRow, call: CallRow) -> Span:
        return _Tool(self, call, self._secret.get(task.id, {}).get(call.tool))

    def gated(self, verdict: Verdict, action: Action | None = None) -> None:
        tool = _TOOL.get()
        if tool is not None:
            reason = _unvalued(verdict, action)
            if tool.name is not tool.call_tool and tool.call_tool:
                reason = reason.replace(tool.call_tool, tool.name)
            tool.told.update({"signoff.gate.verdict": verdict.leave.name.lower(),
                              "signoff.gate.reason": reason})
            if verdict.by_rule:
                tool.told["signoff.gate.by_rule"] = True
            if self.include_content and action is not None:  # its own schema says what is secret
                tool.told["gen_ai.tool.call.arguments"] = self._content(
                    _hidden(tool.arguments, action.info.parameters_schema))

    def tool_ended(self, *, state: str, outcome: str, answer: str,
                   result: ActionResult | None = None) -> None:
        tool = _TOOL.get()
        if tool is None:
            return
        tool.told["signoff.tool.outcome"] = str(outcome or state)
        if state != "done":  # a call that ran, or was answered, says so by its outcome alone
            tool.told["signoff.tool.state"] = str(state)
        if outcome in _CALL_FAILED:
            _failed(tool.span, f"signoff.tool.{outcome.lower()}")
        elif state == "refused":
            _failed(tool.span, "signoff.tool.refused")
        if self.include_content:
            tool.told["gen_ai.tool.call.result"] = self._content(answer)

    def trace_context(self) -> Any:
        tool = _TOOL.get()
        return _carrier(tool.span) if tool is not None else None

    def proposed(self, proposal: Proposal, *, waits_on: str) -> None:
        tool = _TOOL.get()
        if tool is None:
            return
        tool.told["signoff.tool.state"] = "proposed"
        tool.span.add_event("signoff.proposal", {
            "signoff.proposal.id": proposal.id, "signoff.proposal.waits_on": waits_on,
            "signoff.proposal.routed": proposal.routed,
        })

    # -- decisions -----------------------------------------------------------------------

    def deciding(self, proposal_id: str, *, by: Principal, verb: str) -> Span:
        return _Decision(self, proposal_id, by, verb)

    def _keep(self, task_id: str, span: Any) -> None:
        """Keep `span`'s context with task `task_id`, which has none (it was begun where
        nothing traced), so that its later steps and decisions, in any process, go on in its
        trace; one that another process kept meanwhile stays."""
        with self._database.connect() as db:
            kept = tasks.c.trace_context  # none is a JSON null as the task was stored
            db.execute(update(tasks).where(tasks.c.id == task_id, or_(
                kept.is_(None), cast(kept, Text) == "null")).values(trace_context=_carrier(span)))

    def _parent(self, carrier: Any) -> Any:
        """The context a span continuing `carrier` starts in: the current one when it is
        already in that trace (a decision made here, the task going on under it), else the
        kept one; None (the current context) when nothing was kept."""
        if not carrier:
            return None
        kept = _W3C.extract(carrier)
        trace_id = trace.get_current_span(kept).get_span_context().trace_id
        if trace.get_current_span().get_span_context().trace_id == trace_id:
            return None
        return kept


class _Current(Span):
    """A span made current on entering (`_enter`), ended on leaving: failed by an exception's
    kind alone."""

    _span: Any
    _token: Any

    def _enter(self, span: Any) -> None:
        self._span = span
        self._token = otel_context.attach(trace.set_span_in_context(span))

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        otel_context.detach(self._token)
        if kind is not None:
            _failed(self._span, kind.__qualname__)
        self._span.end()


class _Run(_Current):
    """A task running in this process: its ``invoke_agent`` span, current while it runs."""

    def __init__(self, tracing: Tracing, task: TaskRow) -> None:
        self._tracing, self._task = tracing, task

    def __enter__(self) -> Span:
        task, tracing = self._task, self._tracing
        span = tracing._open.pop(task.id, None)
        if span is None:  # it goes on: in the trace it began in
            span = tracing._tracer.start_span(
                f"invoke_agent {task.agent}", context=tracing._parent(task.trace_context),
                attributes={"gen_ai.operation.name": "invoke_agent",
                            "gen_ai.agent.name": task.agent, "gen_ai.conversation.id": task.id,
                            "signoff.task.id": task.id, "signoff.skill": task.skill,
                            "signoff.task.resumed": True})
            if not task.trace_context:  # begun where nothing traced: its trace begins here
                tracing._keep(task.id, span)
        self._enter(span)
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self._tracing._secret.pop(self._task.id, None)
        super().__exit__(kind, error, traceback)

    def ended(self, outcome: Any) -> None:
        if not isinstance(outcome, Outcome):
            return
        self._span.set_attributes({"signoff.task.status": outcome.status.value,
                                   "signoff.task.steps": outcome.steps,
                                   "signoff.task.spend_usd": outcome.spend_usd})
        if outcome.waiting_on:
            self._span.set_attribute("signoff.task.waiting_on", list(outcome.waiting_on))
        if outcome.status in _TASK_FAILED:
            _failed(self._span, _TASK_FAILED[outcome.status])


class _HandedOn(_Run):
    """A task begun here going on in the runner's workers: its root ``invoke_agent`` span,
    current until this process has handed the task on and heard where it stands, then ended
    (its context is kept with the task, for the steps there)."""

    def __init__(self, span: Any) -> None:
        self._begun = span

    def __enter__(self) -> Span:
        self._enter(self._begun)
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        _Current.__exit__(self, kind, error, traceback)  # (it ran no step here)


class _Tool(_Current):
    """One tool call: its ``execute_tool`` span, current while it is gated and run."""

    def __init__(self, tracing: Tracing, call: CallRow, schema: Any) -> None:
        self._tracing, self._call = tracing, call
        self.arguments = call.arguments if schema is None else _hidden(call.arguments, schema)
        """Its arguments as exported (when content is): any secret in them hidden."""
        self.call_tool = call.tool
        """The name the model called the tool by."""
        self.name = call.tool if _NAMED.fullmatch(call.tool) else _MISNAMED
        """The tool's name on the span."""
        self.told: dict[str, Any] = {}
        """What the gate and the call's end said, set on the span as it ends (at once)."""

    @property
    def span(self) -> Any:
        """Its ``execute_tool`` span."""
        return self._span

    def __enter__(self) -> Span:
        call = self._call
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": self.name,
            "gen_ai.tool.call.id": call.call_id[:_CALL_ID_LIMIT], "gen_ai.tool.type": "function",
        }
        if self._tracing.include_content:
            self.told["gen_ai.tool.call.arguments"] = self._tracing._content(self.arguments)
        span = self._tracing._steps.start_span(f"execute_tool {self.name}", attributes=attributes)
        self._enter(span)
        self._mine = _TOOL.set(self)
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        _TOOL.reset(self._mine)
        self._span.set_attributes(self.told)
        super().__exit__(kind, error, traceback)


class _Decision(_Current):
    """A person deciding a proposal: its ``signoff.decide`` span (the task's next steps run
    under it), and, once decided, the ``signoff.wait`` span from the proposal to the decision."""

    def __init__(self, tracing: Tracing, proposal_id: str, by: Principal, verb: str) -> None:
        self._tracing, self._proposal_id, self._by, self._verb = tracing, proposal_id, by, verb
        self._proposing: Any = None
        """The W3C trace context of the tool call that proposed it."""

    def __enter__(self) -> Span:
        tracing = self._tracing
        with tracing._database.connect() as db:
            row = db.execute(
                select(proposals.c.action, proposals.c.trace_context, tasks.c.trace_context
                       .label("task_context"), proposals.c.call_id, proposals.c.task_id)
                .join(tasks, tasks.c.id == proposals.c.task_id)
                .where(proposals.c.id == self._proposal_id)).first()
        action, self._proposing, task_context, call_id, task_id = row if row is not None else (
            "", None, None, "", None)
        proposing = trace.get_current_span(_W3C.extract(self._proposing)).get_span_context() \
            if self._proposing else None
        attributes: dict[str, Any] = {
            "signoff.proposal.id": self._proposal_id, "signoff.decision.verb": self._verb,
            "signoff.decision.by.id": str(getattr(self._by, "id", "")),
            "signoff.decision.by.name": str(getattr(self._by, "name", "")),
            "gen_ai.tool.name": action, "gen_ai.tool.call.id": (call_id or "")[:_CALL_ID_LIMIT],
        }
        self._action = action
        links = [Link(proposing, {"signoff.link": "proposed by"})] if proposing else []
        parent = tracing._parent(task_context)
        current = trace.get_current_span().get_span_context()
        if parent is not None and current.is_valid:  # decided within another trace (a request's)
            links.append(Link(current, {"signoff.link": "decided in"}))
        span = tracing._tracer.start_span(f"signoff.decide {action}".rstrip(), context=parent,
                                          attributes=attributes, links=links)
        if task_id is not None and not task_context:  # begun where nothing traced: from here
            tracing._keep(task_id, span)
        self._enter(span)
        return self

    def ended(self, outcome: Any) -> None:
        if not isinstance(outcome, Decision):
            return
        with self._tracing._database.connect() as db:
            row = db.execute(select(proposals.c.created_at, proposals.c.decided_at,
                                    proposals.c.edited)
                             .where(proposals.c.id == self._proposal_id)).first()
        if row is None:
            return
        created_at, decided_at, edited = row
        said = _DECIDED.get(outcome.status, outcome.status.value.lower())
        self._span.set_attributes({"signoff.decision.outcome": said,
                                   "signoff.decision.status": outcome.status.value,
                                   "signoff.decision.edited": bool(edited)})
        if outcome.status is ProposalStatus.FAILED:
            _failed(self._span, "signoff.tool.failed")
        wait = self._tracing._tracer.start_span(
            f"signoff.wait {self._action}".rstrip(),
            context=_W3C.extract(self._proposing) if self._proposing else None,
            start_time=_nanoseconds(created_at),
            attributes={"signoff.proposal.id": self._proposal_id,
                        "signoff.decision.outcome": said})
        wait.end(end_time=_nanoseconds(decided_at or datetime.now(UTC)))


class _Guarded:
    """The tracer provider's span processors, as signoff's spans reach them: one that raises
    as a span starts or ends fails no task (the span is lost to it), and is logged once."""

    def __init__(self, processors: Any) -> None:
        self._processors = processors
        self._told = False

    def on_start(self, span: Any, parent_context: Any = None) -> None:
        try:
            self._processors.on_start(span, parent_context=parent_context)
        except Exception as error:  # (any: it is the provider's code, not signoff's)
            self._failed(error)

    def _on_ending(self, span: Any) -> None:
        try:
            self._processors._on_ending(span)
        except Exception as error:
            self._failed(error)

    def on_end(self, span: Any) -> None:
        try:
            self._processors.on_end(span)
        except Exception as error:
            self._failed(error)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._processors, name)

    def _failed(self, error: Exception) -> None:
        if not self._told:
            self._told = True
            log.error("A span processor of the tracer provider failed (%s) on signoff's spans; "
                      "the work goes on, and the spans it failed on may be lost. (This is said "
                      "once.)", type(error).__qualname__)


class _GuardedSampler:
    """The tracer provider's sampler, as signoff's spans ask it: one that raises fails no task
    (the span is dropped, as a sampler's no would drop it), and is logged once."""

    def __init__(self, sampler: Any) -> None:
        self._sampler = sampler
        self._told = False

    def should_sample(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return self._sampler.should_sample(*args, **kwargs)
        except Exception as error:  # (any: it is the provider's code, not signoff's)
            from opentelemetry.sdk.trace.sampling import Decision, SamplingResult

            if not self._told:
                self._told = True
                log.error("The tracer provider's sampler failed (%s) on signoff's spans; the "
                          "work goes on, and the spans it failed on are not recorded. (This is "
                          "said once.)", type(error).__qualname__)
            return SamplingResult(Decision.DROP)

    def get_description(self) -> str:
        return str(self._sampler.get_description())

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sampler, name)


_CALL_FAILED = frozenset({"Invalid", "Denied", "Gone", "Failed", "Unknown", "Unavailable"})
"""The outcomes of a tool call that did not do what was asked (its span fails): its arguments
would not do, the action refused them, found nothing, or failed, or it is not known whether it
ran, or it could not reach what it needed. (One proposed, or answered by a person, did not fail.)"""
_TASK_FAILED = {TaskStatus.FAILED: "signoff.task.failed", TaskStatus.HALTED: "signoff.task.halted"}
"""The ends of a task that did not finish its work (its span fails): ``error.type`` of each."""

_FINISH = {"end": "stop", "tool_calls": "tool_call", "max_tokens": "length"}
"""A reply's stop, as the conventions name finish reasons."""
_NO_COUNT = "signoff.model.usage_not_counted"
"""The ``error.type`` of a model call whose reported usage is no count of tokens."""


def _unvalued(verdict: Verdict, action: Action | None) -> str:
    """The gate's reason as a span says it: the arguments outside content may have steered by
    their top-level names alone. Their paths go on into what the model wrote — a mapping's keys
    (``amounts.GB29 NWBK… (its key)``: an account, a person's name), of any length — which is
    content, kept out; a top-level name that is none of `action`'s parameters (a key the model
    wrote beside them: a tool whose schema takes any) is ``(an argument)``."""
    untrusted = verdict.untrusted
    reason = verdict.reason
    if not untrusted:
        return reason
    parameters = frozenset(p.name for p in action.info.parameters) if action else frozenset()
    listed = ", ".join(sorted({f"`{label.argument}`" for label in untrusted}))
    named = ", ".join(sorted({f"`{_top(label.argument, parameters)}`" for label in untrusted}))
    reason = reason.replace(listed, named)
    if any(label.argument not in named and label.argument in reason for label in untrusted):
        return f"{verdict.reason.partition(':')[0]}: {verdict.leave.words}"  # (worded otherwise)
    return reason


def _top(path: str, parameters: frozenset[str]) -> str:
    """The top-level argument of a label's `path` (``amounts.GB29…`` is ``amounts``), when it
    is one of `parameters`."""
    top = re.split(r"[.\[ ]", path, maxsplit=1)[0]
    return top if top in parameters else "(an argument)"


def _step_spans(tracer: Any, version: str) -> Any:
    """What a step's spans are started with: `StepSpans` for the SDK's tracer, else `tracer`."""
    try:
        from signoff.agents.step_spans import StepSpans
    except ImportError:  # OpenTelemetry's API alone: the tracer is not the SDK's
        return tracer
    return StepSpans.over(tracer, "signoff", version) or tracer


def _carrier(span: Any) -> dict[str, str]:
    """The W3C trace context of `span`, to keep with a task or a proposal."""
    carrier: dict[str, str] = {}
    _W3C.inject(carrier, context=trace.set_span_in_context(span))
    return carrier


def _failed(span: Any, error_type: str) -> None:
    """Mark `span` failed, by its kind of error alone (its message may hold what is private)."""
    span.set_attribute("error.type", error_type)
    span.set_status(Status(StatusCode.ERROR))


def _nanoseconds(moment: datetime) -> int:
    if moment.tzinfo is None:  # SQLite gives back naive times; signoff writes them in UTC
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1_000_000_000)


_HIDDEN = "***"
"""What an argument that is secret is exported as."""


def _secret_at(schema: Any, defs: dict[str, Any]) -> bool:
    """Whether a value of `schema` is a secret: a pydantic `SecretStr` or `SecretBytes`
    (``writeOnly``, or the format ``password``), or may be one (any of a union's)."""
    if not isinstance(schema, dict):
        return False
    schema = _resolved(schema, defs)
    if schema.get("writeOnly") is True or schema.get("format") == "password":
        return True
    return any(_secret_at(branch, defs) for key in ("anyOf", "oneOf", "allOf")
               for branch in schema.get(key) or ())


def _holds_secret(schema: dict[str, Any]) -> bool:
    """Whether arguments of `schema` may hold a secret anywhere (a cheap look at its text)."""
    text = json.dumps(schema)
    return '"writeOnly": true' in text or '"format": "password"' in text


def _resolved(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        found = defs.get(ref.removeprefix("#/$defs/"))
        return found if isinstance(found, dict) else schema
    return schema


def _hidden(arguments: str, schema: dict[str, Any]) -> str:
    """`arguments` (JSON) with each value that `schema` says is a secret as ``***``; when
    they are no JSON, all of them (they cannot be told apart)."""
    if not _holds_secret(schema):
        return arguments
    try:
        value = json.loads(arguments)
    except ValueError:
        return _HIDDEN
    return json.dumps(_hide(value, schema, schema.get("$defs") or {}))


def _hide(value: Any, schema: Any, defs: dict[str, Any]) -> Any:
    if not isinstance(schema, dict):
        return value
    if _secret_at(schema, defs):
        return _HIDDEN
    schema = _resolved(schema, defs)
    branches = [_resolved(b, defs) for key in ("anyOf", "oneOf", "allOf")
                for b in schema.get(key) or () if isinstance(b, dict)]
    for branch in branches:  # a union's members that are objects or lists: each hides its own
        value = _hide(value, branch, defs)
    if isinstance(value, dict):
        named = schema.get("properties") or {}
        rest = schema.get("additionalProperties")
        return {key: _hide(item, named.get(key, rest), defs) for key, item in value.items()}
    if isinstance(value, list):
        prefix = schema.get("prefixItems") or []
        return [_hide(item, prefix[i] if i < len(prefix) else schema.get("items"), defs)
                for i, item in enumerate(value)]
    return value


def _message(message: Message, secret: dict[str, Any]) -> dict[str, Any]:
    """A message as the conventions' ``gen_ai.input.messages`` hold it (the arguments of a
    call of a tool in `secret` with its secrets hidden)."""
    parts: list[dict[str, Any]] = []
    if message.text:
        kind = "tool_call_response" if message.role == "tool" else "text"
        parts.append({"type": kind, "id": message.tool_call_id, "response": message.text}
                     if kind == "tool_call_response" else {"type": "text", "content": message.text})
    for call in message.tool_calls:
        parts.append({"type": "tool_call", "id": call.id, "name": call.name,
                      "arguments": _hidden(call.arguments, secret[call.name])
                      if call.name in secret else call.arguments})
    return {"role": message.role, "parts": parts}


def _reply_message(reply: Reply, secret: dict[str, Any]) -> dict[str, Any]:
    parts: list[dict[str, Any]] = [{"type": "text", "content": reply.text}] if reply.text else []
    parts += [{"type": "tool_call", "id": c.id, "name": c.name,
               "arguments": _hidden(c.arguments, secret[c.name]) if c.name in secret
               else c.arguments} for c in reply.tool_calls]
    return {"role": "assistant", "parts": parts,
            "finish_reason": _FINISH.get(reply.stop, str(reply.stop))}
