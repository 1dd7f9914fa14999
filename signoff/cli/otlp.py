"""Exporting the spans of ``signoff serve`` and ``signoff worker`` over OTLP, when the
environment asks for it the standard way (``OTEL_EXPORTER_OTLP_ENDPOINT``, or
``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``; headers, timeout and service name from their own
``OTEL_*`` variables)."""

from __future__ import annotations

import os
from typing import Any

import click

__all__ = ["export_traces"]

_ENDPOINTS = ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT")


def export_traces(app: Any) -> bool:
    """When an OTLP endpoint is configured (and ``OTEL_SDK_DISABLED`` is not true), trace `app`'s
    agents and send the spans there over OTLP/HTTP, in batches; whether it does."""
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
        raise click.ClickException(
            "OTEL_EXPORTER_OTLP_ENDPOINT is set, but exporting traces needs OpenTelemetry's SDK "
            "and exporter: pip install 'signoff[otlp]' (or unset the variable).") from None
    named = {} if os.environ.get("OTEL_SERVICE_NAME") else {"service.name": f"signoff {app.name}"}
    provider = TracerProvider(resource=Resource.create(named))  # flushed when the process exits
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)
    app.trace(provider)
    return True
