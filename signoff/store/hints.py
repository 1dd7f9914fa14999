"""Hints: what to check of a database server that could not be used, in the words of what
went wrong — a password missing or refused, a user or a database the server does not have, a
host nobody knows, nothing answering.

The store's errors say them where the driver is entered (`Database.error`), so a library user
who builds ``App(database="postgresql://…")`` and does work reads the same sentence as the
command line's user, not the driver's words alone.
"""

from __future__ import annotations

from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

__all__ = ["server_hint"]

_CONNECTING = ("connection failed", "could not connect", "connection to server",
               "connection refused", "timeout expired", "server closed the connection",
               "terminating connection")
"""What the driver says when a connection could not be made or kept (lower case)."""


def server_hint(url: URL | str, told: str) -> str:
    """What to check of the database server at `url` that could not be connected to (`told`:
    what the driver said), in a sentence; "" when `told` is not about connecting (a statement
    refused, a serialization failure: nothing about the server or the URL to check)."""
    parsed = _parsed(url)
    name = parsed.database if parsed is not None else None
    user = parsed.username if parsed is not None else None
    lowered = told.lower()
    if "no password supplied" in lowered:
        return ("The server asks for a password, and the app's database URL gives none: write "
                "it there (postgresql+psycopg://USER:PASSWORD@HOST/DATABASE), or set PGPASSWORD.")
    if "password authentication failed" in lowered:
        return ("The server does not take the user name and password in the app's database "
                "URL: correct them there (a character such as @, : or / in the password is "
                "written %-encoded: @ as %40).")
    if name and f'database "{name}" does not exist' in told:
        return (f"The server has no database {name}: make it (`createdb {name}`, or CREATE "
                "DATABASE), or name one it has in the app's database URL; signoff makes its "
                "tables in it, not the database itself.")
    if user and f'role "{user}" does not exist' in told:
        return (f"The server has no user {user}: correct the user name in the app's database "
                f"URL, or make the user (`createuser {user}`, or CREATE ROLE).")
    if "failed to resolve host" in lowered or "could not translate host name" in lowered:
        host = parsed.host if parsed is not None else None
        return (f"No machine is known by the name {host or 'in the URL'}: check the host in "
                "the app's database URL.")
    if any(words in lowered for words in _CONNECTING):
        where = _where(parsed)
        return (f"Check that the database is running and reachable{where}, and that the app's "
                "database URL is right.")
    return ""


def _parsed(url: URL | str) -> URL | None:
    if isinstance(url, URL):
        return url
    try:
        return make_url(url)
    except ArgumentError:
        return None


def _where(parsed: URL | None) -> str:
    """" at HOST:PORT" of a server's URL ("" when it names no host: a local socket)."""
    if parsed is None or not parsed.host:
        return ""
    host = f"[{parsed.host}]" if ":" in parsed.host else parsed.host  # (an IPv6 address)
    return f" at {host}:{parsed.port}" if parsed.port else f" at {host}"
