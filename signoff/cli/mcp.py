"""``signoff mcp``: serve an app's agent over MCP, or guard other MCP servers."""

from __future__ import annotations

import json
import uuid
from typing import Any

import click

from signoff.cli import APP_OPTION, load_app, main
from signoff.exceptions import SignoffError

__all__ = ["mcp"]


def _address(value: str) -> tuple[str, int]:
    host, _, port = value.rpartition(":")
    if not host or not port.isdigit():
        raise click.BadParameter(f"{value!r} is not HOST:PORT, e.g. 127.0.0.1:8765.")
    return host, int(port)


def _sdk() -> None:
    try:
        import mcp  # noqa: F401
    except ImportError:
        raise click.ClickException("MCP needs the mcp extra: pip install 'signoff[mcp]'.") \
            from None


@main.group()
def mcp() -> None:
    """Serve an app's agent over MCP, or guard other MCP servers.

    \b
    Examples:
      signoff mcp serve --app examples/workshop.py --agent estimator --for noor@workshop.example
      signoff mcp guard guard.toml --http 127.0.0.1:8765
    """


@mcp.command()
@APP_OPTION
@click.option("--agent", "agent_name", required=True, help="The agent whose tools to serve.")
@click.option("--for", "for_handle", envvar="SIGNOFF_MCP_FOR", metavar="HANDLE",
              help="Over stdio: the person the work is for (over HTTP the token says).")
@click.option("--skill", "skill_name", default=None, help="Serve this skill only.")
@click.option("--subject", default=None, metavar="ID|JSON",
              help="What the work is on: a record's id, or a JSON value for a plain subject.")
@click.option("--http", "http_address", default=None, metavar="HOST:PORT",
              help="Serve streamable HTTP at http://HOST:PORT/mcp instead of stdio.")
@click.option("--inbox", is_flag=True, help="With --http: serve the inbox and REST API beside it.")
@click.option("--wait", "wait_seconds", default=240.0, show_default=True,
              help="How long a proposed call is kept open for its decision (0: answer at once).")
def serve(app_spec: str | None, agent_name: str, for_handle: str | None, skill_name: str | None,
          subject: str | None, http_address: str | None, inbox: bool,
          wait_seconds: float) -> None:
    """Serve an agent's tools over MCP; the connected client acts as the agent's model.

    Reads run alone; a call that must be proposed is put to the right person and answers
    once they decide. Over HTTP, every request carries a signoff token (Authorization:
    Bearer so_…), and the calls act for its person.

    \b
    Examples:
      signoff mcp serve --app examples/workshop.py --agent estimator \\
          --for noor@workshop.example --subject 0f6c…
      signoff mcp serve --app examples/workshop.py --agent estimator --http 127.0.0.1:8765
    """
    _sdk()
    import anyio

    from signoff.mcp.served import ServedAgent
    from signoff.mcp.transport import http_app, serve_http, serve_stdio

    app = load_app(app_spec)
    try:
        person = app.people.find(for_handle) if for_handle else None
        if for_handle and person is None:
            raise click.ClickException(f"There is no person {for_handle!r}: see `signoff people`.")
        handle = app.agent(agent_name)
        value = _subject(app, handle, skill_name, subject)
        server = ServedAgent(app, agent_name, for_=person, skill=skill_name, subject=value,
                             wait_seconds=wait_seconds)
    except SignoffError as error:
        raise click.ClickException(str(error)) from None
    if http_address is None:
        anyio.run(serve_stdio, server)
        return
    host, port = _address(http_address)
    anyio.run(lambda: serve_http(http_app(server, app, host=host, inbox=inbox), host=host,
                                 port=port))


def _subject(app: Any, handle: Any, skill_name: str | None, given: str | None) -> Any:
    """The subject named by --subject: a record of the served skills' subject type, by id; else
    the JSON value."""
    if given is None:
        return None
    from signoff.security.records import RecordBase

    agent = handle.registered.agent
    skills = [agent.skill(skill_name)] if skill_name else list(agent.skills)
    for skill in skills:
        subject_type, _ = skill.types()
        if isinstance(subject_type, type) and issubclass(subject_type, RecordBase):
            try:
                key = uuid.UUID(given)
            except ValueError:
                raise click.BadParameter(f"{given!r} is not the id of a {subject_type.__name__}.",
                                         param_hint="--subject") from None
            with app.session(as_=app.system) as session:
                found = session.get(subject_type, key)
            if found is None:
                raise click.BadParameter(f"There is no {subject_type.__name__} with id {given}.",
                                         param_hint="--subject")
            return found
    try:
        return json.loads(given)
    except ValueError:
        return given
