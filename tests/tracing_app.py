"""The app of the tracing tests that cross processes: a clerk closes a ticket, writing a note
alone and proposing the close; its own model plays the whole script, so that a worker in another
process goes on with the task where it stands.

Its database is ``TRACING_DATABASE`` (a SQLite file the test makes). ``python -m
tests.tracing_app decide PROPOSAL`` approves a proposal as the manager in a process of its own,
with spans kept in memory, and prints them as JSON lines.
"""

from __future__ import annotations

import json
import os
import sys
import uuid

from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

from signoff import Agent, App, Permits, Skill, allow, policy
from signoff.testing import ScriptedModel, says

app = App("tickets", database=os.environ.get("TRACING_DATABASE", "sqlite://"), key=b"t" * 32)
app.oversight.supervises_agents = policy.role("manager")
anyone = policy.anyone


class Ticket(app.Record):  # type: ignore[name-defined, misc]
    """A customer's ticket."""

    title: Mapped[str] = mapped_column(String(80))
    note: Mapped[str] = mapped_column(String(200), default="")
    closed: Mapped[bool] = mapped_column(default=False)
    __security__ = [allow("read", "create", "update", when=anyone)]


@app.action("Note on the ticket")
def note_ticket(ticket: Ticket, note: str) -> str:
    """Write a note."""
    ticket.note = note
    return "Noted."


@app.action("Close the ticket")
def close_ticket(ticket: Ticket, why: str) -> str:
    """Close it."""
    ticket.closed = True
    return f"Closed: {why}"


TICKET = uuid.UUID("00000000-0000-4000-8000-000000000007")
SECRET_NOTE = "Customer Jane Roe, 12 Elm Street"
SECRET_WHY = "refund account 4929-0000"


class CloseTicket(Skill[Ticket, str]):
    """Close one ticket."""

    description = "Close one ticket."
    tools = [note_ticket, close_ticket]

    def brief(self, t: Ticket) -> str:
        return f"Ticket {t.title}, id {t.id}."


class Clerk(Agent):
    """Closes tickets."""

    purpose = "You close tickets."
    skills = [CloseTicket()]
    roles = ["clerk"]
    may = Permits(alone=[note_ticket])
    model = ScriptedModel(
        says.tool(note_ticket, ticket=TICKET, note=SECRET_NOTE),
        says.tool("The customer asked.", close_ticket, ticket=TICKET, why=SECRET_WHY),
        says.hand_back("closed"),
    )


app.add_agent(Clerk, sponsor="noor@tickets.example")


def setup() -> None:
    """Mia (whom the work is for), Noor (the manager) and the ticket."""
    app.people.add("mia@tickets.example", "Mia", roles=["clerk"])
    app.people.add("noor@tickets.example", "Noor", roles=["manager"])
    with app.session(as_=app.system) as s:
        s.add(Ticket(id=TICKET, title="T-1"))


def decide(proposal_id: str) -> None:
    """Approve `proposal_id` as Noor, traced in memory; print each span as a JSON line."""
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    app.trace(provider)
    noor = app.people.find("noor@tickets.example")
    assert noor is not None
    decision = app.approve(proposal_id, by=noor)
    print(json.dumps({"decision": decision.status.value, "task_status": decision.task_status}))
    for span in exporter.get_finished_spans():
        print(span.to_json(indent=None))


if __name__ == "__main__" and sys.argv[1:2] == ["decide"]:
    decide(sys.argv[2])
