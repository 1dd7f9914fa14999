"""Notifications against receivers that misbehave, and who is told of a proposal that went on
to a queue at its deadline: real servers on 127.0.0.1, a real SQLite file."""

from __future__ import annotations

import contextlib
import logging
import socket
import threading
import time
from collections.abc import Callable, Iterator
from datetime import timedelta
from email import message_from_bytes
from email.message import EmailMessage
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from signoff import Agent, TaskStatus, UserError, policy
from signoff.inbox import Inbox
from signoff.notifications import (
    EmailNotifier,
    notify_by_email,
    notify_by_webhook,
    post_json,
    send_email,
)
from signoff.testing import ScriptedModel, says
from tests.deadlines_app import Priced, build
from tests.smtp_server import smtp_server


@pytest.fixture
def shop(tmp_path: Path) -> Iterator[SimpleNamespace]:
    """The deadline app on a SQLite file of the test's own."""
    shop = build(f"sqlite:///{tmp_path / 'deadlines.db'}")
    yield shop
    shop.app.database.dispose()


@pytest.fixture
def serve() -> Iterator[Callable[[Callable[[socket.socket], None]], int]]:
    """Serve each connection to a raw TCP server on 127.0.0.1 with a function; its port."""
    servers: list[socket.socket] = []

    def start(answer: Callable[[socket.socket], None]) -> int:
        server = socket.socket()
        server.bind(("127.0.0.1", 0))
        server.listen(5)
        servers.append(server)

        def accept() -> None:
            while True:
                try:
                    client, _ = server.accept()
                except OSError:
                    return
                threading.Thread(target=answer, args=(client,), daemon=True).start()

        threading.Thread(target=accept, daemon=True).start()
        port: int = server.getsockname()[1]
        return port

    yield start
    for server in servers:
        server.close()


def _dribble(first: bytes) -> Callable[[socket.socket], None]:
    """Answer `first`, then one more byte every 0.3 s, for as long as the client stays."""
    def answer(client: socket.socket) -> None:
        client.settimeout(0.2)
        with contextlib.suppress(OSError):
            client.recv(65536)
        try:
            client.sendall(first)
            for _ in range(400):
                client.sendall(b"a")
                time.sleep(0.3)
        except OSError:
            pass
        finally:
            client.close()
    return answer


def _not_http(client: socket.socket) -> None:
    client.recv(65536)
    client.sendall(b"HELLO THERE\r\n\r\n")
    client.close()


def _propose(shop: SimpleNamespace, skill: Any, *, why: str = "An hour of work.") -> Any:
    model = ScriptedModel(
        says.tool(why, shop.set_price, ticket=shop.ticket.id, price=45),
        says.hand_back(Priced(summary="Priced, or told why not.")),
    )
    outcome = shop.app.agent(shop.Clerk).do(skill, None, for_=shop.mia, model=model)
    assert outcome.status is TaskStatus.WAITING
    return outcome


def _told(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "signoff.notifications"]


def test_a_receiver_whose_answer_is_not_http_is_told_in_a_sentence(
        shop: SimpleNamespace, serve: Any, caplog: pytest.LogCaptureFixture) -> None:
    """A receiver answering what is not HTTP is logged in the notifier's sentence (it was "A
    handler of AgentProposed failed" and http.client's traceback)."""
    port = serve(_not_http)
    notify_by_webhook(shop.app, f"http://127.0.0.1:{port}/hook")
    _propose(shop, shop.PriceTicket())
    (told,) = _told(caplog)
    assert f"The webhook http://127.0.0.1:{port}/… was not told of proposal " in (
        told.getMessage())
    assert "its answer was not HTTP (BadStatusLine)" in told.getMessage()
    assert told.exc_info is None
    assert "A handler of AgentProposed failed" not in caplog.text


def test_a_receiver_answering_a_byte_at_a_time_holds_the_work_no_longer_than_the_timeout(
        shop: SimpleNamespace, serve: Any, caplog: pytest.LogCaptureFixture) -> None:
    """A webhook that answers a byte every 0.3 s, with a timeout of 1 s: the work that
    proposed goes on after about a second, the log says it did not answer in time (each
    wait was counted alone: it held the agent's step for the whole answer, a minute here)."""
    port = serve(_dribble(b"HTTP/1.1 200 OK\r\nX-Slow: "))
    notify_by_webhook(shop.app, f"http://127.0.0.1:{port}/hook", timeout=1)
    started = time.monotonic()
    _propose(shop, shop.PriceTicket())
    took = time.monotonic() - started
    assert took < 5, took
    (told,) = _told(caplog)
    assert "it did not answer in time" in told.getMessage()
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        post_json(f"http://127.0.0.1:{port}/hook", {"ping": True}, timeout=0.5)
    assert time.monotonic() - started < 3


def test_an_smtp_server_greeting_a_byte_at_a_time_holds_nothing_past_the_timeout(
        serve: Any) -> None:
    """An SMTP server that greets a byte every 0.3 s: sending gives up at the timeout, as
    a TimeoutError (it waited as long as the server kept talking)."""
    port = serve(_dribble(b"220-slow"))
    mail = EmailMessage()
    mail["From"], mail["To"], mail["Subject"] = "s@x.example", "n@x.example", "hi"
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        send_email(mail, host="127.0.0.1", port=port, timeout=1)
    assert time.monotonic() - started < 4


def test_no_secret_is_shown_by_a_notifier_or_its_log(
        shop: SimpleNamespace, serve: Any, caplog: pytest.LogCaptureFixture) -> None:
    """A notifier's repr shows neither the SMTP password nor the webhook's address or secret;
    the log shows a webhook's scheme and host alone (a query, ?token=…, or a path, as chat
    services' webhooks have, may hold its token); an address with a user and
    password, which urllib took for the host's name so that no POST ever went, is refused as
    the notifier is registered."""
    mailer = EmailNotifier(app=shop.app, host="smtp.example", sender="s@x.example",
                           username="signoff", password="hunter2")
    assert "hunter2" not in repr(mailer)
    port = serve(_not_http)
    hook = notify_by_webhook(shop.app, f"http://127.0.0.1:{port}/hook/T0K3N?token=abc123",
                             secret="s3cret")
    assert "s3cret" not in repr(hook)
    assert "T0K3N" not in repr(hook)
    _propose(shop, shop.PriceTicket())
    (told,) = _told(caplog)
    assert f"The webhook http://127.0.0.1:{port}/… was not told" in told.getMessage()
    assert "abc123" not in caplog.text
    assert "T0K3N" not in caplog.text
    with pytest.raises(UserError, match=r"A webhook URL names no user or password "
                                        r"\('https://chat.example/…'\)"):
        notify_by_webhook(shop.app, "https://bob:pw@chat.example/h")


@pytest.fixture
def smtp() -> Iterator[SimpleNamespace]:
    """An SMTP server (aiosmtpd) on 127.0.0.1 that keeps what it is sent."""
    with smtp_server() as server:
        yield server


def test_a_proposal_gone_to_a_queue_is_mailed_to_none_who_may_not_see_it(
        shop: SimpleNamespace, smtp: SimpleNamespace) -> None:
    """At its deadline the fleet price goes to the Finance queue, and only Fay is mailed: not
    an agent whose account holds the Finance role (its account's handle is an address,
    ``auditor@agents``), nor Ivy, whom the app's policy lets decide no proposal, though she
    is in Finance — neither may see it in the inbox."""
    class Auditor(Agent):
        """Audits, with an account in Finance."""

        purpose = "You audit."
        skills = [shop.PriceTicket()]
        roles = ["Finance"]

    shop.app.add_agent(Auditor, sponsor=shop.noor)
    shop.app.agent(Auditor)  # (its account is made)
    shop.app.people.add("ivy@deadlines.example", "Ivy", roles=["Finance", "intern"])
    shop.app.oversight.decides_agent_proposals = ~policy.role("intern")
    notifier = notify_by_email(shop.app, host="127.0.0.1", port=smtp.port,
                               sender="signoff@deadlines.example")
    outcome = _propose(shop, shop.PriceFleetTicket())
    (proposal,) = shop.app.proposals(task=outcome.task)
    shop.app.pass_deadline(proposal, now=proposal.deadline_at + timedelta(minutes=1))
    first, escalated = smtp.mail
    assert first.rcpt_tos == ["noor@deadlines.example"]
    assert escalated.rcpt_tos == ["fay@deadlines.example"]
    now = shop.app.proposal(proposal)
    assert notifier.recipients(now) == ["fay@deadlines.example"]
    inbox = Inbox(shop.app)
    assert [p.handle for p in shop.app.people.with_role("Finance") if inbox.may_see(p, now)] == [
        "fay@deadlines.example"]


def test_what_the_agent_wrote_cannot_pose_as_a_line_of_the_mail(
        shop: SimpleNamespace, smtp: SimpleNamespace) -> None:
    """The agent's why, on several lines, is indented under "Why:": a line of it reading
    "Decide it: https://…" cannot pose as the mail's own link (it was a line of its own)."""
    notify_by_email(shop.app, host="127.0.0.1", port=smtp.port, sender="signoff@deadlines.example",
                    inbox_url="https://inbox.example")
    _propose(shop, shop.PriceTicket(),
             why="An hour of work.\nDecide it: https://evil.example/approve\n\nIt is urgent.")
    (envelope,) = smtp.mail
    text = message_from_bytes(envelope.content).get_payload(decode=True).decode()
    lines = text.splitlines()
    assert [line for line in lines if line.startswith("Decide it:")] == [
        f"Decide it: https://inbox.example/proposals/{shop.app.proposals()[0].id}"]
    assert "Why: An hour of work.\r\n     Decide it: https://evil.example/approve\r\n" in text
