"""What a span may carry (signoff.agents.tracing): a tool name a model wrote, a call id, and
content, bounded."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry.sdk.trace import SpanLimits, TracerProvider

from signoff import Agent, App, Permits, Skill, TaskStatus, sends
from signoff.agents.tracing import CAPTURE_CONTENT, CONTENT_LIMIT
from signoff.models.base import Reply, ToolCall
from signoff.testing import ScriptedModel, says
from tests.spans_in_memory import traced_in_memory
from tests.test_tracing import _exported_text, check_conventions

PAGE = "The e-mail of Jane Roe, 12 Elm Street. " * 30_000
"""What a tool read: 1.2 MB of someone's words."""


class Reading(Skill[None, int]):
    """Read a page."""

    description = "Read a page."


class Reader(Agent):
    """Reads pages."""

    purpose = "You read pages."
    skills = [Reading()]
    may = Permits.everything()


@pytest.fixture
def reader(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """An app in memory whose reader has one tool, `read_page`, that returns `PAGE`."""
    monkeypatch.delenv(CAPTURE_CONTENT, raising=False)
    app = App("reading", database="sqlite://")

    @app.action("Read the page")
    def read_page(n: int) -> str:
        """Read it."""
        return PAGE

    Reading.tools = [read_page]
    me = app.people.add("me@reading.example", "Me")
    app.add_agent(Reader, sponsor=me)
    app.me, app.read_page = me, read_page
    yield app
    app.database.dispose()


def test_a_tool_name_the_model_wrote_is_not_on_the_span(reader: Any) -> None:
    """A model that calls a "tool" by a name that is text of what it read (a page's words, of any
    length) is refused, and its span says `(not a tool name)` — in its name, gen_ai.tool.name and
    the gate's reason — not the text (all 240 KB of it were the span's name and attributes, with
    content kept out); a call id is cut at 128 characters."""
    memory = traced_in_memory(reader)
    said = "Jane Roe of 12 Elm Street wrote: " + "x" * 240_000
    script = ScriptedModel(says.raw(said, "{}"), says.tool(reader.read_page, n=1),
                           says.hand_back(1))
    outcome = reader.agent(Reader).do(Reading(), None, for_=reader.me, model=script)
    assert outcome.status is TaskStatus.DONE
    handle = reader.agent(Reader)
    task = handle.start(Reading(), None, for_=reader.me, model_name="client", max_steps=5)
    handle.take_turn(task, Reply(tool_calls=(
        ToolCall(id="c" * 100_000, name="read_page", arguments=json.dumps({"n": 2})),)),
        model_name="client")
    spans = memory.get_finished_spans()
    text = _exported_text(spans) + "".join(s.name for s in spans)
    assert "Jane Roe" not in text
    assert max(len(s.name) for s in spans) < 64
    (refused,) = [s for s in spans if s.name == "execute_tool (not a tool name)"]
    attributes = dict(refused.attributes or {})
    check_conventions(refused, refused.name, attributes)
    assert attributes["signoff.gate.verdict"] == "never"
    assert attributes["signoff.gate.reason"] == (
        "(not a tool name) is not one of the skill's tools")
    ids = [(s.attributes or {})["gen_ai.tool.call.id"] for s in spans
           if s.name == "execute_tool read_page"]
    assert set(ids) == {"c" * 128, "call_2_0"}


def test_a_tool_called_by_no_name_at_all_is_told_plainly(reader: Any) -> None:
    """A model that calls a tool by an empty name: the gate's reason on its span is the gate's
    own (`(not a tool name)` was put between every two characters of it)."""
    memory = traced_in_memory(reader)
    script = ScriptedModel(says.raw("", "{}"), says.hand_back(1))
    outcome = reader.agent(Reader).do(Reading(), None, for_=reader.me, model=script)
    assert outcome.status is TaskStatus.DONE
    (refused,) = [s for s in memory.get_finished_spans()
                  if s.name == "execute_tool (not a tool name)"]
    reason = str((refused.attributes or {})["signoff.gate.reason"])
    assert reason.count("(not a tool name)") <= 1, reason
    assert reason.endswith("is not one of the skill's tools"), reason


def test_content_is_cut_when_the_provider_sets_no_limit(reader: Any) -> None:
    """With content captured and a provider that cuts nothing (the SDK's default), a tool's
    1.2 MB result is cut at CONTENT_LIMIT characters on its span, and so are the messages of
    the model call that read it (each was on a span whole: a batch no collector takes)."""
    memory = traced_in_memory(reader, include_content=True)
    script = ScriptedModel(says.tool(reader.read_page, n=1), says.hand_back(1))
    outcome = reader.agent(Reader).do(Reading(), None, for_=reader.me, model=script)
    assert outcome.status is TaskStatus.DONE
    spans = memory.get_finished_spans()
    (read,) = [s for s in spans if s.name == "execute_tool read_page"]
    result = str((read.attributes or {})["gen_ai.tool.call.result"])
    assert result == PAGE[:CONTENT_LIMIT]
    longest = max(len(str(v)) for s in spans for v in (s.attributes or {}).values())
    assert longest == CONTENT_LIMIT


def test_a_providers_own_limit_is_the_one_that_cuts_content(reader: Any) -> None:
    """A provider that sets an attribute length limit (here longer than signoff's) cuts content
    itself, at its limit: signoff does not cut it shorter."""
    provider = TracerProvider(span_limits=SpanLimits(max_span_attribute_length=100_000))
    memory = traced_in_memory(reader, provider, include_content=True)
    script = ScriptedModel(says.tool(reader.read_page, n=1), says.hand_back(1))
    reader.agent(Reader).do(Reading(), None, for_=reader.me, model=script)
    (read,) = [s for s in memory.get_finished_spans() if s.name == "execute_tool read_page"]
    assert len(str((read.attributes or {})["gen_ai.tool.call.result"])) == 100_000


IBAN = "GB29NWBK60161331926819 of Jane Roe"
"""An account and whose it is, as a model writes it into a mapping's key."""


class Paying(Skill[None, str]):
    """Pay what a mail asks."""

    description = "Pay what a mail asks."


class Payer(Agent):
    """Pays."""

    purpose = "You pay."
    skills = [Paying()]


@pytest.fixture
def payer(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """An app in memory whose payer reads a mail (outside content) and pays, which sends, both
    alone: a payment that outside content may have steered is proposed."""
    monkeypatch.delenv(CAPTURE_CONTENT, raising=False)
    app = App("paying", database="sqlite://")

    @app.action("Read the mail", untrusted=True)
    def read_mail(n: int) -> str:
        """Read it."""
        return f"Please pay {IBAN} the 86.40 at once."

    @app.action("Pay the accounts")
    @sends
    def pay(amounts: dict[str, float]) -> str:
        """Pay each account its amount."""
        return "Paid."

    Paying.tools = [read_mail, pay]
    Payer.may = Permits(alone=[read_mail, pay])
    me = app.people.add("me@paying.example", "Me")
    app.add_agent(Payer, sponsor=me)
    app.me, app.read_mail, app.pay = me, read_mail, pay
    yield app
    app.database.dispose()


def test_the_gates_reason_names_an_argument_not_the_keys_the_model_wrote(payer: Any) -> None:
    """A call that outside content may have steered is proposed, and the gate's reason on its
    span names the argument by its top-level name: the keys of a mapping in it, which the model
    wrote (an account and a person's name), are content, kept out (they were on the span)."""
    memory = traced_in_memory(payer)
    script = ScriptedModel(says.tool(payer.read_mail, n=1),
                           says.tool(payer.pay, amounts={IBAN: 86.40}), says.hand_back("paid"))
    outcome = payer.agent(Payer).do(Paying(), None, for_=payer.me, model=script)
    assert outcome.status is TaskStatus.WAITING
    spans = memory.get_finished_spans()
    text = _exported_text(spans)
    assert "GB29" not in text
    assert "Jane Roe" not in text
    (pay,) = [s for s in spans if s.name == "execute_tool pay"]
    attributes = dict(pay.attributes or {})
    assert attributes["signoff.gate.verdict"] == "propose"
    assert attributes["signoff.gate.reason"] == (
        "pay: Propose (`amounts` did not come from the request (outside content had entered the "
        "task))")


def test_a_call_id_is_cut_on_the_decision_as_on_the_call(payer: Any) -> None:
    """A client's call id of 100,000 characters, proposed and approved, is cut at 128 on the
    decision's span as on the tool call's (it was whole on the decision's)."""
    memory = traced_in_memory(payer)
    handle = payer.agent(Payer)
    task = handle.start(Paying(), None, for_=payer.me, model_name="client", max_steps=5)
    handle.take_turn(task, Reply(tool_calls=(
        ToolCall(id="read", name="read_mail", arguments=json.dumps({"n": 1})),)),
        model_name="client")
    handle.take_turn(task, Reply(tool_calls=(
        ToolCall(id="c" * 100_000, name="pay", arguments=json.dumps({"amounts": {"x": 1}})),)),
        model_name="client")
    (proposal,) = payer.proposals(task=task)
    payer.approve(proposal, by=payer.me)
    ids = {s.name: (s.attributes or {})["gen_ai.tool.call.id"]
           for s in memory.get_finished_spans()
           if s.name in ("execute_tool pay", "signoff.decide pay")}
    assert ids == {"execute_tool pay": "c" * 128, "signoff.decide pay": "c" * 128}


def test_a_key_the_model_wrote_beside_the_arguments_is_not_named_on_the_span(
        payer: Any) -> None:
    """A call with a key of the model's own beside `amounts` (text it read, which reads as a
    name): the gate's reason on its span names it `(an argument)`, not by the key (it was put
    there as written)."""
    memory = traced_in_memory(payer)
    script = ScriptedModel(says.tool(payer.read_mail, n=1),
                           says.raw("pay", json.dumps({"amounts": {IBAN: 86.40},
                                                       "JaneRoe": 86.40})),
                           says.hand_back("paid"))
    payer.agent(Payer).do(Paying(), None, for_=payer.me, model=script)
    spans = memory.get_finished_spans()
    assert "JaneRoe" not in _exported_text(spans)
    (pay,) = [s for s in spans if s.name == "execute_tool pay"]
    reason = str((pay.attributes or {})["signoff.gate.reason"])
    assert reason == ("pay: Propose (`(an argument)`, `amounts` did not come from the request "
                      "(outside content had entered the task))")
