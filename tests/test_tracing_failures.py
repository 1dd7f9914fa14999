"""Tracing that fails (signoff.agents.tracing): a tracer provider's span processor that raises
fails no task and no decision, and is logged once, not per span; nor does a sampler that
raises."""

from __future__ import annotations

import logging
import runpy
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.sampling import Sampler, SamplingResult

from signoff import ProposalStatus, TaskStatus
from signoff.agents.tracing import CAPTURE_CONTENT
from signoff.testing import ScriptedModel, says

ROOT = Path(__file__).resolve().parent.parent


class Raising(SpanProcessor):
    """A span processor that raises as each span starts, or as each ends."""

    def __init__(self, when: str) -> None:
        self.when = when

    def on_start(self, span: Any, parent_context: Any = None) -> None:
        if self.when == "start":
            raise RuntimeError("the processor broke as the span started")

    def on_end(self, span: ReadableSpan) -> None:
        if self.when == "end":
            raise RuntimeError("the processor broke as the span ended")


@pytest.fixture
def shop(monkeypatch: pytest.MonkeyPatch) -> Iterator[SimpleNamespace]:
    """A fresh workshop (examples/workshop.py) in memory: Mia, Noor, the estimator, T-7."""
    monkeypatch.delenv(CAPTURE_CONTENT, raising=False)
    namespace = runpy.run_path(str(ROOT / "examples" / "workshop.py"), run_name="workshop_fail")
    shop = SimpleNamespace(**namespace, **namespace["setup"]())
    yield shop
    shop.app.database.dispose()


@pytest.mark.parametrize("content", [False, True], ids=["steps", "content"])
@pytest.mark.parametrize("when", ["start", "end"])
def test_a_span_processor_that_raises_fails_nothing_and_is_logged_once(
        shop: SimpleNamespace, when: str, content: bool, caplog: pytest.LogCaptureFixture) -> None:
    """With a processor raising on every span, the workshop's task runs, waits, is approved and
    finishes as untraced; the failure is one log record."""
    provider = TracerProvider()
    provider.add_span_processor(Raising(when))
    shop.app.trace(provider, include_content=content)
    _estimate_and_approve(shop, caplog)
    told = [r for r in caplog.records if r.name == "signoff.tracing"]
    assert len(told) == 1, [r.getMessage() for r in caplog.records]
    assert "RuntimeError" in told[0].getMessage()
    assert "broke" not in told[0].getMessage()  # its kind alone
    provider.shutdown()


class RaisingSampler(Sampler):
    """A sampler that raises whenever it is asked."""

    def should_sample(self, parent_context: Any, trace_id: int, name: str, kind: Any = None,
                      attributes: Any = None, links: Any = None, trace_state: Any = None
                      ) -> SamplingResult:
        raise RuntimeError("the sampler broke")

    def get_description(self) -> str:
        return "RaisingSampler"


@pytest.mark.parametrize("content", [False, True], ids=["steps", "content"])
def test_a_sampler_that_raises_fails_nothing_and_is_logged_once(
        shop: SimpleNamespace, content: bool, caplog: pytest.LogCaptureFixture) -> None:
    """With the provider's sampler raising on every span, the workshop's task runs, waits, is
    approved and finishes, its spans dropped; the failure is one log record."""
    exported = InMemorySpanExporter()
    provider = TracerProvider(sampler=RaisingSampler())
    provider.add_span_processor(SimpleSpanProcessor(exported))
    shop.app.trace(provider, include_content=content)
    _estimate_and_approve(shop, caplog)
    assert exported.get_finished_spans() == ()  # (none sampled: the sampler gave no answer)
    told = [r for r in caplog.records if r.name == "signoff.tracing"]
    assert len(told) == 1, [r.getMessage() for r in caplog.records]
    assert "sampler" in told[0].getMessage()
    assert "RuntimeError" in told[0].getMessage()
    assert "broke" not in told[0].getMessage()  # its kind alone
    provider.shutdown()


def _estimate_and_approve(shop: SimpleNamespace, caplog: pytest.LogCaptureFixture) -> None:
    """The workshop's estimate runs, waits on its price, is approved by Noor and ends Done, the
    warnings logged meanwhile caught."""
    script = ScriptedModel(
        says.tool(shop.note_repair, repair=shop.repair.id, note="Pads and a cable."),
        says.tool("Pads, a cable and an hour of work.", shop.set_price, repair=shop.repair.id,
                  price=45),
        says.hand_back(shop.Estimate(hours=Decimal(1), summary="Pads and a cable.")),
    )
    with caplog.at_level(logging.WARNING):
        outcome = shop.app.agent(shop.Estimator).do(shop.EstimateRepair(), shop.repair,
                                                    for_=shop.mia, model=script)
        assert outcome.status is TaskStatus.WAITING
        (proposal,) = shop.app.proposals(task=outcome.task)
        assert shop.app.approve(proposal, by=shop.noor).status is ProposalStatus.DONE
    assert shop.app.outcome(outcome.task).status is TaskStatus.DONE
