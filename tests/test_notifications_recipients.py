"""Who a proposal is mailed to, as the decision reads it: the person the work is for does not
decide a routed proposal (the skill routes it to them, or to a queue they are in), so they are
not told to decide it, and one routed to them alone is mailed to the supervisors, who decide
it. A real SMTP server (aiosmtpd) on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from email import message_from_bytes
from types import SimpleNamespace
from typing import Any

import pytest

from signoff import AgentRefused, DeadlineOutcome, TaskStatus, policy
from signoff.notifications import notify_by_email
from tests.deadlines_app import build, script
from tests.smtp_server import Mailbox, smtp_server


@pytest.fixture
def smtp() -> Iterator[SimpleNamespace]:
    """An SMTP server on 127.0.0.1 that keeps what it is sent."""
    with smtp_server() as server:
        yield server


@pytest.fixture
def shop(smtp: SimpleNamespace) -> Iterator[SimpleNamespace]:
    """The deadline app, with Sam who supervises agents and Gus of Finance, mailing each new
    proposal."""
    shop = build("sqlite://")
    shop.app.oversight.supervises_agents = policy.role("supervisor")
    shop.sam = shop.app.people.add("sam@deadlines.example", "Sam", roles=["supervisor"])
    shop.gus = shop.app.people.add("gus@deadlines.example", "Gus", roles=["Finance"])
    notify_by_email(shop.app, host="127.0.0.1", port=smtp.port, sender="signoff@deadlines.example")
    yield shop
    shop.app.database.dispose()


def _propose(shop: SimpleNamespace, skill: Any, for_: Any) -> Any:
    outcome = shop.app.agent(shop.Clerk).do(skill, None, for_=for_, model=script(shop))
    assert outcome.status is TaskStatus.WAITING
    (proposal,) = shop.app.proposals(task=outcome.task)
    return proposal


def test_a_proposal_routed_to_the_person_the_work_is_for_is_mailed_to_the_supervisors(
        shop: SimpleNamespace, smtp: SimpleNamespace) -> None:
    """Noor's own work, routed to Noor: she may not decide it (a supervisor does), so the mail
    goes to Sam (it went to Noor, telling her to decide what she is refused, and Sam, who
    decides it, was told nothing)."""
    proposal = _propose(shop, shop.PriceTicket(), for_=shop.noor)
    with pytest.raises(AgentRefused, match="the person the work is for does not decide"):
        shop.app.approve(proposal, by=shop.noor)
    (envelope,) = smtp.mail
    assert envelope.rcpt_tos == ["sam@deadlines.example"]
    assert shop.app.approve(proposal, by=shop.sam).status.value == "Done"


def test_a_proposal_gone_to_a_queue_the_work_is_for_is_not_mailed_to_them(
        shop: SimpleNamespace, smtp: SimpleNamespace) -> None:
    """Fay's own fleet price, past Noor's deadline, goes to the Finance queue Fay is in: Gus is
    mailed it, not Fay, who may not decide it."""
    proposal = _propose(shop, shop.PriceFleetTicket(), for_=shop.fay)
    assert [e.rcpt_tos for e in smtp.mail] == [["noor@deadlines.example"]]
    passed = shop.app.pass_deadline(proposal, now=proposal.deadline_at + timedelta(minutes=1))
    assert passed.outcome is DeadlineOutcome.ESCALATED
    assert [e.rcpt_tos for e in smtp.mail[1:]] == [["gus@deadlines.example"]]
    text = message_from_bytes(smtp.mail[1].content).get_payload(decode=True).decode()
    assert "It is for the Finance queue to decide, by " in text
    with pytest.raises(AgentRefused, match="The work is for you; the decision is not yours"):
        shop.app.approve(proposal, by=shop.fay)


def test_nobody_to_mail_but_the_person_the_work_is_for_is_said_so_in_the_log(
        shop: SimpleNamespace, smtp: SimpleNamespace, caplog: pytest.LogCaptureFixture) -> None:
    """With nobody supervising agents, Noor's own work routed to Noor is mailed to nobody, and
    the log says why in a sentence."""
    shop.app.oversight.supervises_agents = policy.nobody
    proposal = _propose(shop, shop.PriceTicket(), for_=shop.noor)
    assert smtp.mail == []
    (told,) = [r for r in caplog.records if r.name == "signoff.notifications"]
    assert told.getMessage() == (
        f"Nobody was e-mailed of proposal {proposal.id} (Set the price): nobody enabled is "
        "there to mail (a supervisor: the work is for Noor, who does not decide it) (a "
        "supervisor may still decide it, in the inbox).")


class _Choosy(Mailbox):
    """Refuses mail to any address at refused.example."""

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str,
                          options: Any) -> str:
        if address.endswith("@refused.example"):
            return "550 No such user here"
        envelope.rcpt_tos.append(address)
        return "250 OK"


@pytest.fixture
def choosy() -> Iterator[SimpleNamespace]:
    """An SMTP server on 127.0.0.1 that refuses the addresses of refused.example."""
    with smtp_server(_Choosy()) as server:
        yield server


def test_a_recipient_the_server_refuses_is_said_in_the_log_and_the_others_are_mailed(
        choosy: SimpleNamespace, caplog: pytest.LogCaptureFixture) -> None:
    """A queue of two, one of whom the SMTP server refuses: the other is mailed, and the log
    names who was not and what the server said (the refusal was dropped unsaid)."""
    shop = build("sqlite://")
    try:
        shop.app.people.add("gil@refused.example", "Gil", roles=["Finance"])
        notify_by_email(shop.app, host="127.0.0.1", port=choosy.port,
                        sender="signoff@deadlines.example")
        proposal = _propose(shop, shop.PriceFleetTicket(), for_=shop.mia)
        shop.app.pass_deadline(proposal, now=proposal.deadline_at + timedelta(minutes=1))
        assert [e.rcpt_tos for e in choosy.mail] == [["noor@deadlines.example"],
                                                     ["fay@deadlines.example"]]
        (told,) = [r for r in caplog.records if r.name == "signoff.notifications"]
        assert told.getMessage() == (
            f"Not everyone was e-mailed of proposal {proposal.id} (Set the price): the SMTP "
            f"server 127.0.0.1:{choosy.port} refused gil@refused.example (550 No such user "
            "here). The others were, and the proposal waits all the same; see that the address "
            "is right.")
    finally:
        shop.app.database.dispose()


def test_a_server_refusing_every_recipient_is_said_in_a_sentence(
        choosy: SimpleNamespace, caplog: pytest.LogCaptureFixture) -> None:
    """The Finance queue is Gil alone, whom the server refuses: nobody was mailed, and the log
    says whom the server refused and why, not a dictionary's repr."""
    shop = build("sqlite://")
    try:
        shop.app.people.disable(shop.fay)
        shop.app.people.add("gil@refused.example", "Gil", roles=["Finance"])
        notify_by_email(shop.app, host="127.0.0.1", port=choosy.port,
                        sender="signoff@deadlines.example")
        proposal = _propose(shop, shop.PriceFleetTicket(), for_=shop.mia)
        shop.app.pass_deadline(proposal, now=proposal.deadline_at + timedelta(minutes=1))
        assert [e.rcpt_tos for e in choosy.mail] == [["noor@deadlines.example"]]
        (told,) = [r for r in caplog.records if r.name == "signoff.notifications"]
        assert told.getMessage() == (
            f"Nobody was e-mailed of proposal {proposal.id} (Set the price): the SMTP server "
            f"127.0.0.1:{choosy.port} could not take it (it refused gil@refused.example (550 "
            "No such user here)). The proposal waits all the same, and a worker tells it again "
            "later; see that the server is up and takes the mail.")
    finally:
        shop.app.database.dispose()
