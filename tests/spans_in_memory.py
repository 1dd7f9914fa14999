"""Spans kept in memory, for the tracing tests that read what an app's spans say."""

from __future__ import annotations

from typing import Any

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter


def traced_in_memory(
    app: Any, provider: TracerProvider | None = None, *, include_content: bool | None = None
) -> InMemorySpanExporter:
    """`app` traced by `provider` (a provider of its own when None), with `include_content`
    (None: as the environment says); where its finished spans are kept."""
    memory = InMemorySpanExporter()
    provider = provider or TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    app.trace(provider, include_content=include_content)
    return memory
