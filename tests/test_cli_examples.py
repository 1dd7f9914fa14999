"""Every example in every `--help` text runs as written, against the workshop with a file
database (workshop.db where it runs), and exits as documented."""

from __future__ import annotations

import json
import os
import re
import runpy
import shlex
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace

import anyio
import click
import mcp.client.stdio  # noqa: F401 — see below
import pytest
from click.testing import CliRunner

from signoff.cli import main
from signoff.models.base import allow_model_requests
from signoff.testing import ScriptedModel, says
from tests.mcp_servers import guard_config, stdio_server
from tests.ports import free_port
from tests.provider_servers import Canned, openai_completion, serving

ROOT = Path(__file__).resolve().parent.parent
LOCAL_MODEL_PORT = 11434
"""Where the examples' local model listens (Ollama's port): a scripted OpenAI-compatible server
stands in for it, on a port of the test's own (`free_port`) that the example is pointed at —
on 11434 itself it took the requests of a local model, or of another run's examples."""

EXITS = {"lint --app examples/crane.py": 1, "--model openai:gpt-4o-mini": 2}
"""Examples documented to exit otherwise than 0: lint "exits 1 when it finds anything" (the
crane has an untold failure); a model of OpenAI's needs OPENAI_API_KEY, which no test has: that
is told in a sentence, exit 2 ("misused", as `signoff --help` says)."""


def _examples(command: click.Command, path: tuple[str, ...] = ()) -> Iterator[str]:
    """Each example line in the help of `command` and of every command under it (a line ending
    in a backslash goes on on the next)."""
    with click.Context(command, info_name="signoff") as context:
        text = command.get_help(context)
    joined = re.sub(r"\\\n\s*", " ", text)
    for line in joined.splitlines():
        if line.strip().startswith("signoff "):
            yield line.split("  #")[0].strip()
    if isinstance(command, click.Group):
        for name in sorted(command.commands):
            yield from _examples(command.commands[name], (*path, name))


# `mcp.client.stdio` binds the process's stderr as its servers' stderr when it is first imported:
# imported here, that is the real one, not the one a CliRunner puts in its place while an example
# runs (which has no file descriptor to give a server), whichever example imports it first.

DECIDING_FOR_A_GUARD = ("signoff mcp approve ", "signoff mcp reject ")
"""Their examples name a proposal of a guard, which exists only while an MCP client's call waits
on it: test_mcp_guard's test_the_guards_proposals_are_decided_from_the_command_line runs these
commands on such a proposal, with a client waiting."""
DECIDING_FOR_RESEARCH = ("signoff research --approve ", "signoff research --reject ")
"""Their examples name a proposal of a research task, which only a model that asks to fetch a
page makes (the offline reader never does): test_research's
test_a_proposal_research_waits_on_is_decided_by_the_commands_it_prints runs these commands, as
research prints them, on such a proposal, with a model served on loopback."""
STOPPING_RESEARCH = ('signoff stop TASK_ID --reason "Not that page."',)
"""It names a research task waiting on a page to fetch, which the offline reader never makes:
tests/research/test_research_stopped_by_command.py runs it on such a task."""
EXAMPLES = sorted(e for e in set(_examples(main))
                  if not e.startswith(DECIDING_FOR_A_GUARD + DECIDING_FOR_RESEARCH)
                  and e not in STOPPING_RESEARCH)


KEEPING = sorted({e for e in _examples(main)
                  if re.fullmatch(r"signoff (users token \S+|mcp token \S+ \S+) --save( .*)?", e)})
"""The examples that keep a person's token in the profile (``users token HANDLE --save``, and
``mcp token CONFIG HANDLE --save`` for a guard's people): the workshop fixture runs them first,
and nothing else gives anyone a token, so that the examples acting as someone run as written
after them."""


def _acting_as(example: str) -> tuple[str, str] | None:
    """Whom `example` acts as with --as (or keeps a token for, when it is a keeping example),
    and where: ("app", HANDLE) or ("guard", HANDLE)."""
    words = shlex.split(example)
    where = "guard" if words[1] == "mcp" else "app"
    if example in KEEPING:
        return where, words[4] if where == "guard" else words[3]
    return (where, words[words.index("--as") + 1]) if "--as" in words else None


def test_whoever_an_example_acts_as_has_their_token_kept_by_an_example() -> None:
    """Each person an example acts as (--as HANDLE) has an example that keeps their token, so
    that the examples run as written one after another in a folder of their own: the workshop
    fixture gives tokens by running those examples alone. (Examples acted as Mia, and none kept
    her token.)"""
    kept = {_acting_as(example) for example in KEEPING}
    acting = {_acting_as(example) for example in _examples(main)} - {None}
    assert acting - kept == set()


def test_there_are_examples_in_every_help() -> None:
    """Each command and group has at least one example in its help."""
    def walk(command: click.Command) -> Iterator[click.Command]:
        yield command
        if isinstance(command, click.Group):
            for sub in command.commands.values():
                yield from walk(sub)

    for command in walk(main):
        with click.Context(command, info_name="signoff") as context:
            assert "signoff " in command.get_help(context).split("Example", 1)[-1], command.name


@pytest.fixture
def workshop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    """A directory to run the examples in, as a clone is: `examples/` in it, workshop.db made
    there; Mia, Noor and ticket T-7; the tokens the help's examples keep (`KEEPING`), kept in
    the profile by running those examples."""
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "deploy.md").write_text(  # for `research … --corpus docs/`
        "# Deploying\n\nYou deploy the app by copying its wheel to the server and restarting "
        "the service.\nDeploy on a weekday, never on a Friday.\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("WORKSHOP_DATABASE")
    for name in ("SIGNOFF_APP", "SIGNOFF_AS", "SIGNOFF_TOKEN", "OPENAI_API_KEY",
                 "ANTHROPIC_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SIGNOFF_PROFILE", str(tmp_path / "profile.json"))
    monkeypatch.setenv("SIGNOFF_DATA_DIR", str(tmp_path / "data"))  # research.db, its own
    (tmp_path / "files").mkdir()
    guard_config(tmp_path, stdio_server(  # the guard the `signoff mcp` examples name
        "files", ROOT / "tests" / "mcp_upstream_files.py",
        env={"FILES_ROOT": str(tmp_path / "files")}, trusted=True), name=None)
    namespace = runpy.run_path("examples/workshop.py", run_name="workshop_examples")
    shop = SimpleNamespace(**namespace, **namespace["setup"]())
    assert shop.app.database.file == "workshop.db"
    for example in KEEPING:  # as a person following the help would, before acting as anyone
        kept = CliRunner().invoke(main, shlex.split(example)[1:])
        assert kept.exit_code == 0, (example, kept.output)
    return shop


def _guard_task() -> str:
    """A task of the guard's: a client's call of files_list_files, run alone."""
    from contextlib import AsyncExitStack

    from sqlalchemy import text

    from signoff.mcp.config import GuardConfig
    from signoff.mcp.guard import open_guard

    async def call() -> str:
        async with AsyncExitStack() as stack:
            served = await open_guard(GuardConfig.load("guard.toml"), stack, wait_seconds=0)
            await served.call_tool("files_list_files", {})
            with served.app.database.connect() as db:
                (task,) = db.execute(text("select id from signoff_tasks")).scalars()
            return str(task)

    return anyio.run(call)


def _guard_rule() -> str:
    """A standing rule of the guard's, made by Noor: deleting files runs alone."""
    from contextlib import AsyncExitStack

    from signoff.mcp.config import GuardConfig
    from signoff.mcp.guard import open_guard

    async def made() -> str:
        async with AsyncExitStack() as stack:
            served = await open_guard(GuardConfig.load("guard.toml"), stack, wait_seconds=0)
            noor = served.app.people.get("noor@example.com")
            return str(served.app.allow_alone("mcp_guard", "files_delete_file", by=noor).id)

    return anyio.run(made)


def _proposal(shop: SimpleNamespace) -> str:
    """A price proposal of Mia's work, routed to Noor, waiting."""
    script = ScriptedModel(
        says.tool("Pads.", shop.set_price, repair=shop.repair.id, price=45),
        says.hand_back(shop.Estimate(hours=Decimal(1), summary="Pads.")))
    outcome = shop.app.agent(shop.Estimator).do(shop.PriceFleetRepair(), shop.repair,
                                                for_=shop.mia, model=script)
    return str(shop.app.proposals(task=outcome.task)[0].id)


def _filled(shop: SimpleNamespace, example: str) -> str:
    """The example with its placeholders made real: a waiting proposal, a rule in force, a task
    and a token of Noor's."""
    if "PROPOSAL_ID" in example:
        example = example.replace("PROPOSAL_ID", _proposal(shop))
    if "TASK_ID" in example and "signoff mcp " in example:  # a task of the guard's
        example = example.replace("TASK_ID", _guard_task())
    if "RULE_ID" in example and "signoff mcp " in example:  # a rule of the guard's
        example = example.replace("RULE_ID", _guard_rule())
    if "TASK_ID" in example and "--app" not in example:  # a task of `signoff research`
        asked = CliRunner().invoke(main, ["research", "What does yield do?", "--json"])
        assert asked.exit_code == 0, asked.output
        example = example.replace("TASK_ID", json.loads(asked.stdout)["task"])
    if "TASK_ID" in example:
        example = example.replace("TASK_ID", str(shop.app.proposal(_proposal(shop)).task))
    if "RULE_ID" in example:
        example = example.replace("RULE_ID", shop.app.allow_alone(
            "estimator", "note_repair", by=shop.noor).id)
    if "TOKEN_ID" in example and "signoff mcp " in example:  # a token of the guard's
        _guard_token()
        listed = CliRunner().invoke(main, ["mcp", "token", "guard.toml", "noor@example.com",
                                           "--list"])
        assert listed.exit_code == 0, listed.output
        example = example.replace("TOKEN_ID", listed.stdout.splitlines()[-1].split()[0])
    if "TOKEN_ID" in example:
        shop.app.credentials.issue_token(shop.noor, "spare")
        example = example.replace("TOKEN_ID", shop.app.credentials.tokens(shop.noor)[-1].id)
    assert not re.search(r"\b[A-Z]{2,}_ID\b", example), example
    return example


def _serve(argv: list[str]) -> None:
    """`signoff serve …`, on a port of the test's own (given last, it wins): it serves the
    inbox until it is stopped."""
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "signoff.cli", *argv, "--port", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              env=dict(os.environ))
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/login", timeout=5) as page:
                    assert page.status == 200
                    break
            except OSError:
                assert server.poll() is None, f"signoff serve stopped, exit {server.returncode}"
                assert time.monotonic() < deadline, "signoff serve did not answer"
                time.sleep(0.2)
    finally:
        server.terminate()
        server.wait(timeout=30)


def _own_ports(argv: list[str]) -> tuple[list[str], dict[str, int]]:
    """`argv` with each address an option gives (`--http 127.0.0.1:8765`) on a free port of the
    test's own instead, and those ports by option."""
    ports: dict[str, int] = {}
    moved = list(argv)
    for at, value in enumerate(argv[1:], start=1):
        if argv[at - 1] in ("--http", "--inbox") and re.fullmatch(r"127\.0\.0\.1:\d+", value):
            ports[argv[at - 1]] = free_port()
            moved[at] = f"127.0.0.1:{ports[argv[at - 1]]}"
    return moved, ports


def _mcp(shop: SimpleNamespace, argv: list[str]) -> None:
    """`signoff mcp serve|guard …` serves until it is stopped. Over stdio, a client speaks MCP
    to it as written: it answers initialize and lists its tools, and exits 0 when its input
    ends. Over HTTP (on a port of the test's own), a request without a token is answered 401
    and the SDK's client, with the person's token, lists the tools; a guard's inbox beside
    stdio serves its login page."""
    import anyio

    from tests.mcp_servers import over_http

    argv, ports = _own_ports(argv)
    server = subprocess.Popen([sys.executable, "-m", "signoff.cli", *argv], env=dict(os.environ),
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        if "--http" in ports:
            url = f"http://127.0.0.1:{ports['--http']}"
            _answers(f"{url}/mcp", server, status=401)
            token = (shop.app.credentials.issue_token(shop.noor, "mcp", purpose="client")
                     if argv[1] == "serve" else _guard_token("--client"))

            async def tools() -> list[str]:
                async with over_http(url, token=token) as client:
                    return [tool.name for tool in (await client.list_tools()).tools]

            assert anyio.run(tools)
            return
        assert server.stdin is not None
        assert server.stdout is not None
        for message in ({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                            "protocolVersion": "2025-06-18", "capabilities": {},
                            "clientInfo": {"name": "test_cli_examples", "version": "1"}}},
                        {"jsonrpc": "2.0", "method": "notifications/initialized"},
                        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}):
            server.stdin.write(json.dumps(message) + "\n")
        server.stdin.flush()
        answers = {}
        while len(answers) < 2:
            line = server.stdout.readline()
            assert line, f"it stopped: {server.stderr.read() if server.stderr else ''}"
            answer = json.loads(line)
            answers[answer.get("id")] = answer
        assert answers[1]["result"]["serverInfo"]["name"]
        assert answers[2]["result"]["tools"]
        if "--inbox" in ports:
            _answers(f"http://127.0.0.1:{ports['--inbox']}/login", server, status=200)
        server.stdin.close()
        assert server.wait(timeout=60) == 0, server.stderr.read() if server.stderr else ""
    finally:
        if server.poll() is None:
            server.terminate()
            server.wait(timeout=30)
        for stream in (server.stdin, server.stdout, server.stderr):
            if stream is not None and not stream.closed:
                stream.close()


def _answers(url: str, server: subprocess.Popen[str], *, status: int) -> None:
    """`url` answers with `status`, once `server` listens (within a minute)."""
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5) as page:
                code = page.status
        except urllib.error.HTTPError as refused:
            code = refused.code
        except OSError:
            assert server.poll() is None, (server.returncode, server.stderr and server.stderr.read())
            assert time.monotonic() < deadline, f"{url} did not answer"
            time.sleep(0.2)
            continue
        assert code == status, url
        return


def _at_a_terminal(argv: list[str]) -> None:
    """Run ``signoff ARGV`` at a terminal of its own, answering its prompts for a password:
    it asks twice, and ends well (without a terminal it says to pipe the password in)."""
    from tests.test_cli_people import AT_A_TERMINAL, PASSWORD

    done = subprocess.run([sys.executable, "-c", AT_A_TERMINAL, PASSWORD, *argv],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, (argv, done.stdout, done.stderr)
    assert done.stdout.count("Password: ") == 1, done.stdout
    assert "confirmation: " in done.stdout, done.stdout
    assert "Traceback" not in done.stdout + done.stderr


def _guard_token(*more: str) -> str:
    """Noor's token for the guard, as `signoff mcp token guard.toml noor@example.com` gives
    (`more`: "--client" for her MCP client's)."""
    issued = CliRunner().invoke(main, ["mcp", "token", "guard.toml", "noor@example.com", *more])
    assert issued.exit_code == 0, issued.output
    return issued.stdout.strip()


@pytest.mark.parametrize("example", EXAMPLES)
def test_each_help_example_runs_as_written(workshop: SimpleNamespace, example: str) -> None:
    """The example exits as its help documents (0 unless it says otherwise), its failures
    told without a traceback; a server (`serve`, `mcp serve`, `mcp guard`) serves."""
    guard_token = '"$(signoff mcp token guard.toml noor@example.com)"'
    if guard_token in example:
        example = example.replace(guard_token, _guard_token())
    argv = shlex.split(_filled(workshop, example))[1:]
    if argv[:1] == ["mcp"] and argv[1:2] in (["serve"], ["guard"]):
        _mcp(workshop, argv)
        return
    if argv[:1] == ["serve"] or argv[1:2] == ["serve"]:
        _serve(argv)
        return
    if "password" in argv[:2] and not any(a.startswith("--password") for a in argv):
        _at_a_terminal(argv)  # it asks for the password there, twice, hidden
        return
    port = free_port()
    argv = [a.replace(f"127.0.0.1:{LOCAL_MODEL_PORT}", f"127.0.0.1:{port}") for a in argv]
    with serving(port) as model:
        model.answer(
            Canned(body=openai_completion(None, [("c1", "parts_for", '{"fault": "brake"}')])),
            Canned(body=openai_completion("Pads.", [("c2", "set_price", f'{{"repair": '
                                                    f'"{workshop.repair.id}", "price": 38}}')])),
        )
        with allow_model_requests():  # to the scripted server on loopback only
            result = CliRunner().invoke(main, argv)
    expected = next((code for text, code in EXITS.items() if text in example), 0)
    assert result.exit_code == expected, (example, result.output)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output


def test_the_people_examples_leave_the_walks_price_to_noor(workshop: SimpleNamespace) -> None:
    """The README's walk says the fleet price waits on Noor (the workshop's manager, the first
    by name); each `signoff users` example run in the walk's workshop, as the README says they
    run, leaves it so (`signoff users add ada… --role manager` made Ada the first manager, and
    `users roles mia… --add manager` Mia: the price waited on them)."""
    readme = (ROOT / "README.md").read_text()
    assert "so the task waits on Noor" in " ".join(readme.split())
    users = main.commands["users"]
    assert isinstance(users, click.Group)
    for example in _examples(users):
        if re.match(r"signoff users (add|roles) ", example):
            done = CliRunner().invoke(main, shlex.split(example)[1:])
            assert done.exit_code == 0, (example, done.output)
    proposal = workshop.app.proposal(_proposal(workshop))
    assert (proposal.decide_by, proposal.decide_person_id) == ("Noor", workshop.noor.id)
