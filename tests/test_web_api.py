"""The REST API: the people's verbs behind bearer tokens, with RFC 9457 problems for errors."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import ignored_auth

from signoff import (
    AgentRefused,
    App,
    Conflict,
    ConsentError,
    Invalid,
    NotAuthorized,
    NotFound,
    ProposalStatus,
    Unavailable,
    UserError,
)
from signoff.testing import ScriptedModel, says
from signoff.web import create_web_app
from signoff.web.problems import UNFORESEEN, to_problem
from tests.workshop_web import bearer, open_workshop, price, repair_price

PROBLEM = "application/problem+json"


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    """The workshop, with passwords and tokens, and a test client of its web app."""
    shop = open_workshop(tmp_path, monkeypatch)
    shop.client = TestClient(create_web_app(shop.app, secure_cookies=False))
    return shop


def _get(shop: SimpleNamespace, who: str, path: str) -> object:
    return shop.client.get(path, headers=bearer(shop, who))


def test_every_operation_needs_a_token(shop: SimpleNamespace) -> None:
    """Each operation in the published OpenAPI answers 401, as a problem with a Bearer
    challenge, without a token or with a made-up one."""
    schema = shop.client.get("/api/openapi.json").json()
    assert schema["components"]["securitySchemes"]["HTTPBearer"]["scheme"] == "bearer"
    operations = [(path, method) for path, item in schema["paths"].items() for method in item]
    assert len(operations) == 13
    for path, method in operations:
        url = path.replace("{proposal_id}", "x").replace("{rule_id}", "x").replace("{task_id}", "x")
        for headers in ({}, {"Authorization": "Bearer so_0123456789abcdef_madeup"}):
            answer = shop.client.request(method, url, headers=headers, json={"reason": "x"})
            assert answer.status_code == 401, (method, path)
            assert answer.headers["content-type"] == PROBLEM
            assert answer.headers["www-authenticate"].startswith("Bearer")
            assert answer.json()["status"] == 401


def test_a_disabled_persons_token_is_refused(shop: SimpleNamespace) -> None:
    """Noor's token works until she is disabled, then answers 401."""
    assert shop.client.get("/api/me", headers=bearer(shop, "Noor")).json()["name"] == "Noor"
    shop.app.people.disable(shop.noor)
    answer = shop.client.get("/api/me", headers=bearer(shop, "Noor"))
    assert answer.status_code == 401
    assert "disabled" in answer.json()["detail"]


def test_the_routed_price_is_noors_and_no_one_elses(shop: SimpleNamespace) -> None:
    """The fleet price is listed for Noor only; Mia (whose work it is) and Ola neither see nor
    decide it (404, as for an unknown id); Noor approves it and the price is set."""
    price(shop, fleet=True, price=38)
    for who in ("Mia", "Ola"):
        assert _get(shop, who, "/api/proposals").json() == {"items": [], "next": None}
    (listed,) = _get(shop, "Noor", "/api/proposals").json()["items"]
    assert listed["label"] == "Set the price"
    assert listed["decide_by"] == "Noor"
    pid = listed["id"]
    for named in ("waiting", "WAITING"):  # a status in any case, as the CLI and the pages take it
        assert [p["id"] for p in _get(shop, "Noor", f"/api/proposals?status={named}").json()[
            "items"]] == [pid]
    unknown = shop.client.get("/api/proposals?status=pending", headers=bearer(shop, "Noor"))
    assert (unknown.status_code, unknown.headers["content-type"]) == (422, PROBLEM)
    assert "'pending' is not a proposal's status: choose one of Waiting," in unknown.json()["detail"]
    for who in ("Mia", "Ola"):
        for answer in (shop.client.get(f"/api/proposals/{pid}", headers=bearer(shop, who)),
                       shop.client.post(f"/api/proposals/{pid}/approve", json={},
                                        headers=bearer(shop, who)),
                       shop.client.post(f"/api/proposals/{pid}/reject", json={"reason": "no"},
                                        headers=bearer(shop, who))):
            assert answer.status_code == 404
            assert answer.headers["content-type"] == PROBLEM
    shown = _get(shop, "Noor", f"/api/proposals/{pid}").json()
    assert shown["why"] == "Pads, a cable and an hour of work."
    assert [e["tool"] for e in shown["evidence"]] == ["parts_for"]
    assert shown["fresh"] is True
    assert shown["effects"]
    decided = shop.client.post(f"/api/proposals/{pid}/approve", json={}, headers=bearer(shop, "Noor"))
    assert decided.json()["status"] == "Done"
    assert decided.json()["said"] == "Noor approved set_price; it ran as Noor and the agent together."
    assert repair_price(shop) == 38
    again = shop.client.post(f"/api/proposals/{pid}/approve", json={}, headers=bearer(shop, "Noor"))
    assert again.status_code == 409
    assert "already decided" in again.json()["detail"]


def test_a_refusal_by_the_library_is_a_403_problem(shop: SimpleNamespace) -> None:
    """Mia's own proposal with a standing rule she may not make is refused by the library: 403,
    in its own words."""
    shop.app.oversight.widens_agent_autonomy = shop.is_manager
    price(shop)
    (listed,) = _get(shop, "Mia", "/api/proposals").json()["items"]
    answer = shop.client.post(f"/api/proposals/{listed['id']}/approve", json={"always": True},
                              headers=bearer(shop, "Mia"))
    assert answer.status_code == 403
    assert answer.json()["detail"] == "Mia may not let agents do more on their own."
    assert shop.app.proposal(listed["id"]).status is ProposalStatus.WAITING


def test_reject_needs_a_reason_and_the_agent_hears_it(shop: SimpleNamespace) -> None:
    """An empty or blank reason is a 422 problem; a reason rejects, and the agent is told."""
    outcome = price(shop)
    (listed,) = _get(shop, "Mia", "/api/proposals").json()["items"]
    url = f"/api/proposals/{listed['id']}/reject"
    for body in ({}, {"reason": ""}, {"reason": "   "}, {"reason": "x", "extra": 1}):
        answer = shop.client.post(url, json=body, headers=bearer(shop, "Mia"))
        assert answer.status_code == 422, body
        assert answer.headers["content-type"] == PROBLEM
        assert answer.json()["errors"]
    # invisible characters alone pass the schema's pattern, and were taken as a reason
    answer = shop.client.post(url, json={"reason": "\u200b\u2060"}, headers=bearer(shop, "Mia"))
    assert (answer.status_code, answer.json()["detail"]) == (
        422, "Say why: a no needs a reason, and the agent is told it."), answer.text
    answer = shop.client.post(url, json={"reason": "Quote the cable separately."},
                              headers=bearer(shop, "Mia"))
    assert answer.json()["status"] == "Rejected"
    assert answer.json()["told_agent"] == "Mia said no to set_price: Quote the cable separately."
    receipt = _get(shop, "Mia", f"/api/tasks/{outcome.task}/receipt").json()
    assert "Mia said no to set_price: Quote the cable separately." in [e["words"] for e in receipt["entries"]]


def test_approve_with_changes(shop: SimpleNamespace) -> None:
    """A changed value that does not fit, or names no argument, is a 422; a fitting one runs."""
    price(shop)
    (listed,) = _get(shop, "Noor", "/api/proposals").json()["items"]
    url = f"/api/proposals/{listed['id']}/approve"
    bad = shop.client.post(url, json={"edited": {"price": "lots"}}, headers=bearer(shop, "Noor"))
    assert bad.status_code == 422
    assert bad.json()["detail"] == ("The changed values do not fit set_price: Price is a number, "
                                    "like 4.50 — “lots” is not.")
    tool = shop.client.post(url, json={"edited": {"tool": "scrap_repair"}}, headers=bearer(shop, "Noor"))
    assert tool.status_code == 422
    # a price its column cannot keep: refused as values that do not fit are, and the proposal
    # waits (the yes was used up: Failed, and the corrected yes was told "already decided")
    typo = shop.client.post(url, json={"edited": {"price": 45000000000}},
                            headers=bearer(shop, "Noor"))
    assert (typo.status_code, typo.json()["detail"]) == (422, (
        "The changed values do not fit set_price: Repair's price keeps at most 8 digits before "
        "the point (rounded to 2 after it); the value given has 11.")), typo.text
    assert _get(shop, "Noor", f"/api/proposals/{listed['id']}").json()["status"] == "Waiting"
    assert repair_price(shop) == 0
    good = shop.client.post(url, json={"edited": {"price": 42}}, headers=bearer(shop, "Noor"))
    assert good.json()["said"] == ("Noor approved set_price with price changed to 42; it ran as "
                                   "Noor and the agent together.")
    assert repair_price(shop) == 42


def test_a_stale_proposal_is_said_to_be_stale_and_does_not_run(shop: SimpleNamespace) -> None:
    """After the repair is revised the proposal reads fresh: false, with why; a yes does not
    run it."""
    price(shop)
    shop.revise(shop.repair.id, "rear brake and gears")
    (listed,) = _get(shop, "Noor", "/api/proposals").json()["items"]
    shown = _get(shop, "Noor", f"/api/proposals/{listed['id']}").json()
    assert shown["fresh"] is False
    assert "(it was r1, it is now r2)" in shown["freshness"]
    decided = shop.client.post(f"/api/proposals/{listed['id']}/approve", json={},
                               headers=bearer(shop, "Noor")).json()
    assert decided["status"] == "Stale"
    assert repair_price(shop) == 0


def test_standing_rules_listed_and_revoked(shop: SimpleNamespace) -> None:
    """Approve-always makes a rule (a yes that runs: Noor's, in Mia's work) that Mia sees and
    Ola does not; Noor revokes it; a second revoke is a 409. (A yes of Mia's, who may not
    change the price, does not run, and makes no rule.)"""
    price(shop)
    (listed,) = _get(shop, "Noor", "/api/proposals").json()["items"]
    said = shop.client.post(f"/api/proposals/{listed['id']}/approve", json={"always": True},
                            headers=bearer(shop, "Noor")).json()  # a yes that runs: Noor's
    assert said["status"] == "Done", said
    (rule,) = _get(shop, "Mia", "/api/rules").json()["items"]
    assert (rule["tool"], rule["active"]) == ("set_price", True)
    assert _get(shop, "Ola", "/api/rules").json() == {"items": [], "next": None}
    url = f"/api/rules/{rule['id']}/revoke"
    assert shop.client.post(url, json={"why": "x"}, headers=bearer(shop, "Ola")).status_code == 404
    revoked = shop.client.post(url, json={"why": "Prices went up."}, headers=bearer(shop, "Noor"))
    assert revoked.json()["active"] is False
    assert revoked.json()["why"] == "Prices went up."
    assert shop.client.post(url, json={}, headers=bearer(shop, "Noor")).status_code == 409


def test_a_plain_yes_and_a_revoke_need_no_body(shop: SimpleNamespace) -> None:
    """A yes with nothing to add, and a rule taken back with no reason, are posted with no
    body at all (they answered 422, "The body is missing"); a no still needs its reason."""
    price(shop, fleet=True, price=38)
    (listed,) = _get(shop, "Noor", "/api/proposals").json()["items"]
    url = f"/api/proposals/{listed['id']}/approve"
    decided = shop.client.post(url, headers=bearer(shop, "Noor"))
    assert decided.status_code == 200, decided.text
    assert decided.json()["status"] == "Done"
    assert repair_price(shop) == 38
    shop.app.allow_alone("estimator", "set_price", by=shop.noor)
    (rule,) = _get(shop, "Noor", "/api/rules").json()["items"]
    revoked = shop.client.post(f"/api/rules/{rule['id']}/revoke", headers=bearer(shop, "Noor"))
    assert revoked.status_code == 200, revoked.text
    assert revoked.json()["active"] is False
    price(shop)
    (waiting,) = _get(shop, "Mia", "/api/proposals").json()["items"]
    bare_no = shop.client.post(f"/api/proposals/{waiting['id']}/reject",
                               headers=bearer(shop, "Mia"))
    assert bare_no.status_code == 422
    assert bare_no.headers["content-type"] == PROBLEM


def test_tasks_outcomes_and_receipts_are_theirs_only(shop: SimpleNamespace) -> None:
    """Mia sees the task done for her, its outcome and receipt; Ola sees none of it."""
    outcome = price(shop)
    (task,) = _get(shop, "Mia", "/api/tasks").json()["items"]
    assert (task["id"], task["status"]) == (outcome.task, "Waiting")
    assert _get(shop, "Mia", f"/api/tasks/{outcome.task}").json()["waiting_on"] == ["a decision from Mia"]
    assert _get(shop, "Ola", "/api/tasks").json()["items"] == []
    for path in (f"/api/tasks/{outcome.task}", f"/api/tasks/{outcome.task}/receipt"):
        assert shop.client.get(path, headers=bearer(shop, "Ola")).status_code == 404


def test_tasks_are_listed_by_status_in_any_case(shop: SimpleNamespace) -> None:
    """`/api/tasks?status=` lists only the tasks in that status, named in any case, as
    `signoff tasks --status` does (the API had no filter); a status that is none is told."""
    waiting = price(shop)
    shop.app.reject(shop.app.proposals(task=waiting.task)[0], by=shop.mia, reason="Not now.")
    again = price(shop, price=50)
    for written in ("waiting", "Waiting", " WAITING "):
        listed = _get(shop, "Mia", f"/api/tasks?status={written}").json()["items"]
        assert [t["id"] for t in listed] == [again.task], written
    assert [t["id"] for t in _get(shop, "Mia", "/api/tasks?status=done").json()["items"]] == [
        waiting.task]
    assert len(_get(shop, "Mia", "/api/tasks").json()["items"]) == 2
    wrong = shop.client.get("/api/tasks?status=finished", headers=bearer(shop, "Mia"))
    assert (wrong.status_code, wrong.json()["detail"]) == (422, (
        "'finished' is not a task's status: choose one of Running, Waiting, Done, Halted, "
        "Failed (in any case)."))


def test_work_for_nobody_is_its_sponsors_to_see(shop: SimpleNamespace) -> None:
    """A task for nobody that only read, and so never proposed anything, is seen, with its
    outcome and receipt, by the person who sponsors its agent, as its proposals would have been
    put to them; Mia, not its sponsor, does not see it (before, only a supervisor did)."""
    shop.app.add_agent(shop.Estimator, sponsor=shop.ola)
    script = ScriptedModel(
        says.tool(shop.parts_for, fault="rear brake does not bite"),
        says.hand_back(shop.Estimate(hours=Decimal(1), summary="Pads and a cable.")),
    )
    outcome = shop.app.agent(shop.Estimator).do(shop.EstimateRepair(), shop.repair, model=script)
    assert outcome.status.value == "Done"
    (task,) = _get(shop, "Ola", "/api/tasks").json()["items"]
    assert task["id"] == outcome.task
    for path in (f"/api/tasks/{outcome.task}", f"/api/tasks/{outcome.task}/receipt"):
        assert shop.client.get(path, headers=bearer(shop, "Ola")).status_code == 200
        assert shop.client.get(path, headers=bearer(shop, "Mia")).status_code == 404
    assert _get(shop, "Mia", "/api/tasks").json()["items"] == []


def test_pages_of_proposals_follow_their_cursor(shop: SimpleNamespace) -> None:
    """Five proposals, two a page: three pages, newest first, none twice, none missed; a cursor
    that is not one is a 422."""
    for amount in range(5):
        price(shop, price=40 + amount)
    seen: list[str] = []
    after = None
    for _ in range(3):
        query = "/api/proposals?limit=2" + (f"&after={after}" if after else "")
        page = _get(shop, "Mia", query).json()
        seen += [p["arguments"]["price"] for p in page["items"]]
        after = page["next"]
    assert after is None
    assert seen == [44, 43, 42, 41, 40]
    assert _get(shop, "Mia", "/api/proposals?after=nonsense").status_code == 422
    # (a time whose UTC is outside the calendar: it was a 500)
    for path in ("/api/proposals?after=9999-12-31T23:59:59-01:00~x",
                 "/api/tasks?after=0001-01-01T00:00:00%2B01:00~x"):
        told = _get(shop, "Mia", path)
        assert told.status_code == 422
        assert "is not a cursor from a previous page" in told.json()["detail"]


def test_the_catalogues(shop: SimpleNamespace) -> None:
    """The agents' catalogue gives each tool's leave; the actions' gives their effects."""
    lines = _get(shop, "Mia", "/api/agents?limit=200").json()["items"]
    assert {(line["skill"], line["tool"]): line["leave"] for line in lines}[
        ("estimate_repair", "scrap_repair")] == "Never"
    actions = {a["name"]: a for a in _get(shop, "Mia", "/api/actions").json()["items"]}
    assert actions["parts_for"]["query"] is True
    assert any("changes Repair" in line for line in actions["set_price"]["effects"])


@pytest.mark.parametrize(("error", "status"), [
    (NotFound("gone"), 404),
    (NotAuthorized("no"), 403),
    (Invalid("bad"), 422),
    (Conflict("clash"), 422),
    (AgentRefused("not yours"), 403),
    (ConsentError("forged"), 403),
    (Unavailable("The bank cannot be reached now, so nothing was sent: try again later."), 503),
    (UserError("misdeclared"), 500),
    (RuntimeError("internal detail"), 500),
])
def test_each_library_error_is_mapped(error: Exception, status: int) -> None:
    """Each error the library raises has its status; an unforeseen one says nothing of itself."""
    problem = to_problem(error)
    assert problem.status == status
    if status == 500:
        assert problem.detail == UNFORESEEN
    else:
        assert problem.detail == str(error)


# -- fuzzing from the OpenAPI ------------------------------------------------------------


@pytest.fixture
def fuzzed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    """The workshop with proposals waiting and tasks, for the fuzzer to reach."""
    shop = open_workshop(tmp_path, monkeypatch)
    price(shop)
    price(shop, fleet=True)
    return shop


def test_the_api_survives_fuzzing(fuzzed: SimpleNamespace) -> None:
    """Requests generated from the published OpenAPI, with Noor's token, never meet a server
    error; and no operation answers without its token (schemathesis's ignored_auth)."""
    web = create_web_app(fuzzed.app, secure_cookies=False)
    schema = schemathesis.openapi.from_asgi("/api/openapi.json", web)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) == 13
    calls = 0
    for operation in operations:

        @given(case=operation.as_strategy())
        @settings(max_examples=25, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        def fuzz(case: schemathesis.Case) -> None:
            nonlocal calls
            calls += 1
            case.call_and_validate(headers=bearer(fuzzed, "Noor"),
                                   checks=[not_a_server_error, ignored_auth])

        fuzz()
    assert calls >= 13 * 5


def test_a_database_that_cannot_be_used_is_a_503_that_names_no_database() -> None:
    """A request that finds the app's database down (its token cannot even be read) is told
    so, 503, without the database's address (it was a 500, "a reason the app did not
    foresee", from the token's check)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    app = App("down", database=f"postgresql+psycopg://shop:secret@127.0.0.1:{port}/shop")
    client = TestClient(create_web_app(app, secure_cookies=False),
                        raise_server_exceptions=False)
    told = client.get("/api/tasks", headers={
        "Authorization": f"Bearer so_0123456789abcdef_{'x' * 43}"})
    assert told.status_code == 503, told.text
    assert told.json()["detail"] == ("The app's database cannot be used now, so nothing was "
                                     "done: try again later (the server's log says why).")
    assert "secret" not in told.text
    assert str(port) not in told.text
