"""The API as a careless client meets it, on a real server on loopback (a SQLite file): an
address written with a slash at its end, and a body sent as another type than JSON's.

``POST /api/proposals/x/approve/`` was answered by a redirect with no body (307), whose address
the server wrote from the Host it was given; and a body sent as ``application/vnd.foo+json``, or
any ``+json``, was read as JSON whatever its type asked.
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


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SimpleNamespace]:
    """The workshop in a SQLite file, served on loopback, a price waiting for Mia (`shop.waiting`),
    with a client that follows no redirect (`shop.http`)."""
    shop = open_workshop(tmp_path, monkeypatch)
    (shop.waiting,) = shop.app.proposals(task=price(shop).task)
    with served_shop(shop), httpx.Client(base_url=shop.url, timeout=30, follow_redirects=False) as shop.http:
        yield shop
    shop.app.database.dispose()


def _addresses(shop: SimpleNamespace) -> list[tuple[str, str]]:
    """Each operation the API publishes, as (method, address), its ids those of the workshop's
    (the waiting price, its task, and a made-up rule's)."""
    schema = shop.http.get("/api/openapi.json").json()
    ids = {"{proposal_id}": shop.waiting.id, "{task_id}": shop.waiting.task, "{rule_id}": "no-such-rule"}
    found = [("GET", "/api/openapi.json")]
    for path, item in schema["paths"].items():
        for placeholder, value in ids.items():
            path = path.replace(placeholder, value)
        found += [(method.upper(), path) for method in item]
    return found


def test_every_api_address_is_answered_alike_with_a_slash_at_its_end(shop: SimpleNamespace) -> None:
    """Every operation of the API, asked at its address with a slash at the end, is answered
    as at the address without (never a bodiless redirect); a method the address does not take
    is a 405 problem naming those it does; nothing is decided by the asking."""
    mia = bearer(shop, "Mia")
    addresses = _addresses(shop)
    assert len(addresses) == 14
    for method, path in addresses:
        if method == "POST":
            continue  # (a decision is taken once: asked below, with and without, on a no)
        plain = shop.http.request(method, path, headers=mia)
        slashed = shop.http.request(method, path + "/", headers=mia)
        assert (slashed.status_code, slashed.headers["content-type"]) == (
            plain.status_code,
            plain.headers["content-type"],
        ), (method, path, slashed.text)
        assert slashed.json() == plain.json(), (method, path)
    no = shop.http.post(
        f"/api/proposals/{shop.waiting.id}/reject/",
        headers=mia,
        json={"reason": "Quote the cable separately."},
    )
    assert no.status_code == 200, no.text
    assert no.json()["status"] == "Rejected"
    again = shop.http.post(f"/api/proposals/{shop.waiting.id}/approve/", headers=mia, json={})
    assert (again.status_code, again.headers["content-type"]) == (409, PROBLEM)
    revoke = shop.http.post("/api/rules/no-such-rule/revoke/", headers=mia, json={})
    assert (revoke.status_code, revoke.headers["content-type"]) == (404, PROBLEM)
    listed = shop.http.post("/api/proposals/", headers=mia, json={"reason": "x"})
    assert (listed.status_code, listed.headers["content-type"], listed.headers["allow"]) == (
        405,
        PROBLEM,
        "GET, HEAD",
    )
    assert listed.json()["detail"].startswith("This address does not answer that method")
    assert shop.http.get("/api/", headers=mia).status_code == 404
    assert shop.http.get("/api/me/", headers={}).status_code == 401  # (the token, as ever)


@pytest.mark.parametrize(
    ("content_type", "said"),
    [
        (
            "application/vnd.foo+json",
            "This body is sent as “application/vnd.foo+json”, and the "
            "API reads only JSON: send it as Content-Type: "
            "application/json.",
        ),
        (
            "application/merge-patch+json",
            "This body is sent as “application/merge-patch+json”, and "
            "the API reads only JSON: send it as Content-Type: "
            "application/json.",
        ),
        (
            "text/plain",
            "This body is sent as “text/plain”, and the API reads only JSON: send it as "
            "Content-Type: application/json.",
        ),
        (
            "application/x-www-form-urlencoded",
            "This body is sent as "
            "“application/x-www-form-urlencoded”, and the API "
            "reads only JSON: send it as Content-Type: "
            "application/json.",
        ),
        (
            None,
            "This body is sent with no Content-Type, and the API reads only JSON: send it as "
            "Content-Type: application/json.",
        ),
        (
            "application/json; charset=latin-1",
            "This body is sent in “latin-1”, and the API reads "
            "JSON in UTF-8 only: send it in UTF-8 "
            "(Content-Type: application/json).",
        ),
    ],
)
def test_a_body_of_another_type_than_json_is_refused_naming_the_type_to_send(
    shop: SimpleNamespace, content_type: str | None, said: str
) -> None:
    """A decision whose body (a right one) is sent as another type than ``application/json``
    in UTF-8 is a 415 problem naming the type to send, and the proposal still waits."""
    headers = {**bearer(shop, "Mia"), **({"content-type": content_type} if content_type else {})}
    for verb, body in (("approve", b"{}"), ("reject", b'{"reason": "Too dear."}')):
        answer = shop.http.post(f"/api/proposals/{shop.waiting.id}/{verb}", content=body, headers=headers)
        assert (answer.status_code, answer.headers["content-type"]) == (415, PROBLEM), (verb, answer.text)
        told = answer.json()
        assert (told["detail"], told["type"]) == (
            f"{said} Nothing was read, nor done.",
            "urn:signoff:problem:unsupported-media-type",
        )
        assert answer.headers["accept-post"] == "application/json"
    assert shop.app.proposal(shop.waiting.id).status is ProposalStatus.WAITING


@pytest.mark.parametrize(
    "content_type", ["application/json", "application/json; charset=utf-8", "Application/JSON; charset=UTF-8"]
)
def test_a_body_sent_as_json_is_read(shop: SimpleNamespace, content_type: str) -> None:
    """JSON's type, in any case and with its charset said or not, is read as JSON."""
    answer = shop.http.post(
        f"/api/proposals/{shop.waiting.id}/reject",
        content=b'{"reason": "Too dear."}',
        headers={**bearer(shop, "Mia"), "content-type": content_type},
    )
    assert (answer.status_code, answer.json()["status"]) == (200, "Rejected"), answer.text


def test_a_plain_yes_needs_no_body_nor_its_type(shop: SimpleNamespace) -> None:
    """A yes with no body at all (its type said or not) is a plain yes, as ever; and a 415 is
    published for each operation that takes a body."""
    answer = shop.http.post(
        f"/api/proposals/{shop.waiting.id}/approve",
        headers={**bearer(shop, "Noor"), "content-type": "text/plain"},
    )
    assert (answer.status_code, answer.json()["status"]) == (200, "Done"), answer.text
    schema = shop.http.get("/api/openapi.json").json()
    taking = [path for path, item in schema["paths"].items() if "post" in item]
    assert len(taking) == 4
    assert all("415" in schema["paths"][path]["post"]["responses"] for path in taking)


def test_a_parameter_given_twice_is_refused_in_a_sentence(shop: SimpleNamespace) -> None:
    """``?status=Waiting&status=Done`` is a 422 problem saying status takes one value (the last
    alone was read: Done, an empty list, as if nothing waited); the inbox's page (asked for
    JSON, with no session) says it too; a name no route takes, given twice, is not read."""
    mia = bearer(shop, "Mia")
    for path, name in (
        ("/api/proposals?status=Waiting&status=Done", "status"),
        ("/api/tasks?limit=1&limit=2&limit=3", "limit"),
        ("/api/proposals/?queue=a&queue=b", "queue"),
    ):
        answer = shop.http.get(path, headers=mia)
        assert (answer.status_code, answer.headers["content-type"]) == (422, PROBLEM), path
        count = path.count(f"{name}=")
        assert answer.json()["detail"] == (
            f"{name} is given {count} times in the address, and it takes one value: give it once."
        )
    page = shop.http.get("/?status=Waiting&status=Done", headers={"accept": "application/json"})
    assert (page.status_code, page.json()["detail"]) == (
        422,
        "status is given 2 times in the address, and it takes one value: give it once.",
    )
    waiting = shop.http.get("/api/proposals?x=1&x=2", headers=mia)
    assert [p["id"] for p in waiting.json()["items"]] == [shop.waiting.id]


@pytest.mark.parametrize(
    ("verb", "body", "where"),
    [
        ("approve", '{"edited": {"price": 1, "price": 2}}', "edited.price"),
        ("approve", '{"edited": {"price": 3}, "edited": {}}', "edited"),
        ("approve", '{"edited": {"price": 3, "parts": [{"n": 1}, {"n": 1, "n": 2}]}}', "edited.parts.1.n"),
        ("reject", '{"reason": "No good.", "reason": ""}', "reason"),
        ("stop", '{"reason": "Wrong repair.", "reason": "Right one."}', "reason"),
    ],
)
def test_a_body_giving_a_member_twice_is_refused_naming_it(
    shop: SimpleNamespace, verb: str, body: str, where: str
) -> None:
    """A body that gives a member twice in one object, at any depth, is a 422 problem naming the
    member and where it is, and nothing is decided: the last value given was read, the first lost
    without a word (``{"price": 1, "price": 2}`` ran at 2; a second, empty ``edited`` dropped the
    decider's change, and the proposal ran as proposed)."""
    path = (f"/api/tasks/{shop.waiting.task}/stop" if verb == "stop"
            else f"/api/proposals/{shop.waiting.id}/{verb}")
    answer = shop.http.post(path, content=body.encode(),
                            headers={**bearer(shop, "Noor"), "content-type": "application/json"})
    assert (answer.status_code, answer.headers["content-type"]) == (422, PROBLEM), answer.text
    told = answer.json()
    member = where.rpartition(".")[2]
    said = (f"The body gives “{member}” twice in one object ({where}): give each member once, "
            "with the one value meant.")
    assert (told["detail"], told["type"], told["errors"]) == (
        said, "urn:signoff:problem:invalid", [{"where": where, "problem": said}])
    assert shop.app.proposal(shop.waiting.id).status is ProposalStatus.WAITING
    assert shop.app.outcome(shop.waiting.task).status.value == "Waiting"
