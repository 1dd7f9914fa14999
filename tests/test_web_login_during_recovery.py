"""A login whose password is being checked while an admin recovers the account (a new password,
or disabling the person) opens no session, and does not put the old password back: the check
takes its time on purpose (Argon2), and what the admin did meanwhile wins.

The hasher is Argon2's own, paused inside its check until the admin has acted, so that the two
meet in the same order every run, on a real server on loopback."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Literal

import httpx
import pytest
from argon2 import PasswordHasher

from tests.workshop_web import PASSWORD, open_workshop, served_shop

NEW_PASSWORD = "a new one, 2 of them"


class PausingHasher(PasswordHasher):
    """Argon2's hasher (cheap parameters), which, once `armed`, stops inside `verify` until
    `go` is set, having said it got there (`entered`)."""

    def __init__(self, **parameters: Any) -> None:
        super().__init__(**parameters)
        self.armed = False
        self.entered = threading.Event()
        self.go = threading.Event()

    def verify(self, hash: str | bytes, password: str | bytes) -> Literal[True]:
        if self.armed:
            self.armed = False
            self.entered.set()
            assert self.go.wait(timeout=30), "the test never let the check go on"
        return super().verify(hash, password)


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SimpleNamespace]:
    """The workshop with passwords, served by uvicorn on 127.0.0.1."""
    with served_shop(open_workshop(tmp_path, monkeypatch, passwords=True)) as shop:
        yield shop


@pytest.fixture
def browser(shop: SimpleNamespace) -> Iterator[httpx.Client]:
    """Ola's browser: an HTTP client that keeps the cookies it is given."""
    with httpx.Client(base_url=shop.url, follow_redirects=False) as client:
        yield client


def _log_in_while(browser: httpx.Client, hasher: PausingHasher, recover: Any) -> httpx.Response:
    """Ola posts the login form with her password; while it is being checked, `recover()`
    runs. What the form answered."""
    found = re.search(r'name="csrf" value="([^"]+)"', browser.get("/login").text)
    assert found is not None
    answered: list[httpx.Response] = []
    hasher.armed = True
    posting = threading.Thread(target=lambda: answered.append(browser.post(
        "/login", data={"handle": "ola@workshop.example", "password": PASSWORD,
                        "csrf": found.group(1)})))
    posting.start()
    assert hasher.entered.wait(timeout=30), "the login never reached the password's check"
    try:
        recover()
    finally:
        hasher.go.set()
        posting.join(timeout=30)
    (answer,) = answered
    return answer


def _opens_the_inbox(shop: SimpleNamespace, browser: httpx.Client) -> bool:
    session = browser.cookies.get("signoff_session")
    return session is not None and httpx.get(
        f"{shop.url}/", cookies={"signoff_session": session}).status_code == 200


def test_a_new_password_set_during_the_check_wins(shop: SimpleNamespace,
                                                  browser: httpx.Client) -> None:
    """The admin sets Ola a new password while her old one is being checked: the login fails
    as a wrong password does, and no session opens the inbox."""
    hasher = PausingHasher(time_cost=1, memory_cost=1024, parallelism=1)
    shop.app.credentials.use_hasher(hasher)
    answer = _log_in_while(
        browser, hasher, lambda: shop.app.credentials.set_password(shop.ola, NEW_PASSWORD))
    assert (answer.status_code, answer.headers["location"]) == (303, "/login")
    assert not _opens_the_inbox(shop, browser)
    assert shop.app.credentials.check_password("ola@workshop.example", PASSWORD) is None


def test_being_disabled_during_the_check_wins(shop: SimpleNamespace,
                                              browser: httpx.Client) -> None:
    """The admin disables Ola while her password is being checked: the login fails as a wrong
    password does (no error page), and no session opens the inbox once she is enabled."""
    hasher = PausingHasher(time_cost=1, memory_cost=1024, parallelism=1)
    shop.app.credentials.use_hasher(hasher)
    answer = _log_in_while(browser, hasher, lambda: shop.app.people.disable(shop.ola))
    assert (answer.status_code, answer.headers["location"]) == (303, "/login")
    shop.app.people.enable(shop.ola)
    assert not _opens_the_inbox(shop, browser)


def test_hashing_again_at_login_does_not_put_the_old_password_back(
        shop: SimpleNamespace, browser: httpx.Client) -> None:
    """Ola's password was hashed with other parameters, so a good login hashes it again; the
    admin sets her a new one while the old is being checked: the new one stays hers, and the
    old one opens nothing."""
    hasher = PausingHasher(time_cost=2, memory_cost=2048, parallelism=1)  # (not as stored)
    shop.app.credentials.use_hasher(hasher)
    answer = _log_in_while(
        browser, hasher, lambda: shop.app.credentials.set_password(shop.ola, NEW_PASSWORD))
    assert answer.headers["location"] == "/login"
    assert not _opens_the_inbox(shop, browser)
    assert shop.app.credentials.check_password("ola@workshop.example", NEW_PASSWORD) == shop.ola
    assert shop.app.credentials.check_password("ola@workshop.example", PASSWORD) is None
