"""The web inbox, driven by Debian's Chromium through Playwright against a real server, and its
forms' protections checked with a plain HTTP client."""

from __future__ import annotations

import re
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from fastapi.testclient import TestClient
from playwright.sync_api import Browser, Page, expect

from signoff import ProposalStatus
from signoff.web import create_web_app
from tests.workshop_web import PASSWORD, open_workshop, price, repair_price, served

ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts" / "inbox"


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SimpleNamespace]:
    """The workshop served by uvicorn on 127.0.0.1 (a free port), in a thread of this process."""
    shop = open_workshop(tmp_path, monkeypatch, passwords=True)
    web = create_web_app(shop.app, secure_cookies=False, refresh_seconds=0.3)
    with served(web) as port:
        shop.url = f"http://127.0.0.1:{port}"
        yield shop


@pytest.fixture
def page(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Page]:
    """A fresh browser context and page (no cookies from another test)."""
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    page = context.new_page()
    page.set_default_timeout(10_000)
    yield page
    context.close()


def _shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def _log_in(page: Page, shop: SimpleNamespace, handle: str) -> None:
    page.goto(f"{shop.url}/")
    expect(page).to_have_url(re.compile(r"/login\?next=/$"))
    page.get_by_label("E-mail address").fill(handle)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page).to_have_url(f"{shop.url}/")


def _log_out(page: Page) -> None:
    page.get_by_role("button", name="Log out").click()
    expect(page.get_by_role("heading", name="Log in")).to_be_visible()


def test_mia_has_nothing_noor_approves_the_fleet_price(shop: SimpleNamespace, page: Page) -> None:
    """The routed fleet price: Mia logs in and has nothing to decide; Noor logs in, sees it with
    why and evidence, approves it, and the repair's price is set; the inbox's list says who
    decides a waiting proposal, and who decided one decided (it named the one it was routed to,
    under "Decided by", for both)."""
    outcome = price(shop, fleet=True, price=38)
    _log_in(page, shop, "mia@workshop.example")
    expect(page.locator("#nothing")).to_have_text("Nothing to decide.")
    _shot(page, "1-mia-nothing-to-decide")
    _log_out(page)

    _log_in(page, shop, "noor@workshop.example")
    row = page.locator("#proposals tbody tr")
    expect(row).to_have_count(1)
    expect(row).to_contain_text("Set the price")
    expect(row.locator(".decider")).to_have_text("Noor")
    row.get_by_role("link", name="Set the price").click()
    expect(page.locator("#why")).to_have_text("Pads, a cable and an hour of work.")
    expect(page.locator("#evidence")).to_contain_text("parts_for")
    expect(page.locator("#evidence")).to_contain_text('["brake pads", "cable"]')
    expect(page.locator("#shown")).to_contain_text("38")
    expect(page.locator("#effects li").last).to_have_text(  # in words, and the code's path
        "changes the price of a Repair set_price -> repair.price = …")
    expect(page.locator("#effects li").last.locator("code")).to_have_text(
        ["price", "set_price -> repair.price = …"])
    expect(page.locator("#effects-heading")).to_have_text("What it would do")
    page.get_by_role("link", name="Agents").click()  # its actions' effects read the same there
    expect(page.get_by_text("changes the price of a Repair").first).to_be_visible()
    page.go_back()
    expect(page.locator("#freshness")).to_contain_text(  # the fleet skill keeps no version
        "Still fresh: the call reads as it was proposed (its skill keeps no version")
    _shot(page, "2-noor-sees-the-proposal")
    page.locator("#approve").click()
    expect(page.locator("#status")).to_have_text("Done")
    expect(page.locator("#outcome")).to_contain_text(
        "Noor approved set_price; it ran as Noor and the agent together.")
    expect(page.locator("#effects-heading")).to_have_text("What the call does, as its code reads")
    _shot(page, "3-noor-approved")
    assert repair_price(shop) == 38
    page.get_by_role("link", name="its receipt").click()
    expect(page.locator("#task-status")).to_have_text("Done")
    expect(page.locator("#receipt")).to_contain_text("Noor approved set_price")
    assert shop.app.outcome(outcome.task).done
    page.goto(f"{shop.url}/?status=any")
    expect(page.locator("#proposals tbody tr .decider")).to_have_text("decided by Noor")
    page.goto(f"{shop.url}/?status=done")  # a status typed in lower case, as the CLI takes it
    expect(page.get_by_role("heading", name="Proposals: Done")).to_be_visible()
    expect(page.locator("#proposals tbody tr .status")).to_have_text("Done")


def test_a_rejection_with_a_reason(shop: SimpleNamespace, page: Page) -> None:
    """Mia rejects her own estimate's price with a reason; the agent is told it."""
    outcome = price(shop)
    _log_in(page, shop, "mia@workshop.example")
    page.locator("#proposals").get_by_role("link", name="Set the price").click()
    page.get_by_label("Why not (the agent is told)").fill("Quote the cable separately.")
    page.locator("#reject").click()
    expect(page.locator("#status")).to_have_text("Rejected")
    expect(page.locator("#outcome")).to_have_text(  # the reason once, in the decision's words
        "What came of it: Mia said no to set_price: Quote the cable separately.",
        use_inner_text=True)
    _shot(page, "4-mia-rejected")
    assert "Mia said no to set_price: Quote the cable separately." in shop.app.receipt(outcome.task).words
    assert repair_price(shop) == 0


def test_a_task_nobody_can_go_on_with_says_why_on_its_pages(shop: SimpleNamespace,
                                                            page: Page) -> None:
    """A task whose model was given in code in a process that has gone (here: forgotten by this
    one) stays Running once decided; once a worker has looked, the Tasks page says why beside
    it (it said only "Running"), and the task's page says it with its command as code (it
    showed the backticks, and a second full stop)."""
    outcome = price(shop, fleet=True)
    shop.app._agency.loop.models.pop(outcome.task)  # as if the process that started it had ended
    _log_in(page, shop, "noor@workshop.example")
    page.locator("#proposals").get_by_role("link", name="Set the price").click()
    page.locator("#approve").click()
    expect(page.locator("#status")).to_have_text("Done")
    shop.app.worker().run_once()  # it looks, cannot make the model, and keeps why
    page.goto(f"{shop.url}/tasks")
    row = page.locator("#tasks tbody tr")
    expect(row.locator(".status")).to_contain_text("Running")
    expect(row.locator(".stuck")).to_contain_text("Stuck: It was started with a model given in "
                                                  "code, which no other process can make")
    row.get_by_role("link").click()
    problem = page.locator("#problem")
    expect(problem.locator("code").first).to_have_text("signoff run … --model SPEC")
    assert "`" not in problem.inner_text()
    assert ".." not in page.locator("main").inner_text()


def test_a_stale_proposal_is_shown_stale_and_cannot_run(shop: SimpleNamespace, page: Page) -> None:
    """The repair is revised after the proposal: the page says it is stale and offers no
    approve; telling the agent to look again runs nothing."""
    price(shop)
    shop.revise(shop.repair.id, "rear brake and gears")
    _log_in(page, shop, "noor@workshop.example")
    page.locator("#proposals").get_by_role("link", name="Set the price").click()
    expect(page.locator("#stale")).to_contain_text("(it was r1, it is now r2)")
    expect(page.locator("#approve")).to_have_count(0)
    expect(page.locator("#approve-always")).to_have_count(0)
    _shot(page, "5-stale")
    page.locator("#look-again").click()
    expect(page.locator("#status")).to_have_text("Stale")
    assert repair_price(shop) == 0


def test_approve_with_changes_then_always_then_revoke(shop: SimpleNamespace, page: Page) -> None:
    """Noor changes the price (the form offers no way to change the repair) before saying yes;
    next time she approves always, is told what rule that made, and revokes it on the rules
    page."""
    price(shop)
    _log_in(page, shop, "noor@workshop.example")
    page.locator("#proposals").get_by_role("link", name="Set the price").click()
    expect(page.get_by_label("Repair", exact=True)).to_have_count(0)  # values, never the record
    page.get_by_label("Price").fill("lots")
    page.locator("#approve-changed").click()
    expect(page.locator("#error")).to_contain_text("Price is a number")
    page.get_by_label("Price").fill("42")
    page.locator("#approve-changed").click()
    expect(page.locator("#outcome")).to_contain_text("with price changed to 42")
    assert repair_price(shop) == 42

    price(shop, price=50)
    page.goto(f"{shop.url}/")
    page.locator("#proposals").get_by_role("link", name="Set the price").click()
    page.locator("#approve-always").click()
    expect(page.locator("#status")).to_have_text("Done")
    expect(page.locator("#rule-made")).to_contain_text(
        "from now on estimator runs set_price alone, without proposing it, in estimate_repair, "
        "in work for Mia — with any values")
    page.get_by_role("link", name="Standing rules").click()
    expect(page.locator("#rules")).to_contain_text("in force")
    expect(page.locator("#rules .covers")).to_have_text(
        "From now on estimator runs set_price alone, without proposing it, in estimate_repair, "
        "in work for Mia — with any values.")
    _shot(page, "6-rules")
    page.get_by_placeholder("Why (optional)").fill("Prices went up.")
    page.get_by_role("button", name="Revoke").click()
    expect(page.locator("#rules")).to_contain_text("revoked: Prices went up.")
    (rule,) = shop.app.rules()
    assert not rule.active
    page.get_by_role("link", name="Agents").click()
    expect(page.locator("#catalogue")).to_contain_text("scrap_repair")


def test_a_refused_form_comes_back_to_its_page_and_a_reload_posts_nothing(
        shop: SimpleNamespace, page: Page) -> None:
    """An "approve with these changes" whose price does not fit, a reject whose reason is only
    spaces, and a revoke of a rule revoked meanwhile each come back to the page the form was on
    (not the form's address), which says why, keeping what was typed; reloading it posts
    nothing again, and nothing was decided."""
    price(shop)
    _log_in(page, shop, "noor@workshop.example")
    page.locator("#proposals").get_by_role("link", name="Set the price").click()
    (proposal,) = shop.app.proposals()
    proposal_page = f"{shop.url}/proposals/{proposal.id}"
    expect(page).to_have_url(proposal_page)
    posted: list[str] = []
    page.on("request", lambda r: posted.append(r.url) if r.method == "POST" else None)

    page.get_by_label("Price").fill("abc")
    page.locator("#approve-changed").click()
    expect(page.locator("#error")).to_have_text(
        "The changed values do not fit set_price: Price is a number, like 4.50 — “abc” is not.")
    assert page.url == proposal_page  # not …/approve
    expect(page.get_by_label("Price")).to_have_value("abc")  # as she typed it
    assert posted == [f"{proposal_page}/approve"]
    page.reload()
    expect(page.locator("#status")).to_have_text("Waiting")
    expect(page.locator("#error")).to_have_count(0)  # said once
    assert posted == [f"{proposal_page}/approve"]  # the reload posted nothing

    page.get_by_label("Why not (the agent is told)").fill("   ")
    page.locator("#reject").click()
    expect(page.locator("#error")).to_have_text(
        "Say why: a no needs a reason, and the agent is told it.")
    assert page.url == proposal_page  # not …/reject
    page.reload()
    expect(page.locator("#status")).to_have_text("Waiting")
    assert posted == [f"{proposal_page}/approve", f"{proposal_page}/reject"]
    assert shop.app.proposal(proposal.id).status is ProposalStatus.WAITING
    assert repair_price(shop) == 0

    rule = shop.app.allow_alone("estimator", "set_price", by=shop.noor)
    page.goto(f"{shop.url}/rules")
    shop.app.revoke(rule, by=shop.noor, why="Taken back elsewhere.")
    page.get_by_role("button", name="Revoke").click()
    expect(page.get_by_role("alert")).to_have_text("This rule was revoked already.")
    assert page.url == f"{shop.url}/rules"  # not …/revoke
    page.reload()
    expect(page.get_by_role("alert")).to_have_count(0)
    assert posted[2:] == [f"{shop.url}/rules/{rule.id}/revoke"]


def test_a_failed_login_comes_back_to_the_form_and_a_reload_posts_no_password(
        shop: SimpleNamespace, page: Page) -> None:
    """A wrong password comes back to the login form by a redirect (not the form's answer to
    the post), which says why once and keeps the e-mail address typed, never the password;
    reloading it posts nothing again (no password is sent twice, no try counted twice), and
    the right password then goes on where the visitor was going."""
    page.goto(f"{shop.url}/tasks")
    expect(page).to_have_url(f"{shop.url}/login?next=/tasks")
    posted: list[tuple[str, str]] = []
    answers: list[int] = []
    page.on("request", lambda r: posted.append((r.url, r.post_data or ""))
            if r.method == "POST" else None)
    page.on("response", lambda r: answers.append(r.status)
            if r.request.method == "POST" else None)

    page.get_by_label("E-mail address").fill("noor@workshop.example")
    page.get_by_label("Password").fill("not her password")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("alert")).to_have_text(
        "That e-mail address and password do not match anyone who may log in.")
    assert page.url == f"{shop.url}/login?next=/tasks"  # a page of its own, got by a redirect
    assert answers == [303]
    expect(page.get_by_label("E-mail address")).to_have_value("noor@workshop.example")
    expect(page.get_by_label("Password")).to_have_value("")  # never kept
    assert "not her password" not in page.content()
    assert [url for url, _ in posted] == [f"{shop.url}/login"]
    assert "not+her+password" in posted[0][1]

    page.reload()
    expect(page.get_by_role("heading", name="Log in")).to_be_visible()
    expect(page.get_by_role("alert")).to_have_count(0)  # said once
    assert len(posted) == 1  # the reload posted nothing: no password sent again
    assert "signoff_session" not in {c["name"] for c in page.context.cookies()}  # nobody in

    page.get_by_label("E-mail address").fill("noor@workshop.example")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page).to_have_url(f"{shop.url}/tasks")
    assert len(posted) == 2


def test_the_inbox_refreshes_itself_when_something_arrives(shop: SimpleNamespace, page: Page) -> None:
    """Noor's open inbox shows a proposal made after it was loaded, without her reloading."""
    _log_in(page, shop, "noor@workshop.example")
    expect(page.locator("#nothing")).to_be_visible()
    price(shop, fleet=True)
    expect(page.locator("#proposals tbody tr")).to_have_count(1)
    _shot(page, "7-refreshed")


# -- the forms' protections, with a plain client -------------------------------------------


def _logged_in(shop: SimpleNamespace, handle: str, *, secure: bool = False) -> TestClient:
    client = TestClient(create_web_app(shop.app, secure_cookies=secure),
                        base_url="https://testserver" if secure else "http://testserver")
    login = client.get("/login")
    csrf = re.search(r'name="csrf" value="([^"]+)"', login.text)
    assert csrf is not None
    answer = client.post("/login", data={"handle": handle, "password": PASSWORD,
                                         "csrf": csrf.group(1)}, follow_redirects=False)
    assert answer.status_code == 303
    return client


def _csrf(client: TestClient, path: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', client.get(path).text)
    assert found is not None
    return found.group(1)


def test_a_form_without_its_csrf_token_is_refused(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Approve, reject, revoke and log in without the form's CSRF token (or with another's)
    are refused with 403, and nothing is decided."""
    shop = open_workshop(tmp_path, monkeypatch, passwords=True)
    price(shop)
    (proposal,) = shop.app.proposals()
    client = _logged_in(shop, "mia@workshop.example")
    for path, data in ((f"/proposals/{proposal.id}/approve", {}),
                       (f"/proposals/{proposal.id}/reject", {"reason": "No."}),
                       ("/logout", {})):
        for csrf in (None, "forged", _csrf(TestClient(client.app), "/login")):
            form = {**data, **({"csrf": csrf} if csrf else {})}
            answer = client.post(path, data=form, follow_redirects=False)
            assert answer.status_code == 403, (path, csrf)
            assert "CSRF" in answer.text
    assert shop.app.proposal(proposal.id).status is ProposalStatus.WAITING
    stranger = TestClient(client.app)
    assert stranger.post("/login", data={"handle": "mia@workshop.example",
                                         "password": PASSWORD}).status_code == 403
    good = client.post(f"/proposals/{proposal.id}/reject",
                       data={"reason": "No.", "csrf": _csrf(client, f"/proposals/{proposal.id}")},
                       follow_redirects=False)
    assert good.status_code == 303
    assert shop.app.proposal(proposal.id).status is ProposalStatus.REJECTED


def test_nobody_sees_a_proposal_that_is_not_theirs(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Ola neither lists, opens nor decides Mia's proposal (404), and Mia not the routed one;
    a disabled person's session stops working; a wrong password logs nobody in."""
    shop = open_workshop(tmp_path, monkeypatch, passwords=True)
    price(shop)
    price(shop, fleet=True)
    mine, routed = sorted(shop.app.proposals(), key=lambda p: p.routed)
    ola = _logged_in(shop, "ola@workshop.example")
    assert "Nothing to decide." in ola.get("/").text
    csrf = _csrf(ola, "/")
    assert ola.get(f"/proposals/{mine.id}").status_code == 404
    assert ola.post(f"/proposals/{mine.id}/approve", data={"csrf": csrf}).status_code == 404
    mia = _logged_in(shop, "mia@workshop.example")
    assert mia.get(f"/proposals/{routed.id}").status_code == 404
    listed = mia.get("/").text
    assert mine.id in listed
    assert routed.id not in listed
    shop.app.people.disable(shop.mia)
    assert mia.get("/", follow_redirects=False).status_code == 303
    stranger = TestClient(ola.app)
    token = _csrf(stranger, "/login")
    wrong = stranger.post("/login", data={"handle": "noor@workshop.example", "password": "nope",
                                          "csrf": token})
    assert "That e-mail address and password do not match anyone" in wrong.text
    assert "signoff_session" not in stranger.cookies
    said = stranger.post("/login", data={"handle": "noor@workshop.example", "password": "nope",
                                         "csrf": token}, follow_redirects=False)
    other = TestClient(ola.app)  # what the form left to say is the visitor's own, not another's
    other.get("/login")
    other.cookies.set("signoff_said", said.cookies["signoff_said"], path="/login")
    assert "do not match" not in other.get("/login").text
    assert "do not match" in stranger.get("/login").text
    assert shop.app.proposal(mine.id).status is ProposalStatus.WAITING


def test_wrong_passwords_are_taken_five_times_then_a_pause(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Five wrong passwords for Noor from one address are each sent back to the login form
    (303), whether the form names her by handle or by id; the next try, even with her right
    password (which is then not checked), is a 429 that says how long to wait, as does
    Retry-After. Mia, from the same address, still logs in, and her right password starts her
    count again. Twenty tries at once for Ola are counted as surely: five are checked."""
    from concurrent.futures import ThreadPoolExecutor

    shop = open_workshop(tmp_path, monkeypatch, passwords=True)
    app = create_web_app(shop.app, secure_cookies=False)

    def attempt(handle: str, password: str) -> Any:
        client = TestClient(app)
        return client.post("/login", data={"handle": handle, "password": password,
                                           "csrf": _csrf(client, "/login")},
                           follow_redirects=False)

    def told(answer: Any) -> str:
        """Where a try was sent: back to the login form, or on into the inbox."""
        assert answer.status_code == 303, answer.status_code
        return "again" if answer.headers["location"] == "/login" else "in"

    mia, noor = "mia@workshop.example", "noor@workshop.example"
    assert [told(attempt(mia, "nope")) for _ in range(4)] == ["again"] * 4
    assert told(attempt(mia, PASSWORD)) == "in"
    assert [told(attempt(noor, "nope")) for _ in range(3)] == ["again"] * 3
    assert [told(attempt(shop.noor.id, "nope")) for _ in range(2)] == ["again"] * 2
    paused = attempt(noor, PASSWORD)
    assert paused.status_code == 429
    assert ("Too many wrong passwords for that e-mail address from here. Try again in 15 "
            "minutes.") in paused.text
    assert 890 <= int(paused.headers["Retry-After"]) <= 900
    assert attempt(" noor@workshop.example ", "nope").status_code == 429
    assert attempt(shop.noor.id, PASSWORD).status_code == 429
    assert [told(attempt(mia, "nope")) for _ in range(4)] == ["again"] * 4
    assert told(attempt(mia, PASSWORD)) == "in"
    with ThreadPoolExecutor(max_workers=20) as pool:
        at_once = sorted(pool.map(lambda _: attempt("ola@workshop.example", "nope").status_code,
                                  range(20)))
    assert at_once == [303] * 5 + [429] * 15


def test_a_pause_ends_once_the_first_try_is_older_than_the_window() -> None:
    """The pause lasts until the first try of the pair leaves the window; another address is
    not paused by it, but a person's tries from every address together are bounded too; a
    right password takes its own tries out of both counts; past the pairs kept, those that no
    longer count are forgotten first, then those with the fewest tries (never one that makes its
    address wait)."""
    from signoff.web.throttle import LoginThrottle

    now = [0.0]
    throttle = LoginThrottle(allowed=3, allowed_in_all=5, window_seconds=60, keep=3,
                             clock=lambda: now[0])
    for second in (0, 10, 20):
        now[0] = second
        assert throttle.begin("10.0.0.1", "noor") == 0
    now[0] = 30
    assert throttle.begin("10.0.0.1", "NOOR ") == 30
    assert throttle.begin("10.0.0.2", "noor") == 0
    assert throttle.begin("10.0.0.3", "noor") == 0
    assert throttle.begin("10.0.0.4", "noor") == 30  # five from every address: all wait
    throttle.succeeded("10.0.0.3", "noor")
    assert throttle.begin("10.0.0.4", "noor") == 0
    now[0] = 60.5
    assert throttle.begin("10.0.0.1", "noor") == 0  # the first try left the window
    assert throttle.begin("10.0.0.1", "noor") == 10
    now[0] = 200
    assert throttle.begin("10.0.0.5", "mia") == 0
    assert throttle.begin("10.0.0.5", "mia") == 0
    assert throttle.begin("10.0.0.5", "mia") == 0
    assert throttle.begin("10.0.0.5", "mia") == 60  # (noor's pairs, no longer counting, forgotten)
    assert throttle.begin("10.0.0.6", "ola") == 0
    assert throttle.begin("10.0.0.7", "ola") == 0
    assert throttle.begin("10.0.0.8", "ola") == 0  # past three pairs kept: ola's first, of one try
    assert throttle.begin("10.0.0.5", "mia") == 60  # (mia's pair, making her wait, is kept)


def test_session_cookies_are_httponly_lax_and_secure(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The session cookie is HttpOnly and SameSite=Lax, and Secure unless turned off; turned
    off, still Secure when given over https."""
    shop = open_workshop(tmp_path, monkeypatch, passwords=True)
    for secure, scheme in ((True, "https"), (False, "http"), (False, "https")):
        client = TestClient(create_web_app(shop.app, secure_cookies=secure),
                            base_url=f"{scheme}://testserver")
        token = _csrf(client, "/login")
        answer = client.post("/login", data={"handle": "noor@workshop.example",
                                             "password": PASSWORD, "csrf": token},
                             follow_redirects=False)
        cookie = next(v for k, v in answer.headers.multi_items()
                      if k == "set-cookie" and v.startswith("signoff_session="))
        assert "HttpOnly" in cookie
        assert "SameSite=lax" in cookie
        assert ("Secure" in cookie) is (secure or scheme == "https")


@pytest.mark.parametrize("typed", ["42", "true", '"quoted"', "null", "[1, 2]"])
def test_a_changed_text_is_what_was_typed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          typed: str) -> None:
    """Approve with changes, for a text argument: what the decider typed is the value, however
    it reads (it was read as JSON: 42, true and [1, 2] were refused as "not text", null as
    left empty, and "quoted" ran without its quotes)."""
    from signoff import Permits
    from signoff.testing import ScriptedModel, says

    shop = open_workshop(tmp_path, monkeypatch, passwords=True)

    class Careful(shop.Estimator):  # type: ignore[name-defined, misc]
        may = Permits(never=[shop.scrap_repair])

    shop.app.add_agent(Careful, sponsor=shop.noor)
    outcome = shop.app.agent(Careful).do(shop.EstimateRepair(), shop.repair, for_=shop.mia,
                                         model=ScriptedModel(
        says.tool(shop.note_repair, repair=shop.repair.id, note="Pads."),
        says.hand_back(shop.Estimate(hours=Decimal(1), summary="Noted."))))
    (proposal,) = shop.app.proposals(task=outcome.task)
    client = _logged_in(shop, "mia@workshop.example")
    page = f"/proposals/{proposal.id}"
    answer = client.post(f"{page}/approve", data={
        "changes": "1", "set.note": typed, "csrf": _csrf(client, page)}, follow_redirects=False)
    assert answer.status_code == 303
    assert shop.app.proposal(proposal.id).status is ProposalStatus.DONE, client.get(page).text
    with shop.app.session(as_=shop.app.system) as s:
        assert s.get(shop.Repair, shop.repair.id).note == typed


def test_a_form_too_large_or_of_too_many_fields_is_told_as_a_page(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A no whose reason is over the body's limit, and a form of more fields than are read, are
    answered as pages that say so and lead back (a browser was shown the API's JSON, and a form
    was told "The body could not be read as a JSON object"); nothing is decided."""
    shop = open_workshop(tmp_path, monkeypatch, passwords=True)
    price(shop)
    (proposal,) = shop.app.proposals()
    client = _logged_in(shop, "mia@workshop.example")
    page = f"/proposals/{proposal.id}"
    csrf = _csrf(client, page)
    large = client.post(f"{page}/reject", data={"reason": "x" * (2 * 1024 * 1024), "csrf": csrf},
                        follow_redirects=False)
    assert large.status_code == 413
    assert large.headers["content-type"].startswith("text/html")
    assert "This request&#x27;s body is larger than the 1048576 bytes this server takes" in large.text
    assert f'<a href="{page}">Back</a>' in large.text
    many = client.post(f"{page}/reject", data={**{f"f{i}": "x" for i in range(1500)},
                                               "reason": "No.", "csrf": csrf},
                       follow_redirects=False)
    assert many.status_code == 400
    assert "This form could not be read (Too many fields. Maximum number of fields is 1000)" in (
        many.text)
    assert shop.app.proposal(proposal.id).status is ProposalStatus.WAITING
