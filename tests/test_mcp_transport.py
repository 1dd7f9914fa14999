"""``signoff mcp serve --http`` on loopback, as its clients meet it: a refused token told to the
SDK's own client in signoff's sentence (and to a plain HTTP client as a problem), and the
inbox's cookies ``Secure`` whenever the request came over https."""

from __future__ import annotations

import re
import ssl
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import httpx
import pytest
import uvicorn

from signoff.mcp.served import ServedAgent
from signoff.mcp.transport import http_app
from tests.mcp_servers import environment, free_port, http_server, over_http
from tests.workshop_web import PASSWORD, open_workshop

ISSUING = "`signoff users token HANDLE --client --app examples/workshop.py`"
"""The command every refusal names, for the workshop."""

CSRF = re.compile(r'name="csrf" value="([^"]+)"')


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    """The workshop in a SQLite file the served process shares, with everyone's tokens and
    passwords, and the command that serves its estimator."""
    shop = open_workshop(tmp_path, monkeypatch, passwords=True)
    shop.env = environment(WORKSHOP_DATABASE=f"sqlite:///{tmp_path / 'workshop.db'}")
    shop.serve = ["mcp", "serve", "--app", "examples/workshop.py", "--agent", "estimator",
                  "--subject", str(shop.repair.id)]
    return shop


def _errors(error: BaseException) -> list[BaseException]:
    """`error`, or every error an exception group (the SDK's task groups') holds, at any depth."""
    if isinstance(error, BaseExceptionGroup):
        return [found for inner in error.exceptions for found in _errors(inner)]
    return [error]


def _told(url: str, token: str) -> list[str]:
    """What an SDK client connecting to `url` with `token` is told as it fails: the message of
    each MCP error it raises."""
    from mcp.shared.exceptions import MCPError

    async def connect() -> None:
        async with over_http(url, token=token) as client:
            await client.list_tools()

    try:
        anyio.run(connect)
    except BaseException as error:  # (a group of them, from the SDK's task groups)
        return [e.message for e in _errors(error) if isinstance(e, MCPError)]
    raise AssertionError("the client was served")


def test_an_sdk_client_is_told_why_its_token_is_refused(shop: SimpleNamespace) -> None:
    """The SDK's streamable HTTP client, connecting with a person's own token, with none, with
    a forged one or with a revoked client token, fails with signoff's sentence saying what to
    do (before, every one of them read "Server returned an error response"); a client token
    that works is served."""
    revoked = shop.app.credentials.issue_token(shop.mia, "old laptop",
                                               purpose=_client_purpose())
    shop.app.credentials.revoke_token(revoked.split("_")[1])
    port = free_port()
    with http_server([*shop.serve, "--http", f"127.0.0.1:{port}"], shop.env, port) as url:
        told = {case: _told(url, token) for case, token in (
            ("own", shop.tokens["Noor"]), ("none", ""),
            ("forged", "so_0123456789abcdef_madeup"), ("revoked", revoked))}

        async def served() -> list[str]:
            async with over_http(url, token=shop.clients["Mia"]) as client:
                return [tool.name for tool in (await client.list_tools()).tools]

        tools = anyio.run(served)
    own = " ".join(" ".join(told["own"]).split())
    assert "This is a person's own token, which can decide proposals, and an MCP client must " \
           "not hold one" in own, told
    assert ISSUING in own
    assert told["none"] == [f"Send a signoff client token: Authorization: Bearer so_… (from "
                            f"{ISSUING})."], told
    gone = (f"This token is unknown, revoked or expired, or its owner is disabled: ask for a new "
            f"one ({ISSUING}).")
    assert told["forged"] == [gone], told
    assert told["revoked"] == [gone], told
    assert "note_repair" in tools


def _client_purpose() -> Any:
    from signoff.security.credentials import TokenPurpose

    return TokenPurpose.CLIENT


def test_a_plain_http_client_still_meets_401_and_403(shop: SimpleNamespace) -> None:
    """A refused request keeps its status whoever asks: 403 for a person's own token, 401
    (with a Bearer challenge) for none. A client that accepts what an MCP client must
    (application/json and text/event-stream) reads a JSON-RPC error with signoff's sentence
    and the problem in its data; any other reads the problem (application/problem+json)."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    mcp_accept = {"Accept": "application/json, text/event-stream"}
    own = {"Authorization": f"Bearer {shop.tokens['Noor']}"}
    port = free_port()
    with http_server([*shop.serve, "--http", f"127.0.0.1:{port}"], shop.env, port) as url:
        answers = {
            "own, plain": httpx.post(f"{url}/mcp", json=body, headers=own),
            "own, mcp": httpx.post(f"{url}/mcp", json=body, headers={**own, **mcp_accept}),
            "none, plain": httpx.post(f"{url}/mcp", json=body),
            "none, mcp": httpx.post(f"{url}/mcp", json=body, headers=mcp_accept),
            "none, asks for a problem": httpx.post(f"{url}/mcp", json=body, headers={
                "Accept": "application/problem+json, application/json"}),
        }
    statuses = {case: answer.status_code for case, answer in answers.items()}
    assert statuses == {"own, plain": 403, "own, mcp": 403, "none, plain": 401, "none, mcp": 401,
                        "none, asks for a problem": 401}
    kinds = {case: answer.headers["content-type"] for case, answer in answers.items()}
    assert kinds == {"own, plain": "application/problem+json", "own, mcp": "application/json",
                     "none, plain": "application/problem+json", "none, mcp": "application/json",
                     "none, asks for a problem": "application/problem+json"}
    challenged = {case for case, answer in answers.items()
                  if answer.headers.get("www-authenticate") == 'Bearer realm="signoff"'}
    assert challenged == {"none, plain", "none, mcp", "none, asks for a problem"}
    problem, rpc = answers["own, plain"].json(), answers["own, mcp"].json()
    assert problem["type"] == "urn:signoff:problem:person-token"
    assert problem["status"] == 403
    assert ISSUING in problem["detail"]
    assert rpc == {"jsonrpc": "2.0", "id": None, "error": {
        "code": -32600, "message": problem["detail"],
        "data": {"type": "urn:signoff:problem:person-token", "title": "Forbidden",
                 "status": 403}}}


# -- the inbox's cookies ---------------------------------------------------------------------


def _cookies(answer: httpx.Response) -> dict[str, str]:
    """The Set-Cookie headers of `answer`, by cookie name."""
    return {header.partition("=")[0]: header for header in answer.headers.get_list("set-cookie")}


def _secure(set_cookie: str) -> bool:
    return "secure" in [part.strip().lower() for part in set_cookie.split(";")]


def _log_in(url: str, headers: dict[str, str], *, verify: Any = True) -> tuple[str, str]:
    """Log Noor in to the inbox at `url`, with `headers` on each request; the Set-Cookie of the
    login form's cookie and of the session's. The cookies are sent back by hand, as a browser
    on the https side of a proxy would (httpx keeps no Secure cookie from plain http)."""
    with httpx.Client(base_url=url, verify=verify) as web:
        form = web.get("/login", headers=headers)
        web.cookies.clear()
        login = _cookies(form)["signoff_login"]
        answer = web.post("/login", headers={**headers, "Cookie": login.partition(";")[0]},
                          data={"csrf": CSRF.findall(form.text)[0], "next": "/",
                                "handle": "noor@workshop.example", "password": PASSWORD})
        web.cookies.clear()
        assert answer.status_code == 303, answer.text
        session = _cookies(answer)["signoff_session"]
        inbox = web.get("/", headers={**headers, "Cookie": session.partition(";")[0]})
    assert inbox.status_code == 200, inbox.text  # the session works
    assert "Log out" in inbox.text
    return login, session


def test_the_inbox_cookies_are_secure_when_the_request_came_over_https(
        shop: SimpleNamespace) -> None:
    """`signoff mcp serve --http --inbox` on loopback: over plain http the login form's and the
    session's cookies are not Secure (a browser would not send them back), and logging in
    works; behind a proxy that says the request came over https (X-Forwarded-Proto, or
    Forwarded), they are Secure (before, never)."""
    port = free_port()
    with http_server([*shop.serve, "--http", f"127.0.0.1:{port}", "--inbox"], shop.env,
                     port) as url:
        plain = _log_in(url, {})
        forwarded = _log_in(url, {"X-Forwarded-Proto": "https"})
        standard = _log_in(url, {"Forwarded": 'for=192.0.2.1;proto="https"'})
        other = _log_in(url, {"X-Forwarded-Proto": "http"})
        with httpx.Client(base_url=url) as browser:  # its own jar, as a browser keeps it
            form = browser.get("/login")
            answer = browser.post("/login", data={
                "csrf": CSRF.findall(form.text)[0], "next": "/",
                "handle": "noor@workshop.example", "password": PASSWORD})
            inbox = browser.get("/")
    assert [_secure(c) for c in plain] == [False, False]
    assert [_secure(c) for c in forwarded] == [True, True]
    assert [_secure(c) for c in standard] == [True, True]
    assert [_secure(c) for c in other] == [False, False]
    assert all("httponly" in c.lower() and "samesite=lax" in c.lower()
               for c in (*plain, *forwarded))
    assert answer.status_code == 303, answer.text  # a client keeping cookies as a browser does
    assert inbox.status_code == 200, inbox.text


@contextmanager
def _tls_server(target: Any, tmp_path: Path) -> Iterator[tuple[str, ssl.SSLContext]]:
    """`target` served by uvicorn over TLS on loopback, in a thread, with a certificate made
    for 127.0.0.1; its base URL and a context that trusts it."""
    cert, key = _certificate(tmp_path)
    server = uvicorn.Server(uvicorn.Config(target, host="127.0.0.1", port=free_port(),
                                           log_level="warning", lifespan="on",
                                           ssl_certfile=str(cert), ssl_keyfile=str(key)))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        assert thread.is_alive(), "the server stopped"
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    trust = ssl.create_default_context(cafile=str(cert))
    try:
        yield f"https://127.0.0.1:{port}", trust
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def _certificate(tmp_path: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1, and its key."""
    import datetime
    import ipaddress

    crypto = pytest.importorskip("cryptography")
    del crypto
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=1))
            .not_valid_after(now + datetime.timedelta(hours=1))
            .add_extension(x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


def test_the_inbox_cookies_are_secure_when_served_over_tls(shop: SimpleNamespace,
                                                           tmp_path: Path) -> None:
    """MCP and the inbox as `signoff mcp serve --inbox` puts them together (`http_app`), served
    over TLS by uvicorn: the login form's and the session's cookies are Secure, and logging in
    works over https."""
    served = ServedAgent(shop.app, "estimator", subject=shop.repair)
    with _tls_server(http_app(served, shop.app, host="127.0.0.1", inbox=True), tmp_path
                     ) as (url, trust):
        cookies = _log_in(url, {}, verify=trust)
    assert [_secure(c) for c in cookies] == [True, True]
