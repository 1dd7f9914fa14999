"""What a span's status says (signoff.agents.tracing): a tool call the action refused, the gate
refused, or whose arguments would not do, and a task its budget halted, are failed spans with
`error.type`; a call that ran and a task that finished are not."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry.trace import StatusCode

from signoff import App, NotAuthorized, Price, TaskStatus, Usage
from signoff.agents.tracing import CAPTURE_CONTENT
from signoff.testing import ScriptedModel, says
from tests.counter_app import Counter, Counting, counting
from tests.spans_in_memory import traced_in_memory


@pytest.fixture
def counter(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """An app in memory whose counter's one tool, `count`, refuses to count to 13."""
    monkeypatch.delenv(CAPTURE_CONTENT, raising=False)
    app = App("counting", database="sqlite://")

    @app.action("Count", query=True)
    def count(n: int) -> int:
        """Count to n."""
        if n == 13:
            raise NotAuthorized("Nobody counts to 13 here.")
        return n

    yield counting(app, count)
    app.database.dispose()


def _spans(app: Any, *lines: Any, **options: Any) -> tuple[Any, dict[str, Any]]:
    """The counter's task with a model saying `lines`: its outcome and its spans by name (the
    first of each)."""
    memory = traced_in_memory(app)
    outcome = app.agent(Counter).do(Counting(), None, for_=app.me,
                                    model=ScriptedModel(*lines, **options), budget_usd=1)
    named: dict[str, Any] = {}
    for span in memory.get_finished_spans():
        named.setdefault(span.name, span)
    return outcome, named


def _said(span: Any) -> tuple[StatusCode, Any]:
    return span.status.status_code, (span.attributes or {}).get("error.type")


@pytest.mark.parametrize(("line", "tool", "told"), [
    (lambda app: says.tool(app.count, n=13), "count", "signoff.tool.denied"),
    (lambda app: says.raw("count", '{"n": "thirteen"}'), "count", "signoff.tool.invalid"),
    (lambda app: says.raw("shred", "{}"), "shred", "signoff.tool.refused"),
], ids=["denied", "invalid", "refused"])
def test_a_tool_call_that_did_not_do_what_was_asked_is_a_failed_span(
        counter: Any, line: Any, tool: str, told: str) -> None:
    """The call's span fails by its outcome's kind; the hand-back that ran, and the task, which
    went on, did not fail."""
    outcome, spans = _spans(counter, line(counter), says.hand_back(3))
    assert outcome.status is TaskStatus.DONE
    assert _said(spans[f"execute_tool {tool}"]) == (StatusCode.ERROR, told)
    assert _said(spans["execute_tool hand_back"]) == (StatusCode.UNSET, None)
    assert _said(spans["invoke_agent counter"]) == (StatusCode.UNSET, None)


def test_a_task_its_budget_halted_is_a_failed_span(counter: Any) -> None:
    """A task halted by its budget ends its ``invoke_agent`` span failed, ``signoff.task.halted``;
    the model call that spent it did not fail."""
    outcome, spans = _spans(
        counter, says.tool(counter.count, n=1), says.tool(counter.count, n=2), says.hand_back(2),
        usage=Usage(input_tokens=200_000, output_tokens=1_000),
        price=Price(input_per_mtok=3, output_per_mtok=15))
    assert outcome.status is TaskStatus.HALTED
    assert _said(spans["invoke_agent counter"]) == (StatusCode.ERROR, "signoff.task.halted")
    assert spans["invoke_agent counter"].attributes["signoff.task.status"] == "Halted"
    assert _said(spans["chat scripted"]) == (StatusCode.UNSET, None)
