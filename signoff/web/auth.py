"""Who is asking: bearer tokens for the API, a session cookie and CSRF tokens for the inbox.

A browser session is a token from `Credentials` (labelled "web session", good for 12 hours), kept
in an HttpOnly, SameSite=Lax cookie: Secure always when the app is served with secure cookies
(the default), otherwise whenever the request came over https (see `Browser.secure_for`), so that
plain http on a developer's machine still works and no cookie given over https goes back over
http. Every form carries a CSRF token derived from the session token (HMAC), so a page on another
site cannot post one; the login form carries a random token that must match a cookie of its own
(double submit), whatever session cookie comes with it: one the server ended (revoked, its person
disabled, a new password set), or a live one, of a person who opens the login form logged in.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from fastapi import Request
from fastapi.responses import Response

from signoff.app import App
from signoff.security.credentials import CLIENT_TOKEN_REFUSED, TokenPurpose
from signoff.security.principals import Principal
from signoff.web.problems import ProblemError

PERSON_STATE = "signoff_person"
"""The request state's name for the principal whose token `Admission` checked."""

__all__ = ["SESSION_COOKIE", "Browser", "bearer_principal", "bearer_principal_of"]

SESSION_COOKIE = "signoff_session"
LOGIN_COOKIE = "signoff_login"
LOGIN_FORM = "/login"
"""Where the login form is posted: it takes its own token (`LOGIN_COOKIE`), not the session's."""
SAID_COOKIE = "signoff_said"
SESSION_LIFETIME = timedelta(hours=12)
_SAID_LIMIT = 3000
"""The most a page's message and typed values take in their cookie (a browser keeps 4096 bytes
of one)."""


def bearer_principal(app: App, request: Request) -> Principal:
    """The principal whose bearer token came with the request (checked already, before its body
    was read, by `Admission`); a 401 problem otherwise."""
    checked = getattr(request.state, PERSON_STATE, None)
    if isinstance(checked, Principal):
        return checked
    return bearer_principal_of(app, request.headers.get("authorization", ""))


def bearer_principal_of(app: App, header: str) -> Principal:
    """The principal whose bearer token is in this Authorization `header`, a person's own; a
    403 problem for an MCP client's token (it cannot decide, nor read what a person may), a 401
    problem otherwise."""
    scheme, _, token = header.partition(" ")
    challenge = {"WWW-Authenticate": 'Bearer realm="signoff"'}
    if scheme.lower() != "bearer" or not token.strip():
        raise ProblemError(401, "Send a bearer token: Authorization: Bearer so_… (one made "
                                "with `signoff users token HANDLE`).",
                           type_="urn:signoff:problem:no-token", headers=challenge)
    person = app.credentials.principal_for_token(token.strip())
    if person is None and app.credentials.purpose_of_token(token.strip()) is TokenPurpose.CLIENT:
        raise ProblemError(403, CLIENT_TOKEN_REFUSED, type_="urn:signoff:problem:client-token")
    if person is None:  # (the command line says the same of one given with --token)
        raise ProblemError(401, "This token is unknown, revoked or expired, or its owner is "
                                "disabled: ask for a new one (`signoff users token HANDLE`).",
                           type_="urn:signoff:problem:bad-token", headers=challenge)
    return person


@dataclass(frozen=True)
class Browser:
    """Sessions and CSRF tokens of the inbox's visitors."""

    app: App
    secure: bool
    """Whether every cookie is Secure; when not, those given over https still are."""

    def secure_for(self, request: Request) -> bool:
        """Whether the cookies given in answer to `request` are Secure: always when `secure`,
        else when it came over https, to this server or to a proxy in front of it that says so
        (``X-Forwarded-Proto: https``, or ``Forwarded: proto=https``). Those headers are
        believed only to make a cookie stricter: forged, they harm no one but whoever forged
        them, whose own cookie then does not come back over plain http."""
        return self.secure or _over_https(request)

    def person(self, request: Request) -> Principal | None:
        """Who is logged in (read afresh: a disabled person is logged out), or None. Only a
        person's own token opens a session: an MCP client's, put in the cookie, is nobody's."""
        token = request.cookies.get(SESSION_COOKIE, "")
        return self.app.credentials.principal_for_token(token) if token else None

    def log_in(self, request: Request, response: Response, person: Principal,
               token: str) -> None:
        """Put `person`'s session `token` (`Credentials.log_in`'s) in a cookie on `response`
        to `request`; the session this browser had, if one is still open, ends (its cookie is
        replaced)."""
        self._end(request)
        secure = self.secure_for(request)
        response.set_cookie(SESSION_COOKIE, token, max_age=int(SESSION_LIFETIME.total_seconds()),
                            httponly=True, samesite="lax", secure=secure, path="/")
        response.delete_cookie(LOGIN_COOKIE, path="/", httponly=True, samesite="lax",
                               secure=secure)

    def log_out(self, request: Request, response: Response) -> None:
        """End the session: its token is revoked, its cookie removed."""
        self._end(request)
        response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="lax",
                               secure=self.secure_for(request))

    def _end(self, request: Request) -> None:
        """Revoke the session token that came with `request`, when it still works."""
        token = request.cookies.get(SESSION_COOKIE, "")
        if token and self.app.credentials.principal_for_token(token) is not None:
            self.app.credentials.revoke_token(token)

    def csrf(self, request: Request) -> str:
        """The CSRF token this visitor's forms carry (but the login form: `login_token`)."""
        token = request.cookies.get(SESSION_COOKIE, "")
        if token:
            return hmac.new(token.encode(), b"signoff csrf", hashlib.sha256).hexdigest()
        return request.cookies.get(LOGIN_COOKIE, "")

    def login_token(self, request: Request) -> str:
        """The CSRF token of the login form: the visitor's own, or a new one (to be set with
        `remember_login_token`)."""
        return request.cookies.get(LOGIN_COOKIE, "") or secrets.token_urlsafe(24)

    def remember_login_token(self, request: Request, response: Response, token: str) -> None:
        """Keep the login form's token in its own cookie, when the visitor has none yet."""
        if request.cookies.get(LOGIN_COOKIE, "") != token:
            response.set_cookie(LOGIN_COOKIE, token, max_age=3600, httponly=True, samesite="lax",
                                secure=self.secure_for(request), path="/")

    def say_on(self, request: Request, response: Response, page: str, said: dict[str, Any]
               ) -> None:
        """Keep what `page` should say once, after a form posted from it was refused and
        `response` redirects back to it (post/redirect/get: a reload of the page posts nothing
        again): its message under ``error``, the values the person typed under ``values``. A
        cookie for that page only, bound to this session (before one, as on the login page, to
        the visitor's login form token); the values are left out when they would not fit in
        it."""
        token = _visit(request)
        if not token:
            return
        for kept in (said, {k: v for k, v in said.items() if k != "values"}):
            text = json.dumps(kept, separators=(",", ":"))
            if len(text) <= _SAID_LIMIT:
                break
        else:  # a message longer than a cookie holds: its beginning, said to be cut
            text = json.dumps({"error": str(said.get("error", ""))[:_SAID_LIMIT // 2] + "…"})
        value = base64.urlsafe_b64encode(text.encode()).decode()
        response.set_cookie(SAID_COOKIE, f"{value}.{_said_mac(token, value)}", max_age=300,
                            httponly=True, samesite="lax", secure=self.secure_for(request),
                            path=page)

    def said_on(self, request: Request) -> dict[str, Any]:
        """What a redirect back to this page left it to say (see `say_on`); {} when nothing, or
        when it is not this session's (or this visitor's, before a session). Said once:
        `forget_said` on the page's response."""
        kept = request.cookies.get(SAID_COOKIE, "")
        token = _visit(request)
        value, _, mac = kept.rpartition(".")
        if not kept or not token or not hmac.compare_digest(mac.encode(),
                                                              _said_mac(token, value).encode()):
            return {}
        try:
            said = json.loads(base64.urlsafe_b64decode(value.encode()))
        except ValueError:
            return {}
        return said if isinstance(said, dict) else {}

    def forget_said(self, request: Request, response: Response, page: str) -> None:
        """Remove what `page` was left to say, once it has said it (a reload says it no more)."""
        if SAID_COOKIE in request.cookies:
            response.delete_cookie(SAID_COOKIE, path=page, httponly=True, samesite="lax",
                                   secure=self.secure_for(request))

    def check_csrf(self, request: Request, given: object) -> None:
        """Refuse (403) a form whose CSRF token is missing or not this visitor's: the login
        form's own (its cookie's) for the login form, the session's for every other."""
        expected = (request.cookies.get(LOGIN_COOKIE, "") if request.url.path == LOGIN_FORM
                    else self.csrf(request))
        if not expected and isinstance(given, str) and given:  # a form of ours, no cookie back
            raise ProblemError(403, self._no_cookie_back(request), type_="urn:signoff:problem:csrf")
        if not expected or not isinstance(given, str) or not hmac.compare_digest(expected, given):
            raise ProblemError(403, "This form did not come from this page (its CSRF token is "
                                    "missing or out of date): go back, reload it, and try again.",
                               type_="urn:signoff:problem:csrf")

    def _no_cookie_back(self, request: Request) -> str:
        """Why a form came with its token but without the cookie it was given with, and what to
        do: reloading never mends it. Served with Secure cookies, a page reached over plain http
        (such as `--host 0.0.0.0` opened by the machine's address) gets cookies its browser
        sends back over https alone."""
        if self.secure and not _over_https(request):
            return ("Your browser did not send this server's cookie back: the inbox gives Secure "
                    "cookies, which a browser sends only over https, and this page came over "
                    "plain http. Open the inbox over https (behind a proxy that serves it so), "
                    "or, on your own machine, start it with `signoff serve --insecure-cookies`.")
        return ("Your browser did not send this server's cookie back, and the inbox needs it to "
                "know this form is yours: allow cookies for this site, reload the page, and try "
                "again.")


def _over_https(request: Request) -> bool:
    """Whether `request` came over https, to this server or to a proxy that says so."""
    return request.url.scheme == "https" or _forwarded_over_https(request)


def _forwarded_over_https(request: Request) -> bool:
    """Whether a proxy in front says `request` came to it over https: ``X-Forwarded-Proto``
    (its first value, the client's side), or ``Forwarded`` (RFC 7239: its first element's
    ``proto``)."""
    given = request.headers.get("x-forwarded-proto", "").partition(",")[0]
    if given.strip().lower() == "https":
        return True
    first = request.headers.get("forwarded", "").partition(",")[0]
    for pair in first.split(";"):
        name, _, value = pair.partition("=")
        if name.strip().lower() == "proto":
            return value.strip().strip('"').lower() == "https"
    return False


def _visit(request: Request) -> str:
    """The secret of this visit, that a page's kept message is bound to: the session's token,
    or, before a session, the login form's (its own cookie, random); "" when there is neither."""
    return request.cookies.get(SESSION_COOKIE, "") or request.cookies.get(LOGIN_COOKIE, "")


def _said_mac(visit_token: str, value: str) -> str:
    """What binds a page's kept message to the visit it was said in (see `_visit`)."""
    return hmac.new(visit_token.encode(), b"signoff said " + value.encode(),
                    hashlib.sha256).hexdigest()
