"""Putting the web app together: the API, the inbox, error handling and security headers.

The API is described at ``/api/openapi.json``, and shown by no page of the server's own: an API
explorer (Swagger UI) is someone else's scripts, and on the inbox's origin they could do what
the person logged in may. Load the description into a viewer of your own.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from urllib.parse import quote

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import RedirectResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import Scope

from signoff.app import App
from signoff.exceptions import SignoffError
from signoff.inbox import Inbox
from signoff.web.addresses import readable_query
from signoff.web.admission import Admission, is_api, security_headers, takes
from signoff.web.api import api_router
from signoff.web.auth import Browser
from signoff.web.pages import LoginRequired, Pages
from signoff.web.problems import (
    Problem,
    ProblemError,
    from_http,
    from_validation,
    prefers_problem,
    problem_response,
    to_problem,
)
from signoff.web.schemas import asked_of

__all__ = ["build"]


def build(app: App, *, secure_cookies: bool, refresh_seconds: float,
          max_body_bytes: int) -> FastAPI:
    """The FastAPI app serving `app`'s API and inbox."""
    inbox = Inbox(app)
    browser = Browser(app, secure_cookies)
    pages = Pages(app, inbox, browser, refresh_seconds=refresh_seconds)

    @asynccontextmanager
    async def lifespan(_web: FastAPI) -> AsyncIterator[None]:
        yield
        # Stopped, the server closes its connections to a SQLite file: the last to close it
        # folds the write-ahead log into it, so that the file alone, copied with the server
        # stopped, holds everything. (uvicorn, stopped by a signal, raises it again once it has
        # shut down, and the process then ends with no Python cleanup of its own.) An
        # in-memory database is left open: closing its one connection would end it.
        if app.database.file is not None:
            app.database.dispose()

    web = FastAPI(
        lifespan=lifespan,
        title=f"{app.name} — signoff",
        summary="Decide what agents propose: the people's verbs over HTTP.",
        version="1",
        openapi_url="/api/openapi.json",
        docs_url=None,
        redoc_url=None,
        dependencies=[Depends(readable_query)],  # (no NUL in a query's value reaches a route)
    )
    web.include_router(api_router(app, inbox))
    web.include_router(pages.router())

    def answer(request: Request, problem: ProblemError) -> Response:
        # (an inbox's address asked for JSON, by a program: a problem, as the API's read)
        if is_api(request.url.path) or prefers_problem(request.headers.get("accept", "")):
            return problem_response(request, problem)
        page = pages.error(request, problem)
        for name, value in problem.headers.items():  # (a 405's Allow: the methods it answers)
            page.headers.setdefault(name, value)
        return page

    @web.exception_handler(ProblemError)
    async def on_problem(request: Request, error: ProblemError) -> Response:
        return answer(request, error)

    @web.exception_handler(StarletteHTTPException)
    async def on_http(request: Request, error: StarletteHTTPException) -> Response:
        problem = from_http(error, form=not is_api(request.url.path))
        if error.status_code == 405:  # (Starlette names the methods of one of its routes only)
            problem.headers["Allow"] = _allowed(web, request.scope) or problem.headers.get(
                "Allow", "")
        return answer(request, problem)

    @web.exception_handler(RequestValidationError)
    async def on_validation(request: Request, error: RequestValidationError) -> Response:
        asked = asked_of(request.scope.get("route"))  # (what the operation's body is, in words)
        return answer(request, from_validation(error, asked=asked))

    @web.exception_handler(LoginRequired)
    async def on_login(request: Request, error: LoginRequired) -> Response:
        return RedirectResponse(f"/login?next={quote(error.path)}", status_code=303)

    @web.exception_handler(SignoffError)
    async def on_refusal(request: Request, error: SignoffError) -> Response:
        return answer(request, to_problem(error))

    @web.exception_handler(Exception)  # Starlette logs it and re-raises after this answer
    async def on_error(request: Request, error: Exception) -> Response:
        return answer(request, to_problem(error))

    @web.middleware("http")
    async def headers(request: Request,
                      call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        response = await call_next(request)
        for name, value in security_headers(request.url.path).items():
            response.headers.setdefault(name, value)
        return response

    # Added last, so outermost: the token and the body's size are checked before anything reads it.
    web.add_middleware(Admission, app=app, routes=web.router.routes, max_body_bytes=max_body_bytes)
    _publish_problem_schema(web)
    return web


def _allowed(web: FastAPI, scope: Scope) -> str:
    """The methods the address of a request (`scope`) is answered (its ``Allow`` header): each
    that some route takes there, and HEAD wherever GET is (`Admission` answers it so)."""
    methods = {method for method in _METHODS
               if takes(web.router.routes, {**scope, "method": method})}
    if "GET" in methods:
        methods.add("HEAD")
    return ", ".join(sorted(methods))


_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
"""The methods a route of the web app's may take (HEAD, answered as GET, aside)."""


def _publish_problem_schema(web: FastAPI) -> None:
    """Put `Problem` in the OpenAPI components, which the error responses refer to."""
    original = web.openapi

    def openapi() -> dict[str, object]:
        if web.openapi_schema is None:
            schema = original()
            components = schema.setdefault("components", {})
            components.setdefault("schemas", {})["Problem"] = Problem.model_json_schema(
                ref_template="#/components/schemas/{model}")
            web.openapi_schema = schema
        return web.openapi_schema

    web.openapi = openapi  # type: ignore[method-assign]
