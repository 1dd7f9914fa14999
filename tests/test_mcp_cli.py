"""``signoff mcp``: every mistake in how it is called is a sentence with what to do, and nothing
starts serving."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from signoff.cli import main
from signoff.cli.failures import EXIT_FAILED, EXIT_NOT_FOUND, EXIT_USAGE
from signoff.mcp.config import GuardConfig
from signoff.mcp.guard import open_guard_app
from tests.ports import free_port

WORKSHOP = ["--app", "examples/workshop.py"]


@pytest.fixture
def workshop(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The workshop's records in a file of this test's own."""
    monkeypatch.setenv("WORKSHOP_DATABASE", f"sqlite:///{tmp_path / 'workshop.db'}")


@pytest.mark.usefixtures("workshop")
@pytest.mark.parametrize(("arguments", "says"), [
    (["--agent", "nobody"], "There is no agent 'nobody' in this app; its agents are: "
                            "estimator"),
    (["--agent", "estimator"], "give what the work is on with --subject"),
    (["--agent", "estimator", "--subject", "T-7"], "'T-7' is neither the id of a Repair nor "
                                                   "FIELD=VALUE"),
    (["--agent", "estimator", "--subject", "00000000-0000-0000-0000-000000000000"],
     "There is no Repair 00000000-0000-0000-0000-000000000000."),
    (["--agent", "estimator", "--subject", "ticket=T-99"], "There is no Repair ticket=T-99."),
    (["--agent", "estimator", "--for", "ghost@example.com"],
     "There is nobody with the handle 'ghost@example.com' in workshop"),
    (["--agent", "estimator", "--skill", "juggle"], "has no skill 'juggle'; its skills are: "),
    (["--agent", "estimator", "--skill", "juggle", "--subject", "ticket=T-7"],
     "has no skill 'juggle'; its skills are: "),
    # (it ran over stdio, with no inbox, and no word of it; a wait of -5 was taken for 0)
    (["--agent", "estimator", "--inbox"], "--inbox serves the inbox and REST API beside the "
                                          "MCP endpoint over HTTP: give --http HOST:PORT"),
    (["--agent", "estimator", "--wait", "-5"], "“-5” is below 0: give a number of seconds, 0 "
                                               "or more"),
])
def test_serve_refuses_in_words(arguments: list[str], says: str) -> None:
    """A wrong agent, subject, person or skill stops `signoff mcp serve` with a sentence (a
    wrong skill with a subject was a LookupError, "signoff failed for a reason it did not
    foresee", exit 5)."""
    result = CliRunner().invoke(main, ["mcp", "serve", *WORKSHOP, *arguments])
    assert result.exit_code in (2, 3), result.output
    assert "did not foresee" not in result.output
    assert says.lower() in result.output.lower()
    assert "Traceback" not in result.output


def test_guard_refuses_a_missing_config_and_an_unreachable_server(tmp_path: Path) -> None:
    """No config file, and a server whose command ends at once, are each told in a sentence:
    the first exits as every command's usage or config mistake does (2), the second as what
    could not be done does (5), as a database that cannot be used, saying how the guard starts
    the server, that it does not try again by itself, and what to do."""
    missing = CliRunner().invoke(main, ["mcp", "guard", str(tmp_path / "nowhere.toml")])
    assert missing.exit_code == EXIT_USAGE
    assert "There is no guard config at" in missing.output
    config = tmp_path / "guard.toml"
    config.write_text('[servers.files]\ncommand = "x"\n[servers.files.tools]\nrm = "sometimes"')
    wrong = CliRunner().invoke(main, ["mcp", "guard", str(config)])
    assert wrong.exit_code == EXIT_USAGE
    assert "'sometimes' is not a leave" in wrong.output
    config.write_text(f'''
database = "sqlite:///{tmp_path / 'guard.db'}"
[servers.gone]
command = "{sys.executable}"
args = ["-c", "pass"]
''')
    gone = CliRunner().invoke(main, ["mcp", "guard", str(config)])
    assert gone.exit_code == EXIT_FAILED
    said = " ".join(gone.output.split())
    assert f"could not reach the server gone ({sys.executable} -c pass): " in said
    assert said.endswith("It does not try again by itself: check each one's command or url in "
                         "the config and the env a command needs (a server the guard starts sees "
                         "only its env, beside a few basics such as PATH and HOME), see that each "
                         "one it reaches by url is running, then try again."), said
    assert "Traceback" not in gone.output


@pytest.mark.parametrize("command", [["guard"], ["guard", "--inbox", "127.0.0.1:PORT"],
                                     ["proposals", "--as", "noor@example.com"]])
def test_a_missing_guard_config_is_told_with_what_it_holds(tmp_path: Path,
                                                           command: list[str]) -> None:
    """A guard config that is not there is told with what one holds and where an example is
    (it said only "There is no guard config at guard.toml.", and nothing of what to write)."""
    where = str(tmp_path / "guard.toml")
    rest = [word.replace("PORT", str(free_port())) for word in command[1:]]
    missing = CliRunner().invoke(main, ["mcp", command[0], where, *rest])
    assert missing.exit_code == EXIT_USAGE, missing.output
    said = " ".join(missing.output.split())
    assert f"There is no guard config at {where}: name the file yours is in, or write one: " \
           "a TOML file naming the MCP servers to guard ([servers.NAME], each with a command " \
           "or a url)" in said
    assert "the people who decide ([[people]])" in said
    assert "docs/how-to/mcp.md" in said
    guide = Path(__file__).resolve().parent.parent / "docs" / "how-to" / "mcp.md"
    assert '```toml title="guard.toml"' in guide.read_text()  # (the example it names is there)


@pytest.mark.parametrize("command", ["guard", "proposals", "token", "approve"])
def test_the_guard_commands_help_says_where_the_example_config_comes_from(command: str) -> None:
    """The examples of a guard command name guard.toml: its help says what that is and where an
    example of it is (nothing said where the config its examples need would come from)."""
    shown = CliRunner().invoke(main, ["mcp", command, "--help"])
    assert shown.exit_code == 0, shown.output
    assert "signoff mcp " + command + " guard.toml" in shown.output
    assert "docs/how-to/mcp.md" in " ".join(shown.output.split())


def test_guard_refuses_work_for_someone_it_does_not_know(tmp_path: Path) -> None:
    """A config whose work is for an unknown person is told in a sentence once the servers are
    reached (no exception group from the SDK's connections reaches the person)."""
    (tmp_path / "files").mkdir()
    config = tmp_path / "guard.toml"
    config.write_text(f'''
database = "sqlite:///{tmp_path / 'guard.db'}"
for = "ghost@example.com"
[servers.files]
command = "{sys.executable}"
args = ["{Path(__file__).parent / 'mcp_upstream_files.py'}"]
env = {{ FILES_ROOT = "{tmp_path / 'files'}" }}
''')
    ghost = CliRunner().invoke(main, ["mcp", "guard", str(config)])
    assert ghost.exit_code == EXIT_USAGE
    assert "the work is for ghost@example.com, who is not known" in ghost.output
    assert "Traceback" not in ghost.output


@pytest.mark.parametrize(("arguments", "says"), [
    (["--inbox", "localhost"], "Invalid value for '--inbox': 'localhost' is not HOST:PORT"),
    (["--http", "127.0.0.1:1", "--inbox", "127.0.0.1:2"], "Give --http or --inbox, not both"),
    (["--wait", "-1"], "“-1” is below 0: give a number of seconds"),
])
def test_guard_refuses_options_that_do_not_fit(tmp_path: Path, arguments: list[str],
                                               says: str) -> None:
    """A wrong --inbox is told as --inbox's (it was blamed on --http, not given); --http and
    --inbox together are refused (the --inbox address was ignored without a word); a wait
    below 0 is refused (it was taken for 0)."""
    done = CliRunner().invoke(main, ["mcp", "guard", str(_noors_guard(tmp_path)), *arguments])
    assert done.exit_code == EXIT_USAGE, done.output
    assert says in " ".join(done.output.split())


def _noors_guard(tmp_path: Path) -> Path:
    """A guard's config with Noor as its one person, and a server it is never started for."""
    config = tmp_path / "guard.toml"
    config.write_text(f'''
database = "sqlite:///{tmp_path / 'guard.db'}"
[[people]]
handle = "noor@example.com"
name = "Noor"
[servers.files]
command = "true"
''')
    return config


def test_token_is_issued_only_for_the_guards_people(tmp_path: Path) -> None:
    """`signoff mcp token` prints a token that is Noor's; a stranger gets a sentence."""
    config = _noors_guard(tmp_path)
    issued = CliRunner().invoke(main, ["mcp", "token", str(config), "noor@example.com"])
    assert issued.exit_code == 0
    app = open_guard_app(GuardConfig.load(config))
    assert app.credentials.principal_for_token(issued.output.strip()).name == "Noor"
    stranger = CliRunner().invoke(main, ["mcp", "token", str(config), "mia@example.com"])
    assert stranger.exit_code == EXIT_NOT_FOUND
    assert "is not one of the guard's people" in stranger.output


def test_a_guards_tokens_are_listed_and_revoked_only_by_their_owner(tmp_path: Path) -> None:
    """`signoff mcp token … --list` lists a person's tokens and `--revoke ID` takes one back (a
    new token was issued at every run, and none could be taken back); an id that is not that
    person's is not found, exit 3, and theirs stays good."""
    config = _noors_guard(tmp_path)
    with config.open("a") as more:
        more.write('[[people]]\nhandle = "mia@example.com"\nname = "Mia"\n')
    app = open_guard_app(GuardConfig.load(config))
    issued = [CliRunner().invoke(main, ["mcp", "token", str(config), "noor@example.com"])
              for _ in range(2)]
    secrets = [done.output.strip() for done in issued]
    listed = CliRunner().invoke(main, ["mcp", "token", str(config), "noor@example.com", "--list"])
    assert listed.exit_code == 0, listed.output
    ids = [line.split()[0] for line in listed.output.splitlines()]
    assert ids == [t.id for t in app.credentials.tokens(app.people.find("noor@example.com"))]
    assert len(ids) == 2
    assert all("mcp guard" in line for line in listed.output.splitlines())
    mias = CliRunner().invoke(main, ["mcp", "token", str(config), "mia@example.com", "--revoke",
                                     ids[0]])
    assert mias.exit_code == EXIT_NOT_FOUND
    assert (f"Mia has no token {ids[0]}: `signoff mcp token {config} mia@example.com --list` "
            "lists theirs.") in " ".join(mias.output.split())
    assert all(app.credentials.principal_for_token(s).name == "Noor" for s in secrets)
    revoked = CliRunner().invoke(main, ["mcp", "token", str(config), "noor@example.com",
                                        "--revoke", ids[0]])
    assert revoked.exit_code == 0, revoked.output
    assert revoked.output.strip() == f"Token {ids[0]} is revoked."
    still = [app.credentials.principal_for_token(s) for s in secrets]
    assert sum(p is None for p in still) == 1
    assert sum(p is not None for p in still) == 1


@pytest.mark.parametrize("asked", [["--list", "--revoke", "TOKEN"], ["--list", "--save"],
                                   ["--revoke", "TOKEN", "--save"], ["--revoke", ""]])
def test_a_guard_token_command_asked_two_things_at_once_does_neither(tmp_path: Path,
                                                                    asked: list[str]) -> None:
    """`signoff mcp token` with --list and --revoke, or either with --save, is a usage error,
    exit 2, that says to give one of them (it only listed); an empty --revoke is told as empty
    (it issued a new token). No token is revoked or issued."""
    config = _noors_guard(tmp_path)
    issued = CliRunner().invoke(main, ["mcp", "token", str(config), "noor@example.com"])
    assert issued.exit_code == 0, issued.output
    app = open_guard_app(GuardConfig.load(config))
    noor = app.people.find("noor@example.com")
    (kept,) = app.credentials.tokens(noor)
    done = CliRunner().invoke(main, ["mcp", "token", str(config), "noor@example.com",
                                     *[kept.id if word == "TOKEN" else word for word in asked]])
    assert done.exit_code == EXIT_USAGE, done.output
    said = " ".join(done.output.split())
    assert ("it is empty" if "" in asked else "give one of them") in said
    assert "--label" not in said  # (`mcp token` takes none)
    assert [(t.id, t.revoked_at) for t in app.credentials.tokens(noor)] == [(kept.id, None)]
    assert app.credentials.principal_for_token(issued.output.strip()) is not None


@pytest.mark.parametrize("command", [["token"], ["password", "--password", "long enough"]])
def test_an_empty_handle_is_a_usage_error(tmp_path: Path, command: list[str]) -> None:
    """A handle given empty (as an unset shell variable gives it) is told as such, exit 2: not a
    search for a person with no handle."""
    config = _noors_guard(tmp_path)
    done = CliRunner().invoke(main, ["mcp", command[0], str(config), "", *command[1:]])
    assert done.exit_code == 2, done.output
    assert "it is empty: give it (an unset shell variable gives an empty one)." in done.output


def test_a_guard_person_gets_a_password_for_its_inbox(tmp_path: Path) -> None:
    """`signoff mcp password` sets the password Noor logs in to the guard's inbox pages with
    (kept in the guard's database); a stranger gets a sentence, and nothing is set."""
    config = _noors_guard(tmp_path)
    words = "correct horse battery"
    done = CliRunner().invoke(main, ["mcp", "password", str(config), "noor@example.com",
                                     "--password", words])
    assert done.exit_code == 0, done.output
    assert "Noor's password for the guard's inbox is set." in done.output
    app = open_guard_app(GuardConfig.load(config))
    person = app.credentials.check_password("noor@example.com", words)
    assert person is not None
    assert person.name == "Noor"
    assert app.credentials.check_password("noor@example.com", "wrong horse") is None
    stranger = CliRunner().invoke(main, ["mcp", "password", str(config), "mia@example.com",
                                         "--password", words])
    assert stranger.exit_code == EXIT_NOT_FOUND
    assert "is not one of the guard's people" in stranger.output


def test_a_guard_persons_password_from_a_script(tmp_path: Path) -> None:
    """With no terminal to ask at, `signoff mcp password` without a password says how to pipe
    it in and sets none, exit 2 (it ended "Aborted!", exit 1); --password-stdin takes the line
    piped in."""
    config = _noors_guard(tmp_path)
    words = "correct horse battery"
    asked = CliRunner().invoke(main, ["mcp", "password", str(config), "noor@example.com"],
                               input=f"{words}\n")
    assert asked.exit_code == EXIT_USAGE, asked.output
    assert (f"pipe it in with --password-stdin, as in `printf '%s\\n' \"$PASSWORD\" | signoff mcp "
            f"password {config} noor@example.com --password-stdin`, or give --password."
            ) in " ".join(asked.output.split())
    app = open_guard_app(GuardConfig.load(config))
    assert app.credentials.check_password("noor@example.com", words) is None
    piped = CliRunner().invoke(main, ["mcp", "password", str(config), "noor@example.com",
                                      "--password-stdin"], input=f"{words}\n")
    assert piped.exit_code == 0, piped.output
    assert app.credentials.check_password("noor@example.com", words) is not None


@pytest.mark.parametrize(("outside", "ends"), [
    ("", "— with any values, except values that outside content it has read may have steered "
         "(such a call is still proposed)"),
    ("outside = false", "— with any values"),
])
def test_a_guards_rule_reads_from_its_config_as_with_its_servers(tmp_path: Path, outside: str,
                                                                 ends: str) -> None:
    """Without its servers (as `signoff mcp rules` opens it), the guard's rule says the caveat
    of outside content when a server of its config gives outside content, and not when the
    config vouches for every answer (`outside = false`), as the connected guard says it."""
    from datetime import UTC, datetime

    from signoff.agents.rules import StandingRule
    from signoff.inbox import Inbox
    from signoff.mcp.guard import AGENT_NAME, reads_outside

    path = _noors_guard(tmp_path)
    path.write_text(f"{path.read_text()}{outside}\n")
    config = GuardConfig.load(path)
    app = open_guard_app(config)
    rule = StandingRule(id="r1", agent=AGENT_NAME, tool="files_delete_file", skill=None,
                        for_id=None, made_by=app.people.get("noor@example.com").id,
                        made_at=datetime.now(UTC))
    told = Inbox(app, reads_outside=lambda r: reads_outside(config, r)).covers(rule)
    assert told == ("from now on mcp_guard runs files_delete_file alone, without proposing it, "
                    f"in any of its skills, in work for everybody {ends}")
