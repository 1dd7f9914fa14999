"""Credentials given values no password, handle or token can be: half a character (a lone
surrogate, as a name that is not UTF-8 is read by Python), or an expiry past the year 9999. Each
is refused in words (`UserError`, `NotFound`) or answers nobody, as a wrong one does: never a
UnicodeEncodeError or an OverflowError from below."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from argon2 import PasswordHasher

from signoff import App, NotFound, UserError
from signoff.security.principals import Principal

PASSWORD = "pedal-crank-17"
HALF = "\udcff"
"""Half a character: what a byte that is not UTF-8 becomes in a name Python reads from the
system (surrogateescape)."""


@pytest.fixture
def shop(tmp_path: Path) -> tuple[App, Principal]:
    """An app in a SQLite file, with Noor and her password."""
    app = App("shop", database=f"sqlite:///{tmp_path / 'shop.db'}")
    app.credentials.use_hasher(PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1))
    noor = app.people.add("noor@shop.example", "Noor")
    app.credentials.set_password(noor, PASSWORD)
    return app, noor


def test_a_password_of_half_characters_is_refused_in_words(shop: tuple[App, Principal]) -> None:
    """Setting one is a UserError naming the character; the password set before still works."""
    app, noor = shop
    with pytest.raises(UserError, match="U\\+DCFF, half of a character"):
        app.credentials.set_password(noor, "pedal" + HALF * 10)
    assert app.credentials.check_password("noor@shop.example", PASSWORD) == noor


@pytest.mark.parametrize(("handle", "password"), [
    ("noor@shop.example", PASSWORD + HALF),
    ("noor" + HALF + "@shop.example", PASSWORD),
])
def test_checking_half_characters_answers_nobody(shop: tuple[App, Principal], handle: str,
                                                 password: str) -> None:
    """A handle or a password holding half a character matches nobody, as a wrong one."""
    app, _ = shop
    assert app.credentials.check_password(handle, password) is None


def test_a_token_with_half_a_character_is_nobodys_and_revokes_nothing(
        shop: tuple[App, Principal]) -> None:
    """A token whose secret is changed to hold half a character finds nobody (the token itself
    still works); revoking an id that holds one is NotFound; a label that holds one is a
    UserError."""
    app, noor = shop
    token = app.credentials.issue_token(noor, "laptop")
    assert app.credentials.principal_for_token(token[:-1] + HALF) is None
    assert app.credentials.purpose_of_token(token[:-1] + HALF) is None
    with pytest.raises(NotFound, match="no token"):
        app.credentials.revoke_token(HALF)
    with pytest.raises(UserError, match="label is text"):
        app.credentials.issue_token(noor, "lap" + HALF)
    assert app.credentials.principal_for_token(token) == noor


def test_an_expiry_past_the_last_date_is_refused_in_words(shop: tuple[App, Principal]) -> None:
    """expires_in of a million years is a UserError saying what to give; no token is made."""
    app, noor = shop
    before = len(app.credentials.tokens(noor))
    with pytest.raises(UserError, match="cannot expire as late as"):
        app.credentials.issue_token(noor, "forever", expires_in=timedelta(days=365_000_000))
    assert len(app.credentials.tokens(noor)) == before
