"""``signoff db``: which revision signoff's tables in the app's database are at, and taking them
back to the revision an older release of signoff knows, before that release is installed (the
guide to upgrading, "Going back")."""

from __future__ import annotations

import contextlib
import json
import shlex
import sys
from collections.abc import Iterator
from typing import Any

import click
from sqlalchemy import Connection
from sqlalchemy.exc import DBAPIError

from signoff.cli import APP_OPTION, JSON_OPTION, app_option_words, load_app, main, runnable
from signoff.cli.failures import EXIT_REFUSED, Failure, Misuse
from signoff.exceptions import UserError
from signoff.store import migrate

__all__ = ["db"]


@main.group()
def db() -> None:
    """signoff's own tables in the app's database: their revision, going back, and forward.

    A newer signoff upgrades its tables the first time it opens the database (or at `signoff
    db upgrade`); these commands say where they are, and take them back for an older release
    (stop every process of the app first, then install the older release right after).

    \b
    Examples:
      signoff db revision --app examples/workshop.py
      signoff db downgrade 0006_issue15 --app examples/workshop.py --yes
      signoff db upgrade --app examples/workshop.py
    """


@db.command()
@APP_OPTION
@JSON_OPTION
def revision(app_spec: str | None, as_json: bool) -> None:
    """The revision signoff's tables are at, and the newest this signoff makes.

    \b
    Example:
      signoff db revision --app examples/workshop.py
    """
    app = load_app(app_spec)
    with _connected(app) as connection:
        current = migrate.current_revision(connection)
        known = current is None or migrate.is_known(connection, current)
    newest = migrate.head_revision()
    if as_json:
        click.echo(json.dumps({"revision": current, "newest": newest}, indent=2))
        return
    if current is None:
        click.echo("signoff's tables are not made yet: the first command that uses the app "
                   f"makes them, at {newest}.")
    elif current == newest:
        click.echo(f"signoff's tables are at {current}, the newest this signoff makes.")
    elif not known:
        click.echo(f"signoff's tables are at {current}, which this signoff does not know (a newer "
                   f"one made it; this one makes {newest}): this signoff refuses the database. "
                   "Use the newer one, or take the tables back to this one's newest with it "
                   f"installed (`{runnable(f'db downgrade {newest}' + app_option_words())}`), "
                   "then install this one.")
    else:
        click.echo(f"signoff's tables are at {current}; this signoff makes {newest}, and upgrades "
                   "them the first time it opens the database.")


@db.command()
@APP_OPTION
def upgrade(app_spec: str | None) -> None:
    """Bring signoff's tables up to the newest revision this signoff makes, now.

    Any command that uses the app does it too, the first time it opens the database; this one
    does only that, and makes the app's record tables that are missing, as any opening does
    (after `db downgrade`, say, to go forward again). Run again, it says that there was nothing
    to do. Stop the app's older processes first: they refuse the tables once a newer signoff
    has upgraded them.

    \b
    Example:
      signoff db upgrade --app examples/workshop.py
    """
    app = load_app(app_spec)
    with _connected(app) as connection, connection.begin():
        # Where they were is read under the lock the upgrade holds (SQLite's write lock, as
        # the transaction begins; PostgreSQL's advisory lock): two at once each read it first,
        # and both said they had brought the tables from it, the one that had waited too.
        migrate.lock_schema(connection)
        before = migrate.current_revision(connection)
        migrate.upgrade(connection)
        now = migrate.current_revision(connection)
    app.database.ensure_schema()  # (and the app's record tables that are missing)
    if before == now:
        click.echo(f"signoff's tables are at {now}, the newest this signoff makes: nothing to do.")
    elif before is None:
        click.echo(f"signoff's tables are made, at {now}, the newest this signoff makes.")
    else:
        click.echo(f"signoff's tables were at {before}, and are at {now} now, the newest this "
                   "signoff makes.")


@db.command()
@click.argument("revision", metavar="REVISION")
@click.option("--yes", is_flag=True, help="Do not ask before taking the tables back.")
@APP_OPTION
def downgrade(revision: str, yes: bool, app_spec: str | None) -> None:
    """Take signoff's tables back to REVISION, the newest an older release knows.

    What only the newer release records is not kept (the guide to upgrading says what). Stop
    every process of the app first: one of this version that opens the database afterwards
    upgrades it again. Then install the older release.

    \b
    Example:
      signoff db downgrade 0006_issue15 --app examples/workshop.py --yes
    """
    if revision == "base":
        raise UserError("'base' is before signoff made any of its tables: taken back there, every "
                        "person, task, proposal, receipt and rule signoff keeps is deleted, and no "
                        "release of signoff runs on it. Name the revision the older release knows "
                        "(its guide to upgrading says which). Nothing was changed.")
    app = load_app(app_spec)
    with _connected(app) as connection:
        migrate.check_going_back(connection, revision)  # (before asking: nothing to ask of)
        before = migrate.current_revision(connection)
        connection.rollback()  # (the reads began a transaction: a downgrade begins its own)
        if revision == before:  # (it asked, then said it took them "from X to X")
            click.echo(f"signoff's tables are at {before} already: nothing to take back." + (
                "" if before == migrate.head_revision() else " Install the release of signoff "
                "that knows it before the app runs again (this one upgrades them the next time "
                "it opens the database)."))
            return
        if not yes:
            _asked(app, before, revision)
        migrate.downgrade(connection, revision)
        now = migrate.current_revision(connection)
        connection.commit()
    click.echo(f"signoff's tables were at {before}, and are at {now} now. Install the release "
               "of signoff that knows it before the app runs again: this one upgrades them the "
               "next time it opens the database "
               f"(`{runnable('db revision' + app_option_words())}` says where they are).")


def _asked(app: Any, before: str | None, revision: str) -> None:
    """Ask before taking the tables back from `before` to `revision` (at the terminal, or a
    line piped in); a no, or no answer (a script's stdin at its end: click said "Aborted!",
    exit 1), is a sentence saying that nothing was changed, and how to go on."""
    shown = app.database.engine.url.render_as_string(hide_password=True)
    if sys.stdin is None:  # closed (`<&-`): no answer can come (input() raised RuntimeError)
        raise Misuse(_no_answer(revision))
    try:
        yes = click.confirm(f"Take signoff's tables in {shown} back from {before} to "
                            f"{revision} (what only newer releases record is not kept)?",
                            err=True)
    except click.Abort:
        click.echo(err=True)  # (click leaves the line of the question open: what is said
        # next begins a line of its own, not after "[y/N]: ")
        if sys.stdin.isatty():  # Ctrl-C at the question: "Stopped.", as anywhere
            raise
        raise Misuse(_no_answer(revision)) from None
    if not yes:
        raise Failure(f"Nothing was changed: signoff's tables stay at {before}.", EXIT_REFUSED)


def _no_answer(revision: str) -> str:
    """What is said when no answer came to the question `_asked` asks (stdin ended, or is
    closed), with the command that needs none."""
    again = runnable(f"db downgrade {shlex.quote(revision)} --yes{app_option_words()}")
    return ("Taking the tables back asks first, and no answer came (stdin is not a terminal, "
            f"and ended): give --yes, as in `{again}`. Nothing was changed.")


@contextlib.contextmanager
def _connected(app: Any) -> Iterator[Connection]:
    """A connection to the app's database; what the driver refuses (a folder that is not
    there, a server that cannot be reached) is a sentence naming the database."""
    try:
        with app.database.engine.connect() as connection:
            yield connection
    except DBAPIError as error:
        raise app.database.error(error) from None
