"""How the web app reads the addresses it is asked: an API address written with a slash at its end,
a query holding a NUL, and a parameter given twice.

An API address ending in a slash (``/api/proposals/``) is answered as the address without it
(`api_address`): it was answered by a redirect with no body (307), which a client posting a
decision had to follow, sending its token and body again to an address the redirect wrote from
the ``Host`` it was given (``http:`` behind a proxy that speaks ``https:``). Nothing in the API
is told apart by a slash at its end, so there is nothing to redirect to: the address just works.
(An inbox page's address still redirects: a browser follows it, and shows the one address.)

Addresses whose query holds a NUL character (U+0000): no value a page or the API gives does,
and PostgreSQL refuses one in a statement (looked up, it read as the database being down: a 503
saying to try again later, and an error in the log, where SQLite found nothing). Every route
refuses such a value in a sentence before it is read (`readable_query`); an id holding one is
not there (`signoff.inbox.Inbox`). A parameter a route takes, given twice
(``?status=Waiting&status=Done``), is refused the same way: every one takes one value, and the
last alone was read, the others dropped unsaid."""

from __future__ import annotations

from collections import Counter
from collections.abc import MutableMapping
from typing import Any

from fastapi import Request

from signoff.web.problems import ProblemError

__all__ = ["api_address", "readable_query"]

NUL = "\x00"


def readable_query(request: Request) -> None:
    """Refuse (422) a value of the address's query that holds a NUL (a cursor, a queue): no
    value a page or the API gives does; and a parameter of the route given more than once
    (``?status=Waiting&status=Done`` was answered by the last alone, and the first dropped
    unsaid). Every route depends on it (`build`)."""
    given = request.query_params.multi_items()
    for name, value in given:
        if NUL in value and name.isprintable():  # (a name of no parameter is not read)
            told = (f"{name} holds a NUL character (U+0000), which no value it takes holds: "
                    "pass the value a page or the API gave, or leave it out.")
            raise ProblemError(422, told, type_="urn:signoff:problem:invalid",
                               errors=[{"where": name, "problem": told}])
    taken = _parameters(request)
    times = Counter(name for name, _ in given if name in taken)
    for name, count in sorted(times.items()):
        if count > 1:  # (a name the route does not take is not read, however often given)
            told = (f"{name} is given {count} times in the address, and it takes one value: "
                    "give it once.")
            raise ProblemError(422, told, type_="urn:signoff:problem:invalid",
                               errors=[{"where": name, "problem": told}])


def _parameters(request: Request) -> set[str]:
    """The names of the query parameters the route answering `request` takes (none known: an
    empty set)."""
    route = request.scope.get("route")
    dependant = getattr(route, "dependant", None)
    return {p.alias for p in getattr(dependant, "query_params", ())}


def api_address(scope: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    """`scope` (an ASGI request's) with the slashes at the end of an API address's path taken
    off (``/api/proposals/`` is ``/api/proposals``); any other `scope` as it is."""
    path = scope.get("path", "")
    if not (path.startswith("/api/") and path.endswith("/")):
        return scope
    raw = scope.get("raw_path")
    return {**scope, "path": path.rstrip("/") or "/",
            **({"raw_path": raw.rstrip(b"/")} if isinstance(raw, bytes) else {})}
