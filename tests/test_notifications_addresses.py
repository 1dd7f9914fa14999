"""A webhook's address as written, and what it answers: a redirect is a receiver not told (urllib
followed a 301, 302 or 303 with a GET that dropped the body, and said it was told), and an
address that cannot be sent to is refused as the notifier is registered, not met as a traceback
in the log at every proposal. Real servers on 127.0.0.1."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from signoff import App, TaskStatus
from signoff.exceptions import UserError
from signoff.notifications import SIGNATURE_HEADER, notify_by_email, notify_by_webhook, post_json
from tests.ports import free_port
from tests.workshop_web import open_workshop, price


class _Redirecting(BaseHTTPRequestHandler):
    """POST /hook answers `code` with a Location on this server; whatever reaches it is kept."""

    code = 302
    relative = False
    seen: list[tuple[str, str, bytes, str | None]]

    def _keep(self, method: str) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.seen.append((method, self.path, body, self.headers.get(SIGNATURE_HEADER)))
        if self.path == "/hook":
            self.send_response(self.code)
            self.send_header("Location", "/moved" if self.relative else
                             f"http://127.0.0.1:{self.server.server_address[1]}/moved")
        else:
            self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self) -> None:
        self._keep("POST")

    def do_GET(self) -> None:
        self._keep("GET")

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def redirecting() -> Iterator[SimpleNamespace]:
    """A receiver on 127.0.0.1 whose /hook redirects to /moved."""
    handler = type("Redirecting", (_Redirecting,), {"seen": []})
    server = ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    port = server.server_address[1]
    yield SimpleNamespace(url=f"http://127.0.0.1:{port}/hook", seen=handler.seen,
                          handler=handler, port=port)
    server.shutdown()
    server.server_close()
    thread.join()


@pytest.mark.parametrize("code", [301, 302, 303, 307, 308])
def test_a_redirect_is_an_error_of_post_json_and_nothing_follows_it(
        redirecting: SimpleNamespace, code: int) -> None:
    """post_json says an answer other than 2xx is an OSError: a 301, 302 or 303 was followed
    with a GET without the body (its signature sent on), and read as 200."""
    redirecting.handler.code = code
    with pytest.raises(OSError, match=str(code)):
        post_json(redirecting.url, {"a": 1}, secret=b"k")
    assert [(method, path) for method, path, _, _ in redirecting.seen] == [("POST", "/hook")]


@pytest.mark.parametrize("relative", [False, True])
def test_a_webhook_that_redirects_is_logged_as_not_told_and_the_work_goes_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, redirecting: SimpleNamespace,
        caplog: pytest.LogCaptureFixture, relative: bool) -> None:
    """A receiver answering 302 is not told of the proposal (its body never reached the
    address it points to): the log says so in a sentence naming the host the redirect points
    to (one given relative to the webhook's address too: it said "a redirect to /…"), and the
    proposal waits to be decided."""
    redirecting.handler.relative = relative
    shop = open_workshop(tmp_path, monkeypatch)
    notify_by_webhook(shop.app, redirecting.url, secret=b"s3cret")
    outcome = price(shop, fleet=True)
    assert outcome.status is TaskStatus.WAITING
    assert [(method, path) for method, path, _, _ in redirecting.seen] == [("POST", "/hook")]
    (proposal,) = shop.app.proposals_for(shop.noor)
    (told,) = [r for r in caplog.records if r.name == "signoff.notifications"]
    assert told.getMessage() == (
        f"The webhook http://127.0.0.1:{redirecting.port}/… was not told of proposal "
        f"{proposal.id} (Set the price): it answered HTTP 302 Found, a redirect to "
        f"http://127.0.0.1:{redirecting.port}/…, which is not followed (it would drop the "
        "body): give the address it redirects to. The proposal waits all the same, and a "
        "worker tells it again later; see that the receiver is up and takes the POST.")
    assert told.exc_info is None


@pytest.mark.parametrize(("url", "says"), [
    ("http://127.0.0.1:99999/hook", "A webhook URL's port is a number from 1 to 65535"),
    ("http://127.0.0.1:0/hook", "A webhook URL's port is a number from 1 to 65535"),
    ("http://127.0.0.1:http/hook", "A webhook URL's port is a number from 1 to 65535"),
    ("http://chat.example/hooks/caf\u00e9", "its path in ASCII"),
    ("http://chat.example/hooks/a b", "without spaces"),
    ("http://chat .example/hooks", "without spaces"),
    ("http://chat..example/hooks", "a name a resolver can look up"),
    (f"http://{'a' * 64}.example/hooks", "a name a resolver can look up"),
    ("http://[::1/hooks", "A webhook URL starts with http:// or https:// and names a host"),
])
def test_a_webhook_address_that_cannot_be_sent_to_is_refused_as_it_is_registered(
        url: str, says: str) -> None:
    """Each was taken, and then failed at every proposal — a UnicodeError traceback in the log,
    a connection "refused" to a port that cannot be, "its answer was not HTTP" for a space in
    the address, or a bare ValueError as it was registered."""
    app = App("addresses", database="sqlite://")
    with pytest.raises(UserError, match=says):
        notify_by_webhook(app, url)


def test_a_webhook_host_in_another_script_is_taken() -> None:
    """A host name outside ASCII is looked up as its IDNA form: it is not refused."""
    app = App("addresses", database="sqlite://")
    notify_by_webhook(app, "https://b\u00fccher.example/hooks/signoff")


@pytest.mark.parametrize("host", ["smtp..example", f"{'m' * 64}.example"])
def test_an_smtp_host_no_resolver_takes_is_refused_as_it_is_registered(host: str) -> None:
    """It was taken, and each mail was a UnicodeError traceback in the log."""
    app = App("addresses", database="sqlite://")
    with pytest.raises(UserError, match="a name a resolver can look up"):
        notify_by_email(app, host=host, sender="signoff@example.com")


def test_each_webhook_delivery_is_signed_with_when_it_was_sent_and_an_id_of_its_own(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, redirecting: SimpleNamespace) -> None:
    """Two proposals' bodies each carry a `delivery` id of their own and a `sent_at` in UTC,
    inside what the signature covers: a body replayed can be told apart from a new one (it
    carried neither, and the same body replayed was as good as the first)."""
    import hashlib
    import hmac
    import json
    from datetime import datetime, timedelta

    redirecting.handler.code = 204
    shop = open_workshop(tmp_path, monkeypatch)
    notify_by_webhook(shop.app, redirecting.url, secret=b"s3cret")
    price(shop, fleet=True)
    price(shop, fleet=True, price=50)
    bodies = [body for _, _, body, _ in redirecting.seen]
    assert len(bodies) == 2
    for (_, _, body, signature) in redirecting.seen:
        assert signature == "sha256=" + hmac.new(b"s3cret", body, hashlib.sha256).hexdigest()
    sent = [json.loads(body) for body in bodies]
    assert len({s["delivery"] for s in sent}) == 2
    assert all(len(s["delivery"]) == 32 for s in sent)
    assert all(datetime.fromisoformat(s["sent_at"]).utcoffset() == timedelta(0) for s in sent)
