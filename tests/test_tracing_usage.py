"""What a model call's span says it used (signoff.agents.tracing): the receipt's tokens and cost,
and, for usage that is no count of tokens, nothing of it — the task going as it goes untraced."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from signoff import App, Price, ReceiptKind, TaskStatus, Usage
from signoff.agents.tracing import CAPTURE_CONTENT
from signoff.testing import ScriptedModel, says
from tests.counter_app import Counter, Counting, counting
from tests.spans_in_memory import traced_in_memory

PRICE = Price(input_per_mtok=3, output_per_mtok=15)


@pytest.fixture
def counter(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """An app in memory whose counter has one tool, `count`, that reads."""
    monkeypatch.delenv(CAPTURE_CONTENT, raising=False)
    app = App("counting", database="sqlite://")

    @app.action("Count", query=True)
    def count(n: int) -> int:
        """Count to n."""
        return n

    yield counting(app, count)
    app.database.dispose()


def _run(app: Any, usage: Any, *, traced: bool) -> tuple[Any, list[Any]]:
    """The counter's task with a model that reports `usage` each call: its outcome, and its
    spans when `traced`."""
    memory = traced_in_memory(app) if traced else InMemorySpanExporter()
    script = ScriptedModel(says.tool(app.count, n=3), says.hand_back(3), usage=usage, price=PRICE)
    outcome = app.agent(Counter).do(Counting(), None, for_=app.me, model=script, budget_usd=1)
    return outcome, list(memory.get_finished_spans())


def test_the_chat_spans_tokens_and_cost_are_the_receipts(counter: Any) -> None:
    """Each model call's span says the tokens and cost its receipt entry says, and the task's
    span the spend its outcome says."""
    outcome, spans = _run(counter, Usage(input_tokens=1_234, output_tokens=56), traced=True)
    assert outcome.status is TaskStatus.DONE
    calls = [e for e in counter.receipt(outcome).entries if e.kind is ReceiptKind.MODEL_CALL]
    chats = [dict(s.attributes or {}) for s in spans if s.name == "chat scripted"]
    assert [(c["gen_ai.usage.input_tokens"], c["gen_ai.usage.output_tokens"], c["signoff.cost_usd"])
            for c in chats] == [(e.data["input_tokens"], e.data["output_tokens"], e.cost_usd)
                                for e in calls]
    (task,) = [dict(s.attributes or {}) for s in spans if s.name == "invoke_agent counter"]
    assert task["signoff.task.spend_usd"] == outcome.spend_usd


@pytest.mark.parametrize("reported", [None, "12", -5, 2**70, 1.5])
def test_usage_that_is_no_count_of_tokens_halts_the_task_as_untraced(
    counter: Any, reported: Any,
) -> None:
    """A model that reports usage that is no count of tokens halts its task, traced as untraced
    (traced, a count the span could not multiply failed the task as a model failure, with a
    traceback in the log, and its chat span was never ended); the span, ended failed, says no
    tokens or cost of it (-5 tokens, a cost below what the receipt counted, were on it)."""
    usage = Usage(input_tokens=reported, output_tokens=3)
    untraced, _ = _run(counter, usage, traced=False)
    traced, spans = _run(counter, usage, traced=True)
    assert untraced.status is traced.status is TaskStatus.HALTED
    assert traced.problem == untraced.problem.replace(untraced.task, traced.task)
    (chat,) = [s for s in spans if s.name == "chat scripted"]
    attributes = dict(chat.attributes or {})
    assert chat.status.status_code is StatusCode.ERROR
    assert attributes["error.type"] == "signoff.model.usage_not_counted"
    assert not {"gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens",
                "signoff.cost_usd"} & set(attributes)
