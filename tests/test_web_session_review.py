"""Sessions, the login form and the headers of every answer, on a real server on loopback: a
session the server ended leaves its person free to log in again; a new password or being
disabled ends a person's sessions (not their own tokens); the page refusing a too large form
leads back only within the site; every answer carries the same security headers, a
Content-Security-Policy included, under which every page of the inbox still works and runs only
the script and style that carry its answer's nonce."""

from __future__ import annotations

import re
import socket
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest
from argon2 import PasswordHasher
from playwright.sync_api import Browser, ConsoleMessage, Route, expect

from signoff.web import create_web_app
from tests.workshop_web import PASSWORD, bearer, open_workshop, price, served

SECURITY = ("x-content-type-options", "x-frame-options", "referrer-policy", "cache-control",
            "content-security-policy")
"""The headers every answer carries."""

TEMPLATES = Path(__file__).parent.parent / "signoff" / "web" / "templates"
"""The inbox's templates."""

NONCE = re.compile(r"'nonce-([A-Za-z0-9_-]{22,})'")
"""A nonce named in a Content-Security-Policy (`secrets.token_urlsafe(16)`: 22 characters)."""


def _policy(answer: httpx.Response) -> dict[str, list[str]]:
    """The answer's Content-Security-Policy: each directive's sources."""
    return {d.split(" ")[0]: d.split(" ")[1:]
            for d in answer.headers["content-security-policy"].split("; ")}


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SimpleNamespace]:
    """The workshop, with passwords, served by uvicorn on 127.0.0.1 in a thread of this process
    (a body over 4000 bytes refused)."""
    shop = open_workshop(tmp_path, monkeypatch, passwords=True)
    web = create_web_app(shop.app, secure_cookies=False, refresh_seconds=0.3,
                         max_body_bytes=4000)
    with served(web) as port:
        shop.port = port
        shop.url = f"http://127.0.0.1:{port}"
        yield shop


def _form_token(client: httpx.Client, path: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', client.get(path).text)
    assert found is not None
    return found.group(1)


def _log_in(client: httpx.Client, handle: str, password: str = PASSWORD) -> httpx.Response:
    """Open the login form and post it, as a browser does (its cookies kept)."""
    return client.post("/login", data={"handle": handle, "password": password,
                                       "csrf": _form_token(client, "/login")})


def _browser(shop: SimpleNamespace) -> httpx.Client:
    return httpx.Client(base_url=shop.url, follow_redirects=False)


def _in(shop: SimpleNamespace, session: str) -> bool:
    """Whether this session's cookie opens the inbox."""
    return httpx.get(f"{shop.url}/", cookies={"signoff_session": session}).status_code == 200


def _api_takes(shop: SimpleNamespace, token: str) -> bool:
    """Whether the API takes this token."""
    answer = httpx.get(f"{shop.url}/api/me", headers={"Authorization": f"Bearer {token}"})
    return answer.status_code == 200


# -- the login form, whatever session cookie comes with it ---------------------------------


@pytest.mark.parametrize("ended", ["revoked", "disabled and enabled again"])
def test_a_session_ended_on_the_server_leaves_its_person_free_to_log_in(
        shop: SimpleNamespace, ended: str) -> None:
    """The browser keeps the cookie of a session the server ended; the login form takes its own
    token all the same, and Ola logs in (no 403 until the dead cookie expires)."""
    with _browser(shop) as browser:
        assert _log_in(browser, "ola@workshop.example").status_code == 303
        dead = browser.cookies["signoff_session"]
        if ended == "revoked":
            shop.app.credentials.revoke_token(dead)
        else:
            shop.app.people.enable(shop.app.people.disable(shop.ola))
        assert browser.get("/").headers["location"] == "/login?next=/"
        assert browser.cookies["signoff_session"] == dead  # still sent
        answer = _log_in(browser, "ola@workshop.example")
        assert (answer.status_code, answer.headers["location"]) == (303, "/")
        assert browser.get("/").status_code == 200


def test_a_person_logged_in_who_opens_the_login_form_logs_in_again(shop: SimpleNamespace
                                                                    ) -> None:
    """Logged in, Ola opens the login form (a bookmark) and logs in: a new session, and the one
    it replaces in her browser ends."""
    with _browser(shop) as browser:
        assert _log_in(browser, "ola@workshop.example").status_code == 303
        first = browser.cookies["signoff_session"]
        answer = _log_in(browser, "ola@workshop.example")
        assert (answer.status_code, answer.headers["location"]) == (303, "/")
        assert browser.cookies["signoff_session"] != first
        assert browser.get("/").status_code == 200
    assert not _in(shop, first)


def test_the_login_form_still_refuses_a_token_not_its_own(shop: SimpleNamespace) -> None:
    """With a session cookie, live or ended, the login form takes only its own token: not the
    session's, not another visitor's."""
    with _browser(shop) as browser, _browser(shop) as other:
        assert _log_in(browser, "ola@workshop.example").status_code == 303
        session_token = _form_token(browser, "/tasks")  # the session's forms' token
        for given in (session_token, _form_token(other, "/login"), ""):
            answer = browser.post("/login", data={"handle": "ola@workshop.example",
                                                  "password": PASSWORD, "csrf": given})
            assert answer.status_code == 403


# -- a new password, or being disabled, ends the sessions ----------------------------------


def test_sessions_end_when_the_account_is_recovered(shop: SimpleNamespace) -> None:
    """A session taken before an admin disables Ola, sets her a new password and enables her
    again opens nothing afterwards, neither the inbox nor the API; her own token (`signoff
    users token`) works again once she is enabled."""
    with _browser(shop) as browser:
        assert _log_in(browser, "ola@workshop.example").status_code == 303
        taken = browser.cookies["signoff_session"]
    assert _in(shop, taken)
    assert _api_takes(shop, taken)
    shop.app.people.disable(shop.ola)
    shop.app.credentials.set_password(shop.ola, "a brand new password")
    shop.app.people.enable(shop.ola)
    assert not _in(shop, taken)
    assert not _api_takes(shop, taken)
    assert _api_takes(shop, shop.tokens["Ola"])
    with _browser(shop) as browser:
        assert _log_in(browser, "ola@workshop.example", "a brand new password").status_code == 303


@pytest.mark.parametrize("change", ["a new password", "disabled and enabled again"])
def test_each_of_a_new_password_and_being_disabled_ends_every_session(
        shop: SimpleNamespace, change: str) -> None:
    """Both of Ola's sessions end at a new password alone, and at being disabled alone (enabled
    again, she logs in again); Noor's session and Ola's own token go on."""
    sessions = []
    for handle in ("ola@workshop.example", "ola@workshop.example", "noor@workshop.example"):
        with _browser(shop) as browser:
            assert _log_in(browser, handle).status_code == 303
            sessions.append(browser.cookies["signoff_session"])
    if change == "a new password":
        shop.app.credentials.set_password(shop.ola, "a brand new password")
    else:
        shop.app.people.enable(shop.app.people.disable(shop.ola))
    assert [_in(shop, session) for session in sessions] == [False, False, True]
    assert _api_takes(shop, shop.tokens["Ola"])
    assert _api_takes(shop, shop.clients["Ola"]) is False  # (a client's: never the API's)
    assert shop.app.credentials.end_sessions(shop.ola) == 0  # none left open


def test_a_password_hashed_again_at_login_ends_no_session(shop: SimpleNamespace) -> None:
    """A login that rehashes the same password (the hasher's parameters changed) is no new
    password: the sessions open go on."""
    with _browser(shop) as browser:
        assert _log_in(browser, "ola@workshop.example").status_code == 303
        first = browser.cookies["signoff_session"]
    shop.app.credentials.use_hasher(PasswordHasher(time_cost=2, memory_cost=1024, parallelism=1))
    with _browser(shop) as browser:
        assert _log_in(browser, "ola@workshop.example").status_code == 303
    assert _in(shop, first)


# -- the page refusing a too large form ------------------------------------------------------


def _too_large(port: int, path: str) -> tuple[str, dict[str, str], str]:
    """POST `path` saying a body of a million bytes, sent raw (the path as it is written):
    the status line, the headers and the page answered."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000000\r\n"
                     "Content-Type: application/x-www-form-urlencoded\r\n\r\n".encode())
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.decode("latin-1").partition("\r\n\r\n")
    status, *lines = head.split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines)}
    return status, headers, body


@pytest.mark.parametrize(("path", "back"), [
    ("//evil.example/approve", "/"),
    ("/%2F%2Fevil.example/approve", "/"),
    ("/%2F/evil.example/approve", "/"),
    ("/%5Cevil.example/approve", "/"),
    ("/%5C%5Cevil.example/approve", "/"),
    ("/%09/evil.example/approve", "/"),
    ("/%0A/evil.example/reject", "/"),
    ("http://evil.example/approve", "/"),
    ("/proposals/p-1/approve", "/proposals/p-1"),
    ("/proposals/a%20b%22/reject", "/proposals/a%20b%22"),
    ("/rules/r-1/revoke", "/rules/r-1"),
    ("/proposals/p-1", "/"),
])
def test_the_page_refusing_a_too_large_form_leads_back_only_within_the_site(
        shop: SimpleNamespace, path: str, back: str) -> None:
    """413, and its "Back" link is the form's page when that is a path on this site (one `/`
    first, no backslash, nothing a browser drops), else the inbox."""
    status, _, body = _too_large(shop.port, path)
    assert status.split(" ")[1] == "413"
    assert re.findall(r'href="([^"]*)"', body) == [back]


def test_the_page_refusing_a_too_large_form_carries_every_page_s_headers(
        shop: SimpleNamespace) -> None:
    """The 413 page carries the security headers the login page carries (no frame around it,
    its Content-Security-Policy); the API's 413, the API's."""
    _, headers, _ = _too_large(shop.port, "/proposals/p-1/approve")
    page = dict(httpx.get(f"{shop.url}/login").headers)
    # (The same policy, but the login page's script and style carry its nonce; the 413 page,
    # which has none, runs no script or style at all.)
    page["content-security-policy"] = NONCE.sub("'none'", page["content-security-policy"])
    assert {name: headers.get(name) for name in SECURITY} == {name: page[name]
                                                               for name in SECURITY}
    _, headers, _ = _too_large(shop.port, "/api/proposals/p-1/approve")
    api = httpx.get(f"{shop.url}/api/me", headers=bearer(shop, "Ola")).headers
    assert {name: headers.get(name) for name in SECURITY} == {name: api[name] for name in SECURITY}


# -- the headers of every answer -------------------------------------------------------------


def test_every_answer_carries_the_security_headers(shop: SimpleNamespace) -> None:
    """Pages, the API's answers (refusals and its description too): no sniffing, no frame, no
    copy kept, and a Content-Security-Policy that loads nothing from elsewhere."""
    with _browser(shop) as browser:
        assert _log_in(browser, "noor@workshop.example").status_code == 303
        answers = [browser.get(path) for path in ("/", "/login", "/tasks", "/rules", "/agents",
                                                  "/nowhere")]
    answers += [httpx.get(f"{shop.url}{path}", headers=bearer(shop, "Noor"))
                for path in ("/api/me", "/api/proposals", "/api/openapi.json", "/api/nowhere")]
    answers.append(httpx.get(f"{shop.url}/api/me"))  # 401, answered before any route
    for answer in answers:
        headers = answer.headers
        assert headers["cache-control"] == "no-store", answer.url
        assert headers["x-frame-options"] == "DENY", answer.url
        assert headers["x-content-type-options"] == "nosniff", answer.url
        assert headers["referrer-policy"] == "same-origin", answer.url
        policy = _policy(answer)
        assert "'unsafe-inline'" not in headers["content-security-policy"], answer.url
        assert policy["default-src"] == ["'none'"], answer.url
        assert policy["frame-ancestors"] == ["'none'"], answer.url
        assert all("http" not in source for sources in policy.values() for source in sources)
    page = answers[0].headers["content-security-policy"]
    assert "connect-src 'self'" in page
    assert "form-action 'self'" in page
    assert "script-src" not in answers[6].headers["content-security-policy"]  # (/api/me)
    for answer in answers[:6]:  # each page (the 404 too) names a nonce of its own
        found = NONCE.search(answer.headers["content-security-policy"])
        assert found is not None, answer.url
        assert _policy(answer)["script-src"] == _policy(answer)["style-src"] == [found.group(0)]
    assert len({NONCE.findall(a.headers["content-security-policy"])[0]
                for a in answers[:6]}) == 6


def test_a_page_s_policy_names_the_nonce_its_own_script_and_style_carry(
        shop: SimpleNamespace) -> None:
    """Script and style run only by the nonce of the answer (no 'unsafe-inline', which would
    run anything put into the page): the inbox's own script and style carry it, and the same
    page asked for again carries another."""
    with _browser(shop) as browser:
        assert _log_in(browser, "noor@workshop.example").status_code == 303
        first, again = browser.get("/"), browser.get("/")
    nonces = []
    for answer in (first, again):
        policy = _policy(answer)
        assert "'unsafe-inline'" not in answer.headers["content-security-policy"]
        found = NONCE.fullmatch(policy["script-src"][0])
        assert found is not None
        assert policy["script-src"] == policy["style-src"]
        tags = re.findall(r"<(script|style)\b([^>]*)>", answer.text)
        assert sorted(kind for kind, _ in tags) == ["script", "style"]
        assert all(attributes == f' nonce="{found.group(1)}"' for _, attributes in tags)
        nonces.append(found.group(1))
    assert nonces[0] != nonces[1]


def test_no_template_has_what_a_nonce_does_not_cover() -> None:
    """No inline event handler, ``style`` attribute or ``javascript:`` address in any
    template (a nonce lets none of them run), and every <script> and <style> carries the
    nonce."""
    for template in sorted(TEMPLATES.glob("*.html")):
        text = template.read_text()
        assert not re.search(r"\son[a-z]+\s*=", text, re.IGNORECASE), template.name
        assert not re.search(r"\sstyle\s*=", text, re.IGNORECASE), template.name
        assert "javascript:" not in text.lower(), template.name
        for tag in re.findall(r"<(?:script|style)\b[^>]*>", text, re.IGNORECASE):
            assert tag.endswith(' nonce="{{ nonce }}">'), (template.name, tag)


def test_the_api_is_described_by_its_openapi_and_no_page_of_scripts_from_elsewhere(
        shop: SimpleNamespace) -> None:
    """/api/openapi.json is there for anyone; /api/docs (Swagger UI from a CDN) is not."""
    described = httpx.get(f"{shop.url}/api/openapi.json")
    assert described.status_code == 200
    assert described.json()["info"]["title"].endswith("signoff")
    docs = httpx.get(f"{shop.url}/api/docs")
    assert docs.status_code in (401, 404)
    assert "<script" not in docs.text


# -- every page of the inbox works under its policy --------------------------------------------


def test_a_script_put_into_a_page_without_the_nonce_does_not_run(shop: SimpleNamespace,
                                                                  browser: Browser) -> None:
    """In Chromium, the login page as the server answers it (its headers unchanged), with a
    script and a style put into it that do not carry its nonce: neither is applied, while the
    page's own style is."""
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(10_000)

    def inject(route: Route) -> None:
        answer = route.fetch()
        body = answer.text().replace(
            "</main>", "<script>document.title = 'injected';</script>"
                       "<style>main { display: none; }</style></main>")
        route.fulfill(response=answer, body=body)

    try:
        page.route(f"{shop.url}/login", inject)
        page.goto(f"{shop.url}/login")
        expect(page.get_by_role("heading", name="Log in")).to_be_visible()
        assert page.title() != "injected"
        assert page.evaluate("getComputedStyle(document.querySelector('main')).display") == (
            "block")
        assert page.evaluate("getComputedStyle(document.body).margin") == "0px"  # (its own)
    finally:
        context.close()


def test_every_page_works_under_the_content_security_policy(shop: SimpleNamespace,
                                                            browser: Browser) -> None:
    """In Chromium: no page breaks a rule of its policy (console), and the inbox's own script
    still runs: it shows a proposal made after the page was loaded."""
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(10_000)
    refused: list[str] = []

    def heard(message: ConsoleMessage) -> None:
        if "Content Security Policy" in message.text:
            refused.append(message.text)

    page.on("console", heard)
    try:
        page.goto(f"{shop.url}/login")
        page.get_by_label("E-mail address").fill("noor@workshop.example")
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Log in").click()
        expect(page).to_have_url(f"{shop.url}/")
        expect(page.locator("#nothing")).to_be_visible()
        outcome = price(shop, fleet=True)
        expect(page.locator("#proposals tbody tr")).to_have_count(1)  # (its script ran)
        assert page.evaluate("getComputedStyle(document.body).margin") == "0px"  # (its style)
        proposal = shop.app.proposals(task=outcome.task)[0]
        for path in (f"/proposals/{proposal.id}", "/tasks", f"/tasks/{outcome.task}", "/rules",
                     "/agents"):
            page.goto(f"{shop.url}{path}")
        page.goto(f"{shop.url}/proposals/{proposal.id}")
        page.locator("#approve").click()
        expect(page.locator("#status")).to_have_text("Done")
        page.get_by_role("button", name="Log out").click()
        expect(page.get_by_role("heading", name="Log in")).to_be_visible()
    finally:
        context.close()
    assert refused == []
