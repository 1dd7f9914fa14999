"""Exporting the spans of the commands that run tasks or decide them (``signoff serve``,
``worker``, ``run``, ``approve`` and ``reject``) over OTLP, when the
environment asks for it the standard way (``OTEL_EXPORTER_OTLP_ENDPOINT``, or
``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``; headers, timeout and service name from their own
``OTEL_*`` variables). The spans still in hand are sent as the process exits, stopped by
SIGTERM (as a service manager, or uvicorn after its graceful shutdown, stops it) as much as
at its end."""

from __future__ import annotations

import os
import signal
import threading
from typing import Any

from signoff._extras import install_extra
from signoff.cli.failures import EXIT_USAGE, Failure

__all__ = ["export_traces"]

_ENDPOINTS = ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT")
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
    named = {} if os.environ.get("OTEL_SERVICE_NAME") else {"service.name": f"signoff {app.name}"}
    provider = TracerProvider(resource=Resource.create(named))  # flushed when the process exits
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)
    _flush_when_terminated(provider)
    app.trace(provider)
    return True


def _flush_when_terminated(provider: Any) -> None:
    """On SIGTERM, send the spans in hand, then stop as SIGTERM stops a process: Python runs no
    exit handlers (the SDK's flush among them) for a signal it leaves to the system."""
    if threading.current_thread() is not threading.main_thread() \
            or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        return  # signals are the main thread's; a handler someone set is theirs to keep

    def terminated(number: int, frame: Any) -> None:
        # In a thread of its own: the signal may have come while this thread held a lock the
        # flush needs; then the flush gives up at the deadline instead of hanging the stop.
        flushing = threading.Thread(target=provider.shutdown, name="signoff-otlp-flush",
                                    daemon=True)
        flushing.start()
        flushing.join(_FLUSH_SECONDS)
        signal.signal(number, signal.SIG_DFL)
        signal.raise_signal(number)

    signal.signal(signal.SIGTERM, terminated)
