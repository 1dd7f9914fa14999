"""The people's side on the web: a REST API under ``/api`` and the inbox pages (FastAPI).

``create_web_app(app)`` gives an ASGI application; ``uvicorn`` serves it. FastAPI and the rest of
the ``web`` extra are imported only when it is called, so ``import signoff`` stays fast::

    from signoff.web import create_web_app
    web = create_web_app(app, secure_cookies=False)   # plain http, on a developer's machine
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fastapi import FastAPI

    from signoff.app import App

__all__ = ["create_web_app"]


def create_web_app(app: App, *, secure_cookies: bool = True, refresh_seconds: float = 5.0,
                   max_body_bytes: int = 1024 * 1024) -> FastAPI:
    """The web app of `app`: the REST API (``/api``, its OpenAPI at ``/api/openapi.json``) and
    the inbox. Cookies are ``Secure``; with `secure_cookies` False (plain http, on a developer's
    machine), only those given over https, to this server or to a proxy in front of it that
    says so (``X-Forwarded-Proto``). The inbox looks for something new every
    `refresh_seconds`. An API request's token is checked before its body is read, and a body
    over `max_body_bytes` (1 MB) is refused with 413."""
    try:
        from signoff.web.server import build
    except ImportError as missing:
        from signoff._extras import install_extra
        from signoff.exceptions import UserError

        raise UserError(f"The web inbox needs signoff's web extra ({missing.name} is missing): "
                        f"{install_extra('web')}.") from None
    return build(app, secure_cookies=secure_cookies, refresh_seconds=refresh_seconds,
                 max_body_bytes=max_body_bytes)
