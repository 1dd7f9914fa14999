"""A try after the first tells only the handlers of `AgentProposed` that have not taken the
notice: an e-mail that went out beside a webhook that was down is not sent again at each try,
nor after a process stopped between the two; a handler added since is told, one removed is not
waited for; an escalation is a notice every handler takes anew. The notifiers' log on the last
try says it is not tried again. A real webhook receiver and a real SMTP server on 127.0.0.1, a
real child process SIGKILLed between two handlers, on one SQLite file and on PostgreSQL."""

from __future__ import annotations

import logging
import os
import signal
from collections.abc import Iterator
from datetime import timedelta
from email import message_from_bytes
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from signoff import AgentProposed, NotTold, ProposalStatus, TaskStatus
from signoff.agents.telling import AGAIN_AFTER, MOST_TRIES
from signoff.notifications import WebhookNotifier, notify_by_email, notify_by_webhook
from signoff.store import points
from tests.deadlines_app import build, script
from tests.killed_child import run_until_killed
from tests.smtp_server import Mailbox, smtp_server
from tests.webhook_receiver import receiver

__all__ = ["receiver"]  # (a fixture of another module, used here)

SENDER = "signoff@deadlines.example"


@pytest.fixture
def smtp() -> Iterator[SimpleNamespace]:
    """An SMTP server on 127.0.0.1 that keeps what it is sent."""
    with smtp_server() as server:
        yield server


def _notifying(shop: SimpleNamespace, hook: str, smtp_port: int) -> WebhookNotifier:
    """The app's notifiers, as every process of it registers them: e-mail, then the webhook
    (given back)."""
    notify_by_email(shop.app, host="127.0.0.1", port=smtp_port, sender=SENDER, timeout=30)
    return notify_by_webhook(shop.app, hook, timeout=30)


def _mailed(smtp: SimpleNamespace) -> list[tuple[list[str], str]]:
    """Each mail the server took: to whom, and its Message-ID."""
    return [(e.rcpt_tos, message_from_bytes(e.content)["Message-ID"]) for e in smtp.mail]


def _notices(receiver: SimpleNamespace) -> list[str]:
    return [body["notice"] for body in receiver.bodies]


def _propose(shop: SimpleNamespace, price: int) -> Any:
    outcome = shop.app.agent(shop.Clerk).do(shop.PriceFleetTicket(), None, for_=shop.mia,
                                            model=script(shop, price))
    assert outcome.status is TaskStatus.WAITING
    (proposal,) = shop.app.proposals(task=outcome.task)
    return proposal


def test_a_webhook_down_beside_a_mail_that_went_is_told_again_alone(
        database: str, receiver: SimpleNamespace, smtp: SimpleNamespace) -> None:
    """The mail goes out and the webhook is down: once it is back, the worker's try tells the
    webhook, under the same notice, and does not mail Noor again (each try mailed her again).
    Escalated to Finance, the proposal is a new notice, mailed to Fay and posted; with the
    webhook down again, its retry too posts alone."""
    shop = build(database)
    try:
        _notifying(shop, receiver.url, smtp.port)
        worker = shop.app.worker()
        receiver.down[0] = True
        proposal = _propose(shop, 60)
        noor = (["noor@deadlines.example"], f"<signoff.{proposal.id}.0@deadlines.example>")
        assert _mailed(smtp) == [noor]
        assert _notices(receiver) == [f"{proposal.id}.0"]  # tried, and not taken

        receiver.down[0] = False
        assert worker.tell_untold(now=proposal.created_at + timedelta(minutes=2)) == 1
        assert _notices(receiver) == [f"{proposal.id}.0"] * 2
        assert _mailed(smtp) == [noor]  # once
        assert worker.tell_untold(now=proposal.created_at + timedelta(days=3)) == 0

        receiver.down[0] = True
        at = proposal.deadline_at + timedelta(seconds=1)
        shop.app.pass_deadlines(now=at)
        fay = (["fay@deadlines.example"], f"<signoff.{proposal.id}.1@deadlines.example>")
        assert _mailed(smtp) == [noor, fay]
        receiver.down[0] = False
        assert worker.tell_untold(now=at + timedelta(minutes=2)) == 1
        assert _notices(receiver) == [f"{proposal.id}.0"] * 2 + [f"{proposal.id}.1"] * 2
        assert _mailed(smtp) == [noor, fay]
        assert shop.app.proposal(proposal).status is ProposalStatus.WAITING
    finally:
        shop.app.database.dispose()


def _killed_once_mailed(point: str, where: dict[str, Any]) -> None:
    if point == "proposal.handler_took" and where["handler"].startswith("e-mail "):
        os.kill(os.getpid(), signal.SIGKILL)


def _killed_before_telling(point: str, where: dict[str, Any]) -> None:
    if point == "proposal.told_next":
        os.kill(os.getpid(), signal.SIGKILL)


def _propose_then_die(url: str, hook: str, smtp_port: int) -> None:
    shop = build(url)
    _notifying(shop, hook, smtp_port)
    with points.pausing(_killed_once_mailed):
        _propose(shop, 70)


def _pass_deadline_then_die(url: str, hook: str, smtp_port: int, at: Any) -> None:
    shop = build(url)
    _notifying(shop, hook, smtp_port)
    with points.pausing(_killed_before_telling):
        shop.app.pass_deadlines(now=at)


def test_a_process_stopped_between_two_handlers_leaves_the_worker_the_one_untold(
        database: str, receiver: SimpleNamespace, smtp: SimpleNamespace) -> None:
    """A child mails Noor and is killed before it calls the webhook: the worker tells the
    webhook alone (it mailed her again). Its escalation, left untold by a child killed before
    any handler, is told to both: what the mail took of the first notice is not of this one."""
    shop = build(database)
    try:
        run_until_killed(_propose_then_die, database, receiver.url, smtp.port)
        (proposal,) = shop.app.proposals(status=ProposalStatus.WAITING)
        assert len(smtp.mail) == 1
        assert receiver.bodies == []

        _notifying(shop, receiver.url, smtp.port)
        worker = shop.app.worker()
        assert worker.tell_untold() == 1
        assert _notices(receiver) == [f"{proposal.id}.0"]
        assert len(smtp.mail) == 1
        assert worker.tell_untold() == 0

        at = proposal.deadline_at + timedelta(seconds=1)
        run_until_killed(_pass_deadline_then_die, database, receiver.url, smtp.port, at)
        assert len(smtp.mail) == 1  # escalated, and nobody told
        assert len(receiver.bodies) == 1
        assert worker.tell_untold(now=at) == 1
        assert _notices(receiver) == [f"{proposal.id}.0", f"{proposal.id}.1"]
        assert [e.rcpt_tos for e in smtp.mail] == [["noor@deadlines.example"],
                                                   ["fay@deadlines.example"]]
    finally:
        shop.app.database.dispose()


CALLED: list[str] = []
PAGER_UP = [False]


def _chat(event: AgentProposed) -> None:
    CALLED.append("chat")


def _pager(event: AgentProposed) -> None:
    CALLED.append("pager")
    if not PAGER_UP[0]:
        raise NotTold(event.proposal.id)


def _audit(event: AgentProposed) -> None:
    CALLED.append("audit")


def test_a_handler_added_between_tries_is_told_and_one_removed_is_not_waited_for(
        tmp_path: Path) -> None:
    """Chat takes the proposal and the pager is down. Deployed again with an audit handler
    besides, the worker's try calls the pager and the audit, not chat. Another proposal, which
    the pager did not take, is told once deployed without the pager, calling nobody again."""
    url = f"sqlite:///{tmp_path / 'handlers.db'}"
    first = build(url)
    CALLED.clear()
    PAGER_UP[0] = False
    try:
        first.app.on(AgentProposed, _chat)
        first.app.on(AgentProposed, _pager)
        proposal = _propose(first, 80)
        assert CALLED == ["chat", "pager"]

        again = build(url)  # (the same app, deployed again)
        for handler in (_chat, _pager, _audit):
            again.app.on(AgentProposed, handler)
        CALLED.clear()
        PAGER_UP[0] = True
        worker = again.app.worker()
        assert worker.tell_untold(now=proposal.created_at + timedelta(minutes=2)) == 1
        assert CALLED == ["pager", "audit"]

        PAGER_UP[0] = False
        other = _propose(first, 81)
        assert CALLED[-2:] == ["chat", "pager"]
        without = build(url)  # (deployed without the pager)
        without.app.on(AgentProposed, _chat)
        CALLED.clear()
        assert without.app.worker().tell_untold(
            now=other.created_at + timedelta(minutes=2)) == 1
        assert CALLED == []
        assert worker.tell_untold(now=other.created_at + timedelta(days=3)) == 0
    finally:
        first.app.database.dispose()


def _tried_to_the_last(shop: SimpleNamespace, proposal: Any, tried: list[Any]) -> None:
    """Let a worker try `proposal` until `MOST_TRIES` were made (`tried`: the sendings)."""
    worker, at, looks = shop.app.worker(), proposal.created_at, 0
    while looks < 50 and len(tried) < MOST_TRIES:
        at += AGAIN_AFTER[-1]
        assert worker.tell_untold(now=at) == 0
        looks += 1
    assert len(tried) == MOST_TRIES
    assert worker.tell_untold(now=at + timedelta(days=30)) == 0
    assert len(tried) == MOST_TRIES


def _said(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "signoff.notifications"]


def test_a_webhook_down_for_good_is_given_up_on_in_its_last_line_and_the_mail_went_once(
        tmp_path: Path, receiver: SimpleNamespace, smtp: SimpleNamespace,
        caplog: pytest.LogCaptureFixture) -> None:
    """Down at every try, the webhook's line says a worker tells it again later at each but
    the last, which says it is not tried again (it said "later" then too); the mail went once
    (it went at every try: eight mails), and the worker names the webhook as left untold."""
    caplog.set_level(logging.INFO)
    shop = build(f"sqlite:///{tmp_path / 'down.db'}")
    try:
        webhook = _notifying(shop, receiver.url, smtp.port)
        receiver.down[0] = True
        proposal = _propose(shop, 90)
        _tried_to_the_last(shop, proposal, receiver.bodies)
        assert len(smtp.mail) == 1
        shown = receiver.url.rsplit("/", 1)[0] + "/…"
        told = (f"The webhook {shown} was not told of proposal {proposal.id} (Set the price): "
                f"it answered HTTP 503 Service Unavailable. ")
        assert _said(caplog) == [
            told + "The proposal waits all the same, and a worker tells it again later; see "
            "that the receiver is up and takes the POST."] * (MOST_TRIES - 1) + [
            told + "That was the last try: it is not tried again. The proposal waits in the "
            "inbox all the same; see that the receiver is up and takes the POST."]
        assert (f"Not every handler was told of proposal {proposal.id} (Set the price) after "
                f"{MOST_TRIES} tries (not {webhook.name}): it is not tried again. It waits in the "
                "inbox all the same.") in caplog.text
        assert shop.app.proposal(proposal).status is ProposalStatus.WAITING
    finally:
        shop.app.database.dispose()


class _Refusing(Mailbox):
    """Takes no mail: each is answered "451", and kept as tried."""

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.mail.append(envelope)
        return "451 Try again later"


def test_an_smtp_server_refusing_for_good_is_given_up_on_in_its_last_line(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The e-mail's line says the same: a worker tells it again later at each try but the last,
    which says it is not tried again; the worker then says nobody was told."""
    shop = build(f"sqlite:///{tmp_path / 'refused.db'}")
    try:
        with smtp_server(_Refusing()) as refusing:
            notify_by_email(shop.app, host="127.0.0.1", port=refusing.port, sender=SENDER,
                            timeout=30)
            proposal = _propose(shop, 95)
            _tried_to_the_last(shop, proposal, refusing.mail)
        told = (f"Nobody was e-mailed of proposal {proposal.id} (Set the price): the SMTP "
                f"server 127.0.0.1:{refusing.port} could not take it (")
        said = _said(caplog)
        assert len(said) == MOST_TRIES
        assert all(line.startswith(told) for line in said)
        assert all(line.endswith(
            "). The proposal waits all the same, and a worker tells it again later; see that the "
            "server is up and takes the mail.") for line in said[:-1])
        assert said[-1].endswith(
            "). That was the last try: it is not tried again. The proposal waits in the inbox "
            "all the same; see that the server is up and takes the mail.")
        assert (f"Nobody was told of proposal {proposal.id} (Set the price) after {MOST_TRIES} "
                "tries: it is not tried again. It waits in the inbox all the same.") in caplog.text
    finally:
        shop.app.database.dispose()
