"""Addresses and values no page or client of signoff's sends, at the inbox and the REST API (real
HTTP on loopback): each is answered in a sentence saying what to do, never as the database
being down, and a page says nothing of a record its decision did not make."""

from __future__ import annotations

import logging
import re
import runpy
from collections.abc import Iterator
from types import SimpleNamespace

import httpx
import pytest
from argon2 import PasswordHasher

from signoff import ProposalStatus
from signoff.security.principals import Principal
from signoff.web.auth import SESSION_COOKIE, SESSION_LIFETIME
from tests.workshop_web import PASSWORD, ROOT, bearer, price, served_shop

PROBLEM = "application/problem+json"


def _workshop(database: str, monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    """The workshop (examples/workshop.py) in `database`, with Ola (a mechanic), everybody's
    password and API token."""
    monkeypatch.setenv("WORKSHOP_DATABASE", database)
    namespace = runpy.run_path(str(ROOT / "examples" / "workshop.py"), run_name="workshop_hostile")
    shop = SimpleNamespace(**namespace, **namespace["setup"]())
    shop.ola = shop.app.people.add("ola@workshop.example", "Ola", roles=["mechanic"])
    shop.app.credentials.use_hasher(PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1))
    shop.tokens = {}
    for person in (shop.mia, shop.noor, shop.ola):
        shop.app.credentials.set_password(person, PASSWORD)
        shop.tokens[person.name] = shop.app.credentials.issue_token(person, "tests")
    return shop


@pytest.fixture
def shop(database: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[SimpleNamespace]:
    """The workshop in a SQLite file or a PostgreSQL database, served on loopback."""
    shop = _workshop(database, monkeypatch)
    try:
        with served_shop(shop):
            yield shop
    finally:
        shop.app.database.dispose()


def _browser(shop: SimpleNamespace, person: Principal) -> httpx.Client:
    """A client logged in to the inbox as `person` (a session of their password's)."""
    _, token = shop.app.credentials.log_in(person.handle, PASSWORD, expires_in=SESSION_LIFETIME)
    return httpx.Client(base_url=shop.url, cookies={SESSION_COOKIE: token})


def _csrf(page: httpx.Response) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert found, page.text
    return found[1]


def _error_of(page: httpx.Response) -> str:
    found = re.search(r'<p class="error" role="alert"[^>]*>(.*?)</p>', page.text, re.S)
    return found[1] if found else ""


def test_a_nul_in_an_address_leads_nowhere(shop: SimpleNamespace,
                                           caplog: pytest.LogCaptureFixture) -> None:
    """An id holding a NUL (U+0000) is not there (404, in the words of any id that is not), a
    cursor or a queue holding one does not fit (422), on the API and the pages alike, on either
    database: on PostgreSQL, which refuses a NUL in a statement, each answered 503, "the app's
    database cannot be used now … try again later", and the log said it was unusable."""
    price(shop, fleet=True)
    cursor = "2026-01-01T00:00:00.000000Z~%00"
    nowhere = [("GET", "/api/proposals/%00", "proposal with id '\\x00'… (1 character)"),
               ("GET", "/api/proposals/a%00b", "proposal with id 'a\\x00b'… (3 characters)"),
               ("GET", "/api/tasks/%00", "task with id '\\x00'… (1 character)"),
               ("GET", "/api/tasks/%00/receipt", "task with id '\\x00'… (1 character)"),
               ("POST", "/api/proposals/%00/approve", "proposal with id '\\x00'… (1 character)"),
               ("POST", "/api/proposals/%00/reject", "proposal with id '\\x00'… (1 character)")]
    unfit = ["/api/proposals?queue=%00", f"/api/proposals?after={cursor}",
             f"/api/tasks?after={cursor}"]
    caplog.set_level(logging.INFO)
    for method, path, which in nowhere:
        answer = httpx.request(method, shop.url + path, headers=bearer(shop, "Noor"),
                               json={"reason": "No."} if path.endswith("reject") else None)
        assert (answer.status_code, answer.headers["content-type"]) == (404, PROBLEM), path
        assert answer.json()["detail"] == f"There is no {which} that Noor may see."
    for path in unfit:
        answer = httpx.get(shop.url + path, headers=bearer(shop, "Noor"))
        assert (answer.status_code, answer.headers["content-type"]) == (422, PROBLEM), path
        assert "holds a NUL character (U+0000)" in answer.json()["detail"]
    with _browser(shop, shop.noor) as noor:
        for path, status, said in [
                ("/proposals/%00", 404, "There is no proposal with id"),
                ("/tasks/%00", 404, "There is no task with id"),
                ("/?queue=%00", 422, "queue holds a NUL character (U+0000)"),
                (f"/?after={cursor}", 422, "after holds a NUL character (U+0000)"),
                (f"/tasks?after={cursor}", 422, "after holds a NUL character (U+0000)")]:
            page = noor.get(path)
            assert page.status_code == status, path
            assert _error_of(page).startswith(said), page.text
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


def test_a_revoke_whose_why_holds_a_nul_is_refused_in_a_sentence(
        shop: SimpleNamespace, caplog: pytest.LogCaptureFixture) -> None:
    """A reason for revoking a rule that holds a NUL is refused (422 on the API; the rules page
    says why) and the rule stays: on PostgreSQL it answered 503, the database "cannot be used
    now"."""
    rule = shop.app.allow_alone(shop.Estimator, "set_price", for_everybody=True, by=shop.noor)
    caplog.set_level(logging.INFO)
    answer = httpx.post(f"{shop.url}/api/rules/{rule.id}/revoke", json={"why": "Too\x00wide."},
                        headers=bearer(shop, "Noor"))
    assert (answer.status_code, answer.headers["content-type"]) == (422, PROBLEM)
    assert answer.json()["detail"] == ("Why a rule is taken back holds a NUL character (U+0000), "
                                       "which the app's database cannot keep: say it without one.")
    with _browser(shop, shop.noor) as noor:
        posted = noor.post(f"/rules/{rule.id}/revoke",
                           data={"csrf": _csrf(noor.get("/rules")), "why": "Too\x00wide."})
        assert (posted.status_code, posted.headers["location"]) == (303, "/rules")
        assert _error_of(noor.get("/rules")) == (
            "Why a rule is taken back holds a NUL character (U+0000), which the app&#39;s "
            "database cannot keep: say it without one.")
    assert [r.active for r in shop.app.rules() if r.id == rule.id] == [True]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


@pytest.mark.parametrize("database", ["sqlite"], indirect=True)
def test_a_proposals_page_tells_of_no_rule_its_decision_did_not_make(
        shop: SimpleNamespace) -> None:
    """The page after "approve always" says the rule that yes made (its id in the address);
    another rule's id put there, on another proposal's page, said "A standing rule now says: …"
    under what came of that decision, which made none; an id of no rule made the page a 404."""
    price(shop, fleet=True)
    (routed,) = shop.app.proposals(status=ProposalStatus.WAITING)
    made = shop.app.approve(routed, by=shop.noor, always_like_this=True).rule
    assert made is not None  # a rule for the work of Mia's, which she sees too
    price(shop)  # (Mia's own estimate: another skill, which the rule does not cover)
    (own,) = shop.app.proposals(status=ProposalStatus.WAITING)
    shop.app.reject(own, by=shop.mia, reason="Quote the cable separately.")
    with _browser(shop, shop.noor) as noor:
        page = noor.get(f"/proposals/{routed.id}?rule={made.id}")
        assert 'id="rule-made"' in page.text  # the rule this yes made, said
    with _browser(shop, shop.mia) as mia:
        for rule in (made.id, "no-such-rule"):
            page = mia.get(f"/proposals/{own.id}?rule={rule}")
            assert page.status_code == 200
            assert "Mia said no to set_price" in page.text
            assert 'id="rule-made"' not in page.text


@pytest.mark.parametrize("database", ["sqlite"], indirect=True)
def test_a_body_nested_too_deeply_is_told_so(shop: SimpleNamespace) -> None:
    """A decision whose JSON body is valid but nests lists thousands deep is refused (400) as
    too deep, and the proposal waits: it was told that the body "could not be read as JSON (in
    UTF-8)", which it could, and to send a JSON object, which it was."""
    price(shop, fleet=True)
    (routed,) = shop.app.proposals(status=ProposalStatus.WAITING)
    deep = '{"edited": {"price": ' + "[" * 5000 + "]" * 5000 + "}}"
    answer = httpx.post(f"{shop.url}/api/proposals/{routed.id}/approve", content=deep,
                        headers={**bearer(shop, "Noor"), "content-type": "application/json"})
    assert (answer.status_code, answer.headers["content-type"]) == (400, PROBLEM)
    assert answer.json()["detail"].startswith("The body nests lists or objects inside each "
                                              "other more deeply than this server reads")
    assert shop.app.proposal(routed.id).status is ProposalStatus.WAITING


_UNREADABLE = "This form could not be read ({}): go back to its page, and send it as the page gives it."


@pytest.mark.parametrize("database", ["sqlite"], indirect=True)
@pytest.mark.parametrize(("verb", "body", "said"), [
    ("reject", b"reason=Too+dear+%ff%fe", _UNREADABLE.format("its field “reason” is not UTF-8 text")),
    ("reject", b"reason=Too+dear+\xff\xfe", _UNREADABLE.format("its field “reason” is not UTF-8 text")),
    ("approve", b"changes=1&set.price=1&set.price=2",
     _UNREADABLE.format("it gives the field “set.price” twice")),
    ("approve", b"changes=1&set.bogus=1", "set_price has no argument bogus to change (its arguments "
     "are price, repair); the tool itself cannot be changed."),
    ("approve", b"approve=1&set.repair=00000000-0000-0000-0000-000000000000", "An edit changes "
     "argument values only: repair names what set_price acts on, which an edit cannot change. Reject "
     "it with the reason instead; the agent is told and may propose again."),
])
def test_a_form_not_sent_as_its_page_sends_it_decides_nothing(
        shop: SimpleNamespace, verb: str, body: bytes, said: str) -> None:
    """A reason whose escapes are no UTF-8 (``%ff%fe``), or a raw byte past ASCII, and a field
    given twice (``set.price=1&set.price=2``) are refused as a form that could not be read (400:
    the reason was kept, and told to the agent, as "Too dear ��"; the price ran at 2); a value
    of no field of the form (``set.bogus``, or ``set.repair``: what the call acts on) is refused
    in the app's words, as the API refuses it, on the proposal's page (it was passed over, and
    the yes went ahead). Nothing is decided: the proposal waits."""
    price(shop, fleet=True)
    (routed,) = shop.app.proposals(status=ProposalStatus.WAITING)
    page = f"/proposals/{routed.id}"
    with _browser(shop, shop.noor) as noor:
        csrf = _csrf(noor.get(page)).encode()
        posted = noor.post(f"{page}/{verb}", content=b"csrf=" + csrf + b"&" + body,
                           headers={"content-type": "application/x-www-form-urlencoded"})
        if said.startswith("This form could not be read"):
            assert (posted.status_code, _error_of(posted)) == (400, said), posted.text
        else:
            assert (posted.status_code, posted.headers.get("location")) == (303, page)
            assert _error_of(noor.get(page)) == said
    assert shop.app.proposal(routed.id).status is ProposalStatus.WAITING
