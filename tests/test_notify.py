"""Notifications on AgentProposed: a webhook and e-mail, against real servers on 127.0.0.1."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import socket
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from email import message_from_bytes
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from signoff import App, TaskStatus
from signoff.exceptions import UserError
from signoff.notifications import (
    SIGNATURE_HEADER,
    notify_by_email,
    notify_by_webhook,
    post_json,
    send_email,
)
from tests.smtp_server import smtp_server
from tests.workshop_web import open_workshop, price


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    """The workshop, with passwords and tokens."""
    return open_workshop(tmp_path, monkeypatch)


class _Hook(BaseHTTPRequestHandler):
    received: list[tuple[dict[str, str], bytes]]
    answer: int = 204

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.received.append((dict(self.headers), body))
        self.send_response(self.answer)
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def webhook() -> Iterator[SimpleNamespace]:
    """An HTTP server on 127.0.0.1 that keeps what is POSTed to it."""
    handler = type("Hook", (_Hook,), {"received": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield SimpleNamespace(url=f"http://127.0.0.1:{server.server_address[1]}/hook",
                          received=handler.received, handler=handler)
    server.shutdown()
    server.server_close()
    thread.join()


@pytest.fixture
def smtp() -> Iterator[SimpleNamespace]:
    """An SMTP server (aiosmtpd) on 127.0.0.1 that keeps what it is sent."""
    with smtp_server() as server:
        yield server


@pytest.mark.parametrize("secret", [b"s3cret", "s3cret"])
def test_the_webhook_is_told_of_each_proposal_signed(shop: SimpleNamespace,
                                                     webhook: SimpleNamespace,
                                                     secret: bytes | str) -> None:
    """A proposal is POSTed as JSON — the call in words, why, a link — signed with the secret,
    given as bytes or as text (a secret read from the environment: it was taken, and then no
    webhook was ever sent, each refused by a TypeError in the log)."""
    notify_by_webhook(shop.app, webhook.url, secret=secret, inbox_url="https://inbox.example/")
    outcome = price(shop, fleet=True, price=38)
    assert outcome.status is TaskStatus.WAITING
    ((headers, body),) = webhook.received
    sent = json.loads(body)
    assert sent["event"] == "AgentProposed"
    assert sent["proposal"]["label"] == "Set the price"
    assert sent["proposal"]["shown"] == {"repair": "Ticket T-7", "price": "38"}
    assert sent["proposal"]["why"] == "Pads, a cable and an hour of work."
    assert sent["proposal"]["decide_by"] == "Noor"  # (it was empty)
    assert sent["url"] == f"https://inbox.example/proposals/{sent['proposal']['id']}"
    assert headers["Content-Type"] == "application/json"
    expected = hmac.new(b"s3cret", body, hashlib.sha256).hexdigest()
    assert headers[SIGNATURE_HEADER] == f"sha256={expected}"


def test_a_secret_of_another_kind_or_an_address_that_is_no_url_is_refused_at_once(
        shop: SimpleNamespace) -> None:
    """Each was taken, and failed in the log at every proposal."""
    with pytest.raises(UserError, match="A webhook's secret is bytes or text, not int"):
        notify_by_webhook(shop.app, "https://chat.example/hook", secret=1234)  # type: ignore[arg-type]
    with pytest.raises(UserError, match=re.escape("A webhook URL starts with http:// or "
                                                  "https:// and names a host, not "
                                                  "'chat.example/…'")):
        notify_by_webhook(shop.app, "chat.example/hook")


def test_a_failing_webhook_does_not_stop_the_work(shop: SimpleNamespace,
                                                  webhook: SimpleNamespace,
                                                  caplog: pytest.LogCaptureFixture) -> None:
    """A receiver answering 500 is logged; the proposal still waits, and can be decided."""
    webhook.handler.answer = 500
    notify_by_webhook(shop.app, webhook.url)
    outcome = price(shop, fleet=True)
    assert outcome.status is TaskStatus.WAITING
    assert len(webhook.received) == 1
    (proposal,) = shop.app.proposals_for(shop.noor)
    # in a sentence naming the receiver and what it answered (it was "A handler of
    # AgentProposed failed" and a traceback, with neither the address nor the status)
    (told,) = [r for r in caplog.records if r.name == "signoff.notifications"]
    assert told.getMessage() == (
        f"The webhook {webhook.url.rsplit('/', 1)[0]}/… was not told of proposal {proposal.id} "
        "(Set the price): it "
        "answered HTTP 500 Internal Server Error. The proposal waits all the same, and a worker "
        "tells it again later; see that the receiver is up and takes the POST.")
    assert told.exc_info is None
    assert "A handler of AgentProposed failed" not in caplog.text


def test_an_smtp_server_that_cannot_be_reached_is_told_in_a_sentence(
        shop: SimpleNamespace, caplog: pytest.LogCaptureFixture) -> None:
    """An SMTP server that refuses the connection is logged in a sentence naming it; the
    proposal still waits (it was a traceback, or "A handler of AgentProposed failed")."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # (closed once the probe is)
    notify_by_email(shop.app, host="127.0.0.1", port=port, sender="signoff@workshop.example")
    outcome = price(shop, fleet=True)
    assert outcome.status is TaskStatus.WAITING
    (proposal,) = shop.app.proposals_for(shop.noor)
    (told,) = [r for r in caplog.records if r.name == "signoff.notifications"]
    assert told.getMessage().startswith(
        f"Nobody was e-mailed of proposal {proposal.id} (Set the price): the SMTP server "
        f"127.0.0.1:{port} could not take it ("), told.getMessage()
    assert told.getMessage().endswith("The proposal waits all the same, and a worker tells it "
                                      "again later; see that the server is up and takes the "
                                      "mail.")
    assert told.exc_info is None


@pytest.mark.parametrize(("make", "told"), [
    # an environment variable set to nothing: each body went unsigned, unsaid
    (lambda app: notify_by_webhook(app, "https://chat.example/h", secret=""),
     "A webhook's secret is empty (an environment variable set to nothing?)"),
    (lambda app: notify_by_webhook(app, "https://chat.example/h", secret=b""), "secret is empty"),
    (lambda app: notify_by_webhook(app, "https://", secret="s"), "names a host, not 'https://'"),
    (lambda app: notify_by_webhook(app, "https://chat.example/h", timeout="10"),
     "A webhook's timeout is a number of seconds above 0, not '10'."),
    (lambda app: notify_by_webhook(app, "https://chat.example/h", inbox_url=42),
     "A webhook's inbox_url is the inbox's address, as text, not 42."),
    # (each link sent went nowhere: "signoff.example/proposals/…")
    (lambda app: notify_by_webhook(app, "https://chat.example/h", inbox_url="signoff.example"),
     "A webhook's inbox_url is the inbox's address, starting with http:// or https:// and "
     "naming a host (https://signoff.example), not 'signoff.example'."),
    (lambda app: notify_by_email(app, host="smtp.example", sender="s@x.example",
                                 inbox_url="ftp://x"), "not 'ftp://x'"),
    (lambda app: notify_by_email(app, host="", sender="s@x.example"),
     "An e-mail notifier's host is the SMTP server's name or address, not ''."),
    (lambda app: notify_by_email(app, host="smtp.example", sender=""),
     "An e-mail notifier's sender is the From address (signoff@example.com), not ''."),
    (lambda app: notify_by_email(app, host="smtp.example", sender="s@x.example", port=0),
     "An e-mail notifier's port is a number from 1 to 65535, not 0."),
    (lambda app: notify_by_email(app, host="smtp.example", sender="s@x.example", timeout=-1),
     "An e-mail notifier's timeout is a number of seconds above 0, not -1."),
    (lambda app: notify_by_webhook(None, "https://chat.example/h"),  # (an AttributeError)
     "notify_by_webhook takes the app whose proposals it tells of first "
     "(notify_by_webhook(app, …)), not None."),
])
def test_a_notifier_set_wrongly_is_refused_as_it_is_registered(
        shop: SimpleNamespace, make: Any, told: str) -> None:
    """Each was taken, and failed at every proposal (a TypeError, an IndexError, "please run
    connect() first"), or sent what it should not (bodies unsigned)."""
    with pytest.raises(UserError, match=re.escape(told)):
        make(shop.app)


def test_whoever_decides_is_emailed(shop: SimpleNamespace, smtp: SimpleNamespace) -> None:
    """The routed fleet price is mailed to Noor (who decides it), not to Mia (whose work it
    is); the mail says the call, why, and where to decide it."""
    notify_by_email(shop.app, host="127.0.0.1", port=smtp.port, sender="signoff@workshop.example",
                    inbox_url="https://inbox.example")
    price(shop, fleet=True, price=38)
    (envelope,) = smtp.mail
    assert envelope.rcpt_tos == ["noor@workshop.example"]
    mail = message_from_bytes(envelope.content)
    assert mail["Subject"] == "To decide: Set the price (estimator)"
    text = mail.get_payload(decode=True).decode()
    assert "repair: Ticket T-7" in text  # as the fleet skill names it
    assert "price: 38" in text
    assert "Why: Pads, a cable and an hour of work." in text
    proposal = shop.app.proposals_for(shop.noor)[0]
    assert f"Decide it: https://inbox.example/proposals/{proposal.id}" in text
    assert "It is for Noor to decide.\r\n" in text  # no deadline: no "by when"
    # what it would do, in words first, as the inbox says it (it was the analysis's code lines)
    assert ("What it would do:\r\n  - reads a Repair (set_price -> repair: Repair)\r\n"
            "  - changes the `price` of a Repair (set_price -> repair.price = …)") in text


def test_the_mail_says_by_when_a_proposal_with_a_deadline_is_to_be_decided(
        shop: SimpleNamespace, smtp: SimpleNamespace, webhook: SimpleNamespace) -> None:
    """A route with a deadline: the mail says by when, in UTC, as the webhook's JSON does (the
    mail never said it)."""
    from datetime import timedelta

    from signoff import Route

    noor = shop.noor
    shop.PriceFleetRepair.decided_by = lambda self, action: Route.to_person(noor).within(
        timedelta(hours=8))
    notify_by_email(shop.app, host="127.0.0.1", port=smtp.port, sender="signoff@workshop.example")
    notify_by_webhook(shop.app, webhook.url)
    price(shop, fleet=True)
    (proposal,) = shop.app.proposals()
    assert proposal.deadline_at is not None
    (envelope,) = smtp.mail
    text = message_from_bytes(envelope.content).get_payload(decode=True).decode()
    when = proposal.deadline_at.astimezone(UTC)
    assert f"It is for Noor to decide, by {when:%Y-%m-%d %H:%M} UTC." in text
    ((_, body),) = webhook.received
    sent = json.loads(body)["proposal"]
    assert sent["decide_by"] == "Noor"
    assert datetime.fromisoformat(sent["deadline_at"]) == proposal.deadline_at


def test_a_queue_is_emailed_everyone_in_it(shop: SimpleNamespace, smtp: SimpleNamespace) -> None:
    """A proposal for a queue goes to everyone enabled who holds that role, but Mia, whose
    work it is: she does not decide a routed proposal, and is not told to."""
    from signoff import AgentRefused, Route

    shop.PriceFleetRepair.decided_by = lambda self, action: Route.to_queue("mechanic")
    notifier = notify_by_email(shop.app, host="127.0.0.1", port=smtp.port,
                               sender="signoff@workshop.example")
    shop.app.people.disable(shop.ola)
    shop.app.people.add("max@workshop.example", "Max", roles=["mechanic"])
    price(shop, fleet=True)
    (envelope,) = smtp.mail
    assert envelope.rcpt_tos == ["max@workshop.example"]
    (proposal,) = shop.app.proposals()
    assert notifier.recipients(proposal) == ["max@workshop.example"]
    with pytest.raises(AgentRefused, match="The work is for you; the decision is not yours"):
        shop.app.approve(proposal, by=shop.mia)


def test_nobody_to_mail_is_told_in_the_log(shop: SimpleNamespace, smtp: SimpleNamespace,
                                           caplog: pytest.LogCaptureFixture) -> None:
    """A queue nobody enabled is in: nothing is sent, and the log says so and what to do
    (nothing was said)."""
    from signoff import Route

    desk = shop.app.people.add("desk@workshop.example", "The front desk", roles=["front"])
    shop.app.people.disable(desk)
    shop.PriceFleetRepair.decided_by = lambda self, action: Route.to_queue("front")
    notify_by_email(shop.app, host="127.0.0.1", port=smtp.port, sender="signoff@workshop.example")
    price(shop, fleet=True)
    assert smtp.mail == []
    (proposal,) = shop.app.proposals()
    # (it said nobody enabled "may decide it", though a supervisor may: Noor decides it)
    assert (f"Nobody was e-mailed of proposal {proposal.id} (Set the price): nobody enabled is "
            "there to mail (the front queue); give someone the front role (a supervisor may "
            "still decide it, in the inbox).") in caplog.text
    assert proposal in shop.app.proposals_for(shop.noor)


def test_both_senders_are_declared_as_sending(tmp_path: Path) -> None:
    """An action that calls either notifier's sender is counted as sending (and so proposed)."""
    app = App("notify", database="sqlite://")

    @app.action
    def ping_webhook(url: str) -> str:
        """Tell a webhook."""
        post_json(url, {"ping": True})
        return "told"

    @app.action
    def mail_someone(host: str) -> str:
        """Send a mail."""
        from email.message import EmailMessage

        send_email(EmailMessage(), host=host)
        return "sent"

    assert app.actions.info("ping_webhook").effects.sends
    assert app.actions.info("mail_someone").effects.sends
