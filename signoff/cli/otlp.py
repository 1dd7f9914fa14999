"""Exporting the spans of the commands that run tasks or decide them (``signoff serve``,
``worker``, ``run``, ``approve`` and ``reject``) over OTLP, when the
environment asks for it the standard way (``OTEL_EXPORTER_OTLP_ENDPOINT``, or
``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``; headers, timeout and service name from their own
``OTEL_*`` variables). The spans still in hand are sent as the process exits, stopped by
SIGTERM (as a service manager, or uvicorn after its graceful shutdown, stops it) as much as
at its end; the spans still open then (a task's, a tool call's it stopped in) are ended first,
as stopped, so that the steps that go on elsewhere hang under spans the collector has."""

from __future__ import annotations

import atexit
import logging
import os
import re
import signal
import sys
import threading
import time
from typing import Any

from signoff._extras import install_extra
from signoff.cli.failures import EXIT_USAGE, Failure

__all__ = ["export_traces"]

log = logging.getLogger("signoff.tracing")

_ENDPOINTS = ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT")
_PROTOCOLS = ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL")
_FLUSH_SECONDS = 10.0
"""How long a process stopped by SIGTERM waits for its spans to be sent (the exporter's own
default timeout)."""


def export_traces(app: Any) -> bool:
    """When an OTLP endpoint is configured (and ``OTEL_SDK_DISABLED`` is not true), trace `app`'s
    agents and send the spans there over OTLP/HTTP, in batches; whether it does. An endpoint
    set without the ``otlp`` extra installed is a configuration that cannot be used: a
    `Failure` saying what to install, exit 2 (misused), as a missing extra is elsewhere."""
    if not any(os.environ.get(name) for name in _ENDPOINTS):
        return False
    if os.environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    for name in _ENDPOINTS:  # (one that is no URL was told only once the work was done)
        given = os.environ.get(name, "").strip()
        if given and not _url_of_a_collector(given):
            raise Failure(f"{name} is {_unsigned(given)!r}, which is no http:// or https:// URL of a "
                          "collector (http://localhost:4318, say): set it to one, or unset it.",
                          EXIT_USAGE)
    for name in _PROTOCOLS:  # the first set is the one that counts, as for the exporter
        protocol = os.environ.get(name, "").strip()
        if protocol:
            if protocol.lower() != "http/protobuf":
                raise Failure(
                    f"{name} is {protocol!r}, but signoff sends traces over OTLP/HTTP with "
                    "protobuf alone: set it to http/protobuf (and the endpoint to the collector's "
                    "OTLP/HTTP port, 4318 by default), or unset it.", EXIT_USAGE)
            break
    try:
        from opentelemetry import trace
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError:
        raise Failure(
            "OTEL_EXPORTER_OTLP_ENDPOINT is set, but exporting traces needs OpenTelemetry's SDK "
            f"and exporter, signoff's otlp extra: {install_extra('otlp')}; or unset the "
            "variable.", EXIT_USAGE) from None
    resource = Resource.create()  # OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES and the SDK's own
    if str(resource.attributes.get("service.name", "")).startswith("unknown_service"):
        resource = resource.merge(Resource({"service.name": f"signoff {app.name}"}))
    # Flushed when the process exits (`_flush_at_exit`: not the SDK's own exit handler, which a
    # Ctrl-C while it waits on a slow collector turned into a traceback).
    provider = TracerProvider(resource=resource, shutdown_on_exit=False)
    still_open = _still_open()
    provider.add_span_processor(still_open)
    atexit.register(_flush_at_exit, provider, still_open)
    exporter = OTLPSpanExporter()
    _tell_failures_once(OTLPSpanExporter.__module__, _unsigned(
        getattr(exporter, "_endpoint", "") or os.environ.get(_ENDPOINTS[0])
        or os.environ.get(_ENDPOINTS[1], "")))
    provider.add_span_processor(BatchSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    _flush_when_terminated(provider, still_open)
    app.trace(provider)
    return True


def _url_of_a_collector(url: str) -> bool:
    """Whether `url` can be an OTLP/HTTP collector's: http(s), a host, a port that can be."""
    import urllib.parse

    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018  (raises ValueError when it is out of range)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname)


def _unsigned(url: str) -> str:
    """`url` as told: a user and password in it (``https://user:secret@collector``, which the
    exporter sends as basic authentication) are not."""
    return re.sub(r"(?<=//)[^/@]*@|^[^/@:]*:[^/@]*@", "***@", url, count=1)


def _tell_failures_once(logger: str, endpoint: str) -> None:
    """Tell a collector that cannot be reached in one sentence of signoff's, at most once a
    minute, instead of the exporter's own lines on `logger` (one per retry, each with the HTTP
    library's whole account of the connection)."""
    logging.getLogger(logger).addFilter(_ToldOnce(endpoint))


_TELL_EVERY = 60.0


class _ToldOnce(logging.Filter):
    """Drops the exporter's warnings, and tells the first of each minute as signoff's."""

    def __init__(self, endpoint: str) -> None:
        super().__init__()
        self._endpoint = endpoint
        self._told_at: float | None = None

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.WARNING:
            return True
        now = time.monotonic()
        if self._told_at is None or now - self._told_at >= _TELL_EVERY:
            self._told_at = now
            said = record.getMessage()
            refused = _REFUSED.search(said)
            if refused:  # it answered: no to these spans, or to whoever sent them
                code, reason = refused.groups()
                check = "OTEL_EXPORTER_OTLP_HEADERS (the credentials it takes)" if code in (
                    "401", "403") else "OTEL_EXPORTER_OTLP_ENDPOINT and the collector's log"
                log.warning("The collector at %s refused the traces (HTTP %s %s); the work goes "
                            "on without them. Check %s.", self._endpoint, code,
                            reason.strip().rstrip(".")[:200], check)
                return False
            log.warning("The traces could not be sent to %s (%s); the work goes on without "
                        "them. Check OTEL_EXPORTER_OTLP_ENDPOINT and that the collector is "
                        "running.", self._endpoint, _why(said))
        return False


_REFUSED = re.compile(r"batch code: (\d{3}), reason: (.*)", re.DOTALL)
"""The exporter's account of a collector that answered with an error it will not retry."""


def _why(said: str) -> str:
    """Why an export failed, in a few words, from the exporter's message."""
    found = re.search(r"\[Errno -?\d+\] ([^\]\)\"']+)", said)
    if found:
        return found.group(1).strip().rstrip(".").lower()
    if "timeout" in said.lower() or "timed out" in said.lower():
        return "it did not answer in time"
    first = said.split(" encountered ")[0].removeprefix("Transient error ")
    return first[:200].rstrip(".")


_STOPPED = "signoff.process.stopped"
"""The ``error.type`` of a span still open as the process stopped (its work was cut short)."""


def _still_open() -> Any:
    """A span processor that keeps the spans started and not ended yet, and ends them, as
    stopped, when the process stops with some still open (SIGTERM in the middle of a step: the
    task's ``invoke_agent`` span, its tool call's); else they were never sent, and whatever
    went on with the task later — a worker's steps, a decision — hung under a span no
    collector had."""
    from opentelemetry.sdk.trace import SpanProcessor
    from opentelemetry.trace import Status, StatusCode

    class StillOpen(SpanProcessor):
        def __init__(self) -> None:
            self._open: dict[tuple[int, int], Any] = {}

        def on_start(self, span: Any, parent_context: Any = None) -> None:
            known = span.get_span_context()
            self._open[known.trace_id, known.span_id] = span

        def on_end(self, span: Any) -> None:  # (a copy of the span the SDK's tracer made)
            known = span.context
            self._open.pop((known.trace_id, known.span_id), None)

        def end_all(self) -> None:
            """End the spans still open, as stopped (the latest first: a child before its
            parent)."""
            for span in reversed(list(self._open.values())):
                try:
                    span.set_attribute("error.type", _STOPPED)
                    span.set_status(Status(StatusCode.ERROR))
                    span.end()
                except Exception:  # (one span's trouble loses that one alone)
                    continue

    return StillOpen()


def _flush_at_exit(provider: Any, still_open: Any) -> None:
    """As the process exits, end the spans still open (a daemon thread's, which dies with it)
    and send the spans in hand; a Ctrl-C while it waits gives them up, in a sentence."""
    main = threading.current_thread() is threading.main_thread()
    before = signal.signal(signal.SIGINT, signal.default_int_handler) if main else None
    try:  # (a Ctrl-C ignored once the command's work was done still gives the flush up)
        still_open.end_all()
        provider.shutdown()
    except KeyboardInterrupt:
        sys.stderr.write("Stopped: the traces not yet sent were given up.\n")
    finally:
        if before is not None:
            signal.signal(signal.SIGINT, before)


def _flush_when_terminated(provider: Any, still_open: Any) -> None:
    """On SIGTERM, end the spans still open and send the spans in hand, then stop as SIGTERM
    stops a process: Python runs no exit handlers (the SDK's flush among them) for a signal it
    leaves to the system."""
    if threading.current_thread() is not threading.main_thread() \
            or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        return  # signals are the main thread's; a handler someone set is theirs to keep

    def terminated(number: int, frame: Any) -> None:
        # In a thread of its own: the signal may have come while this thread held a lock the
        # flush (or a span being ended) needs; then it gives up at the deadline instead of
        # hanging the stop.
        def flush() -> None:
            still_open.end_all()
            provider.shutdown()

        flushing = threading.Thread(target=flush, name="signoff-otlp-flush", daemon=True)
        flushing.start()
        flushing.join(_FLUSH_SECONDS)
        signal.signal(number, signal.SIG_DFL)
        signal.raise_signal(number)

    signal.signal(signal.SIGTERM, terminated)
