"""The API's answer to a request at its edges, on a real server on loopback (a SQLite file): a
method an address does not take, sent with a body of another type than JSON's; and a body left
out, or not a JSON object, where an operation needs one.

``POST /api/me`` with a ``text/plain`` body was a 415 (send it as JSON), as if JSON would do:
the body's type was looked at before the method; and a no with no body at all was told "The body
is missing: give it.", not what to send.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest

from signoff import ProposalStatus
from tests.workshop_web import bearer, open_workshop, price, served_shop

PROBLEM = "application/problem+json"

_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SimpleNamespace]:
    """The workshop in a SQLite file, served on loopback, a price waiting for Mia
    (`shop.waiting`), a standing rule of Noor's (`shop.rule`), and a client (`shop.http`)."""
    shop = open_workshop(tmp_path, monkeypatch)
    (shop.waiting,) = shop.app.proposals(task=price(shop).task)
    shop.rule = shop.app.allow_alone("estimator", "note_repair", by=shop.noor)
    with served_shop(shop), httpx.Client(base_url=shop.url, timeout=30) as shop.http:
        yield shop
    shop.app.database.dispose()


def _operations(shop: SimpleNamespace) -> dict[str, set[str]]:
    """Each address the API publishes (its ids the workshop's) and the methods it takes."""
    schema = shop.http.get("/api/openapi.json").json()
    ids = {"{proposal_id}": shop.waiting.id, "{task_id}": shop.waiting.task,
           "{rule_id}": shop.rule.id}
    found: dict[str, set[str]] = {"/api/openapi.json": {"GET"}}
    for path, item in schema["paths"].items():
        for placeholder, value in ids.items():
            path = path.replace(placeholder, value)
        found[path] = {method.upper() for method in item}
    return found


def test_a_method_an_address_does_not_take_is_a_405_whatever_its_bodys_type(
        shop: SimpleNamespace) -> None:
    """At every address of the API, each method it does not take, sent with a ``text/plain``
    body, is a 405 naming in ``Allow`` the methods it does (not a 415 asking for JSON); an
    address that is not there is a 404; nothing is decided."""
    noor = bearer(shop, "Noor")
    operations = _operations(shop)
    assert len(operations) == 14
    for path, taken in operations.items():
        for method in sorted(set(_METHODS) - taken):
            if method == "GET":
                continue  # (a GET's body is never looked at)
            answer = shop.http.request(method, path, content=b"hello",
                                       headers={**noor, "content-type": "text/plain"})
            assert (answer.status_code, answer.headers["content-type"]) == (405, PROBLEM), (
                method, path, answer.text)
            allowed = {m.strip() for m in answer.headers["allow"].split(",")}
            assert allowed - {"HEAD"} == taken, (method, path)
    nowhere = shop.http.post("/api/nowhere", content=b"hello",
                             headers={**noor, "content-type": "text/plain"})
    assert (nowhere.status_code, nowhere.headers["content-type"]) == (404, PROBLEM), nowhere.text
    assert shop.app.proposal(shop.waiting.id).status is ProposalStatus.WAITING
    assert shop.app.rules()[0].active


def test_an_address_that_takes_the_method_still_refuses_another_type_than_json(
        shop: SimpleNamespace) -> None:
    """Each operation taking a body, sent one as ``text/plain``, is still a 415 naming the
    type to send, unread; and nothing is decided."""
    mia, noor = bearer(shop, "Mia"), bearer(shop, "Noor")
    for path, who in ((f"/api/proposals/{shop.waiting.id}/approve", mia),
                      (f"/api/proposals/{shop.waiting.id}/reject", mia),
                      (f"/api/rules/{shop.rule.id}/revoke", noor)):
        answer = shop.http.post(path, content=b'{"reason": "Too dear."}',
                                headers={**who, "content-type": "text/plain"})
        assert (answer.status_code, answer.headers["accept-post"]) == (415, "application/json"), (
            path, answer.text)
        assert answer.json()["detail"].startswith("This body is sent as “text/plain”")
    assert shop.app.proposal(shop.waiting.id).status is ProposalStatus.WAITING
    assert shop.app.rules()[0].active


_NO = ('a JSON object with the reason for your no (the agent is told it), such as '
       '{"reason": "Quote the cable separately."}')


@pytest.mark.parametrize(("body", "content_type", "said"), [
    (None, None, f"The body is missing: send {_NO} (Content-Type: application/json)."),
    (b"", "application/json",
     f"The body is missing: send {_NO} (Content-Type: application/json)."),
    (b"", "text/plain", f"The body is missing: send {_NO} (Content-Type: application/json)."),
    (b"null", "application/json", f"The body is not a JSON object: send {_NO}."),
    (b'["Too dear."]', "application/json", f"The body is not a JSON object: send {_NO}."),
    (b'"Too dear."', "application/json", f"The body is not a JSON object: send {_NO}."),
    (b"Too dear.", "application/json", f"The body is not JSON: send {_NO}."),
])
def test_a_no_without_its_object_says_what_to_send(
        shop: SimpleNamespace, body: bytes | None, content_type: str | None, said: str) -> None:
    """A no with no body, or a body that is no JSON object, is a 422 saying what to send: the
    JSON object and its reason, with an example (it was "The body is missing: give it.");
    the proposal still waits."""
    headers = {**bearer(shop, "Mia"), **({"content-type": content_type} if content_type else {})}
    answer = shop.http.post(f"/api/proposals/{shop.waiting.id}/reject", content=body,
                            headers=headers)
    assert (answer.status_code, answer.headers["content-type"]) == (422, PROBLEM), answer.text
    assert answer.json()["detail"] == said
    assert answer.json()["errors"] == [{"where": "the body", "problem": said}]
    assert shop.app.proposal(shop.waiting.id).status is ProposalStatus.WAITING


def test_a_yes_or_a_revoke_whose_body_is_no_object_says_what_to_send(
        shop: SimpleNamespace) -> None:
    """The other operations taking a body say theirs too, and that it may be left out (a yes
    and a revoke need none); nothing is decided."""
    yes = shop.http.post(f"/api/proposals/{shop.waiting.id}/approve", content=b"[true]",
                         headers={**bearer(shop, "Mia"), "content-type": "application/json"})
    assert (yes.status_code, yes.json()["detail"]) == (422, (
        "The body is not a JSON object: send a JSON object whose fields may each be left out, "
        "always (true or false) and edited (an object of the argument values to change), such "
        'as {"always": true}; or no body at all, for a plain yes.'))
    revoke = shop.http.post(f"/api/rules/{shop.rule.id}/revoke", content=b"Prices went up.",
                            headers={**bearer(shop, "Noor"), "content-type": "application/json"})
    assert (revoke.status_code, revoke.json()["detail"]) == (422, (
        'The body is not JSON: send a JSON object with why it is taken back, which may be left '
        'out, such as {"why": "Prices went up."}; or no body at all.'))
    assert shop.app.proposal(shop.waiting.id).status is ProposalStatus.WAITING
    assert shop.app.rules()[0].active
