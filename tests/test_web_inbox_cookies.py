"""The inbox's cookies as a browser keeps them: one served with Secure cookies (the default) and
opened over plain http gets cookies its browser never sends back, and the login form says why
and what to do, instead of asking to reload it (which never mends it).

A real server on loopback, and a client whose cookie jar follows the standard: a Secure cookie
goes back over https alone (`http.cookiejar`, as a browser does on any host but its own)."""

from __future__ import annotations

import http.cookiejar
import re
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from signoff.web import create_web_app
from tests.workshop_web import PASSWORD, open_workshop, served


@contextmanager
def _served(web: object) -> Iterator[str]:
    """`web` served by uvicorn on 127.0.0.1 while the block runs: its base URL."""
    with served(web) as port:
        yield f"http://127.0.0.1:{port}"


class _Kept(urllib.request.HTTPRedirectHandler):
    """Answers a redirect as it is, not followed: the login's 303 is what is looked at."""

    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


def _log_in(base: str) -> tuple[int, str]:
    """Open the login form and post it, as a browser keeping cookies by the standard: the
    status and the page of the answer."""
    browser = urllib.request.build_opener(
        urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()), _Kept())
    with browser.open(f"{base}/login") as form:
        csrf = re.search(r'name="csrf" value="([^"]+)"', form.read().decode())
    assert csrf is not None
    posted = urllib.parse.urlencode({"csrf": csrf[1], "next": "/", "password": PASSWORD,
                                     "handle": "noor@workshop.example"}).encode()
    try:
        with browser.open(f"{base}/login", data=posted) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def test_secure_cookies_over_plain_http_say_to_serve_with_insecure_cookies(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Served with Secure cookies and opened over http, the login is refused in a sentence that
    names why (the cookie goes back over https alone) and the two ways out; no word of
    reloading, which would fail the same way."""
    shop = open_workshop(tmp_path, monkeypatch, passwords=True)
    with _served(create_web_app(shop.app, secure_cookies=True)) as base:
        status, page = _log_in(base)
    assert status == 403
    said = re.sub(r"\s+", " ", page)
    assert "sends only over https" in said
    assert "signoff serve --insecure-cookies" in said
    assert "reload it" not in said


def test_insecure_cookies_over_plain_http_log_in(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """With --insecure-cookies the same client logs in: back to the inbox."""
    shop = open_workshop(tmp_path, monkeypatch, passwords=True)
    with _served(create_web_app(shop.app, secure_cookies=False)) as base:
        status, _ = _log_in(base)
    assert status == 303
