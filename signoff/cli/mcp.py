"""``signoff mcp``: serve an app's agent over MCP, or guard other MCP servers."""

from __future__ import annotations

import json
import shlex
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import click

from signoff._extras import install_extra
from signoff.cli import (
    APP_OPTION,
    AS_OPTION,
    JSON_OPTION,
    PASSWORD_OPTIONS,
    TOKEN_OPTION,
    app_option_words,
    given,
    load_app,
    main,
    new_password,
    nobody_named,
    not_empty,
    opened_guard,
    runnable,
    whoami,
)
from signoff.cli.failures import (
    EXIT_FAILED,
    EXIT_NOT_FOUND,
    EXIT_USAGE,
    Failure,
    Misuse,
    failure_of,
)
from signoff.cli.otlp import export_traces
from signoff.cli.subjects import record_named
from signoff.cli.terminal import say
from signoff.exceptions import SignoffError

T = TypeVar("T")

__all__ = ["mcp"]


def _config_given(context: click.Context, parameter: click.Parameter, value: str) -> str:
    """The guard's config file named; empty (an unset shell variable), a usage error saying so
    (it was read as the folder the command runs in)."""
    if not value.strip():
        raise click.BadParameter("it is empty: give the guard's config file (an unset shell "
                                 "variable gives an empty one).", context, parameter)
    return value


_CONFIG_ARGUMENT = click.argument("config_path", metavar="CONFIG", callback=_config_given)


def _address(value: str, option: str = "--http") -> tuple[str, int]:
    """HOST and PORT of an address to serve at, if it is one (a usage error when it is not)
    and it can be listened on (a `Failure`, exit 5, as `signoff serve`'s when it cannot: a port
    in use is no command line misread; `option`: the option it was given with)."""
    import errno
    import socket

    host, _, port = value.rpartition(":")
    if host.startswith("[") and host.endswith("]"):  # an IPv6 address, as a URL writes it
        host = host[1:-1]
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise click.BadParameter(f"{value!r} is not HOST:PORT (a port from 1 to 65535), e.g. "
                                 "127.0.0.1:8765.", param_hint=f"'{option}'")
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        with socket.create_server((host, int(port)), family=family):
            pass
    except OSError as error:
        why = (f"another process listens there: stop it, or give {option} another port"
               if error.errno == errno.EADDRINUSE else
               f"{error.strerror or error}: give {option} another address")
        raise Failure(f"signoff cannot serve on {value}: {why}.", EXIT_FAILED) from None
    return host, int(port)


def _url(host: str, port: int) -> str:
    """The address of a server at HOST and PORT (an IPv6 address in brackets, as URLs write it)."""
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def _seconds(context: click.Context, parameter: click.Parameter, value: float) -> float:
    """A --wait of 0 seconds or more (a negative one was taken for 0)."""
    if value != value:
        raise click.BadParameter(f"“{value:g}” is not a number of seconds: give one, 0 or more "
                                 "(0 answers a proposed call at once).")
    if value < 0:
        raise click.BadParameter(f"“{value:g}” is below 0: give a number of seconds, 0 or more "
                                 "(0 answers a proposed call at once).")
    return value


def _sdk() -> None:
    try:
        import mcp  # noqa: F401
    except ImportError:
        raise Failure(f"MCP needs signoff's mcp extra: {install_extra('mcp')}.", EXIT_USAGE) \
            from None


@main.group()
def mcp() -> None:
    """Serve an app's agent over MCP, or guard other MCP servers.

    \b
    Examples (the first once `python examples/workshop.py` has made the workshop's people and
    ticket; the others with guard.toml, a guard config such as the example in
    docs/how-to/mcp.md):
      signoff mcp serve --app examples/workshop.py --agent estimator \\
          --for mia@workshop.example --subject ticket=T-7
      signoff mcp guard guard.toml --http 127.0.0.1:8765
      signoff mcp approve guard.toml 3f2c8a8e-... --token so_…
    """


@mcp.command()
@APP_OPTION
@click.option("--agent", "agent_name", required=True, help="The agent whose tools to serve.")
@click.option("--for", "for_handle", envvar="SIGNOFF_MCP_FOR", metavar="HANDLE", callback=given,
              help="Over stdio: the person the work is for (over HTTP the token says).")
@click.option("--skill", "skill_name", default=None, help="Serve this skill only.")
@click.option("--subject", default=None, metavar="ID|FIELD=VALUE|JSON",
              help="What the work is on: a record by id, or by a unique field (ticket=T-7); "
                   "a JSON value for a plain subject.")
@click.option("--http", "http_address", default=None, metavar="HOST:PORT",
              help="Serve streamable HTTP at http://HOST:PORT/mcp instead of stdio.")
@click.option("--inbox", is_flag=True, help="With --http: serve the inbox and REST API beside it.")
@click.option("--wait", "wait_seconds", default=240.0, show_default=True, metavar="SECONDS",
              callback=_seconds,
              help="How long a proposed call is kept open for its decision (0: answer at once).")
def serve(app_spec: str | None, agent_name: str, for_handle: str | None, skill_name: str | None,
          subject: str | None, http_address: str | None, inbox: bool,
          wait_seconds: float) -> None:
    """Serve an agent's tools over MCP; the connected client acts as the agent's model.

    Reads run alone; a call that must be proposed is put to the right person and answers
    once they decide. Over HTTP, every request carries a client's token (Authorization:
    Bearer so_…, from `signoff users token HANDLE --client`), and the calls act for its
    person; a person's own token, which decides, is refused.

    \b
    Examples (once `python examples/workshop.py` has made the workshop's people and ticket):
      signoff mcp serve --app examples/workshop.py --agent estimator \\
          --for mia@workshop.example --subject ticket=T-7
      signoff mcp serve --app examples/workshop.py --agent estimator --subject ticket=T-7 \\
          --http 127.0.0.1:8765
    """
    if inbox and http_address is None:
        raise Misuse("--inbox serves the inbox and REST API beside the MCP endpoint "
                     "over HTTP: give --http HOST:PORT with it.")
    _sdk()
    import anyio

    from signoff.mcp.served import ServedAgent, served_skills
    from signoff.mcp.transport import http_app, serve_http, serve_stdio

    app = load_app(app_spec)
    export_traces(app)
    try:
        person = app.people.find(for_handle) if for_handle else None
        if for_handle and person is None:
            raise Failure(nobody_named(app, for_handle, advice=(
                f"`{runnable('users list' + app_option_words())}` lists its people")),
                EXIT_NOT_FOUND)
        handle = app.agent(agent_name)
        value = _subject(app, handle, skill_name, subject)
        served_skills(handle, skill_name, value, subject_option="--subject")  # told as a command
        server = ServedAgent(app, agent_name, for_=person, skill=skill_name, subject=value,
                             wait_seconds=wait_seconds)
        server.issuing = runnable(  # (told with a 401 or 403)
            f"users token HANDLE --client{app_option_words()}")
        server.end_stopped()  # (the tasks of a server of this agent's that was killed)
    except SignoffError as error:
        raise failure_of(error) from None
    try:
        if http_address is None:
            anyio.run(lambda: serve_stdio(server, signals=True))
            return
        host, port = _address(http_address)
        where = _url(host, port)
        beside = f"; the inbox and REST API at {where}/" if inbox else ""
        anyio.run(lambda: serve_http(http_app(server, app, host=host, inbox=inbox), host=host,
                                     port=port, started=_telling(
                                         f"Serving {agent_name}'s tools over MCP at {where}/mcp"
                                         f"{beside}. Stop with Ctrl-C."),
                                     stopping=server.wind_down))
    finally:
        _let_go(app)


def _let_go(app: Any) -> None:
    """Close `app`'s connections to its SQLite file once serving has ended (its sessions
    closed, their tasks ended): the last to close folds the write-ahead log into the file, so
    that the file alone, copied with the server stopped, holds everything. The web app's
    lifespan does this for `signoff serve`; here the inbox, when served, is served beside MCP
    without its lifespan, and the sessions are closed after it. An in-memory database is left
    open: closing its one connection would end it."""
    if app.database.file is not None:
        app.database.dispose()


def _telling(words: str) -> Callable[[], None]:
    """What says `words` on stderr (stdout may be an MCP stream) once a server listens."""
    return lambda: say(words, err=True)


def _subject(app: Any, handle: Any, skill_name: str | None, given: str | None) -> Any:
    """The subject named by --subject: a record of the served skills' subject type, by id or
    FIELD=VALUE (`signoff.cli.subjects`); else the JSON value."""
    if given is None:
        return None
    from signoff.security.records import RecordBase

    agent = handle.registered.agent
    skills = [handle.skill(skill_name)] if skill_name else list(agent.skills)
    for skill in skills:
        subject_type, _ = skill.types()
        if isinstance(subject_type, type) and issubclass(subject_type, RecordBase):
            return record_named(app, subject_type, given)
    try:
        return json.loads(given)
    except ValueError:
        return given


@mcp.command()
@_CONFIG_ARGUMENT
@click.option("--http", "http_address", default=None, metavar="HOST:PORT",
              help="Serve streamable HTTP at http://HOST:PORT/mcp (the inbox and REST API "
                   "beside it) instead of stdio.")
@click.option("--inbox", "inbox_address", default=None, metavar="HOST:PORT",
              help="Over stdio: serve the inbox and REST API at this address too.")
@click.option("--wait", "wait_seconds", default=240.0, show_default=True, metavar="SECONDS",
              callback=_seconds,
              help="How long a proposed call is kept open for its decision (0: answer at once).")
def guard(config_path: str, http_address: str | None, inbox_address: str | None,
          wait_seconds: float) -> None:
    """Stand in front of other MCP servers and serve their tools as one, each call gated:
    read-only tools of trusted servers run alone, everything else is proposed, as CONFIG says.

    Proposals are decided in the guard's inbox (and REST API), which it serves itself, or with
    `signoff mcp proposals | approve | reject CONFIG`: an approved call runs once.

    CONFIG is a TOML file naming the MCP servers to guard (each with a command or a url), how
    far each of their tools may go alone, and the people who decide; the guide to MCP in
    signoff's docs (docs/how-to/mcp.md) has an example guard.toml to copy.

    \b
    Examples (with such a guard.toml):
      signoff mcp guard guard.toml --inbox 127.0.0.1:8766
      signoff mcp guard guard.toml --http 127.0.0.1:8765
    """
    _sdk()
    from signoff.mcp.config import GuardConfig

    if http_address is not None and inbox_address is not None:
        raise Misuse("Give --http or --inbox, not both: over HTTP the inbox and the "
                     "REST API are served beside /mcp at the --http address; --inbox "
                     "serves them when the guard speaks over stdio.")
    for address, option in ((http_address, "--http"), (inbox_address, "--inbox")):
        if address is not None:
            _address(address, option)  # refused before the upstreams start
    try:
        config = GuardConfig.load(config_path)
    except SignoffError as error:
        raise failure_of(error) from None
    try:
        _run(_guard, config, http_address, inbox_address, wait_seconds,
             runnable(f"mcp token {shlex.quote(config_path)} HANDLE --client"))
    except SignoffError as error:
        raise failure_of(error) from None


def _run(function: Callable[..., Awaitable[T]], *arguments: Any) -> T:
    """``anyio.run``, with a refusal (ours, or the command's) that went out through the guard's
    connections to its servers raised as itself: the SDK's task groups wrap whatever leaves
    them in an exception group, which would reach the person as a traceback."""
    import anyio

    try:
        return anyio.run(function, *arguments)
    except BaseExceptionGroup as group:
        refusal = _refusal_in(group)
        if refusal is None:
            raise
        raise refusal from None


def _refusal_in(group: BaseExceptionGroup[Any]) -> SignoffError | click.ClickException | None:
    for error in group.exceptions:
        if isinstance(error, (SignoffError, click.ClickException)):
            return error
        if isinstance(error, BaseExceptionGroup):
            found = _refusal_in(error)
            if found is not None:
                return found
    return None


async def _guard(config: Any, http_address: str | None, inbox_address: str | None,
                 wait_seconds: float, issuing: str) -> None:
    from contextlib import AsyncExitStack

    import anyio

    from signoff.mcp.guard import open_guard
    from signoff.mcp.transport import http_app, serve_http, serve_stdio
    from signoff.web import create_web_app

    async with AsyncExitStack() as stack:
        server = await open_guard(config, stack, wait_seconds=wait_seconds)
        stack.callback(_let_go, server.app)  # once serving has ended, whichever way
        export_traces(server.app)
        server.issuing = issuing  # (a guard's people take their tokens from its config)
        if http_address is not None:
            host, port = _address(http_address)
            where = _url(host, port)
            await serve_http(http_app(server, server.app, host=host, inbox=True), host=host,
                             port=port, started=_telling(
                                 f"Guarding over MCP at {where}/mcp; the inbox and REST API at "
                                 f"{where}/. Stop with Ctrl-C."),
                             stopping=server.wind_down)
            return
        if inbox_address is None:
            await serve_stdio(server, signals=True)
            return
        host, port = _address(inbox_address)
        web = create_web_app(server.app, secure_cookies=False)
        stdio_ended = anyio.Event()
        async with anyio.create_task_group() as group:

            async def inbox() -> None:
                await serve_http(web, host=host, port=port, started=_telling(
                    f"The guard's inbox and REST API are at {_url(host, port)}/."),
                    stopping=server.wind_down, stop=stdio_ended)
                group.cancel_scope.cancel()  # told to stop (a signal): the guard stops

            group.start_soon(inbox)
            await serve_stdio(server)
            stdio_ended.set()  # the client went: the inbox stops as it stops for a signal


@mcp.command()
@_CONFIG_ARGUMENT
@click.argument("handle", callback=given)
@click.option("--save", is_flag=True, help="Keep it in the local profile, for --as HANDLE; "
              "they are then who commands act as when --as is not given.")
@click.option("--revoke", "revoke_id", metavar="TOKEN_ID", callback=given,
              help="Revoke this token instead.")
@click.option("--list", "listing", is_flag=True, help="List the person's tokens instead.")
@click.option("--client", is_flag=True, help="A token for an MCP client to connect to the guard "
              "with: it calls tools, and cannot decide anything.")
def token(config_path: str, handle: str, save: bool, revoke_id: str | None,
          listing: bool, client: bool) -> None:
    """Issue a token for a person of the guard's config (each run issues a new one, shown
    once), list their tokens, or revoke one (one of these at a time). Their own token is for
    the guard's REST API and `signoff mcp proposals|approve|reject|receipt`; with --client, a
    token for an MCP client to connect to the guard over HTTP with, which calls tools as them
    and cannot decide anything (the inbox's web pages take a password: `signoff mcp password`).

    \b
    Examples (guard.toml: a guard config, such as the example in docs/how-to/mcp.md):
      signoff mcp token guard.toml noor@example.com --save     # then: --as noor@example.com
      signoff mcp token guard.toml noor@example.com --client   # shown once, for a client's config
      signoff mcp token guard.toml noor@example.com --list
      signoff mcp token guard.toml noor@example.com --revoke TOKEN_ID
    """
    from signoff.cli.users import issue_list_or_revoke

    app, person = _guard_person(config_path, handle)
    issue_list_or_revoke(app, person, label="mcp client" if client else "mcp guard", save=save,
                         revoke_id=revoke_id, takes_label=False, listing=listing,
                         client=client, acted_on="guard", listed_by=runnable(
                             f"mcp token {shlex.quote(config_path)} {shlex.quote(person.handle)} --list"))


@mcp.command()
@_CONFIG_ARGUMENT
@click.argument("handle", callback=given)
@PASSWORD_OPTIONS
def password(config_path: str, handle: str, password: str | None, password_stdin: bool) -> None:
    """Set the password a person of the guard's config logs in to its inbox with (the web
    pages of `--inbox` and `--http`); the REST API and `signoff mcp approve` take a token.

    At a terminal, the password is asked for twice, hidden. From a script or CI, pipe it in
    with --password-stdin (one line).

    \b
    Examples (guard.toml: a guard config, such as the example in docs/how-to/mcp.md):
      signoff mcp password guard.toml noor@example.com
      printf '%s\\n' "$NOOR_PASSWORD" | signoff mcp password guard.toml noor@example.com --password-stdin
    """
    app, person = _guard_person(config_path, handle)
    chosen = new_password(password, password_stdin, again=runnable(
        f"mcp password {shlex.quote(config_path)} {shlex.quote(person.handle)} "
        "--password-stdin"))
    try:
        app.credentials.set_password(person, chosen)
    except SignoffError as error:
        raise failure_of(error) from None
    click.echo(f"{person.name}'s password for the guard's inbox is set.")


def _guard_app(config_path: str) -> Any:
    """The guard's app CONFIG describes, with no connection to its servers (for what reads its
    records, or writes only its own)."""
    from signoff.mcp.config import GuardConfig
    from signoff.mcp.guard import open_guard_app

    opened_guard(config_path)
    try:
        app = open_guard_app(GuardConfig.load(config_path))
    except SignoffError as error:
        raise failure_of(error) from None
    export_traces(app)  # (its decisions are traced, as `signoff approve`'s are)
    return app


def _guard_and_me(config_path: str, as_handle: str | None, token: str | None
                  ) -> tuple[Any, Any]:
    """The guard's app CONFIG describes (no connection to its servers), and who the command
    acts as (see `whoami`); what fails is told by the command group, as for every command."""
    app = _guard_app(config_path)
    return app, whoami(app, as_handle, token)


def _seen(app: Any, config_path: str, me: Any, proposal_id: str) -> Any:
    """The guard's proposal `proposal_id`, when `me` may see it; `NotFound` otherwise, the same
    answer as for one that does not exist, as the REST API gives (a decision of one they may
    not see said whose it is, and so that it exists)."""
    from signoff.cli.people import _proposal

    return _proposal(_guard_inbox(app, config_path), me, proposal_id)


def _seen_before_servers(config_path: str, as_handle: str | None, token: str | None,
                         proposal_id: str) -> None:
    """Who the command acts as, and that they may see proposal `proposal_id`, told from the
    guard's app alone, before any of its servers is started or reached: a wrong token or id is
    told as such (exit 4 or 3), not as a server that is down, and starts nothing."""
    app, me = _guard_and_me(config_path, as_handle, token)
    _seen(app, config_path, me, proposal_id)


def _guard_inbox(app: Any, config_path: str) -> Any:
    """The guard's inbox, for its app opened without its servers (and so without its agent):
    its agent's sponsor, told from the config, sees the work it does for nobody."""
    from signoff.inbox import Inbox
    from signoff.mcp.config import GuardConfig
    from signoff.mcp.guard import sponsored_by

    config = GuardConfig.load(config_path)  # (`_guard_and_me` told what is wrong with it, if anything)
    return Inbox(app, sponsored_by=lambda person: sponsored_by(config, person))


def _guard_person(config_path: str, handle: str) -> tuple[Any, Any]:
    """The guard's app CONFIG describes, and the person of its config with `handle` (told in a
    sentence when there is none)."""
    app = _guard_app(config_path)
    person = app.people.find(handle)
    if person is None:
        raise Failure(f"{handle} is not one of the guard's people: add them under [[people]] "
                      "in the config.", EXIT_NOT_FOUND)
    return app, person


def _with_guard(config_path: str, work: Callable[[Any], T],
                unreachable: Callable[[Any, str], T] | None = None) -> T:
    """Open the guard CONFIG describes (its app, and its own connections to the servers) for
    one command, and do `work` with its app in a thread, as the guard's inbox does: an approved
    call reaches its server over this process's connection, once. When a server cannot be
    reached, `unreachable` (when given) does the command's work instead, with the guard's app
    alone and the sentence that says which server and why."""
    _sdk()
    import anyio

    from signoff.mcp.config import GuardConfig
    from signoff.mcp.upstreams import ServerUnreachable

    command = click.get_current_context()

    def in_command(app: Any) -> T:
        with command:  # (the thread's own: what it tells, it tells as this command, of this guard)
            return work(app)

    async def opened(config: GuardConfig) -> T:
        from contextlib import AsyncExitStack

        from signoff.mcp.guard import open_guard

        async with AsyncExitStack() as stack:
            server = await open_guard(config, stack, wait_seconds=0)
            return await anyio.to_thread.run_sync(in_command, server.app)

    opened_guard(config_path)
    try:
        return _run(opened, GuardConfig.load(config_path))
    except ServerUnreachable as error:
        if unreachable is None:
            raise failure_of(error) from None
        return unreachable(_guard_app(config_path), str(error))
    except SignoffError as error:
        raise failure_of(error) from None


@mcp.command(name="proposals")
@_CONFIG_ARGUMENT
@AS_OPTION
@TOKEN_OPTION
@JSON_OPTION
def guard_proposals(config_path: str, as_handle: str | None, token: str | None,
                    as_json: bool) -> None:
    """The guard's proposals you may decide now: each call with its server and exact arguments.

    \b
    Examples (guard.toml: a guard config, such as the example in docs/how-to/mcp.md):
      signoff mcp token guard.toml noor@example.com --save   # once
      signoff mcp proposals guard.toml --as noor@example.com
    """
    from signoff.cli.people import echo_proposals
    from signoff.inbox import Inbox

    def listed(app: Any) -> None:
        echo_proposals(list(app.proposals_for(whoami(app, as_handle, token))),
                       as_json=as_json, people=app.people, freshness=Inbox(app).freshness)

    def listed_as_kept(app: Any, why: str) -> None:
        # Whether each still reads as proposed needs its server's tools as they are now: the
        # list is what the guard keeps, and a yes waits until every server can be reached.
        say(f"{why} Whether each proposal still reads as it did is not known until it can be "
            f"reached; `{runnable('mcp approve')}` needs it, `{runnable('mcp reject')}` does "
            "not.", err=True)
        echo_proposals(list(app.proposals_for(whoami(app, as_handle, token))),
                       as_json=as_json, people=app.people, freshness=None)

    _guard_and_me(config_path, as_handle, token)  # (a wrong token is told before any server starts)
    _with_guard(config_path, listed, unreachable=listed_as_kept)


@mcp.command(name="approve")
@_CONFIG_ARGUMENT
@click.argument("proposal_id", callback=given)
@AS_OPTION
@TOKEN_OPTION
@click.option("--always", is_flag=True, help="And from now on, let the guard run this tool "
              "alone (in the work this proposal is in).")
def guard_approve(config_path: str, proposal_id: str, as_handle: str | None, token: str | None,
                  always: bool) -> None:
    """Say yes to a guard's proposal: the call runs now, once, exactly as proposed, over this
    command's own connection to its server (a client still waiting on it is answered).

    \b
    Example (guard.toml: a guard config, such as the example in docs/how-to/mcp.md):
      signoff mcp approve guard.toml 3f2c8a8e-... --token so_… --always
    """
    from signoff.cli import EXIT_REFUSED
    from signoff.cli.people import rule_words

    def approve(app: Any) -> tuple[Any, Any]:
        me = whoami(app, as_handle, token)
        return app.approve(_seen(app, config_path, me, proposal_id), by=me,
                           always_like_this=always), app

    _seen_before_servers(config_path, as_handle, token, proposal_id)
    decision, app = _with_guard(config_path, approve)
    # (the rule's words name the command that revokes it, read from this command's context:
    # here, not in the thread the approval ran in)
    rule = rule_words(app, decision.rule) if decision.rule is not None else ""
    say(decision.said)
    if rule:
        say(rule)
    if decision.status.value != "Done":
        raise SystemExit(EXIT_REFUSED)


@mcp.command(name="reject")
@_CONFIG_ARGUMENT
@click.argument("proposal_id", callback=given)
@click.option("--reason", required=True, help="Why not: the client is told it.")
@AS_OPTION
@TOKEN_OPTION
def guard_reject(config_path: str, proposal_id: str, reason: str, as_handle: str | None,
                 token: str | None) -> None:
    """Say no to a guard's proposal, with a reason the client is told; nothing runs.

    \b
    Example (guard.toml: a guard config, such as the example in docs/how-to/mcp.md):
      signoff mcp reject guard.toml 3f2c8a8e-... --reason "Keep a.txt." --token so_…
    """
    def reject(app: Any, _why: str = "") -> Any:
        me = whoami(app, as_handle, token)
        return app.reject(_seen(app, config_path, me, proposal_id), by=me, reason=reason)

    _seen_before_servers(config_path, as_handle, token, proposal_id)
    # A no runs nothing: it is said with the guard's app alone when a server cannot be reached.
    decision = _with_guard(config_path, reject, unreachable=reject)
    say(decision.said)


@mcp.command(name="tasks")
@_CONFIG_ARGUMENT
@AS_OPTION
@TOKEN_OPTION
@click.option("--status", type=click.Choice(["Running", "Waiting", "Done", "Halted", "Failed"],
                                            case_sensitive=False))
@JSON_OPTION
def guard_tasks(config_path: str, as_handle: str | None, token: str | None, status: str | None,
                as_json: bool) -> None:
    """The guard's tasks done for you (each client session's work: a task, and one more for
    each call that went on while another waited on a decision or was out), newest first.

    \b
    Example (guard.toml: a guard config, such as the example in docs/how-to/mcp.md):
      signoff mcp tasks guard.toml --as noor@example.com --status Waiting
    """
    from signoff.cli.people import echo_tasks

    app, me = _guard_and_me(config_path, as_handle, token)
    echo_tasks(app, me, status=status, as_json=as_json, inbox=_guard_inbox(app, config_path))


@mcp.command(name="receipt")
@_CONFIG_ARGUMENT
@click.argument("task_id", callback=given)
@AS_OPTION
@TOKEN_OPTION
@JSON_OPTION
def guard_receipt(config_path: str, task_id: str, as_handle: str | None, token: str | None,
                  as_json: bool) -> None:
    """Everything one of the guard's tasks did: each call, whether it ran alone or was
    proposed, each decision.

    \b
    Example (guard.toml: a guard config, such as the example in docs/how-to/mcp.md):
      signoff mcp receipt guard.toml TASK_ID --as noor@example.com
    """
    from signoff.cli.people import echo_receipt

    app, me = _guard_and_me(config_path, as_handle, token)
    echo_receipt(app, me, task_id, as_json=as_json, inbox=_guard_inbox(app, config_path))


@mcp.command(name="rules")
@_CONFIG_ARGUMENT
@AS_OPTION
@TOKEN_OPTION
@click.option("--active", is_flag=True, help="Only rules still in force.")
@JSON_OPTION
def guard_rules(config_path: str, as_handle: str | None, token: str | None, active: bool,
                as_json: bool) -> None:
    """The guard's standing rules ("from now on, alone") you may see, with their uses.

    \b
    Example (guard.toml: a guard config, such as the example in docs/how-to/mcp.md):
      signoff mcp rules guard.toml --as noor@example.com --active
    """
    from signoff.cli.people import echo_rules
    from signoff.inbox import Inbox
    from signoff.mcp.config import GuardConfig
    from signoff.mcp.guard import reads_outside

    app, me = _guard_and_me(config_path, as_handle, token)
    config = GuardConfig.load(config_path)  # (`_guard_and_me` told what is wrong with it, if anything)
    # Opened without its servers, the guard's app cannot tell from its agent's tools whether
    # the agent reads outside content: its config can, so the rules read as when it is opened.
    echo_rules(app, me, active=active, as_json=as_json,
               inbox=Inbox(app, reads_outside=lambda rule: reads_outside(config, rule)))


@mcp.command(name="revoke")
@_CONFIG_ARGUMENT
@click.argument("rule_id", callback=given)
@click.option("--why", default=None, callback=not_empty, help="Why it is taken back.")
@AS_OPTION
@TOKEN_OPTION
def guard_revoke(config_path: str, rule_id: str, why: str | None, as_handle: str | None,
                 token: str | None) -> None:
    """Take one of the guard's standing rules back: its tool is proposed again from the next
    call on.

    \b
    Example (guard.toml: a guard config, such as the example in docs/how-to/mcp.md):
      signoff mcp revoke guard.toml RULE_ID --why "Ask me first." --as noor@example.com
    """
    from signoff.cli.people import said_revoked
    from signoff.inbox import Inbox
    from signoff.mcp.config import GuardConfig
    from signoff.mcp.guard import reads_outside

    app, me = _guard_and_me(config_path, as_handle, token)
    config = GuardConfig.load(config_path)  # (its rules' words, as `signoff mcp rules` says them)
    inbox = Inbox(app, reads_outside=lambda rule: reads_outside(config, rule))
    rule = app.revoke(inbox.rule(me, rule_id), by=me, why=why or "")
    say(said_revoked(inbox, me, rule, agent="the guard"))
