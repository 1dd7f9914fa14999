"""Commands about people: ``users`` (add, list, roles, disable, enable, password, token)."""

from __future__ import annotations

import difflib
import json
import shlex
import sys
from typing import Any

import click

from signoff.cli import (
    APP_OPTION,
    EXIT_NOT_FOUND,
    JSON_OPTION,
    PASSWORD_OPTIONS,
    app_option_words,
    given,
    kept_for,
    load_app,
    main,
    new_password,
    nobody_named,
    not_empty,
    runnable,
    save_token,
    which_file,
)
from signoff.cli.failures import EXIT_FAILED, Failure, Misuse
from signoff.cli.streams import written_out
from signoff.exceptions import NotFound
from signoff.security.principals import Principal, PrincipalKind

__all__: list[str] = []


class NoSuchPerson(click.ClickException):
    """No such person: exit code 3."""

    exit_code = EXIT_NOT_FOUND


def _person(app: Any, handle: str) -> Principal:
    found: Principal | None = app.people.find(handle)
    if found is None:
        raise NoSuchPerson(nobody_named(app, handle))
    return found


@main.group()
def users() -> None:
    """The app's people: add them, give and take roles, disable them, give them tokens.

    These commands act on the app's database directly: whoever may run them administers it.

    \b
    Examples:
      signoff users add ada@workshop.example Ada --role mechanic --app examples/workshop.py
      signoff users token mia@workshop.example --save --app examples/workshop.py
      signoff users token noor@workshop.example --save --app examples/workshop.py
    """


@users.command(name="add")
@click.argument("handle")
@click.argument("name")
@click.option("--role", "roles", multiple=True, help="A role to give (repeatable).")
@APP_OPTION
def add_user(handle: str, name: str, roles: tuple[str, ...], app_spec: str | None) -> None:
    """Add a person.

    \b
    Example:
      signoff users add pia@workshop.example Pia --role mechanic --app examples/workshop.py
    """
    app = load_app(app_spec)
    taken = app.people.find(handle) if isinstance(handle, str) else None
    if taken is not None:
        raise Misuse(_already_there(taken, handle, roles))
    person = app.people.add(handle, name, roles=roles)
    click.echo(f"Added {person.name} ({person.handle}) with roles: {', '.join(roles) or 'none'}.")
    _warn_of_unnamed(app, roles)


def _already_there(taken: Principal, handle: str, roles: tuple[str, ...]) -> str:
    """What `users add` says of a `handle` that is `taken` already (in any case): who has it,
    with which roles, and the commands that list everyone and give them the `roles` asked for
    that they lack (run again, a setup script's `users add` lands here: nothing changed)."""
    same = "" if taken.handle == handle else f" ({taken.handle!r}: a handle is the same in any case)"
    held = ", ".join(sorted(taken.roles)) or "none"
    disabled = " (disabled)" if taken.disabled else ""
    said = (f"There is already someone with the handle {handle!r}{same}: {taken.name}, "
            f"{taken.kind.value}{disabled}, with roles: {held}. Nothing was changed. "
            f"`{runnable('users list' + app_option_words())}` lists everyone")
    lacking = [role for role in dict.fromkeys(roles) if role not in taken.roles]
    person = shlex.quote(taken.handle)
    if taken.kind is PrincipalKind.AGENT:  # (its roles are its declaration's: `roles = [...]`)
        said += f"; it is the account of the agent {taken.name}, whose declaration gives its roles"
    elif lacking:
        giving = runnable(f"users roles {person} "
                          + " ".join(f"--add {shlex.quote(role)}" for role in lacking)
                          + app_option_words())
        said += f"; `{giving}` gives {taken.name} {_listed(lacking)}"
    elif not roles:
        giving = runnable(f"users roles {person} --add ROLE{app_option_words()}")
        said += f", and `{giving}` gives {taken.name} a role"
    else:
        said += f"; {taken.name} has {_listed(list(dict.fromkeys(roles)))} already"
    return said + "."


@users.command(name="list")
@APP_OPTION
@JSON_OPTION
def list_users(app_spec: str | None, as_json: bool) -> None:
    """Everyone: people first, then agents' accounts.

    \b
    Example:
      signoff users list --app examples/workshop.py --json
    """
    app = load_app(app_spec)
    everyone = app.people.all()
    if as_json:
        click.echo(json.dumps([{"id": p.id, "handle": p.handle, "name": p.name,
                                "kind": p.kind.value, "roles": sorted(p.roles),
                                "disabled": p.disabled} for p in everyone], indent=2))
        return
    for p in everyone:
        flag = " (disabled)" if p.disabled else ""
        click.echo(f"{p.handle:32} {p.name:16} {p.kind.value:6} {', '.join(sorted(p.roles))}{flag}")
    if not everyone:
        click.echo("Nobody yet: the app adds its people (app.people.add), or "
                   f"`{runnable('users add HANDLE NAME' + app_option_words())}` does."
                   f"{which_file(app)}")


@users.command()
@click.argument("handle")
@click.option("--add", "to_add", multiple=True, help="A role to give.")
@click.option("--remove", "to_remove", multiple=True, help="A role to take away.")
@APP_OPTION
def roles(handle: str, to_add: tuple[str, ...], to_remove: tuple[str, ...],
          app_spec: str | None) -> None:
    """Add roles to a person (--add) or remove them (--remove); from their next step on, they
    act with the new ones.

    \b
    Example:
      signoff users roles noor@workshop.example --add mechanic --app examples/workshop.py
    """
    app = load_app(app_spec)
    person = _person(app, handle)
    if to_add:
        person = app.people.grant(person, *to_add)
    missing = sorted(set(to_remove) - person.roles)
    if to_remove:
        person = app.people.take_away(person, *to_remove)
    click.echo(f"{person.name} has roles: {', '.join(sorted(person.roles)) or 'none'}.")
    if missing:
        click.echo(f"{person.name} did not have {_listed(missing)}: nothing to take away.",
                   err=True)
    _warn_of_unnamed(app, to_add)


def _warn_of_unnamed(app: Any, roles: tuple[str, ...]) -> None:
    """Say which of `roles` no policy of the app names (a misspelt role gives no rights)."""
    named = app.roles_named()
    if not named:
        return
    for role in sorted(set(roles) - named):
        close = difflib.get_close_matches(role, sorted(named), n=1)
        guess = f" Did you mean {close[0]}?" if close else ""
        click.echo(f"Note: no policy of this app names the role {role} (they name "
                   f"{_listed(sorted(named))}), so it gives no rights by itself.{guess} (A "
                   "queue's name, or a role a policy.where test reads, is not seen here.)",
                   err=True)


def _listed(names: list[str]) -> str:
    return ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else names[0]


@users.command()
@click.argument("handle")
@APP_OPTION
def disable(handle: str, app_spec: str | None) -> None:
    """Stop someone from doing anything at all (their tokens stop working too).

    \b
    Example:
      signoff users disable mia@workshop.example --app examples/workshop.py
    """
    app = load_app(app_spec)
    person = _person(app, handle)
    if person.disabled:  # (as `roles --remove` of a role not held: nothing to do, and said)
        click.echo(f"{person.name} was disabled already: nothing changed.")
        return
    person = app.people.disable(person)
    click.echo(f"{person.name} is disabled.")


@users.command()
@click.argument("handle")
@APP_OPTION
def enable(handle: str, app_spec: str | None) -> None:
    """Let a disabled person act again.

    \b
    Example:
      signoff users enable mia@workshop.example --app examples/workshop.py
    """
    app = load_app(app_spec)
    person = _person(app, handle)
    if not person.disabled:
        click.echo(f"{person.name} was not disabled: nothing changed.")
        return
    person = app.people.enable(person)
    click.echo(f"{person.name} is enabled.")


@users.command()
@click.argument("handle")
@PASSWORD_OPTIONS
@APP_OPTION
def password(handle: str, password: str | None, password_stdin: bool, app_spec: str | None) -> None:
    """Set the password someone logs in to the inbox with.

    At a terminal, the password is asked for twice, hidden. From a script or CI, pipe it in
    with --password-stdin (one line); without it, and with no terminal to ask at, the command
    says so and sets nothing.

    \b
    Examples:
      signoff users password noor@workshop.example --app examples/workshop.py
      printf '%s\\n' "$NOOR_PASSWORD" | \\
          signoff users password noor@workshop.example --password-stdin --app examples/workshop.py
    """
    app = load_app(app_spec)
    person = _person(app, handle)
    chosen = new_password(password, password_stdin, again=runnable(
        f"users password {shlex.quote(person.handle)} --password-stdin{app_option_words()}"))
    app.credentials.set_password(person, chosen)
    click.echo(f"{person.name}'s password is set.")


@users.command()
@click.argument("handle")
@click.option("--label", default="cli", show_default=True, callback=not_empty,
              help="What a new token is for.")
@click.option("--save", is_flag=True, help="Keep it in the local profile, for --as HANDLE; "
              "they are then who commands act as when --as is not given.")
@click.option("--revoke", "revoke_id", metavar="TOKEN_ID", callback=given,
              help="Revoke this token instead (its id, as --list shows it, or the whole token).")
@click.option("--list", "listing", is_flag=True, help="List the person's tokens instead.")
@click.option("--client", is_flag=True, help="A token for an MCP client (`signoff mcp serve "
              "--http`): it calls the agent's tools as them, and cannot decide anything.")
@APP_OPTION
def token(handle: str, label: str, save: bool, revoke_id: str | None, listing: bool,
          client: bool, app_spec: str | None) -> None:
    """Give someone a new token (shown once), list their tokens, or revoke one: one of these
    at a time (--save, --label and --client go with a new token).

    A person's own token decides (the REST API, --token, --as). An MCP client gets a token
    made with --client instead: it calls the agent's tools through `signoff mcp serve` as the
    person, and every place that decides refuses it, so the model never says yes to what it
    proposed.

    \b
    Examples:
      signoff users token noor@workshop.example --save --app examples/workshop.py
      signoff users token noor@workshop.example --client --app examples/workshop.py
      signoff users token noor@workshop.example --list --app examples/workshop.py
      signoff users token noor@workshop.example --revoke TOKEN_ID --app examples/workshop.py
    """
    app = load_app(app_spec)
    person = _person(app, handle)
    labelled = click.get_current_context().get_parameter_source(
        "label") is not click.core.ParameterSource.DEFAULT
    issue_list_or_revoke(app, person, label=label if labelled or not client else "mcp client",
                         labelled=labelled, save=save, revoke_id=revoke_id, client=client,
                         listing=listing, listed_by=runnable(
                             f"users token {shlex.quote(person.handle)} --list{app_option_words()}"))


def issue_list_or_revoke(app: Any, person: Any, *, label: str, save: bool,
                         revoke_id: str | None, listing: bool, listed_by: str,
                         labelled: bool = False, takes_label: bool = True,
                         client: bool = False, acted_on: str = "app") -> None:
    """A token command's work: list `person`'s tokens, revoke one of theirs, or give them a new
    one labelled `label` (an MCP client's with `client`, else their own), shown once or kept in
    the local profile with `save`. `listed_by` is the command that lists them, for a token id
    that is not theirs. Asked for two of these at once (--list with --revoke, or either with
    what goes with a new token: `save`, `client`, or a label the person gave, `labelled`), it
    does none of them: a usage error says to give one (naming --label only for a command that
    `takes_label`); so too for a client's token to be saved, which no command could act with.
    `acted_on`: what the commands the saved token acts on are of ("app", "guard")."""
    from signoff.security.credentials import TokenPurpose

    _one_at_a_time(listing=listing, revoke_id=revoke_id, save=save, labelled=labelled,
                   client=client, takes_label=takes_label)
    if listing:
        for info in app.credentials.tokens(person):
            client_s = "  (MCP client's)" if info.purpose is TokenPurpose.CLIENT else ""
            click.echo(f"{info.id}  {info.label}{client_s}  made {info.created_at:%Y-%m-%d %H:%M}"
                       f"{_ended(info)}")
        return
    if revoke_id is not None:
        # The whole token (so_<id>_<secret>, as found in a leaked file) names its id; only the
        # id is said back, never the secret.
        token_id = _id_of(revoke_id)
        if token_id not in {info.id for info in app.credentials.tokens(person)}:
            raise NotFound(f"{person.name} has no token {token_id}: `{listed_by}` lists theirs.")
        app.credentials.revoke_token(token_id)
        click.echo(f"Token {token_id} is revoked.")
        return
    secret = app.credentials.issue_token(
        person, label=label, purpose=TokenPurpose.CLIENT if client else TokenPurpose.PERSON)
    if save:
        try:
            path = save_token(app, person.handle, secret)
        except BaseException:  # kept nowhere: no token is left that nobody holds
            app.credentials.revoke_token(_id_of(secret))
            raise
        # The profile keeps tokens by database (an app or guard on another has its own): a
        # SQLite file is named by its path, any other database by its URL.
        database = kept_for(app).removeprefix("sqlite:///")
        click.echo(f"A new token for {person.name} is kept in {path}, and commands on this "
                   f"{acted_on}'s database ({database}) now act as {person.name} when no --as "
                   "(nor SIGNOFF_AS) is given.")
    elif not written_out(secret):  # shown nowhere: no token is left that nobody holds
        app.credentials.revoke_token(_id_of(secret))
        closed = "is closed" if sys.stdout is None else "was closed by its reader"
        raise Failure(
            f"The new token for {person.name} could not be shown (stdout {closed}), so it is "
            "revoked: run the command again with its output going where it can be read, or "
            "keep the token in the profile with --save.", EXIT_FAILED)


def _id_of(given: str) -> str:
    """The id of the token `given` names: its id, or the whole token (``so_<id>_<secret>``)."""
    from signoff.security.credentials import TOKEN_PREFIX

    token_id, sep, secret = given.removeprefix(TOKEN_PREFIX).partition("_")
    return token_id if given.startswith(TOKEN_PREFIX) and sep and secret else given


def _ended(info: Any) -> str:
    """How a token listed no longer works, in a few words: revoked, or expired (as a session
    of the inbox does, 12 hours after its login); "" for one that works."""
    if info.revoked_at is not None:
        return "  revoked"
    return "" if info.active else f"  expired {info.expires_at:%Y-%m-%d %H:%M}"


def _one_at_a_time(*, listing: bool, revoke_id: str | None, save: bool, labelled: bool,
                   client: bool = False, takes_label: bool = True) -> None:
    """Refuse a token command asked for two things at once: --list and --revoke each stand
    alone, and --save, --label and --client go with a new token (with either of them, one would
    be left undone without a word); and --client with --save, since the commands that act as
    the profile's people refuse a client's token."""
    if client and save and not listing and revoke_id is None:
        raise Misuse(
            "--client and --save do not go together: --save keeps a person's own token, which "
            "the commands that act as them (--as) decide with, and a client's token cannot "
            "decide. Give the client a token made with --client alone, and keep one of the "
            "person's own with --save.")
    asked = [option for option, given in (("--list", listing), ("--revoke", revoke_id is not None),
                                          ("--save", save), ("--label", labelled),
                                          ("--client", client))
             if given]
    if (listing or revoke_id is not None) and len(asked) > 1:
        both = " and ".join(asked) if len(asked) == 2 else (
            f"{', '.join(asked[:-1])} and {asked[-1]}")
        raise Misuse(
            f"{both} ask for more than one thing at once: give one of them (--list lists the "
            "person's tokens, --revoke TOKEN_ID revokes one, and "
            f"{'--save, --label or --client go' if takes_label else '--save or --client go'} "
            "with a new token, "
            "given alone).")
