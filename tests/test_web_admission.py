"""What a request must bring before its body is read: the token (401 otherwise) and a body
within the limit (413 otherwise) — on a real server (`signoff serve`, uvicorn) on loopback, its
memory read from /proc before and after; and the API's listings and problems in signoff's words."""

from __future__ import annotations

import json
import os
import re
import selectors
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from signoff import ProposalStatus
from signoff.web import create_web_app
from tests.workshop_web import PASSWORD, bearer, free_port, open_workshop, price

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "examples" / "workshop.py")
MB = 1024 * 1024


class Server:
    """`signoff serve` in a process of its own, on a port of its own."""

    def __init__(self, tmp_path: Path, *args: str) -> None:
        self.port = free_port()
        self.log = (tmp_path / f"serve-{self.port}.log").open("w")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "signoff.cli", "serve", "--app", APP, "--port", str(self.port),
             "--insecure-cookies", *args],
            stdout=self.log, stderr=subprocess.STDOUT, env=dict(os.environ))
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                break
            except OSError:
                assert self.process.poll() is None, "the server stopped"
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.1)

    def memory_kb(self) -> tuple[int, int]:
        """(resident now, resident at its peak), in kB."""
        status = Path(f"/proc/{self.process.pid}/status").read_text().splitlines()
        values = {line.split(":")[0]: int(line.split()[1]) for line in status
                  if line.startswith(("VmRSS", "VmHWM"))}
        return values["VmRSS"], values["VmHWM"]

    def stop(self) -> None:
        """Stop it."""
        self.process.terminate()
        self.process.wait(timeout=30)
        self.log.close()


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SimpleNamespace]:
    """The workshop in a SQLite file (with tokens), served by `signoff serve` with its 1 MB
    default limit."""
    shop = open_workshop(tmp_path, monkeypatch)
    shop.server = Server(tmp_path)
    yield shop
    shop.server.stop()


def post(port: int, path: str, size: int, *, token: str = "", chunked: bool = False
         ) -> tuple[int, dict[str, object], int]:
    """POST a body of `size` bytes, as a client that keeps sending until the server answers:
    (the status, the problem answered, how many bytes of the body were sent)."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock, \
            selectors.DefaultSelector() as answered:  # (select() takes no descriptor past 1023)
        answered.register(sock, selectors.EVENT_READ)
        head = (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + (f"Authorization: Bearer {token}\r\n" if token else "")
                + ("Transfer-Encoding: chunked\r\n" if chunked else f"Content-Length: {size}\r\n"))
        sock.sendall(head.encode() + b"\r\n")
        sent, piece = 0, b"7" * 65536
        try:
            while sent < size and not answered.select(0):
                part = piece[:size - sent]
                sock.sendall(f"{len(part):x}\r\n".encode() + part + b"\r\n" if chunked else part)
                sent += len(part)
            if chunked and sent >= size:
                sock.sendall(b"0\r\n\r\n")
        except OSError:
            pass  # the server answered and closed while the body was still on its way
        answer = b""
        try:
            while b"\r\n\r\n" not in answer or len(answer.split(b"\r\n\r\n", 1)[1]) < _length(
                    answer):
                got = sock.recv(65536)
                if not got:
                    break
                answer += got
        except ConnectionResetError:
            pass
    head_text, _, body = answer.partition(b"\r\n\r\n")
    return int(head_text.split()[1]), json.loads(body[:_length(answer)]), sent


def _length(answer: bytes) -> int:
    for line in answer.split(b"\r\n\r\n", 1)[0].split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return int(value)
    return 0


def test_an_unauthenticated_10mb_body_is_answered_401_unread(shop: SimpleNamespace,
                                                              tmp_path: Path) -> None:
    """No token, 10 MB: a 401 problem before the body is read — the server's peak memory does
    not grow by the body. A server told to take 64 MB reads the same body with a token, and
    its peak grows by more than the body: the measure sees a read body."""
    for token in ("", "so_0123456789abcdef_madeup", shop.tokens["Mia"]):  # warmed up: the
        post(shop.server.port, "/api/proposals/x/reject", 10, token=token)  # first query's cost
    _, peak_before = shop.server.memory_kb()
    status, problem, _sent = post(shop.server.port, "/api/proposals/x/reject", 10 * MB)
    _, peak_after = shop.server.memory_kb()
    assert status == 401
    assert problem["detail"] == ("Send a bearer token: Authorization: Bearer so_… (one made "
                                 "with `signoff users token HANDLE`).")
    assert peak_after - peak_before < 2 * 1024, (peak_before, peak_after)
    status, _, _ = post(shop.server.port, "/api/proposals/x/reject", 10 * MB,
                        token="so_0123456789abcdef_madeup")
    assert status == 401
    assert shop.server.memory_kb()[1] - peak_before < 2 * 1024
    roomy = Server(tmp_path, "--max-body", str(64 * MB))
    try:
        post(roomy.port, "/api/proposals/x/reject", 10, token=shop.tokens["Mia"])
        _, roomy_before = roomy.memory_kb()
        status, problem, sent = post(roomy.port, "/api/proposals/x/reject", 10 * MB,
                                     token=shop.tokens["Mia"])
        assert (status, sent) == (400, 10 * MB)  # read whole: a number too long to read
        assert problem["detail"] == ("A number in the body has 10,485,760 digits, more than any "
                                     "value takes: send a shorter one.")
        assert roomy.memory_kb()[1] - roomy_before > 10 * 1024
    finally:
        roomy.stop()


@pytest.mark.parametrize("chunked", [False, True])
def test_a_2mb_body_with_a_token_gets_413(shop: SimpleNamespace, chunked: bool) -> None:
    """With a valid token, 2 MB is over the 1 MB limit: 413, told in words, whether the body
    says its length or comes in chunks; nothing is decided."""
    outcome = price(shop)
    (proposal,) = shop.app.proposals(task=outcome.task)
    status, problem, _ = post(shop.server.port, f"/api/proposals/{proposal.id}/reject", 2 * MB,
                              token=shop.tokens["Mia"], chunked=chunked)
    assert status == 413
    assert problem["detail"] == ("This request's body is larger than the 1048576 bytes this "
                                 "server takes: send less.")
    assert problem["type"] == "urn:signoff:problem:too-large"
    assert shop.app.proposal(proposal).status is ProposalStatus.WAITING


def test_a_stopped_server_leaves_everything_in_the_database_file(
        shop: SimpleNamespace, tmp_path: Path) -> None:
    """Noor's no, said through the server, is in the SQLite file once the server has stopped,
    with no write-ahead log left beside it: the file copied alone, as the upgrading guide says
    to back it up, holds it (the server's connections were left open at its end, and the no
    was only in the log beside the file)."""
    import sqlite3
    from shutil import copyfile

    outcome = price(shop)
    (proposal,) = shop.app.proposals(task=outcome.task)
    status, _, _ = post(shop.server.port, f"/api/proposals/{proposal.id}/reject", 0,
                        token=shop.tokens["Noor"])
    shop.app.database.dispose()  # the test's own connections: the server's are the last
    assert status == 422  # no reason given: refused in words, and nothing decided
    body = json.dumps({"reason": "Not this week."}).encode()
    answer = _post_json(shop.server.port, f"/api/proposals/{proposal.id}/reject", body,
                        shop.tokens["Noor"])
    assert answer == 200
    shop.server.stop()
    assert not (tmp_path / "workshop.db-wal").exists()
    copyfile(tmp_path / "workshop.db", tmp_path / "copy.db")
    with sqlite3.connect(tmp_path / "copy.db") as copy:
        (found,) = copy.execute("select status from signoff_proposals where id = ?",
                                (proposal.id,)).fetchone()
    assert found == ProposalStatus.REJECTED.value


def test_an_in_memory_app_outlives_its_web_app_being_stopped() -> None:
    """A test client's web app started and stopped (its lifespan, as FastAPI's tests run it)
    leaves an in-memory app's database as it was: only a SQLite file's connections are closed
    as the server stops (closing the in-memory database's one connection ended it)."""
    from signoff import App

    app = App("memory", database="sqlite://")
    app.people.add("noor@shop.example", "Noor")
    with TestClient(create_web_app(app, secure_cookies=False)):
        pass
    assert app.people.find("noor@shop.example") is not None


def _post_json(port: int, path: str, body: bytes, token: str) -> int:
    """POST `body` as JSON with `token`: the status answered."""
    import http.client

    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("POST", path, body=body, headers={
            "Content-Type": "application/json", "Authorization": f"Bearer {token}"})
        return connection.getresponse().status
    finally:
        connection.close()


@pytest.fixture
def client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    """The workshop with tokens, and a test client of its web app."""
    shop = open_workshop(tmp_path, monkeypatch)
    shop.client = TestClient(create_web_app(shop.app, secure_cookies=False))
    return shop


def test_every_listing_answers_items_and_next(client: SimpleNamespace) -> None:
    """Proposals, tasks, rules, agents and actions each answer {items, next}; a page of one
    rule leads to the next, and a `next` that is none is a 422."""
    shop = client
    shop.app.allow_alone("estimator", "note_repair", by=shop.noor)
    shop.app.allow_alone("estimator", "set_price", by=shop.noor)
    for path in ("/api/proposals", "/api/tasks", "/api/rules", "/api/agents", "/api/actions"):
        answer = shop.client.get(path, headers=bearer(shop, "Noor")).json()
        assert set(answer) == {"items", "next"}, path
    first = shop.client.get("/api/rules?limit=1", headers=bearer(shop, "Noor")).json()
    assert first["items"][0]["tool"] == "note_repair"
    second = shop.client.get(f"/api/rules?limit=1&after={first['next']}",
                             headers=bearer(shop, "Noor")).json()
    assert ([r["tool"] for r in second["items"]], second["next"]) == (["set_price"], None)
    assert shop.client.get("/api/rules?after=nonsense",
                           headers=bearer(shop, "Noor")).status_code == 422


@pytest.mark.parametrize(("path", "body", "detail"), [
    ("reject", {}, "Say why: a no needs a reason, and the agent is told it."),
    ("reject", {"reason": "  "}, "Say why: a no needs a reason, and the agent is told it."),
    ("reject", {"reason": "x", "extra": 1},
     "extra is not something this operation takes; leave it out."),
    ("approve", {"edited": "price=40"}, "edited is a JSON object (names and values)."),
    ("approve", {"always": "sometimes"}, "always is true or false."),
    ("approve", [1], "The body is not a JSON object: send a JSON object whose fields may "
                     "each be left out, always (true or false) and edited (an object of the "
                     'argument values to change), such as {"always": true}; or no body at all, '
                     "for a plain yes."),
])
def test_problems_are_in_signoffs_words(client: SimpleNamespace, path: str, body: object,
                                        detail: str) -> None:
    """A body that does not fit is a 422 whose detail and errors are signoff's sentences, not
    the validator's."""
    shop = client
    (proposal,) = shop.app.proposals(task=price(shop).task)
    answer = shop.client.post(f"/api/proposals/{proposal.id}/{path}", json=body,
                              headers=bearer(shop, "Mia"))
    assert answer.status_code == 422
    assert answer.json()["detail"] == detail
    assert all("should" not in e["problem"] for e in answer.json()["errors"])


def test_a_body_that_is_not_json_is_told_as_the_body(client: SimpleNamespace) -> None:
    """A body that is not JSON is a 422 whose error is where it is, the body (it was "0", the
    character where reading it failed)."""
    shop = client
    (proposal,) = shop.app.proposals(task=price(shop).task)
    answer = shop.client.post(f"/api/proposals/{proposal.id}/approve", content=b"yes please",
                              headers={**bearer(shop, "Mia"), "content-type": "application/json"})
    assert answer.status_code == 422
    assert answer.json()["detail"].startswith("The body is not JSON: send a JSON object whose ")
    assert [e["where"] for e in answer.json()["errors"]] == ["the body"]


def test_a_json_body_sent_as_another_kind_says_which_kind_to_send(client: SimpleNamespace) -> None:
    """A right body with a content type that is not JSON's is told which type to send (it was
    told the body "is a JSON object", which it was): 415, unread (tests/
    test_web_addresses_and_bodies.py has every type)."""
    shop = client
    (proposal,) = shop.app.proposals(task=price(shop).task)
    answer = shop.client.post(f"/api/proposals/{proposal.id}/reject",
                              content=json.dumps({"reason": "No."}).encode(),
                              headers={**bearer(shop, "Mia"), "content-type": "text/plain"})
    assert (answer.status_code, answer.json()["detail"]) == (415, (
        "This body is sent as “text/plain”, and the API reads only JSON: send it as "
        "Content-Type: application/json. Nothing was read, nor done."))
    assert shop.app.proposal(proposal).status is ProposalStatus.WAITING


def test_a_body_not_in_utf8_or_an_empty_queue_is_told_in_words(client: SimpleNamespace) -> None:
    """A body that is not UTF-8 is a problem of signoff's kind, in words (it was about:blank);
    an empty queue filter is no filter (it was "Mia is not in the  queue.", 404)."""
    shop = client
    (proposal,) = shop.app.proposals(task=price(shop).task)
    answer = shop.client.post(f"/api/proposals/{proposal.id}/reject",
                              content=b'{"reason": "\xff\xfe"}',
                              headers={**bearer(shop, "Mia"), "content-type": "application/json"})
    assert (answer.status_code, answer.json()["type"], answer.json()["detail"]) == (
        400, "urn:signoff:problem:invalid",
        "The body could not be read as JSON (in UTF-8): send a JSON object.")
    listed = shop.client.get("/api/proposals?queue=", headers=bearer(shop, "Mia"))
    assert [p["id"] for p in listed.json()["items"]] == [proposal.id], listed.text


def test_a_number_too_long_to_read_is_told_by_its_length(client: SimpleNamespace) -> None:
    """A body with a number of 5,000 digits is JSON, but longer than Python reads: told by its
    length (it was "could not be read as JSON"), and the proposal still waits."""
    shop = client
    (proposal,) = shop.app.proposals(task=price(shop).task)
    answer = shop.client.post(f"/api/proposals/{proposal.id}/approve",
                              content=b'{"edited": {"price": ' + b"9" * 5000 + b"}}",
                              headers={**bearer(shop, "Noor"), "content-type": "application/json"})
    assert (answer.status_code, answer.json()["detail"]) == (
        400, "A number in the body has 5,000 digits, more than any value takes: send a shorter "
             "one."), answer.text
    assert [p.status.value for p in shop.app.proposals(task=proposal.task)] == ["Waiting"]


def test_an_id_or_cursor_of_any_length_is_said_back_short_and_shown(
        client: SimpleNamespace) -> None:
    """An id of 5,000 characters, or one holding a NUL, is said back by its beginning, escaped,
    and its length (it was said back whole, NUL included); an ordinary one as it is."""
    shop = client
    for path, detail in (
            ("/api/proposals/" + "a" * 5000,
             "There is no proposal with id 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'… (5,000 "
             "characters) that Mia may see."),
            ("/api/tasks/%00x", "There is no task with id '\\x00x'… (2 characters) that Mia "
                                "may see."),
            ("/api/proposals/nosuch", "There is no proposal with id nosuch that Mia may see."),
            ("/api/proposals?after=" + "b" * 150,
             "'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb'… (150 characters) is not a cursor")):
        answer = shop.client.get(path, headers=bearer(shop, "Mia"))
        assert answer.status_code in (404, 422), answer.text
        assert detail in answer.json()["detail"], answer.text
        assert len(answer.text) < 1000


def test_a_limit_out_of_range_is_told(client: SimpleNamespace) -> None:
    """`limit=0` and `limit=x` are told in words."""
    shop = client
    for query, detail in (("limit=0", "limit is at least 1."), ("limit=x", "limit is a whole number.")):
        answer = shop.client.get(f"/api/proposals?{query}", headers=bearer(shop, "Mia"))
        assert (answer.status_code, answer.json()["detail"]) == (422, detail)


def test_an_edit_of_the_record_is_refused_over_rest(client: SimpleNamespace) -> None:
    """REST refuses an edit that would change which repair the call acts on (422, the
    library's sentence); the inbox's form offers the price only; always names its rule (not
    with changed values: 422)."""
    shop = client
    shop.app.oversight.supervises_agents = shop.is_manager
    (proposal,) = shop.app.proposals(task=price(shop).task)
    with shop.app.session(as_=shop.mia) as s:
        other = shop.Repair(ticket="T-9", fault="flat tyre")
        s.add(other)
    url = f"/api/proposals/{proposal.id}/approve"
    answer = shop.client.post(url, json={"edited": {"repair": str(other.id)}},
                              headers=bearer(shop, "Noor"))
    assert answer.status_code == 422
    assert answer.json()["detail"].startswith(
        "An edit changes argument values only: repair names what set_price acts on")
    assert shop.app.proposal(proposal).status is ProposalStatus.WAITING
    answer = shop.client.post(url, json={"always": True, "edited": {"price": 40}},
                              headers=bearer(shop, "Noor"))
    assert answer.status_code == 422  # a rule follows a yes to the values as proposed
    assert answer.json()["detail"].startswith(
        "A yes with changed values cannot also make a standing rule")
    answer = shop.client.post(url, json={"always": True}, headers=bearer(shop, "Noor"))
    assert answer.status_code == 200
    assert answer.json()["rule"]["tool"] == "set_price"
    assert answer.json()["rule"]["skill"] == "estimate_repair"
    covers = ("from now on estimator runs set_price alone, without proposing it, in "
              "estimate_repair, in work for Mia — with any values")
    assert answer.json()["rule"]["covers"] == covers  # the words the CLI and the inbox say
    listed = shop.client.get("/api/rules", headers=bearer(shop, "Noor")).json()["items"]
    assert [r["covers"] for r in listed] == [covers]


@pytest.mark.parametrize(("posted", "back_to"), [
    ("/proposals/{id}/approve", "/proposals/{id}"), ("/proposals/{id}/reject", "/proposals/{id}"),
    ("/rules/r-1/revoke", "/rules"), ("/logout", None),
])
def test_a_form_posted_by_nobody_sends_them_to_log_in_and_back_to_its_page(
    client: SimpleNamespace, posted: str, back_to: str | None,
) -> None:
    """A decision posted without a session (logged out since the page loaded) decides nothing,
    and sends the visitor to log in, then back to the page the form was on, not to the form's
    own address, which takes only a POST."""
    shop = client
    outcome = price(shop)
    (proposal,) = shop.app.proposals(task=outcome.task)
    answer = shop.client.post(posted.format(id=proposal.id), data={"csrf": "x"},
                              follow_redirects=False)
    assert answer.status_code in (303, 403)
    if back_to is not None:
        assert answer.status_code == 303
        assert answer.headers["location"] == "/login?next=" + quote(back_to.format(id=proposal.id))
    assert shop.app.proposal(proposal).status is ProposalStatus.WAITING


def test_a_changed_value_typed_in_the_form_however_odd_is_told_not_raised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A price typed in the inbox's form as brackets nested deeper than JSON can be read is
    taken as the text typed, and refused as not a price, said on the proposal's page (the form
    answers with a redirect there, though the text typed is too long to keep); the proposal
    still waits."""
    shop = open_workshop(tmp_path, monkeypatch, passwords=True)
    shop.app.oversight.supervises_agents = shop.is_manager
    web = TestClient(create_web_app(shop.app, secure_cookies=False))
    outcome = price(shop)
    (proposal,) = shop.app.proposals(task=outcome.task)
    csrf = re.compile(r'name="csrf" value="([^"]+)"')
    web.post("/login", data={"csrf": csrf.findall(web.get("/login").text)[0], "next": "/",
                             "handle": "noor@workshop.example", "password": PASSWORD})
    page = web.get(f"/proposals/{proposal.id}").text
    answer = web.post(f"/proposals/{proposal.id}/approve", data={
        "csrf": csrf.findall(page)[0], "changes": "1", "set.price": "[" * 5000 + "]" * 5000},
        follow_redirects=False)
    assert answer.status_code == 303, answer.text[:300]
    assert answer.headers["location"] == f"/proposals/{proposal.id}"
    shown = web.get(answer.headers["location"])
    assert shown.status_code == 200
    assert "The changed values do not fit set_price" in shown.text
    assert shop.app.proposal(proposal).status is ProposalStatus.WAITING
