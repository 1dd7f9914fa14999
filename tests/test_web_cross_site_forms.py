"""A form another site's page posts to the inbox, in Debian's Chromium against a real server:
nothing it asks is done, and the page that follows says where it came from, never asking the
person to log in and send it again."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from types import SimpleNamespace

import pytest
from playwright.sync_api import Page, expect

from tests.ports import free_port

ELSEWHERE = ("This form was sent from a page of another site, not from the inbox's own, so "
             "nothing it asked was done. To decide, open the inbox yourself, and decide on "
             "its own pages.")


@pytest.fixture
def elsewhere() -> Iterator[SimpleNamespace]:
    """A site of an attacker's on loopback: its page at `/` posts `form` (fields) to `action`
    the moment it is opened."""
    site = SimpleNamespace(action="", form={})

    class Attacker(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # (the name http.server calls)
            fields = "".join(f'<input name="{k}" value="{v}">' for k, v in site.form.items())
            body = (f'<form id="f" method="post" action="{site.action}">{fields}</form>'
                    '<script>document.getElementById("f").submit()</script>').encode()
            self.send_response(200)
            self.send_header("content-type", "text/html")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = HTTPServer(("127.0.0.1", free_port()), Attacker)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    site.port = server.server_address[1]
    try:
        yield site
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1"])
def test_a_decision_posted_from_another_site_is_refused_saying_so(
        bank: SimpleNamespace, page: Page, elsewhere: SimpleNamespace, host: str) -> None:
    """Noor, logged in, opens an attacker's page (on another site, `localhost`, whose post
    brings no cookie of the inbox's; or on another port of the same host, whose post brings
    it, with a guessed CSRF token): nothing is approved, and the page says the form came from
    another site (before: "You are not logged in … log in, and send it again", or "go back,
    reload it, and try again" — both asking her to do what the attacker wanted)."""
    pid = bank.propose(why="Refund.", iban="DE1", amount="10", memo="m")
    elsewhere.action = f"{bank.url}/proposals/{pid}/approve"
    elsewhere.form = {"csrf": "guessed", "approve": "1"}
    page.goto(f"http://{host}:{elsewhere.port}/")
    expect(page.get_by_role("alert")).to_have_text(ELSEWHERE)
    assert bank.paid == []
    assert bank.app.proposal(pid).status.value == "Waiting"
    page.goto(f"{bank.url}/proposals/{pid}")  # still logged in, and it still waits
    expect(page.locator("#status")).to_have_text("Waiting")


def test_a_login_posted_from_another_site_is_refused_saying_so(
        bank: SimpleNamespace, page: Page, elsewhere: SimpleNamespace) -> None:
    """A login form another site posts (to log the visitor in as the attacker): refused, saying
    it came from another site (before: "allow cookies for this site, reload the page")."""
    elsewhere.action = f"{bank.url}/login"
    elsewhere.form = {"csrf": "guessed", "handle": "noor@bank.example", "password": "x"}
    page.goto(f"http://localhost:{elsewhere.port}/")
    expect(page.get_by_role("alert")).to_have_text(ELSEWHERE)
