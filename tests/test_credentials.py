"""Credentials: passwords hashed with Argon2, bearer tokens kept only as digests."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from signoff import App, NotFound, PrincipalKind, UserError
from signoff.security import credentials as credentials_module
from signoff.security.credentials import passwords_table, tokens_table

PASSWORD = "correct horse battery"


@pytest.fixture
def app() -> App:
    """An app with Noor (a person) and a robot account."""
    app = App("creds", database="sqlite://")
    app.people.add("noor@example.com", "Noor", roles=["manager"])
    app.people.add("robot", "Robot", kind=PrincipalKind.AGENT)
    return app


def test_a_password_is_stored_hashed_and_checked(app: App) -> None:
    """The right password finds the person; a wrong one, an unknown handle, or none set finds
    nobody; only an Argon2id hash is stored."""
    noor = app.people.get("noor@example.com")
    assert app.credentials.check_password("noor@example.com", PASSWORD) is None  # none set yet
    app.credentials.set_password(noor, PASSWORD)
    assert app.credentials.check_password("noor@example.com", PASSWORD) == noor
    assert app.credentials.check_password("noor@example.com", PASSWORD + "!") is None
    assert app.credentials.check_password("nobody@example.com", PASSWORD) is None
    assert app.credentials.has_password(noor)
    with app.database.connect() as db:
        (stored,) = db.execute(select(passwords_table.c.hash)).scalars().all()
    assert stored.startswith("$argon2id$")
    assert PASSWORD not in stored


def test_a_disabled_person_cannot_log_in(app: App) -> None:
    """A disabled person's right password finds nobody; enabled again, it does."""
    noor = app.people.get("noor@example.com")
    app.credentials.set_password(noor, PASSWORD)
    app.people.disable(noor)
    assert app.credentials.check_password("noor@example.com", PASSWORD) is None
    app.people.enable(noor)
    assert app.credentials.check_password("noor@example.com", PASSWORD) is not None


def test_no_token_for_a_disabled_person_nor_one_expired_as_it_is_made(app: App) -> None:
    """A token for a disabled person let nothing in, and was issued without a word; one that
    expires in no time (``timedelta(0)``) never expired. Both are refused, saying what to do."""
    noor = app.people.get("noor@example.com")
    app.people.disable(noor)
    with pytest.raises(UserError, match=r"Noor is disabled, and a token of theirs would let "
                                        r"nothing in: enable them first"):
        app.credentials.issue_token(noor)
    app.people.enable(noor)
    for never in (timedelta(0), timedelta(seconds=-1)):
        with pytest.raises(UserError, match="A token expires some time after it is made"):
            app.credentials.issue_token(noor, expires_in=never)
    assert app.credentials.principal_for_token(
        app.credentials.issue_token(noor, expires_in=timedelta(days=1))) == noor


def test_roles_given_as_one_name_are_one_role(app: App) -> None:
    """``roles="manager"`` was taken as seven roles of one letter each."""
    assert app.people.add("ola@example.com", "Ola", roles="manager").roles == {"manager"}
    assert app.people.set_roles(app.people.get("ola@example.com"), "clerk").roles == {"clerk"}


def test_short_passwords_and_agents_passwords_are_refused(app: App) -> None:
    """A password under ten characters, or one for an agent's account, is a UserError."""
    with pytest.raises(UserError, match="at least 10 characters; this one has 5"):
        app.credentials.set_password("noor@example.com", "short")
    with pytest.raises(UserError, match="agent's account"):
        app.credentials.set_password("robot", PASSWORD)


def test_a_token_finds_its_owner_and_only_its_digest_is_kept(app: App) -> None:
    """An issued token finds its principal; the database holds neither the token nor its
    secret; a changed or malformed token finds nobody."""
    noor = app.people.get("noor@example.com")
    token = app.credentials.issue_token(noor, "deploy script")
    assert token.startswith("so_")
    assert app.credentials.principal_for_token(token) == noor
    with app.database.connect() as db:
        rows = [dict(r._mapping) for r in db.execute(select(tokens_table))]
    secret = token.rsplit("_", 1)[1]
    assert all(secret not in str(value) for row in rows for value in row.values())
    assert app.credentials.principal_for_token(token[:-1] + ("A" if token[-1] != "A" else "B")) is None
    for malformed in ("", "so_", "so_x_y", "Bearer " + token, token.replace("so_", "xx_")):
        assert app.credentials.principal_for_token(malformed) is None


def test_revoked_expired_and_disabled_tokens_find_nobody(app: App,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A revoked token, an expired one and a disabled person's token all find nobody; the
    listing says which still work."""
    noor = app.people.get("noor@example.com")
    kept = app.credentials.issue_token(noor, "kept")
    revoked = app.credentials.issue_token(noor, "revoked")
    made = credentials_module._now()
    monkeypatch.setattr(credentials_module, "_now", lambda: made - timedelta(hours=2))
    expired = app.credentials.issue_token(noor, "expired", expires_in=timedelta(hours=1))
    monkeypatch.setattr(credentials_module, "_now", lambda: made)
    info = app.credentials.revoke_token(revoked.split("_")[1])
    assert not info.active
    assert app.credentials.principal_for_token(revoked) is None
    assert app.credentials.principal_for_token(expired) is None
    assert [(t.label, t.active) for t in app.credentials.tokens(noor)] == [
        ("expired", False), ("kept", True), ("revoked", False)  # (by when each was made)
    ]
    app.credentials.revoke_token(revoked)  # twice, by the whole token: no harm
    app.people.disable(noor)
    assert app.credentials.principal_for_token(kept) is None
    with pytest.raises(NotFound, match="no token with the id"):  # the CLI's exit 3
        app.credentials.revoke_token("0123456789abcdef")
