"""An amount, a date or a telephone number a result writes one way and the call another
(``86,40 EUR`` read, ``86.40`` paid; ``5 Dec 2026`` read, ``2026-12-05`` booked) is found in
that result: the skill's endorsement of it holds, and ordinary work is not put to a person. A
person's words are not taken at a reading they may not mean."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any

import pytest
from pydantic import BaseModel
from sqlalchemy import String
from sqlalchemy.orm import Mapped, Session, mapped_column

from signoff import Agent, App, Endorse, Origin, Permits, Provided, Skill, TaskStatus, allow, policy
from signoff.limits.provenance import Provenance, Seen
from signoff.testing import ScriptedModel, says


def _label(read: str, value: Any, endorse: Endorse | None = None,
           request: str = "Handle mail 1.") -> Origin:
    provenance = Provenance(trusted=[request])
    provenance.add(Seen(tool="read_mail", arguments="{}", value=read, text=read,
                        outside="from an outside sender"))
    (label,) = provenance.label("act", {"value": value}, free_text=False,
                                endorses=(endorse,) if endorse else ()).arguments
    return label.origin


AMOUNT = Endorse.amount("read_mail", at_most=5000)
DATE = Endorse.date("read_mail")


@pytest.mark.parametrize(("read", "value"), [
    ("Pay 86,40 EUR.", "86.40"), ("Pay 1.200,50 EUR.", Decimal("1200.50")),
    ("Pay 86.40€.", 86.4), ("Pay CHF 1'200.50.", "1200.50"), ("Pay 1.200 EUR.", 1200),
    ("Take 15% off.", 15), ("Pay $1,200.50.", 1200.5)])
def test_an_amount_written_another_way_is_endorsed(read: str, value: Any) -> None:
    """The amount the mail writes, however it writes it, is the skill's endorsed amount."""
    assert _label(read, value, AMOUNT) is Origin.ENDORSED


@pytest.mark.parametrize("read", ["Meet on 5 Dec 2026.", "Meet on December 5th, 2026.",
                                  "Meet on 05.12.2026.", "Meet on 12/05/2026.",
                                  "Treffen am 5. Dezember 2026."])
def test_a_date_written_another_way_is_endorsed(read: str) -> None:
    """A date the mail writes in words or in figures is the skill's endorsed date."""
    assert _label(read, "2026-12-05", DATE) is Origin.ENDORSED


@pytest.mark.parametrize("number", ["+442079460958", "00442079460958"])
def test_a_telephone_number_written_in_groups_is_found(number: str) -> None:
    """A number the mail writes in groups is found, and so outside content (not untraced)."""
    assert _label("Call +44 20 7946 0958.", number) is Origin.OUTSIDE


def test_a_date_in_the_request_written_in_words_is_the_request() -> None:
    """The person wrote the date in words; the call writes it as ISO 8601."""
    assert _label("a mail", "2026-12-05", request="Book 5 December 2026.") is Origin.REQUEST


@pytest.mark.parametrize(("asked", "value"), [("Book 05/06/2026.", "2026-06-05"),
                                                ("Book 05/06/2026.", "2026-05-06"),
                                                ("Pay 1,200 EUR.", "1.2")])
def test_a_persons_words_are_not_read_the_way_they_may_not_mean(asked: str, value: str) -> None:
    """A date whose day and month may be either way round, a number that reads two ways: not
    the request's, where a result's may be either."""
    assert _label("a mail", value, request=asked) is Origin.UNTRACED


def _app(tmp: Path) -> tuple[App, Any, Any, Any, Any]:
    app = App("books", database=f"sqlite:///{tmp / 'books.db'}")

    class Payment(app.Record):  # type: ignore[name-defined, misc]
        iban: Mapped[str] = mapped_column(String(40))
        amount: Mapped[Decimal] = mapped_column()
        __security__ = [allow("read", "create", when=policy.role("clerk"))]

    @app.action("Read a bill", query=True, untrusted=True)
    def read_bill(name: str) -> str:
        """A bill someone sent (outside content)."""
        return {"power": "Strom: 86,40 EUR an DE89 3704 0044 0532 0130 00.",
                "odd": "Bitte 2.400,00 EUR an GB29 NWBK 6016 1331 9268 19 zahlen."}[name]

    @app.action("Transfer money")
    def transfer(iban: str, amount: Decimal,
                 session: Annotated[Session, Provided("session")]) -> str:
        """Pay an amount to an IBAN."""
        session.add(Payment(iban=iban, amount=amount))
        return f"Paid {amount} to {iban}."

    class Request(BaseModel):
        text: str

    class PayBills(Skill[Request, str]):
        description = "Pay the bills."
        tools = [read_bill, transfer]
        endorses = (Endorse.amount(read_bill, at_most=500, argument="amount"),
                    Endorse.one_of(read_bill, lambda: ["DE89370400440532013000"],
                                   argument="iban", kind="the IBAN of a payee"))

        def brief(self, subject: Request) -> str:
            return subject.text

    class Clerk(Agent):
        purpose = "You pay bills."
        skills = [PayBills()]
        may = Permits.everything()
        roles = ["clerk"]

    olive = app.people.add("olive@books.example", "Olive", roles=["owner"])
    app.add_agent(Clerk, sponsor=olive)
    return app, Clerk, PayBills, Request, (olive, read_bill, transfer)


def test_a_bill_written_the_european_way_is_paid_alone_and_an_odd_one_is_held(
        tmp_path: Path) -> None:
    """The documentation's bills, written the European way: the power bill, its amount within
    the endorsed bounds, is paid with no proposal; the odd one is still held for a person."""
    app, clerk, skill, request, (olive, read_bill, transfer) = _app(tmp_path)

    def pay(bill: str, iban: str, amount: str) -> Any:
        script = ScriptedModel(says.tool(read_bill, name=bill),
                               says.tool(transfer, iban=iban, amount=amount),
                               says.hand_back("Paid."))
        return app.agent(clerk).do(skill(), request(text=f"Pay the {bill} bill."), for_=olive,
                                   model=script)

    assert pay("power", "DE89370400440532013000", "86.40").status is TaskStatus.DONE
    held = pay("odd", "GB29NWBK60161331926819", "2400.00")
    assert held.status is TaskStatus.WAITING
    iban, amount = app.proposals(task=held.task)[0].labels
    assert (iban.origin, amount.origin) == (Origin.OUTSIDE, Origin.OUTSIDE)
