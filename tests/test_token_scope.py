"""Tokens have a purpose: a person's own decides; an MCP client's calls the agent's tools and
can say yes to nothing, anywhere (the REST API, the inbox, the command line)."""

from __future__ import annotations

import hashlib
import hmac
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import httpx
import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, inspect, text

from signoff import App, ProposalStatus, UserError
from signoff.cli import main
from signoff.cli.failures import EXIT_USAGE
from signoff.security.credentials import CLIENT_TOKEN_REFUSED, TokenPurpose
from signoff.store.migrate import current_revision, downgrade, head_revision, upgrade
from signoff.web import create_web_app
from signoff.web.auth import SESSION_COOKIE
from tests.mcp_servers import environment, free_port, http_server, over_http
from tests.workshop_web import PASSWORD, open_workshop, price, repair_price

APP = ["--app", "examples/workshop.py"]
CANNOT_DECIDE = "A client's token cannot decide a proposal"


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    """The workshop in a SQLite file, a fleet price waiting on Noor, Noor's own token and an
    MCP client's token of hers, and a profile of the test's own."""
    monkeypatch.setenv("SIGNOFF_PROFILE", str(tmp_path / "profile.json"))
    monkeypatch.delenv("SIGNOFF_AS", raising=False)
    monkeypatch.delenv("SIGNOFF_TOKEN", raising=False)
    shop = open_workshop(tmp_path, monkeypatch)
    shop.own = shop.tokens["Noor"]
    shop.client_token = shop.clients["Noor"]
    (shop.proposal,) = shop.app.proposals(task=price(shop, fleet=True))
    shop.web = TestClient(create_web_app(shop.app, secure_cookies=False))
    return shop


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


# -- credentials ------------------------------------------------------------------------------


def test_a_clients_token_is_its_persons_only_where_a_client_is_asked_for(
        shop: SimpleNamespace) -> None:
    """A client's token finds Noor only when a client's token is asked for; her own token only
    when a person's is (the default); each says what it is for, and the listing too."""
    credentials = shop.app.credentials
    assert credentials.principal_for_token(shop.client_token) is None
    assert credentials.principal_for_token(shop.client_token,
                                           purpose=TokenPurpose.CLIENT) == shop.noor
    assert credentials.principal_for_token(shop.own) == shop.noor
    assert credentials.principal_for_token(shop.own, purpose=TokenPurpose.CLIENT) is None
    assert credentials.purpose_of_token(shop.client_token) is TokenPurpose.CLIENT
    assert credentials.purpose_of_token(shop.own) is TokenPurpose.PERSON
    assert credentials.purpose_of_token("so_0123456789abcdef_madeup") is None
    assert [t.purpose for t in credentials.tokens(shop.noor)] == [TokenPurpose.PERSON,
                                                                 TokenPurpose.CLIENT]
    assert credentials.issue_token(shop.noor, purpose="client")  # (its value does too)
    with pytest.raises(UserError, match=r"A token's purpose is TokenPurpose.PERSON \(\"person\"\) "
                                        r"or TokenPurpose.CLIENT \(\"client\"\), not 'admin'"):
        credentials.issue_token(shop.noor, purpose="admin")


def test_a_revoked_clients_token_and_a_disabled_persons_say_nothing_of_their_purpose(
        shop: SimpleNamespace) -> None:
    """A token that does not work has no purpose to tell: it is refused as any bad token is."""
    credentials = shop.app.credentials
    credentials.revoke_token(shop.client_token)
    assert credentials.purpose_of_token(shop.client_token) is None
    assert credentials.principal_for_token(shop.client_token, purpose=TokenPurpose.CLIENT) is None


def test_a_token_of_a_purpose_this_version_does_not_know_is_taken_by_nothing(
        shop: SimpleNamespace) -> None:
    """A token whose stored purpose this version does not know (a newer release's) neither
    decides nor calls tools: it was read as a client's, and the MCP endpoints took it."""
    credentials = shop.app.credentials
    with shop.app.database.engine.begin() as db:
        db.execute(text("UPDATE signoff_tokens SET purpose = 'auditor'"))
    for purpose in TokenPurpose:
        assert credentials.principal_for_token(shop.client_token, purpose=purpose) is None
        assert credentials.principal_for_token(shop.own, purpose=purpose) is None
    assert credentials.purpose_of_token(shop.client_token) is None


def test_an_agents_own_account_gets_no_token(shop: SimpleNamespace) -> None:
    """An agent's own account is given no token, of either purpose (one was issued, and the
    REST API then answered it as the agent): it is refused in a sentence naming whom to give
    one to."""
    account = shop.app.agent(shop.Estimator).registered.account
    for purpose in TokenPurpose:
        with pytest.raises(UserError, match="is an agent's own account: it gets no token"):
            shop.app.credentials.issue_token(account, purpose=purpose)
    assert shop.app.credentials.tokens(account) == []


# -- the REST API and the inbox -----------------------------------------------------------------


@pytest.mark.parametrize(("method", "path", "body"), [
    ("POST", "/api/proposals/{id}/approve", {}),
    ("POST", "/api/proposals/{id}/approve", {"always": True}),
    ("POST", "/api/proposals/{id}/reject", {"reason": "Not me."}),
    ("POST", "/api/rules/{rule}/revoke", {"why": "x"}),
    ("GET", "/api/proposals", None),
    ("GET", "/api/me", None),
])
def test_the_rest_api_refuses_a_clients_token_and_decides_nothing(
        shop: SimpleNamespace, method: str, path: str, body: dict[str, Any] | None) -> None:
    """Every operation of the REST API, each decision first, answers a client's token 403 with
    the sentence that says a client cannot decide and how a person does; the proposal still
    waits, Noor's standing rule stands, and nothing ran (the client approved its own proposal,
    200)."""
    rule = shop.app.allow_alone(shop.Estimator, "parts_for", by=shop.noor)
    url = path.format(id=shop.proposal.id, rule=rule.id)
    answer = shop.web.request(method, url, headers=_bearer(shop.client_token), json=body)
    assert answer.status_code == 403, answer.text
    assert answer.headers["content-type"] == "application/problem+json"
    problem = answer.json()
    assert problem["type"] == "urn:signoff:problem:client-token"
    assert problem["detail"] == CLIENT_TOKEN_REFUSED
    assert CANNOT_DECIDE in problem["detail"]
    assert "`signoff approve PROPOSAL_ID`" in problem["detail"]
    assert shop.app.proposal(shop.proposal.id).status is ProposalStatus.WAITING
    assert [r.revoked_at for r in shop.app.rules()] == [None]
    assert repair_price(shop) == 0


def test_a_persons_own_token_still_decides_as_before(shop: SimpleNamespace) -> None:
    """Noor's own token (every token made before tokens had a purpose is one) approves over the
    REST API, and the price is set."""
    answer = shop.web.post(f"/api/proposals/{shop.proposal.id}/approve",
                           headers=_bearer(shop.own), json={})
    assert answer.status_code == 200, answer.text
    assert answer.json()["status"] == "Done"
    assert repair_price(shop) == 45


def test_a_clients_token_in_the_session_cookie_opens_no_session(shop: SimpleNamespace) -> None:
    """A client's token put in the inbox's session cookie, with the CSRF token derived from it,
    is nobody's: its decision form is sent to the login page, and nothing is decided."""
    csrf = hmac.new(shop.client_token.encode(), b"signoff csrf", hashlib.sha256).hexdigest()
    shop.web.cookies.set(SESSION_COOKIE, shop.client_token)
    page = shop.web.get(f"/proposals/{shop.proposal.id}", follow_redirects=False)
    assert page.status_code in (303, 307), page.text
    assert "/login" in page.headers["location"]
    posted = shop.web.post(f"/proposals/{shop.proposal.id}/approve", data={"csrf": csrf},
                           follow_redirects=False)
    assert posted.status_code in (303, 307), posted.text
    assert posted.headers["location"].startswith("/login")
    assert shop.app.proposal(shop.proposal.id).status is ProposalStatus.WAITING
    assert repair_price(shop) == 0


def test_logging_out_with_a_clients_token_in_the_cookie_leaves_it_alone(
        shop: SimpleNamespace) -> None:
    """The inbox's log-out revokes only a session of its own: a client's token that came in the
    cookie is not a session, and keeps working for its client."""
    shop.app.credentials.set_password(shop.noor, PASSWORD)
    shop.web.cookies.set(SESSION_COOKIE, shop.client_token)
    shop.web.post("/logout", data={"csrf": "x"}, follow_redirects=False)
    assert shop.app.credentials.principal_for_token(
        shop.client_token, purpose=TokenPurpose.CLIENT) == shop.noor


# -- the command line -----------------------------------------------------------------------------


@pytest.mark.parametrize("verb", [["approve", "{id}"], ["approve", "{id}", "--always"],
                                  ["reject", "{id}", "--reason", "No."], ["proposals"],
                                  ["rules", "revoke", "{rule}"]])
def test_the_commands_that_decide_refuse_a_clients_token(shop: SimpleNamespace,
                                                         verb: list[str]) -> None:
    """`signoff approve`, `reject`, `proposals` and `rules revoke` given a client's token exit
    4 with the sentence that says a client cannot decide; nothing is decided or revoked."""
    rule = shop.app.allow_alone(shop.Estimator, "parts_for", by=shop.noor)
    argv = [word.format(id=shop.proposal.id, rule=rule.id) for word in verb]
    done = CliRunner().invoke(main, [*argv, *APP, "--token", shop.client_token])
    assert done.exit_code == 4, done.output
    said = " ".join(done.output.split())
    assert CANNOT_DECIDE in said
    assert "Traceback" not in said
    assert shop.app.proposal(shop.proposal.id).status is ProposalStatus.WAITING
    assert [r.revoked_at for r in shop.app.rules()] == [None]
    assert repair_price(shop) == 0


def test_users_token_client_issues_a_clients_token_and_lists_it_so(
        shop: SimpleNamespace) -> None:
    """`signoff users token HANDLE --client` prints a client's token, labelled "mcp client", that
    the commands refuse and `--list` marks; without --client, Noor's own, which decides."""
    issued = CliRunner().invoke(main, ["users", "token", "noor@workshop.example", "--client",
                                       *APP])
    assert issued.exit_code == 0, issued.output
    token = issued.output.strip()
    credentials = shop.app.credentials
    assert credentials.purpose_of_token(token) is TokenPurpose.CLIENT
    assert credentials.principal_for_token(token, purpose=TokenPurpose.CLIENT) == shop.noor
    listed = CliRunner().invoke(main, ["users", "token", "noor@workshop.example", "--list", *APP])
    (line,) = [each for each in listed.output.splitlines() if each.startswith(token[3:19])]
    assert "mcp client  (MCP client's)" in line
    own = CliRunner().invoke(main, ["users", "token", "noor@workshop.example", *APP])
    assert credentials.purpose_of_token(own.output.strip()) is TokenPurpose.PERSON


@pytest.mark.parametrize("asked", [["--client", "--save"], ["--client", "--list"]])
def test_a_clients_token_is_not_saved_for_commands_nor_asked_with_a_listing(
        shop: SimpleNamespace, asked: list[str]) -> None:
    """`--client --save` would keep a token no command can act with: a usage error says why,
    and no token is issued; `--client` with `--list` asks two things at once."""
    before = len(shop.app.credentials.tokens(shop.noor))
    done = CliRunner().invoke(main, ["users", "token", "noor@workshop.example", *asked, *APP])
    assert done.exit_code == EXIT_USAGE, done.output
    said = " ".join(done.output.split())
    assert ("--client and --save do not go together" if "--save" in asked
            else "give one of them") in said
    assert len(shop.app.credentials.tokens(shop.noor)) == before


def test_mcp_token_client_issues_a_guards_clients_token(tmp_path: Path) -> None:
    """`signoff mcp token CONFIG HANDLE --client` gives a guard's person a client's token; the
    guard's commands that decide refuse it (`signoff mcp approve`, exit 4)."""
    from signoff.mcp.config import GuardConfig
    from signoff.mcp.guard import open_guard_app

    config = tmp_path / "guard.toml"
    config.write_text('name = "guard"\ndatabase = "sqlite:///guard.db"\n'
                      'for = "noor@example.com"\n\n[[people]]\nhandle = "noor@example.com"\n'
                      'name = "Noor"\n\n[servers.files]\ncommand = "true"\n')
    issued = CliRunner().invoke(main, ["mcp", "token", str(config), "noor@example.com",
                                       "--client"])
    assert issued.exit_code == 0, issued.output
    app = open_guard_app(GuardConfig.load(config))
    token = issued.output.strip()
    assert app.credentials.purpose_of_token(token) is TokenPurpose.CLIENT
    (info,) = app.credentials.tokens(app.people.find("noor@example.com"))
    assert info.label == "mcp client"
    listed = CliRunner().invoke(main, ["mcp", "tasks", str(config), "--token", token])
    assert listed.exit_code == 4, listed.output
    assert CANNOT_DECIDE in " ".join(listed.output.split())


# -- MCP: the probe's scenario --------------------------------------------------------------------


@pytest.fixture
def served(shop: SimpleNamespace, tmp_path: Path) -> Any:
    """`signoff mcp serve --http --inbox --wait 0` on the workshop, as the MCP guide runs it."""
    shop.app.database.dispose()  # (the server's connections and the test's share the file)
    port = free_port()
    env = environment(WORKSHOP_DATABASE=f"sqlite:///{tmp_path / 'workshop.db'}")
    with http_server(["mcp", "serve", *APP, "--agent", "estimator", "--subject",
                      str(shop.repair.id), "--http", f"127.0.0.1:{port}", "--inbox",
                      "--wait", "0"], env, port) as url:
        yield url


def test_an_mcp_client_cannot_approve_what_it_proposed(shop: SimpleNamespace,
                                                       served: str) -> None:
    """The client connects with Noor's client token: its set_price is proposed to Noor; the
    same token approving it over the REST API beside is refused (403), the proposal waits and
    the price is unchanged; Noor's own token approves it, and it runs (it ran with the client's
    token: "Noor approved set_price; it ran as Noor and the agent together")."""

    async def call() -> Any:
        async with over_http(served, token=shop.client_token) as client:
            return await client.call_tool("set_price", {"repair": str(shop.repair.id),
                                                        "price": 999})

    answered = anyio.run(call)
    assert "waits on their decision" in answered.content[0].text, answered.content[0].text
    proposal_id = answered.structured_content["proposal"]
    refused = httpx.post(f"{served}/api/proposals/{proposal_id}/approve",
                         headers=_bearer(shop.client_token), json={})
    assert refused.status_code == 403, refused.text
    assert refused.json()["detail"] == CLIENT_TOKEN_REFUSED
    assert shop.app.proposal(proposal_id).status is ProposalStatus.WAITING
    assert repair_price(shop) == 0
    approved = httpx.post(f"{served}/api/proposals/{proposal_id}/approve",
                          headers=_bearer(shop.own), json={})
    assert approved.status_code == 200, approved.text
    assert repair_price(shop) == 999


def test_mcp_serve_refuses_a_persons_own_token(shop: SimpleNamespace, served: str) -> None:
    """A person's own token sent to the MCP endpoint (as the MCP guide once said to) is refused,
    403, saying a client must not hold one and naming the command that makes a client's; a
    request without a token is told that command too (401). Nothing is proposed."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    own = httpx.post(f"{served}/mcp", json=body, headers=_bearer(shop.own))
    assert own.status_code == 403, own.text
    assert own.json()["type"] == "urn:signoff:problem:person-token"
    detail = " ".join(own.json()["detail"].split())
    assert "an MCP client must not hold one" in detail
    assert "`signoff users token HANDLE --client --app examples/workshop.py`" in detail
    nothing = httpx.post(f"{served}/mcp", json=body)
    assert nothing.status_code == 401
    assert "`signoff users token HANDLE --client --app examples/workshop.py`" in (
        nothing.json()["detail"])

    async def call() -> None:
        async with over_http(served, token=shop.own) as client:
            await client.call_tool("set_price", {"repair": str(shop.repair.id), "price": 999})

    with pytest.raises(BaseExceptionGroup) as raised:  # (the SDK's task group's)
        anyio.run(call)
    assert "an MCP client must not hold one" in repr(raised.value.exceptions)  # signoff's words
    assert [p.id for p in shop.app.proposals()] == [shop.proposal.id]


# -- the migration ------------------------------------------------------------------------------


def test_tokens_made_before_purposes_are_peoples_own_and_going_back_revokes_clients(
        tmp_path: Path) -> None:
    """A database at 0012 with Noor's token is upgraded: the token is her own, as it was (it
    still decides: no one is locked out). Taken back to 0012, a client's token is revoked (a
    version that cannot tell it apart would let it decide) and her own is not; forward again,
    her own still works and the client's does not."""
    url = f"sqlite:///{tmp_path / 'old.db'}"
    old_token = "so_0123456789abcdef_secret"
    engine = create_engine(url)
    try:
        with engine.begin() as connection:  # Noor and her token, as 0012 kept them
            upgrade(connection, "0012_steps_by_key")
            assert "purpose" not in {c["name"] for c in inspect(connection).get_columns(
                "signoff_tokens")}
            connection.execute(text(
                "INSERT INTO signoff_principals (id, handle, name, kind, roles, disabled) "
                "VALUES ('p1', 'noor@x.example', 'Noor', 'person', '[]', 0)"))
            connection.execute(text(
                "INSERT INTO signoff_tokens (id, principal_id, digest, label, created_at) VALUES "
                "('0123456789abcdef', 'p1', :digest, 'laptop', '2026-01-01 00:00:00.000000')"),
                {"digest": hashlib.sha256(b"secret").hexdigest()})
    finally:
        engine.dispose()
    app = App("old", database=url)  # opening it upgrades it
    noor = app.people.get("noor@x.example")
    assert app.credentials.principal_for_token(old_token) == noor
    assert app.credentials.purpose_of_token(old_token) is TokenPurpose.PERSON
    client = app.credentials.issue_token(noor, "mcp client", purpose=TokenPurpose.CLIENT)
    app.database.dispose()
    engine = create_engine(url)
    try:
        with engine.begin() as connection:
            assert current_revision(connection) == head_revision()
            downgrade(connection, "0012_steps_by_key")
        with engine.connect() as connection:
            assert "purpose" not in {c["name"] for c in inspect(connection).get_columns(
                "signoff_tokens")}
            revoked = {row[0]: row[1] is not None for row in connection.execute(text(
                "SELECT id, revoked_at FROM signoff_tokens"))}
    finally:
        engine.dispose()
    assert revoked == {"0123456789abcdef": False, client[3:19]: True}
    app = App("old", database=url)  # forward again, as it opens
    assert app.credentials.principal_for_token(old_token) == noor
    assert app.credentials.principal_for_token(client, purpose=TokenPurpose.CLIENT) is None
    app.database.dispose()
