"""The guard's configuration: which MCP servers it stands in front of, which it trusts, and the
leave each of their tools has. Written in TOML::

    name = "guard"                          # the guard's app: proposals, rules and receipts
    database = "sqlite:///guard.db"         # a relative file: beside the config
    for = "noor@example.com"                # over stdio, the work is for this person

    [[people]]                              # who decides (made when missing)
    handle = "noor@example.com"
    name = "Noor"

    [servers.files]                         # an upstream started as a command (stdio) ...
    command = "python"
    args = ["files_server.py"]              # run in the config's folder (or in `cwd`)
    env = { FILES_ROOT = "/srv/files" }
    trusted = true                          # its read-only hints are believed

    [servers.files.tools]
    delete_file = "propose every time"      # alone, propose, propose every time, never

    [servers.search]                        # ... or reached by URL (streamable HTTP)
    url = "https://search.example/mcp"
    headers = { Authorization = "Bearer …" }   # the guard's own credentials, never a client's
    default = "propose"
    outside = true                          # its answers are outside content (the default;
                                            # false vouches for every answer it gives)
"""

from __future__ import annotations

import difflib
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from signoff.agents.permits import Leave
from signoff.exceptions import UserError
from signoff.security.principals import is_email_address

__all__ = ["GuardConfig", "Person", "Upstream", "leave_named"]

_LEAVES = {leave.words.lower(): leave for leave in Leave}

_WHAT_IT_HOLDS = ("name the file yours is in, or write one: a TOML file naming the MCP servers "
                  "to guard ([servers.NAME], each with a command or a url), how far each of "
                  "their tools may go alone, and the people who decide ([[people]]), as the "
                  "example guard.toml in the guide to MCP does (docs/how-to/mcp.md in "
                  "signoff's docs).")
"""What a guard config holds and where an example is, for a message that finds none."""


def leave_named(words: str, *, where: str) -> Leave:
    """The leave a config names: "alone", "propose", "propose every time" or "never"."""
    found = _LEAVES.get(str(words).strip().lower().replace("_", " "))
    if found is None:
        raise UserError(f"{where}: {words!r} is not a leave; write one of "
                        f"{', '.join(repr(w) for w in _LEAVES)}.")
    return found


@dataclass(frozen=True, kw_only=True)
class Person:
    """Someone the guard's app knows (made when missing)."""

    handle: str
    """Their handle: their e-mail address."""
    name: str
    """Their name, as proposals show it."""
    roles: tuple[str, ...] = ()
    """Their roles."""


@dataclass(frozen=True, kw_only=True)
class Upstream:
    """One MCP server the guard stands in front of."""

    name: str
    """Its name in the config; its tools are served as ``{name}_{tool}``."""
    command: str = ""
    """The command that starts it (over stdio) ..."""
    args: tuple[str, ...] = ()
    """... with these arguments ..."""
    env: dict[str, str] = field(default_factory=dict)
    """... and this environment (nothing else of the guard's own is passed)."""
    cwd: str | None = None
    """... in this folder (read from a config file: the config's folder, unless it names one,
    relative to it)."""
    url: str = ""
    """Or its streamable HTTP endpoint."""
    headers: dict[str, str] = field(default_factory=dict)
    """The guard's own headers for that URL (a client's token is never passed on)."""
    trusted: bool = False
    """Whether its read-only hints are believed (an untrusted server's never are)."""
    outside: bool = True
    """Whether what its tools return is outside content (a web page, a file, a message: text a
    stranger may have written), so that an argument it may have steered holds a later call back
    to a proposal, whatever the leaves or a standing rule say (`signoff.limits.provenance`).
    ``outside = false`` only for a server whose every answer the config's author vouches for."""
    default: Leave | None = None
    """The leave of its tools the config does not name (None: from their hints)."""
    tools: dict[str, Leave] = field(default_factory=dict)
    """The leave of named tools."""

    def leave_of(self, tool: str, read_only_hint: bool | None) -> Leave:
        """The leave of one of its tools: as the config names it; else its server's default;
        else alone for a read-only hint from a trusted server, and proposed otherwise."""
        if tool in self.tools:
            return self.tools[tool]
        if self.default is not None:
            return self.default
        return Leave.ALONE if self.trusted and read_only_hint is True else Leave.PROPOSE


@dataclass(frozen=True, kw_only=True)
class GuardConfig:
    """A guard's configuration, read from TOML by `GuardConfig.load`."""

    name: str
    """The guard's app name."""
    database: str
    """Where its proposals, rules and receipts live."""
    for_: str | None
    """Over stdio: the handle of the person the work is for."""
    people: tuple[Person, ...]
    """People made when missing."""
    servers: tuple[Upstream, ...]
    """The upstream servers, in order."""

    @staticmethod
    def load(path: str | Path) -> GuardConfig:
        """Read a config file; a `UserError` naming the file and the fault when it is not one."""
        where = str(path)
        try:
            data = tomllib.loads(Path(path).read_text())
        except FileNotFoundError:
            raise UserError(f"There is no guard config at {where}: {_WHAT_IT_HOLDS}") from None
        except IsADirectoryError:
            raise UserError(f"{where} is a folder: name the guard's config file in it.") from None
        except UnicodeDecodeError:
            raise UserError(f"{where} is not text in UTF-8, so it is no TOML config: name the "
                            "guard's config file.") from None
        except OSError as error:
            raise UserError(f"The guard config {where} cannot be read: "
                            f"{error.strerror or error}.") from None
        except tomllib.TOMLDecodeError as bad:
            raise UserError(f"{where} is not TOML: {bad}.") from None
        return GuardConfig.from_dict(data, where=where, base=Path(path).resolve().parent)

    @staticmethod
    def from_dict(data: dict[str, Any], *, where: str = "the guard config",
                  base: Path | None = None) -> GuardConfig:
        """A config from its parsed TOML."""
        known = ("name", "database", "for", "people", "servers")
        unknown = sorted(set(data) - set(known))
        if unknown:  # (a misspelt `for` made the work nobody's, unsaid)
            close = {u: difflib.get_close_matches(u, known, n=1) for u in unknown}
            meant = [f"{u} (did you mean {c[0]}?)" if c else u for u, c in close.items()]
            raise UserError(f"{where}: unknown setting {', '.join(meant)}; the settings are "
                            f"{', '.join(known)} (each server's under [servers.NAME]).")
        for key in ("name", "database"):
            if key in data and not isinstance(data[key], str):
                raise UserError(f"{where}: `{key}` is a text, not {data[key]!r}.")
        name = str(data.get("name", "guard"))
        database = _beside(str(data.get("database") or f"sqlite:///{name}.db"), base)
        people = tuple(_person(p, where=where) for p in _list(data.get("people", []), where,
                                                             "people"))
        servers_table = data.get("servers")
        if servers_table is not None and not isinstance(servers_table, dict):
            raise UserError(f"{where}: `servers` is a table of servers, each [servers.NAME] with "
                            f"a command or a url; not {servers_table!r}.")
        if not servers_table:
            raise UserError(f"{where}: name at least one server, e.g. [servers.files] with a "
                            "command or a url.")
        servers = tuple(_upstream(n, s, where=where, base=base) for n, s in servers_table.items())
        for_ = data.get("for")
        if for_ is not None and not isinstance(for_, str):
            raise UserError(f"{where}: `for` is a person's handle, e.g. \"noor@example.com\".")
        return GuardConfig(name=name, database=database, for_=for_, people=people,
                           servers=servers)


def _beside(database: str, base: Path | None) -> str:
    """`database` with a relative SQLite file found beside the config (in `base`), wherever
    the guard is started from: an MCP client starts it in a folder of its own choosing."""
    if base is None:
        return database
    try:
        url = make_url(database)
    except ArgumentError:
        return database  # (told as it is opened)
    file = url.database
    if not url.drivername.startswith("sqlite") or not file or file == ":memory:" or (
            file.startswith("file:") or Path(file).is_absolute()):
        return database
    return url.set(database=str(base / file)).render_as_string(hide_password=False)


def _list(value: Any, where: str, key: str) -> list[Any]:
    if not isinstance(value, list):
        raise UserError(f"{where}: `{key}` is a list ([[{key}]] tables).")
    return value


def _person(data: Any, *, where: str) -> Person:
    if not isinstance(data, dict) or not data.get("handle"):
        raise UserError(f"{where}: each [[people]] has a handle and a name.")
    handle = str(data["handle"])
    if not is_email_address(handle):
        raise UserError(f"{where}: the [[people]] handle {handle!r} is not an e-mail address: "
                        "write their e-mail address, such as \"noor@example.com\".")
    return Person(handle=handle, name=str(data.get("name") or handle),
                  roles=_texts(data.get("roles", []), where=f"{where}: the [[people]] "
                               f"{handle}'s `roles`", e_g='roles = ["manager"]'))


def _texts(value: Any, *, where: str, e_g: str) -> tuple[str, ...]:
    """A list of texts (a text alone is refused: it is not read as its characters)."""
    if not isinstance(value, list) or not all(isinstance(v, (str, int, float)) and not (
            isinstance(v, bool)) for v in value):
        raise UserError(f"{where} is a list of texts, e.g. {e_g}, not {value!r}.")
    return tuple(str(v) for v in value)


def _table(value: Any, *, where: str, e_g: str) -> dict[str, str]:
    """A table of texts, such as an environment or headers."""
    if not isinstance(value, dict) or not all(isinstance(v, (str, int, float)) and not (
            isinstance(v, bool)) for v in value.values()):
        raise UserError(f"{where} is a table of texts, e.g. {e_g}, not {value!r}.")
    return {str(k): str(v) for k, v in value.items()}


def _yes_no(value: Any, *, where: str) -> bool:
    if not isinstance(value, bool):
        raise UserError(f"{where} is true or false, not {value!r}.")
    return value


_E_G = {"command": "python", "url": "https://search.example/mcp", "cwd": "servers"}
"""An example of each setting that is a text, for the sentence that says it is one."""


def _upstream(name: str, data: Any, *, where: str, base: Path | None = None) -> Upstream:
    here = f"{where}, [servers.{name}]"
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]{0,40}", name):
        raise UserError(f"{here}: a server's name is a short word of letters, digits, - and _.")
    if not isinstance(data, dict):
        raise UserError(f"{here}: a server is a table with a command or a url.")
    known = ("command", "args", "env", "cwd", "url", "headers", "trusted", "outside", "default",
             "tools")
    unknown = sorted(set(data) - set(known))
    if unknown:  # (told first: a misspelt command reads as no command at all)
        close = {u: difflib.get_close_matches(u, known, n=1) for u in unknown}
        meant = [f"{u} (did you mean {c[0]}?)" if c else u for u, c in close.items()]
        raise UserError(f"{here}: unknown setting {', '.join(meant)}; the settings are "
                        f"{', '.join(known)}.")
    command, url = data.get("command"), data.get("url")
    for key, value in (("command", command), ("url", url), ("cwd", data.get("cwd"))):
        if value is not None and not isinstance(value, str):
            raise UserError(f"{here}: `{key}` is a text, e.g. {key} = \"{_E_G[key]}\", not "
                            f"{value!r} (a command's arguments go under `args`).")
    if bool(command) == bool(url):
        raise UserError(f"{here}: give either a command (over stdio) or a url (streamable "
                        "HTTP), not both nor neither.")
    tools = data.get("tools", {})
    if not isinstance(tools, dict):
        raise UserError(f"{here}: `tools` maps a tool's name to its leave.")
    return Upstream(
        name=name, command=str(command or ""),
        args=_texts(data.get("args", []), where=f"{here}: `args`", e_g='args = ["server.py"]'),
        env=_table(data.get("env", {}), where=f"{here}: `env`", e_g='env = { ROOT = "/srv" }'),
        cwd=str((base or Path()) / str(data["cwd"])) if data.get("cwd") else (
            str(base) if base is not None and command else None), url=str(url or ""),
        headers=_table(data.get("headers", {}), where=f"{here}: `headers`",
                       e_g='headers = { Authorization = "Bearer …" }'),
        trusted=_yes_no(data.get("trusted", False), where=f"{here}: `trusted`"),
        outside=_yes_no(data.get("outside", True), where=f"{here}: `outside`"),
        default=leave_named(data["default"], where=here) if "default" in data else None,
        tools={str(t): leave_named(w, where=f"{here} tool {t}") for t, w in tools.items()},
    )
