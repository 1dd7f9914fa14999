"""The spans of a task's steps — a model call's ``chat``, a tool call's ``execute_tool`` — made
for the OpenTelemetry SDK without its per-span machinery.

An alone tool call makes two such spans. Through the SDK's `Tracer` a span costs about 13 µs of
CPU, and about 1 µs more per attribute, before it reaches a span processor: a lock for the span,
for its attributes and for each of its event and link lists, each attribute checked, a sampling
result, and a copy of the span made at its end. That was 15–25% of the cheapest alone call
(``bench/bench_loop.py --tracing``; bench/README.md), of which the processors' own share (a
`BatchSpanProcessor` queueing the span) was a few percent.

`StepSpans` makes these spans as the SDK's tracer would, from the same parts of it: the
provider's sampler decides each one (the SDK's default, which samples every span under a sampled
one, is not asked: its answer is known), its id generator names it, its span processors are told
as it starts and ends, and it carries the provider's resource and signoff's instrumentation scope.
What it leaves out is the bookkeeping: the span keeps its attributes in a plain dict, and is
itself the SDK's `ReadableSpan` the processors get as it ends (its attributes cannot change after
that). About 5 µs a span, with a chat span's nine attributes.

It is used for spans made under a recording span of this process (the task's ``invoke_agent``),
when content is not captured: signoff's own attributes are short and of the types OpenTelemetry
takes, so there is nothing for the SDK's span limits to cut or drop; arguments, results and
messages, which may be long, go through the SDK's own spans and its limits. Anything else (a
tracer that is not the SDK's, a span with no recording span above it here) is the tracer's.
"""

from __future__ import annotations

from collections.abc import Mapping
from time import time_ns
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.trace import Event, ReadableSpan, Tracer
from opentelemetry.sdk.trace.sampling import ALWAYS_ON, Decision, ParentBased
from opentelemetry.sdk.util.instrumentation import InstrumentationScope
from opentelemetry.trace import (
    Link,
    SpanContext,
    SpanKind,
    Status,
    StatusCode,
    TraceFlags,
    TraceState,
)
from opentelemetry.util.types import AnyValue, Attributes

__all__ = ["StepSpans"]

_SAMPLED = TraceFlags.SAMPLED
_DEFAULT_SAMPLER = ParentBased(ALWAYS_ON).get_description()  # type: ignore[no-untyped-call]
"""How the SDK's default sampler describes itself: it samples every span under a sampled span."""


class StepSpans:
    """Starts a step's spans for the SDK's `tracer`, as its ``start_span`` would."""

    def __init__(self, tracer: Tracer, scope: InstrumentationScope) -> None:
        self._tracer = tracer
        self._scope = scope
        self._follows_parent = tracer.sampler.get_description() == _DEFAULT_SAMPLER
        """Whether the sampler is the SDK's default, whose answer under a sampled span is known
        without asking: sampled, the attributes as they are, the parent's trace state."""

    @classmethod
    def over(cls, tracer: Any, name: str, version: str) -> StepSpans | None:
        """Step spans for `tracer` (got as ``get_tracer(name, version)``): None when it is not the
        SDK's."""
        if not isinstance(tracer, Tracer):
            return None
        return cls(tracer, InstrumentationScope(name, version))

    def start_span(self, name: str, *, kind: SpanKind = SpanKind.INTERNAL,
                   attributes: Mapping[str, AnyValue]) -> trace.Span:
        """A span `name` under the current span, started now (not made current)."""
        tracer = self._tracer
        parent_span = trace.get_current_span()
        if not parent_span.is_recording():  # a first span, or one under another's
            return tracer.start_span(name, kind=kind, attributes=attributes)
        parent = parent_span.get_span_context()
        state: TraceState | None
        if self._follows_parent and parent.trace_flags & _SAMPLED:
            decision, fields, state = Decision.RECORD_AND_SAMPLE, dict(attributes), parent.trace_state
        else:
            sampled = tracer.sampler.should_sample(None, parent.trace_id, name, kind, attributes)
            decision, fields, state = sampled.decision, dict(sampled.attributes), sampled.trace_state
        flags = TraceFlags((parent.trace_flags & ~_SAMPLED)  # the parent's other flags kept
                           | (_SAMPLED if decision is Decision.RECORD_AND_SAMPLE else 0))
        context = SpanContext(parent.trace_id, tracer.id_generator.generate_span_id(),
                              is_remote=False, trace_flags=flags, trace_state=state)
        if decision is Decision.DROP:
            return trace.NonRecordingSpan(context)
        span = _StepSpan(self, name, context, parent, kind, fields)
        # Told of it as of the SDK's own spans: a span of the API that is also readable.
        tracer.span_processor.on_start(span)  # type: ignore[arg-type]
        return span


class _StepSpan(trace.Span, ReadableSpan):
    """A step's span, open until it ends; then the finished span the processors get."""

    def __init__(self, spans: StepSpans, name: str, context: SpanContext, parent: SpanContext,
                 kind: SpanKind, attributes: dict[str, Any]) -> None:
        tracer = spans._tracer
        events: list[Event] = []
        links: list[Link] = []
        ReadableSpan.__init__(self, name, context, parent, tracer.resource, attributes, events,
                              links, kind, start_time=time_ns(), instrumentation_scope=spans._scope)
        self._processor = tracer.span_processor
        self._attributes_set, self._events_added, self._links_added = attributes, events, links
        """Its attributes, events and links, as they are set and added (the lists it reads)."""

    def get_span_context(self) -> SpanContext:
        return self._context  # type: ignore[return-value]

    def set_attributes(self, attributes: Mapping[str, AnyValue]) -> None:
        if self._end_time is None:
            self._attributes_set.update(attributes)

    def set_attribute(self, key: str, value: AnyValue) -> None:
        if self._end_time is None:
            self._attributes_set[key] = value

    def add_event(self, name: str, attributes: Attributes = None,
                  timestamp: int | None = None) -> None:
        if self._end_time is None:
            self._events_added.append(Event(name, dict(attributes or {}), timestamp))

    def add_link(self, context: SpanContext, attributes: Attributes = None) -> None:
        if self._end_time is None and context.is_valid:
            self._links_added.append(Link(context, dict(attributes or {})))

    def update_name(self, name: str) -> None:
        if self._end_time is None:
            self._name = name

    def is_recording(self) -> bool:
        return self._end_time is None

    def set_status(self, status: Status | StatusCode, description: str | None = None) -> None:
        if isinstance(status, StatusCode):
            status = Status(status, description)
        if self._end_time is None and status.status_code is not StatusCode.UNSET \
                and self._status.status_code is not StatusCode.OK:
            self._status = status

    def record_exception(self, exception: BaseException, attributes: Attributes = None,
                         timestamp: int | None = None, escaped: bool = False) -> None:
        """An ``exception`` event with its kind alone (its message may hold what is private)."""
        self.add_event("exception", {"exception.type": type(exception).__qualname__,
                                     "exception.escaped": escaped, **(attributes or {})},
                       timestamp)

    def end(self, end_time: int | None = None) -> None:
        if self._end_time is None:
            self._end_time = end_time if end_time is not None else time_ns()
            self._processor.on_end(self)

