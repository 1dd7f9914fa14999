"""What the provider tests share: each provider's wire format (`Wire`), a question to ask, and an
app whose agent a provider's model drives."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import pytest
from pydantic import BaseModel
from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

from signoff import Agent, App, Outcome, Permits, Skill, allow
from signoff.models import (
    AnthropicModel,
    Message,
    OpenAICompatibleModel,
    Price,
    Reply,
    Retries,
    ToolSpec,
)
from tests.provider_servers import (
    Canned,
    ProviderServer,
    anthropic_message,
    anthropic_stream,
    openai_completion,
    openai_stream,
)

FAST = Retries(attempts=3, backoff=0.01, max_wait=1.0, total_wait=2.0)
"""Retries with waits short enough for tests."""

PRICE = Price(input_per_mtok=2.0, output_per_mtok=8.0)

ProviderModel = OpenAICompatibleModel | AnthropicModel


@dataclass(frozen=True)
class Wire:
    """One provider's wire format: how to make its model and write its answers."""

    name: str

    def model(self, server: ProviderServer | SimpleNamespace, **given: Any) -> ProviderModel:
        """The provider's real model, pointed at the server (its timeout long: under a loaded
        machine's load a loopback answer came after 5 s; the tests of timeouts set their own)."""
        options: dict[str, Any] = {"price": PRICE, "retries": FAST, "timeout": 30.0,
                                   "api_key": "test-key"} | given
        if self.name == "openai":
            return OpenAICompatibleModel("local-model", base_url=f"{server.url}/v1", **options)
        return AnthropicModel("claude-test", base_url=server.url, **options)

    def reply(self, text: str | None = None, calls: Sequence[tuple[str, str, str]] = (), *,
              cut: bool = False, usage: tuple[int, int] = (10, 5)) -> Canned:
        """An answer: text, and tool calls ``(id, name, arguments JSON)``."""
        if self.name == "openai":
            return Canned(body=openai_completion(text, calls, usage=usage,
                                                 finish="length" if cut else None))
        blocks: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
        blocks += [{"type": "tool_use", "id": i, "name": n, "input": json.loads(a)}
                   for i, n, a in calls]
        return Canned(body=anthropic_message(blocks, usage=usage,
                                             stop="max_tokens" if cut else None))

    def stream(self, pieces: Sequence[str] = (), calls: Sequence[tuple[str, str, Sequence[str]]] = (),
               *, usage: tuple[int, int] = (10, 5)) -> Canned:
        """A streamed answer: text in pieces, tool calls with their arguments in pieces."""
        if self.name == "openai":
            return Canned(events=openai_stream(pieces, calls, usage=usage))
        return Canned(events=anthropic_stream(pieces, calls, usage=usage))

    def error(self, status: int, message: str = "No.", **headers: str) -> Canned:
        """An error answer, as the provider writes one."""
        if self.name == "openai":
            body: dict[str, Any] = {"error": {"message": message, "type": "x", "code": None}}
        else:
            body = {"type": "error", "error": {"type": "x", "message": message}}
        return Canned(status=status, body=body, headers=headers)

    @property
    def model_name(self) -> str:
        """The model's name as receipts show it."""
        return "openai-compatible:local-model" if self.name == "openai" else "anthropic:claude-test"

    @property
    def path(self) -> str:
        """Where the provider's requests go."""
        return "/v1/chat/completions" if self.name == "openai" else "/v1/messages"

    def tool_results(self, body: dict[str, Any]) -> dict[str, str]:
        """The tool answers a request body carries, by call id."""
        if self.name == "openai":
            return {m["tool_call_id"]: m["content"] for m in body["messages"] if m["role"] == "tool"}
        return {b["tool_use_id"]: b.get("content", "") for m in body["messages"] if m["role"] == "user"
                for b in m["content"] if b["type"] == "tool_result"}


WIRES = [Wire("openai"), Wire("anthropic")]
wires = pytest.mark.parametrize("wire", WIRES, ids=lambda w: w.name)

TOOLS = [ToolSpec(name="add", description="Add two numbers.",
                  parameters={"type": "object", "properties": {"a": {"type": "integer"},
                                                               "b": {"type": "integer"}},
                              "required": ["a", "b"]})]
ASK = [Message(role="system", text="You add."), Message(role="user", text="1 and 2?")]


def ask(model: ProviderModel, max_output_tokens: int = 64) -> Reply:
    try:
        return model.complete(ASK, TOOLS, max_output_tokens=max_output_tokens)
    finally:
        model.close()


# -- an app for agent tasks ------------------------------------------------------------------


class Estimate(BaseModel):
    """What the estimator hands back."""

    hours: int
    summary: str


def repair_shop(may: Permits | None = None) -> SimpleNamespace:
    app = App("t", database="sqlite://")

    class Repair(app.Record):  # type: ignore[name-defined, misc]
        ticket: Mapped[str] = mapped_column(String(40), unique=True)
        note: Mapped[str] = mapped_column(String(400), default="")
        __security__ = [allow("read", "update", "create")]

    @app.action("Look up the parts a fault needs", query=True)
    def parts_for(fault: str) -> list[str]:
        """The parts for a fault."""
        return ["brake pads", "cable"] if "brake" in fault else []

    @app.action("Write a note on the repair")
    def note_repair(repair: Repair, note: str) -> str:
        """Write a note."""
        repair.note = note
        return f"Noted on {repair.ticket}."

    class EstimateRepair(Skill[Repair, Estimate]):
        description = "Estimate one repair."
        tools = [parts_for, note_repair]

        def brief(self, subject: Any) -> str:
            return f"Ticket {subject.ticket}. Its id is {subject.id}."

    class Estimator(Agent):
        purpose = "You estimate bicycle repairs."
        skills = [EstimateRepair()]

    if may is not None:
        Estimator.may = may
    app.add_agent(Estimator)
    mia = app.people.add("mia@x.example", "Mia")
    with app.session(as_=app.system) as s:
        repair = Repair(ticket="T-7")
        s.add(repair)
    return SimpleNamespace(app=app, Repair=Repair, Estimator=Estimator, skill=EstimateRepair(),
                           repair=repair, mia=mia)


def openai_usage_reply(usage: dict[str, Any], *, stream: bool) -> Canned:
    """An OpenAI-compatible reply "Hi." whose usage is `usage` as it is, whole or streamed (the
    usage then in a chunk of its own before the last)."""
    if stream:
        events = openai_stream(["Hi."], usage=None)
        events.insert(-1, (None, {"id": "chatcmpl-1", "object": "chat.completion.chunk",
                                  "created": 1, "model": "m", "choices": [], "usage": usage}))
        return Canned(events=events)
    body = openai_completion("Hi.", usage=None)
    body["usage"] = usage
    return Canned(body=body)


def anthropic_usage_reply(usage: dict[str, Any], *, stream: bool) -> Canned:
    """An Anthropic reply "Hi." whose usage is `usage` as it is, whole or streamed (the usage
    then on its message_start, with one output token)."""
    if stream:
        events = anthropic_stream(["Hi."])
        events[0][1]["message"]["usage"] = usage | {"output_tokens": 1}
        return Canned(events=events)
    body = anthropic_message([{"type": "text", "text": "Hi."}])
    body["usage"] = usage
    return Canned(body=body)


def estimator_outcome(shop: SimpleNamespace, model: Any, **do: Any) -> Outcome:
    """The estimator's task on `shop`'s repair for Mia, with `model` (closed once the task has
    stopped); `do`: more of what the task is given, such as its budget."""
    try:
        return shop.app.agent(shop.Estimator).do(  # type: ignore[no-any-return]
            shop.skill, shop.repair, for_=shop.mia, model=model, **do)
    finally:
        model.close()


def note_of(shop: SimpleNamespace) -> str:
    with shop.app.session(as_=shop.app.system) as s:
        return str(s.get(shop.Repair, shop.repair.id).note)
