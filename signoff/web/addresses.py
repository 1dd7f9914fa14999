"""Addresses whose query holds a NUL character (U+0000): no value a page or the API gives does,
and PostgreSQL refuses one in a statement (looked up, it read as the database being down: a 503
saying to try again later, and an error in the log, where SQLite found nothing). Every route
refuses such a value in a sentence before it is read (`readable_query`); an id holding one is
not there (`signoff.inbox.Inbox`)."""

from __future__ import annotations

from fastapi import Request

from signoff.web.problems import ProblemError

__all__ = ["readable_query"]

NUL = "\x00"


def readable_query(request: Request) -> None:
    """Refuse (422) a value of the address's query that holds a NUL (a cursor, a queue): no
    value a page or the API gives does. Every route depends on it (`build`)."""
    for name, value in request.query_params.multi_items():
        if NUL in value and name.isprintable():  # (a name of no parameter is not read)
            told = (f"{name} holds a NUL character (U+0000), which no value it takes holds: "
                    "pass the value a page or the API gave, or leave it out.")
            raise ProblemError(422, told, type_="urn:signoff:problem:invalid",
                               errors=[{"where": name, "problem": told}])
