"""A receiver whose name the resolver takes long to find holds a notification no longer than its
timeout: the look-up of the name counts in it. The resolver's wait is a pause injected into the
real look-up (the machine's own name server cannot be made slow from a test); the receivers are
real servers on 127.0.0.1 and the app a real SQLite file."""

from __future__ import annotations

import logging
import socket
import threading
from collections.abc import Callable, Iterator
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest

from signoff import TaskStatus
from signoff.notifications import notify_by_webhook, post_json, send_email
from signoff.testing import ScriptedModel, says
from tests.deadlines_app import Priced, build

SLOW = "slow-name.signoff.test"
"""The name whose look-up waits (until `released`, at most 20 seconds)."""


class Resolver:
    """`release`: let the look-ups of SLOW end; `found`: whether one has ended (the waiting
    thread has its answer)."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.found = threading.Event()


@pytest.fixture
def released(monkeypatch: pytest.MonkeyPatch) -> Iterator[Resolver]:
    """The resolver, made to wait on SLOW until released (or 20 seconds have passed), then to
    find it at 127.0.0.1; other names as ever."""
    resolver = Resolver()
    real: Callable[..., Any] = socket.getaddrinfo

    def look_up(host: Any, port: Any, *args: Any, **options: Any) -> Any:
        if host == SLOW:
            resolver.release.wait(20)
            resolver.found.set()
            host = "127.0.0.1"
        return real(host, port, *args, **options)

    monkeypatch.setattr(socket, "getaddrinfo", look_up)
    yield resolver
    resolver.release.set()


def _answered_at_once(received: list[bytes]) -> int:
    """A receiver on 127.0.0.1 that answers any request 200 OK (what it was sent, kept); its
    port."""
    server = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        client, _ = server.accept()
        with client:
            received.append(client.recv(65536))
            client.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        server.close()

    threading.Thread(target=serve, daemon=True).start()
    port: int = server.getsockname()[1]
    return port


def test_a_webhook_whose_name_is_not_found_in_time_is_a_timeout(released: Resolver
                                                                 ) -> None:
    """The look-up of the receiver's name waits: the POST ends in a TimeoutError within its
    time, while the look-up still waits (before, it waited on the resolver, however long, then timed out)."""
    with pytest.raises(TimeoutError):
        post_json(f"http://{SLOW}:9/hook", {"ping": True}, timeout=0.5)
    assert not released.found.is_set()


def test_a_mail_server_whose_name_is_not_found_in_time_is_a_timeout(released: Resolver
                                                                     ) -> None:
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = "a@example.com", "b@example.com", "x"
    with pytest.raises(TimeoutError):
        send_email(message, host=SLOW, port=9, timeout=0.5)
    assert not released.found.is_set()


def test_a_name_found_in_time_is_reached_as_ever(released: Resolver) -> None:
    """A name the resolver finds (here once let go) is reached at its address, Host header
    and all."""
    received: list[bytes] = []
    port = _answered_at_once(received)
    released.release.set()
    assert post_json(f"http://{SLOW}:{port}/hook", {"ping": True}, timeout=10) == 200
    assert received[0].startswith(b"POST /hook HTTP/1.1")
    assert f"Host: {SLOW}:{port}".encode() in received[0]


def test_the_agent_goes_on_and_the_log_says_the_name_was_not_found(
        tmp_path: Path, released: Resolver, caplog: pytest.LogCaptureFixture) -> None:
    """The proposal is stored and the task waits, the webhook's failure one sentence in the
    log, while the look-up still waits."""
    shop = build(f"sqlite:///{tmp_path / 'deadlines.db'}")
    try:
        notify_by_webhook(shop.app, f"http://{SLOW}/hook", timeout=0.5)
        model = ScriptedModel(
            says.tool("An hour of work.", shop.set_price, ticket=shop.ticket.id, price=45),
            says.hand_back(Priced(summary="Priced, or told why not.")))
        outcome = shop.app.agent(shop.Clerk).do(shop.PriceTicket(), None, for_=shop.mia,
                                                model=model)
        assert outcome.status is TaskStatus.WAITING
        assert not released.found.is_set()
        (told,) = [r for r in caplog.records if r.name == "signoff.notifications"]
        assert told.levelno == logging.WARNING
        assert f"The webhook http://{SLOW}/… was not told of proposal" in told.getMessage()
        assert "it did not answer in time" in told.getMessage()
    finally:
        shop.app.database.dispose()
