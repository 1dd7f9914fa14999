"""Requests no client of signoff's sends, to a real server on loopback (a SQLite file): half a
character in a name the answer says back, HEAD, and a method an address does not answer, each
answered as HTTP says, in a sentence, never as a 500."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest

from tests.workshop_web import bearer, open_workshop, price, served_shop

PROBLEM = "application/problem+json"


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SimpleNamespace]:
    """The workshop in a SQLite file, served on loopback, with a client (`shop.http`)."""
    shop = open_workshop(tmp_path, monkeypatch)
    with served_shop(shop), httpx.Client(base_url=shop.url, timeout=30) as shop.http:
        yield shop
    shop.app.database.dispose()


def test_a_changed_argument_named_by_half_a_character_is_told_in_a_sentence(
        shop: SimpleNamespace) -> None:
    """A yes whose changes name an argument by a lone surrogate (valid JSON, ``"\\ud800"``) is a
    422 problem saying there is no such argument (the half character shown as U+FFFD), not a
    500; nothing is decided, and the connection goes on answering."""
    price(shop)
    mia = bearer(shop, "Mia")
    (listed,) = shop.http.get("/api/proposals", headers=mia).json()["items"]
    answer = shop.http.post(f"/api/proposals/{listed['id']}/approve",
                            content=b'{"edited": {"\\ud800": 1}}',
                            headers={**mia, "content-type": "application/json"})
    assert (answer.status_code, answer.headers["content-type"]) == (422, PROBLEM)
    assert answer.json()["detail"].startswith("set_price has no argument \ufffd to change")
    shown = shop.http.get(f"/api/proposals/{listed['id']}", headers=mia)
    assert shown.json()["status"] == "Waiting"


def test_head_is_answered_as_get_is_without_its_body(shop: SimpleNamespace) -> None:
    """HEAD (which HTTP has every server answer where it answers GET) gets what GET gets, but
    the body: the API's, with a token (the same length said), or a 401 problem without; a page;
    where only POST is answered, a 405 naming it."""
    mia = bearer(shop, "Mia")
    got = shop.http.get("/api/me", headers=mia)
    head = shop.http.head("/api/me", headers=mia)
    assert (head.status_code, head.headers["content-type"], head.content) == (
        200, "application/json", b"")
    assert head.headers["content-length"] == str(len(got.content))
    assert shop.http.head("/api/me").status_code == 401
    assert shop.http.head("/api/openapi.json").status_code == 200
    page = shop.http.head("/login")
    assert (page.status_code, page.content) == (200, b"")
    assert page.headers["content-type"].startswith("text/html")
    verb = shop.http.head("/api/proposals/x/approve", headers=mia)
    assert (verb.status_code, verb.headers["allow"], verb.content) == (405, "POST", b"")


def test_a_method_a_page_does_not_answer_names_those_it_does(shop: SimpleNamespace) -> None:
    """A method an address does not answer is a 405 whose Allow header names every one it does
    (as HTTP requires): a page's (GET and POST at one address are two routes) as the API's,
    HEAD among them wherever GET is."""
    for method, path, allowed in (("POST", "/", "GET, HEAD"),
                                  ("DELETE", "/login", "GET, HEAD, POST"),
                                  ("PUT", "/api/me", "GET, HEAD"),
                                  ("GET", "/api/proposals/x/approve", "POST")):
        answer = shop.http.request(method, path, headers=bearer(shop, "Mia"))
        assert answer.status_code == 405, (method, path)
        assert answer.headers.get("allow") == allowed, (method, path)


def test_a_body_of_many_values_that_do_not_fit_is_answered_briefly(shop: SimpleNamespace) -> None:
    """A body under the size limit naming 85,000 fields no operation takes is a 422 naming the
    first 20 and saying how many more (not 8 MB naming each); a yes changing 85,000 arguments
    the tool has not is a 422 naming 20 of them and how many more; nothing is decided."""
    price(shop)
    mia = bearer(shop, "Mia")
    (listed,) = shop.http.get("/api/proposals", headers=mia).json()["items"]
    fields = ",".join(f'"{n}":0' for n in range(85_000))
    for path, body in ((f"/api/proposals/{listed['id']}/reject", f'{{{fields}}}'),
                       ("/api/rules/x/revoke", f'{{{fields}}}'),
                       (f"/api/proposals/{listed['id']}/approve", f'{{"edited":{{{fields}}}}}')):
        answer = shop.http.post(path, content=body.encode(),
                                headers={**mia, "content-type": "application/json"})
        assert (answer.status_code, answer.headers["content-type"]) == (422, PROBLEM), path
        assert len(answer.content) < 10_000, (path, len(answer.content))
        told = answer.json()
        if path.endswith("/approve"):
            assert told["detail"].startswith("set_price has no argument 0, 1, 10, 100,")
            assert "(and 84,980 more) to change" in told["detail"]  # (the library's own cap)
            assert len(told["detail"]) < 500
        else:
            more = "85,000" if path.endswith("/reject") else "84,999"  # (and no reason)
            assert len(told["errors"]) == 20
            assert {"where": "0", "problem": "0 is not something this operation takes; leave "
                                            "it out."} in told["errors"]
            assert told["detail"].endswith(f" {more} more values do not fit either: `errors` "
                                           "names the first 20."), told["detail"]
    shown = shop.http.get(f"/api/proposals/{listed['id']}", headers=mia)
    assert shown.json()["status"] == "Waiting"


def test_two_authorization_headers_are_refused_whoever_they_name(shop: SimpleNamespace) -> None:
    """A request to the API with two Authorization headers (Ola's token, then Mia's) is a 400
    problem asking for one, not answered as either person (it was answered as Mia, whose token
    came last, though a reader of the first would take Ola's)."""
    two = [("Authorization", f"Bearer {shop.tokens['Ola']}"),
           ("Authorization", f"Bearer {shop.tokens['Mia']}")]
    answer = shop.http.get("/api/me", headers=two)
    assert (answer.status_code, answer.headers["content-type"]) == (400, PROBLEM)
    assert answer.json()["detail"] == ("This request carries 2 Authorization headers: send one, "
                                       "with your bearer token.")
