"""A call the agent may make alone that signoff refuses before the tool's code begins (the app's
own check of who may run it, a standing rule's maker who may not do it) is told in the receipt
as not run, with why: it read "Clerk ran transfer alone, as itself: Denied." — a run that did
not happen. A real SQLite file."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Annotated

from sqlalchemy import String
from sqlalchemy.orm import Mapped, Session, mapped_column

from signoff import Agent, App, Permits, Provided, Skill, TaskStatus, allow, policy
from signoff.testing import ScriptedModel, says


def test_a_call_refused_before_it_began_is_told_as_not_run(tmp_path: Path) -> None:
    app = App("books", database=f"sqlite:///{tmp_path / 'books.db'}")

    class Payment(app.Record):
        iban: Mapped[str] = mapped_column(String(40))
        amount: Mapped[Decimal] = mapped_column()
        __security__ = [allow("read", "create", when=policy.role("clerk"))]

    ran: list[str] = []

    @app.action("Transfer money", authorize=policy.role("payer"))
    def transfer(iban: str, amount: Decimal,
                 session: Annotated[Session, Provided("session")]) -> str:
        """Pay an amount to an IBAN."""
        ran.append(iban)
        session.add(Payment(iban=iban, amount=amount))
        return f"Paid {amount} to {iban}."

    class PayBills(Skill[None, str]):
        description = "Pay the bills."
        tools = [transfer]

    class Clerk(Agent):
        purpose = "You pay bills."
        skills = [PayBills()]
        may = Permits(changes="alone")
        roles = ["clerk"]

    olive = app.people.add("olive@books.example", "Olive", roles=["owner"])
    app.add_agent(Clerk, sponsor=olive)
    try:
        outcome = app.agent(Clerk).do(PayBills(), None, for_=olive, model=ScriptedModel(
            says.tool(transfer, iban="DE89370400440532013000", amount="35"),
            says.hand_back("Not paid.")))
        assert outcome.status is TaskStatus.DONE
        assert ran == []
        (told,) = [e.words for e in app.receipt(outcome.task).entries
                   if "transfer alone" in e.words]
        assert told.startswith("Clerk did not run transfer alone, as itself: Denied — "), told
    finally:
        app.database.dispose()
