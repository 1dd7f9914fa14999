"""A PostgreSQL server the library cannot use is told with what to check, to a library user as
to the command line's: `App(database="postgresql://…")`, then work, raised the driver's words
alone ("connection failed: … FATAL: database "x" does not exist"), the hints living in the CLI.

Against the tests' real server (it trusts every connection from loopback, so a wrong password
cannot be shown here: its hint is the same function's, `signoff.store.hints.server_hint`), and
a port nothing listens on. FAILS until the diff of signoff/store/database.py in
/tmp/s67-cl/h249.md is applied (that file is the lead's)."""

from __future__ import annotations

import uuid

import pytest
from sqlalchemy.engine import make_url

from signoff import App
from signoff.exceptions import StoreError
from signoff.store.hints import server_hint
from tests.ports import free_port


def _told(url: str) -> str:
    """What a library user is told who builds the app on `url` and adds a person."""
    app = App("shop", database=url)
    try:
        with pytest.raises(StoreError) as failed:
            app.people.add("ada@shop.example", "Ada")
    finally:
        app.database.dispose()
    return str(failed.value)


def test_a_database_the_server_does_not_have_is_told_to_be_made(postgres_database: str) -> None:
    """The URL names a database the server has not: the error names it, and how to make it."""
    name = f"not_made_{uuid.uuid4().hex[:8]}"
    url = make_url(postgres_database).set(database=name).render_as_string(hide_password=False)
    told = _told(url)
    assert f'database "{name}" does not exist' in told, told
    assert (f"The server has no database {name}: make it (`createdb {name}`, or CREATE "
            "DATABASE), or name one it has in the app's database URL") in told, told


def test_a_user_the_server_does_not_have_is_told(postgres_database: str) -> None:
    """The URL names a user the server has not: the error says so, and what to correct."""
    url = make_url(postgres_database).set(username="nobody_here").render_as_string(
        hide_password=False)
    told = _told(url)
    assert ("The server has no user nobody_here: correct the user name in the app's database "
            "URL, or make the user") in told, told


def test_a_server_not_running_is_told_what_to_check() -> None:
    """Nothing listens at the URL's host and port: the error says to check that the database
    runs and is reachable there, naming where."""
    port = free_port()
    told = _told(f"postgresql+psycopg://shop:secret@127.0.0.1:{port}/shop")
    assert (f"Check that the database is running and reachable at 127.0.0.1:{port}, and that "
            "the app's database URL is right.") in told, told
    assert "secret" not in told


@pytest.mark.parametrize(("told", "hint"), [
    ('connection failed: connection to server at "127.0.0.1", port 5432 failed: FATAL:  '
     'password authentication failed for user "shop"', "The server does not take the user name "
     "and password in the app's database URL"),
    ('connection failed: connection to server at "127.0.0.1", port 5432 failed: fe_sendauth: '
     "no password supplied", "The server asks for a password, and the app's database URL gives "
     "none"),
    ("could not serialize access due to concurrent update", ""),
    ('duplicate key value violates unique constraint "people_handle_key"', ""),
])
def test_what_the_driver_says_is_matched_to_its_hint(told: str, hint: str) -> None:
    """The driver's words for a password refused or missing (which the tests' server, trusting
    loopback, never says) each have their hint; a statement's failure (a conflict, a duplicate)
    has none: there is nothing of the server or the URL to check."""
    found = server_hint("postgresql+psycopg://shop:***@127.0.0.1:5432/shop", told)
    assert found.startswith(hint) if hint else found == ""
