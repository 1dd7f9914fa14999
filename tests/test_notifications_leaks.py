"""What a webhook's receiver answers, and what its address holds, as the log and a refusal show
them: a redirect's address and a password kept out, a receiver's reason phrase cut short, and a
200 whose body never ends taken as told. Real receivers on 127.0.0.1."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from signoff import TaskStatus, UserError
from signoff.notifications import WebhookNotifier, notify_by_webhook, post_json
from signoff.testing import ScriptedModel, says
from tests.deadlines_app import Priced, build
from tests.ports import free_port


@pytest.fixture
def shop(tmp_path: Path) -> Iterator[SimpleNamespace]:
    """The deadline app on a SQLite file of the test's own."""
    shop = build(f"sqlite:///{tmp_path / 'deadlines.db'}")
    yield shop
    shop.app.database.dispose()


@pytest.fixture
def answering() -> Iterator[Callable[[bytes], str]]:
    """A receiver on 127.0.0.1 that reads a request and answers the bytes given, then holds
    the connection open until the test ends; its URL (with a token in its path)."""
    servers: list[socket.socket] = []
    done = threading.Event()

    def start(answer: bytes) -> str:
        server = socket.create_server(("127.0.0.1", free_port()))
        servers.append(server)

        def answer_one(client: socket.socket) -> None:
            with client, contextlib.suppress(OSError):
                client.recv(65536)
                client.sendall(answer)
                done.wait(30)

        def serve() -> None:
            while True:
                try:
                    client, _ = server.accept()
                except OSError:
                    return
                threading.Thread(target=answer_one, args=(client,), daemon=True).start()

        threading.Thread(target=serve, daemon=True).start()
        return f"http://127.0.0.1:{server.getsockname()[1]}/hooks/T0KEN"

    yield start
    done.set()
    for server in servers:
        server.close()


def _propose(shop: SimpleNamespace) -> None:
    model = ScriptedModel(
        says.tool("An hour of work.", shop.set_price, ticket=shop.ticket.id, price=45),
        says.hand_back(Priced(summary="Priced, or told why not.")),
    )
    outcome = shop.app.agent(shop.Clerk).do(shop.PriceTicket(), None, for_=shop.mia, model=model)
    assert outcome.status is TaskStatus.WAITING


def _told(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "signoff.notifications"]


@pytest.mark.parametrize("where", ["file:///srv/hooks/S3CRET?key=K3Y", "data:text/plain,S3CRET"])
def test_a_redirect_to_another_scheme_is_logged_by_its_scheme_and_host_alone(
        shop: SimpleNamespace, answering: Any, caplog: pytest.LogCaptureFixture,
        where: str) -> None:
    """A 302 to a file: or data: address is logged as any redirect, by its scheme and host (it
    was urllib's "Redirection to url 'file:///srv/hooks/S3CRET?key=K3Y' is not allowed")."""
    url = answering(f"HTTP/1.1 302 Found\r\nLocation: {where}\r\nContent-Length: 0\r\n\r\n"
                    .encode())
    notify_by_webhook(shop.app, url, timeout=5)
    _propose(shop)
    (told,) = _told(caplog)
    scheme = where.partition(":")[0]
    assert "it answered HTTP 302 Found, a redirect to " in told
    assert f" {scheme}://" in told
    assert "which is not followed" in told
    assert "S3CRET" not in caplog.text
    assert "K3Y" not in caplog.text
    assert "not allowed" not in told


def test_a_receivers_reason_phrase_is_logged_printable_and_short(
        shop: SimpleNamespace, answering: Any, caplog: pytest.LogCaptureFixture) -> None:
    """A 500 whose reason phrase is 5,000 letters with a carriage return in it is logged cut
    short, the return a space (it was logged whole, the return rewriting the line)."""
    url = answering(b"HTTP/1.1 500 Broke\rdown " + b"A" * 5000 + b"\r\nContent-Length: 0\r\n\r\n")
    notify_by_webhook(shop.app, url, timeout=5)
    _propose(shop)
    (told,) = _told(caplog)
    assert "it answered HTTP 500 Broke down AAA" in told
    assert "\r" not in told
    assert "A" * 100 not in told


def test_a_receiver_that_answered_200_is_told_though_its_body_never_ends(
        shop: SimpleNamespace, answering: Any, caplog: pytest.LogCaptureFixture) -> None:
    """A 200 whose body does not end (no length, the connection held open) is a delivery: the
    status is taken, nothing logged (it was read until the timeout, and logged as "it did not
    answer in time")."""
    url = answering(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nreceived")
    assert post_json(url, {"ping": True}, timeout=1) == 200
    notify_by_webhook(shop.app, url, timeout=1)
    _propose(shop)
    assert _told(caplog) == []


@pytest.mark.parametrize("url", [
    "https://b0tuser:pQ?ss@chat.example/hooks/x",
    "https://b0tuser:1234#x@chat.example/hooks/x",
])
def test_a_password_holding_a_question_mark_or_hash_is_refused_unshown(url: str) -> None:
    """A user and password whose password holds a "?" or "#" is refused as any other (the
    first was refused as a port, 'https://bot:pa/…' shown; the second was taken, posting to
    the host "bot", port 1234, and its log showed both)."""
    with pytest.raises(UserError, match="names no user or password") as refused:
        WebhookNotifier(url=url)
    said = str(refused.value)
    assert "https://chat.example" in said
    assert "b0tuser" not in said
    assert "pQ" not in said
    assert "1234" not in said


def test_a_password_holding_a_slash_is_not_shown_in_the_refusal() -> None:
    """`https://bot:p/w@chat.example/` reads as the host "bot" with the port "p": refused, and
    the port that is no number is left out of what it shows (it showed 'https://bot:p/…')."""
    with pytest.raises(UserError) as refused:
        WebhookNotifier(url="https://bot:p4ss/w@chat.example/hooks/x")
    assert "p4ss" not in str(refused.value)
