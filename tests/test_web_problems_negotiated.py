"""The inbox's addresses asked for JSON (``Accept: application/json``), over real HTTP on
loopback: every refusal is a problem (``application/problem+json``) whose detail says what to
do, as the API's are; a browser asking for HTML still gets a page."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest

from signoff.web.auth import SESSION_COOKIE, SESSION_LIFETIME
from tests.web_bank import PASSWORD, bank_app
from tests.workshop_web import served

PROBLEM = "application/problem+json"
JSON = {"accept": "application/json"}
BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
"""What Chromium asks for when it opens a page."""


@pytest.fixture
def bank(tmp_path: Path) -> Iterator[SimpleNamespace]:
    """The bank (tests/web_bank.py) served on loopback, with a transfer waiting on Noor."""
    from signoff.web import create_web_app

    bank = bank_app(tmp_path)
    bank.pid = bank.propose(why="Refund.", iban="DE1", amount="10", memo="m")
    with served(create_web_app(bank.app, secure_cookies=False)) as port:
        bank.url = f"http://127.0.0.1:{port}"
        yield bank
    bank.app.database.dispose()


def _noor(bank: SimpleNamespace) -> httpx.Client:
    """A client with a session of Noor's."""
    _, token = bank.app.credentials.log_in("noor@bank.example", PASSWORD,
                                           expires_in=SESSION_LIFETIME)
    return httpx.Client(base_url=bank.url, cookies={SESSION_COOKIE: token})


def _said(answer: httpx.Response, status: int) -> str:
    """The detail of `answer`, a problem of `status` for the inbox's address it answers."""
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"] == PROBLEM, answer.text[:200]
    body = answer.json()
    assert body["status"] == status
    assert body["instance"] == answer.request.url.path
    detail: str = body["detail"]
    assert detail.endswith("."), detail
    return detail


@pytest.mark.parametrize("accept", ["application/json", "application/problem+json",
                                    "application/json, text/html;q=0.5"])
def test_a_page_asked_for_as_json_says_where_the_api_has_it(bank: SimpleNamespace,
                                                            accept: str) -> None:
    """The inbox's pages asked for as JSON, with a session or none: a 406 problem naming the
    API's address of the same (before, the page's HTML with 200, or a redirect to the login
    form), and an address that leads nowhere is a 404 problem; what a browser asks for (HTML
    first, anything after), or no Accept at all, is still a page."""
    asked = {"accept": accept}
    with _noor(bank) as noor, httpx.Client(base_url=bank.url) as nobody:
        for client in (noor, nobody):
            proposal = client.get(f"/proposals/{bank.pid}", headers=asked)
            assert f"/api/proposals/{bank.pid} has what it shows" in _said(proposal, 406)
            assert "/api/proposals has" in _said(client.get("/?status=Done", headers=asked), 406)
            assert "/api/openapi.json" in _said(client.get("/login", headers=asked), 406)
        assert "/api/tasks has" in _said(noor.get("/tasks", headers=asked), 406)
        assert _said(noor.get("/nothing/here", headers=asked), 404)
        for browser in ({"accept": BROWSER}, {}):
            page = noor.get("/proposals/nope", headers=browser)
            assert page.status_code == 404
            assert page.headers["content-type"].startswith("text/html")
            assert noor.get(f"/proposals/{bank.pid}", headers=browser).status_code == 200


def test_a_form_with_no_csrf_token_posted_for_json_is_a_problem(bank: SimpleNamespace) -> None:
    """A decision posted with no CSRF token, or another session's, by a client asking for JSON:
    a 403 problem saying to reload the page (before, an HTML page); nothing is decided."""
    with _noor(bank) as noor, _noor(bank) as other:
        page = other.get(f"/proposals/{bank.pid}")
        theirs = re.search(r'name="csrf" value="([^"]+)"', page.text)
        assert theirs
        for form in ({"reason": "No."}, {"reason": "No.", "csrf": theirs[1]}):
            refused = noor.post(f"/proposals/{bank.pid}/reject", data=form, headers=JSON)
            assert "reload" in _said(refused, 403)
    assert bank.app.proposal(bank.pid).status.value == "Waiting"


def test_no_session_is_a_401_problem_to_a_program(bank: SimpleNamespace) -> None:
    """Nobody logged in: a decision posted by a client asking for JSON is a 401 problem saying
    to log in (before, a redirect to the login form, which a program cannot fill in), and the
    inbox's stamp is one too, its `stamp` null as it was; a browser's post is still sent to
    the login form."""
    with httpx.Client(base_url=bank.url) as nobody:
        posted = nobody.post(f"/proposals/{bank.pid}/approve", data={"approve": "1"},
                             headers=JSON)
        assert "nothing this form asked was done: log in" in _said(posted, 401)
        stamp = nobody.get("/inbox/stamp")
        assert "log in" in _said(stamp, 401)
        assert stamp.json()["stamp"] is None
        page = nobody.post(f"/proposals/{bank.pid}/approve", data={"approve": "1"})
        assert page.status_code == 303
        assert page.headers["location"] == f"/login?next=/proposals/{bank.pid}"
    assert bank.app.proposal(bank.pid).status.value == "Waiting"


def test_a_form_too_large_posted_for_json_is_a_problem(bank: SimpleNamespace) -> None:
    """A reason of two megabytes, posted by a client asking for JSON: a 413 problem saying to
    send less (before, an HTML page)."""
    with _noor(bank) as noor:
        answer = noor.post(f"/proposals/{bank.pid}/reject", headers=JSON,
                           data={"reason": "x" * 2_000_000, "csrf": "x"})
        assert "send less" in _said(answer, 413)


def test_an_address_that_leads_nowhere_says_where_to_go(bank: SimpleNamespace) -> None:
    """An unknown address and a method an address does not answer, at the API and at the inbox
    (a decision's address opened as a page): each problem says where to go instead (before,
    "There is nothing at this address." and nothing more)."""
    with _noor(bank) as noor:
        token = {"authorization": f"Bearer {bank.app.credentials.issue_token(bank.noor, 't')}"}
        assert "/api/openapi.json" in _said(noor.get("/api/nothing", headers=token), 404)
        assert "/api/openapi.json" in _said(noor.delete("/api/proposals", headers=token), 405)
        assert "inbox" in _said(noor.get("/nothing", headers=JSON), 404)
        approve = noor.get(f"/proposals/{bank.pid}/approve", headers=JSON)
        assert "go back to the page" in _said(approve, 405)
        page = noor.get(f"/proposals/{bank.pid}/approve")
        assert page.status_code == 405
        assert "go back to the page, and use its buttons" in page.text
