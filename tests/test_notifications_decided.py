"""A proposal decided before its notification was sent (a notifier registered before it held the
work, and someone decided meanwhile) is not announced as waiting: nobody is mailed it, no
webhook told, and the log says why. A real SMTP server and a real receiver on 127.0.0.1."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from signoff import TaskStatus
from signoff.agents.events import AgentProposed
from signoff.notifications import notify_by_email, notify_by_webhook
from signoff.testing import ScriptedModel, says
from tests.deadlines_app import Priced, build
from tests.ports import free_port
from tests.smtp_server import smtp_server


@pytest.fixture
def shop(tmp_path: Path) -> Iterator[SimpleNamespace]:
    """The deadline app on a SQLite file of the test's own."""
    shop = build(f"sqlite:///{tmp_path / 'deadlines.db'}")
    yield shop
    shop.app.database.dispose()


@pytest.fixture
def smtp() -> Iterator[list[Any]]:
    """What an SMTP server (aiosmtpd) on 127.0.0.1 is sent (its port last, until taken)."""
    with smtp_server() as server:
        server.mail.append(server.port)
        yield server.mail


@pytest.fixture
def receiver() -> Iterator[SimpleNamespace]:
    """A webhook receiver on 127.0.0.1 keeping the bodies it is sent."""
    bodies: list[bytes] = []

    class Take(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            bodies.append(self.rfile.read(int(self.headers["Content-Length"])))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", free_port()), Take)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield SimpleNamespace(url=f"http://127.0.0.1:{server.server_port}/hook", bodies=bodies)
    server.shutdown()
    server.server_close()


def _decided_first(shop: SimpleNamespace) -> None:
    """A handler, registered before the notifiers, in whose time Noor rejects the proposal
    (as she would in the inbox while a slow receiver held the work)."""
    def reject(event: AgentProposed) -> None:
        done = threading.Thread(target=lambda: shop.app.reject(
            event.proposal.id, by=shop.noor, reason="Not now."))
        done.start()
        done.join()
    shop.app.on(AgentProposed, reject)


def _propose(shop: SimpleNamespace) -> TaskStatus:
    model = ScriptedModel(
        says.tool("An hour of work.", shop.set_price, ticket=shop.ticket.id, price=45),
        says.hand_back(Priced(summary="Priced, or told why not.")),
    )
    return shop.app.agent(shop.Clerk).do(shop.PriceTicket(), None, for_=shop.mia,
                                         model=model).status


def test_a_proposal_decided_before_its_mail_went_is_mailed_to_nobody(
        shop: SimpleNamespace, smtp: list[Any], caplog: pytest.LogCaptureFixture) -> None:
    """Noor rejected it before the mail went: nobody is mailed "To decide: …" (Noor was), and
    the log says it was decided first."""
    port = smtp.pop()
    _decided_first(shop)
    notify_by_email(shop.app, host="127.0.0.1", port=port, sender="signoff@deadlines.example")
    caplog.set_level(logging.INFO, logger="signoff.notifications")
    assert _propose(shop) is TaskStatus.DONE  # (told of the no, it went on)
    assert smtp == []
    said = [r.getMessage() for r in caplog.records if r.name == "signoff.notifications"]
    assert len(said) == 1, said
    assert "was decided (Rejected) before it was told" in said[0]


def test_a_proposal_decided_before_its_webhook_went_is_not_sent(
        shop: SimpleNamespace, receiver: SimpleNamespace, caplog: pytest.LogCaptureFixture
) -> None:
    """Noor rejected it before the POST went: the receiver is sent nothing (it was told the
    proposal waited, with its status "Waiting")."""
    _decided_first(shop)
    notify_by_webhook(shop.app, receiver.url)
    caplog.set_level(logging.INFO, logger="signoff.notifications")
    assert _propose(shop) is TaskStatus.DONE
    assert receiver.bodies == []
    said = [r.getMessage() for r in caplog.records if r.name == "signoff.notifications"]
    assert len(said) == 1, said
    assert "was decided (Rejected) before it was told" in said[0]


def test_a_proposal_still_waiting_is_told(
        shop: SimpleNamespace, receiver: SimpleNamespace, smtp: list[Any]) -> None:
    """Undecided, it is mailed and posted as ever."""
    port = smtp.pop()
    notify_by_webhook(shop.app, receiver.url)
    notify_by_email(shop.app, host="127.0.0.1", port=port, sender="signoff@deadlines.example")
    assert _propose(shop) is TaskStatus.WAITING
    assert len(receiver.bodies) == 1
    assert len(smtp) == 1
