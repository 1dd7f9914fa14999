"""Every failure a person meets at the command line is one sentence on stderr and its exit code,
with no traceback (each failure issue 14 found, one test each); and `signoff run` starts a task
that `signoff worker`, in another process, goes on with."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import uuid
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner, Result

from signoff import App, EditRefused, ProposalStatus
from signoff.cli import main
from signoff.testing import ScriptedModel, says
from tests.provider_servers import Canned, openai_completion, serving
from tests.workshop_web import open_workshop, price

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "examples" / "workshop.py")


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    """The workshop in a SQLite file, with Mia, Noor and Ola, their tokens kept in a profile."""
    monkeypatch.setenv("SIGNOFF_PROFILE", str(tmp_path / "profile.json"))
    monkeypatch.delenv("SIGNOFF_AS", raising=False)
    monkeypatch.delenv("SIGNOFF_TOKEN", raising=False)
    monkeypatch.delenv("SIGNOFF_APP", raising=False)
    shop = open_workshop(tmp_path, monkeypatch)
    for handle in ("mia@workshop.example", "noor@workshop.example"):
        assert cli("users", "token", handle, "--save", "--app", APP).exit_code == 0
    return shop


def cli(*args: str) -> Result:
    """The command, run in this process; what it printed, its code, and no exception escaped."""
    result = CliRunner().invoke(main, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    return result


def signoff(*args: str, env: dict[str, str] | None = None, python: str = ""
            ) -> subprocess.CompletedProcess[str]:
    """The command, run as a person runs it: in a process of its own."""
    command = [sys.executable, "-c", python + "from signoff.cli import main; main()", *args] \
        if python else [sys.executable, "-m", "signoff.cli", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False,
                          env={**os.environ, **(env or {})})


def _told(done: subprocess.CompletedProcess[str], code: int, sentence: str) -> None:
    """It exited with `code`, and stderr is one line holding `sentence`, with no traceback."""
    assert done.returncode == code, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert sentence in lines[0]


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("command", [["users", "list"], ["tasks", "--as", "noor@workshop.example"],
                                     ["approve", "P", "--as", "noor@workshop.example"],
                                     ["serve", "--port", str(_closed_port())]])
def test_an_unreachable_database_is_one_sentence(command: list[str]) -> None:
    """`users list`, and the commands that act as someone (they read the database for who that
    is first: they said "report it"), against a PostgreSQL server that is not there: which
    database (its password hidden), why, and what to check; exit 5. `serve` says it before it
    serves (it served, and answered each request 500)."""
    port = _closed_port()
    done = signoff(*command, "--app", APP, env={
        "WORKSHOP_DATABASE": f"postgresql+psycopg://shop:secret@127.0.0.1:{port}/shop"})
    _told(done, 5, f"Error: The database postgresql+psycopg://shop:***@127.0.0.1:{port}/shop "
                   "could not be used: connection failed")
    assert "Check that the database is running and reachable" in done.stderr
    assert "secret" not in done.stderr


def test_a_sqlite_database_in_a_folder_that_is_not_there_names_the_folder(
        tmp_path: Path) -> None:
    """A SQLite file in a folder that does not exist was told to check "that the database is
    running and reachable"; it names the folder now."""
    folder = tmp_path / "not-made"
    done = signoff("users", "list", "--app", APP,
                   env={"WORKSHOP_DATABASE": f"sqlite:///{folder / 'shop.db'}"})
    _told(done, 5, f"The folder {folder} does not exist: make it, or give the app a database "
                   "in a folder that does")
    assert "running and reachable" not in done.stderr


def test_debug_shows_the_traceback() -> None:
    """`signoff --debug` shows the traceback a person is otherwise spared."""
    done = signoff("--debug", "users", "list", "--app", APP, env={
        "WORKSHOP_DATABASE": f"postgresql+psycopg://shop@127.0.0.1:{_closed_port()}/shop"})
    assert done.returncode != 0
    assert "Traceback" in done.stderr
    assert "StoreError" in done.stderr


@pytest.mark.parametrize("setting", ["maybe", "2"])
def test_a_debug_setting_it_does_not_take_is_told_by_its_variable(setting: str) -> None:
    """`SIGNOFF_DEBUG=maybe` is told by the variable's name, with what it takes, exit 2 (it was
    click's "Invalid value for '--debug'", listing the values it takes from an empty one)."""
    result = CliRunner().invoke(main, ["users", "list", "--app", APP],
                                env={"SIGNOFF_DEBUG": setting})
    assert result.exit_code == 2, result.output
    said = " ".join(result.output.split())
    assert (f"Error: SIGNOFF_DEBUG is “{setting}”, which it does not take: set it to 1 (or "
            "true, yes, on) to show a failure's traceback before its sentence, as --debug "
            "does, or to 0 (or false, no, off), or leave it empty, not to.") in said
    assert "--debug'" not in said
    for taken in ("", "0", "off", " Yes "):  # (the words it takes are taken, as ever)
        assert CliRunner().invoke(main, ["--help"], env={"SIGNOFF_DEBUG": taken}
                                  ).exit_code == 0, taken


def _debugged_alike(args: list[str], env: dict[str, str], code: int, sentence: str) -> None:
    """``signoff ARGS`` exits `code` with `sentence`; so does it under ``--debug`` and under
    ``SIGNOFF_DEBUG=1``, its traceback shown before the sentence."""
    _told(signoff(*args, env=env), code, sentence)
    for debugged in (signoff("--debug", *args, env=env),
                     signoff(*args, env={**env, "SIGNOFF_DEBUG": "1"})):
        assert debugged.returncode == code, debugged.stderr
        assert "Traceback (most recent call last):" in debugged.stderr
        last = debugged.stderr.strip().splitlines()[-1]
        assert sentence in last, debugged.stderr


def test_debug_keeps_a_failed_commands_sentence_and_exit_code(shop: SimpleNamespace) -> None:
    """A command that fails (a proposal that is not there: exit 3) says so and exits alike with
    --debug, which shows the traceback as well: a script sees the same exit code."""
    env = {"WORKSHOP_DATABASE": os.environ["WORKSHOP_DATABASE"],
           "SIGNOFF_PROFILE": os.environ["SIGNOFF_PROFILE"]}
    missing = str(uuid.uuid4())
    _debugged_alike(["approve", missing, "--app", APP, "--as", "noor@workshop.example"], env,
                    3, missing)


def test_debug_shows_the_traceback_of_a_failure_a_command_tells_itself(
        shop: SimpleNamespace) -> None:
    """A failure the command line tells itself (nobody with the handle --as gives: exit 3), not
    an error it turns into a sentence, shows its traceback under --debug too (it showed the
    sentence alone, as without --debug)."""
    env = {"WORKSHOP_DATABASE": os.environ["WORKSHOP_DATABASE"],
           "SIGNOFF_PROFILE": os.environ["SIGNOFF_PROFILE"]}
    _debugged_alike(["tasks", "--app", APP, "--as", "zed@workshop.example"], env, 3,
                    "There is nobody with the handle 'zed@workshop.example' in workshop")


@pytest.mark.parametrize(("source", "code", "sentence"), [
    ("import no_such_package_here\n", 2,
     "This needs the Python package no_such_package_here, which is not installed"),
    ("raise RuntimeError('the app is broken')\n", 2,
     "broken.py, line 1: the app's code raised RuntimeError ('the app is broken') as it was "
     "loaded."),
])
def test_debug_keeps_a_failed_app_loads_sentence_and_exit_code(
        tmp_path: Path, source: str, code: int, sentence: str) -> None:
    """An app file that fails as it is loaded is told in its sentence with its exit code, with
    --debug as without it (--debug adds the traceback)."""
    (tmp_path / "broken.py").write_text(source)
    _debugged_alike(["users", "list", "--app", str(tmp_path / "broken.py")], {}, code, sentence)


def test_a_missing_driver_names_the_postgres_extra() -> None:
    """A PostgreSQL URL without psycopg installed names the extra that brings it; exit 2."""
    done = signoff("users", "list", "--app", APP,
                   python="import sys; sys.modules['psycopg'] = None; ",
                   env={"WORKSHOP_DATABASE": "postgresql+psycopg://shop@127.0.0.1/shop"})
    _told(done, 2, "needs the driver psycopg, which is not installed: install signoff's "
                   "postgres extra, pip install -e '.[postgres]' in the folder of signoff's clone "
                   "(signoff is not on PyPI).")


def test_a_short_password_is_one_sentence(tmp_path: Path) -> None:
    """`users password` with a short password says how long it must be; exit 2."""
    env = {"WORKSHOP_DATABASE": f"sqlite:///{tmp_path / 'w.db'}"}
    assert signoff("users", "add", "noor@workshop.example", "Noor", "--app", APP,
                   env=env).returncode == 0
    done = signoff("users", "password", "noor@workshop.example", "--password", "short",
                   "--app", APP, env=env)
    _told(done, 2, "Error: A password needs at least 10 characters; this one has 5.")


NO_APP = ("No app is named: give --app path/to/app.py (a file) or --app mypackage.app (a "
          "module), adding :NAME when the App in it is not called app, or set SIGNOFF_APP to "
          "the same.")


@pytest.mark.parametrize("args", [
    ["proposals"], ["proposals", "show", "P"], ["approve", "P"], ["reject", "P", "--reason", "No."],
    ["rules"], ["rules", "revoke", "R"], ["agents"], ["users", "list"],
    ["users", "add", "ola@workshop.example", "Ola"], ["users", "token", "ola@workshop.example"],
    ["actions"], ["lint"], ["worker", "--once"], ["serve"], ["run", "estimator", "estimate"],
    ["mcp", "serve", "--agent", "estimator"],
], ids=" ".join)
def test_a_command_with_no_app_says_how_to_name_one(monkeypatch: pytest.MonkeyPatch,
                                                   args: list[str]) -> None:
    """Every command that works on an app, given none, says in the same words how to name one
    (a file, a module, or SIGNOFF_APP), exit 2; not a file of signoff's own clone."""
    monkeypatch.delenv("SIGNOFF_APP", raising=False)
    result = cli(*args)
    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines()[-1] == f"Error: {NO_APP}"


def test_a_receipt_with_no_app_nor_research_database_says_how_to_name_either(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """`signoff receipt TASK` with no app, and no research database where it looks, says how to
    name the database or, in the words every command uses, the app; exit 2."""
    monkeypatch.delenv("SIGNOFF_APP", raising=False)
    missing = tmp_path / "research.db"
    result = cli("receipt", "T", "--database", f"sqlite:///{missing}")
    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines()[-1] == (
        f"Error: There is no research database at sqlite:///{missing}: name the one that holds "
        "the task with --database URL, or, for a task of an app, " + NO_APP[len("No app is named: "):])


def test_tasks_with_no_app_nor_research_database_says_so_and_how_to_name_an_app(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """`signoff tasks` with no app lists research tasks: with no research database where it
    looks, there are none, and it says so, and how to name an app, in the words every command
    uses; exit 0 (JSON: an empty list)."""
    monkeypatch.delenv("SIGNOFF_APP", raising=False)
    missing = tmp_path / "research.db"
    result = cli("tasks", "--database", f"sqlite:///{missing}")
    assert result.exit_code == 0, result.output
    assert " ".join(result.stdout.split()) == (
        f"No research tasks: there is no research database at sqlite:///{missing} (`signoff "
        "research` makes it). For the tasks of an app, " + NO_APP[len("No app is named: "):])
    as_json = cli("tasks", "--database", f"sqlite:///{missing}", "--json")
    assert (as_json.exit_code, json.loads(as_json.stdout)) == (0, [])
    assert not missing.exists()


def test_proposals_show_takes_as_and_json_after_the_id(shop: SimpleNamespace) -> None:
    """`proposals show ID --as … --json`, as its help writes it, shows the proposal."""
    outcome = price(shop)
    (proposal,) = shop.app.proposals(task=outcome.task)
    result = cli("proposals", "show", proposal.id, "--app", APP, "--as",
                 "mia@workshop.example", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["id"] == proposal.id


def test_rules_revoke_takes_app_and_as(shop: SimpleNamespace) -> None:
    """`rules revoke RULE --app … --as …`, as its help writes it, takes the rule back."""
    rule = shop.app.allow_alone("estimator", "set_price", by=shop.noor)
    result = cli("rules", "revoke", rule.id, "--why", "Too dear.", "--app", APP, "--as",
                 "noor@workshop.example")
    assert (result.exit_code, result.stdout.strip()) == (
        0, "Revoked: estimator proposes set_price again.")
    assert not shop.app.rules()[0].active


def test_the_token_hint_names_the_app(shop: SimpleNamespace) -> None:
    """Without a token kept for someone, the hint is a command that works as written: it
    names the app."""
    result = cli("proposals", "--app", APP, "--as", "ola@workshop.example")
    assert result.exit_code == 4
    assert (f"The profile keeps no token for ola@workshop.example: run `signoff users token "
            f"ola@workshop.example --save --app {APP}`") in result.stderr


def test_as_takes_a_handle_in_any_case(shop: SimpleNamespace) -> None:
    """A handle is the same in any case: --as in other capitals acts as the person whose token
    the profile keeps (it was told to keep a token, and then, kept, the same again), and a
    token given with it is theirs."""
    assert cli("proposals", "--app", APP, "--as", "NOOR@workshop.example").exit_code == 0
    token = json.loads((Path(os.environ["SIGNOFF_PROFILE"])).read_text())
    kept = next(iter(token["databases"].values()))["tokens"]["noor@workshop.example"]
    assert cli("proposals", "--app", APP, "--token", kept, "--as",
               "Noor@Workshop.example").exit_code == 0


def test_someone_the_app_does_not_know_is_told_so(shop: SimpleNamespace) -> None:
    """--as a handle that is nobody's is told as such, with where the app's people are listed
    (it was told to keep a token for them, with a command that then failed in its turn)."""
    result = cli("proposals", "--app", APP, "--as", "nobody@workshop.example")
    assert result.exit_code == 3
    assert ("There is nobody with the handle 'nobody@workshop.example' in workshop: give the "
            f"handle of one of its people (`signoff users list --app {APP}` shows them)."
            ) in result.stderr


def test_an_app_with_nobody_yet_says_how_to_add_people(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Acting as someone in an app that has nobody yet (the workshop's examples, run in a
    folder where its database is new) says how to add people, and that the example makes its
    own when run (the help's examples failed so on a fresh clone, saying only "nobody")."""
    monkeypatch.setenv("SIGNOFF_PROFILE", str(tmp_path / "profile.json"))
    monkeypatch.setenv("WORKSHOP_DATABASE", f"sqlite:///{tmp_path / 'empty.db'}")
    for args in (["tasks", "--app", APP, "--as", "mia@workshop.example"],
                 ["users", "token", "noor@workshop.example", "--app", APP]):
        result = cli(*args)
        assert result.exit_code == 3, result.output
        told = " ".join(result.stderr.split())
        assert (f"It has nobody yet: add people with signoff users add HANDLE NAME --app {APP}, "
                f"or by the app's own setup (the examples make theirs when run: python {APP})."
                ) in told, told


def test_show_names_who_decided(shop: SimpleNamespace) -> None:
    """A proposal of Mia's work that Noor approved shows Noor as the decider, not Mia."""
    shop.app.oversight.supervises_agents = shop.is_manager
    outcome = price(shop)
    (proposal,) = shop.app.proposals(task=outcome.task)
    shop.app.approve(proposal, by=shop.noor)
    result = cli("proposals", "show", proposal.id, "--app", APP, "--as", "noor@workshop.example")
    assert result.exit_code == 0
    assert "Decided by: Noor. Status: Done." in result.stdout
    assert "Mia" not in result.stdout.split("Decided by:")[1]
    listed = cli("proposals", "--all", "--app", APP, "--as", "noor@workshop.example").stdout
    assert f"{proposal.id}  Done      estimator: Set the price" in listed
    assert listed.splitlines()[0].endswith("— decided by Noor")
    waiting = price(shop)
    (other,) = shop.app.proposals(task=waiting.task)
    mine = cli("proposals", "--app", APP, "--as", "mia@workshop.example").stdout
    assert mine.splitlines()[0].startswith(other.id)
    assert mine.splitlines()[0].endswith("— to be decided by Mia")


def test_a_routed_proposal_is_told_alike_by_show_and_approve(shop: SimpleNamespace) -> None:
    """Mia, whose work it is, gets the same answer from `show` and `approve` for a price routed
    to Noor: there is none she may see (exit 3); Noor approves it."""
    outcome = price(shop, fleet=True)
    (proposal,) = shop.app.proposals(task=outcome.task)
    sentence = f"There is no proposal with id {proposal.id} that Mia may see."
    for verb in (["proposals", "show", proposal.id], ["approve", proposal.id]):
        result = cli(*verb, "--app", APP, "--as", "mia@workshop.example")
        assert (result.exit_code, result.stderr.strip()) == (3, f"Error: {sentence}")
    result = cli("approve", proposal.id, "--app", APP, "--as", "noor@workshop.example")
    assert result.exit_code == 0
    assert result.stdout.startswith("Noor approved set_price; it ran as Noor and the agent together.")


def _another_repair(shop: SimpleNamespace) -> str:
    with shop.app.session(as_=shop.mia) as s:
        other = shop.Repair(ticket="T-8", fault="wobbly wheel")
        s.add(other)
    return str(other.id)


def test_an_edit_cannot_change_what_the_call_acts_on(shop: SimpleNamespace) -> None:
    """`approve --set repair=<another repair>` is refused in words (exit 2, a wrong value, as
    `--set price=abc` and a value set twice are; the REST API answers 422) and the proposal
    still waits; the library refuses it the same; the price may be changed."""
    shop.app.oversight.supervises_agents = shop.is_manager
    outcome = price(shop)
    (proposal,) = shop.app.proposals(task=outcome.task)
    other = _another_repair(shop)
    result = cli("approve", proposal.id, "--set", f"repair={other}", "--app", APP, "--as",
                 "noor@workshop.example")
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        "Error: An edit changes argument values only: repair names what set_price acts on, "
        "which an edit cannot change. Reject it with the reason instead; the agent is told and "
        "may propose again.")
    with pytest.raises(EditRefused, match="repair names what set_price acts on"):
        shop.app.approve(proposal, by=shop.noor, edited={"repair": other, "price": 40})
    assert shop.app.proposal(proposal).status is ProposalStatus.WAITING
    result = cli("approve", proposal.id, "--set", "prise=40", "--app", APP, "--as",
                 "noor@workshop.example")
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        "Error: set_price has no argument prise to change (its arguments are price, repair); "
        "the tool itself cannot be changed.")
    result = cli("approve", proposal.id, "--set", "price=abc", "--app", APP, "--as",
                 "noor@workshop.example")
    assert result.exit_code == 2
    assert result.stderr.strip().startswith("Error: The changed values do not fit set_price:")
    assert shop.app.proposal(proposal).status is ProposalStatus.WAITING
    twice = cli("approve", proposal.id, "--set", "price=40", "--set", "price=41", "--app", APP,
                "--as", "noor@workshop.example")
    assert twice.exit_code == 2
    assert "--set gives price twice: give each value once." in twice.stderr
    assert shop.app.proposal(proposal).status is ProposalStatus.WAITING
    result = cli("approve", proposal.id, "--set", "price=40", "--set",
                 f"repair={shop.repair.id}", "--app", APP, "--as", "noor@workshop.example")
    assert result.exit_code == 0
    assert ("Noor approved set_price with price changed to 40; it ran as Noor and the agent "
            "together.") in result.stdout


def test_always_says_what_rule_it_made(shop: SimpleNamespace) -> None:
    """`approve --always` says which standing rule it made, what it covers, and how to take it
    back; `signoff rules` lists it in the same words, and says it was revoked once it is."""
    shop.app.oversight.supervises_agents = shop.is_manager
    outcome = price(shop)
    (proposal,) = shop.app.proposals(task=outcome.task)
    result = cli("approve", proposal.id, "--always", "--app", APP, "--as", "noor@workshop.example")
    assert result.exit_code == 0
    (rule,) = shop.app.rules()
    assert (f"Standing rule {rule.id}: from now on estimator runs set_price alone, without "
            "proposing it, in estimate_repair, in work for Mia — with any values. Take it back "
            f"with `signoff rules revoke {rule.id} --app {APP}`.") in result.stdout
    covers = ("from now on estimator runs set_price alone, without proposing it, in "
              "estimate_repair, in work for Mia — with any values")
    listed = cli("rules", "--app", APP, "--as", "noor@workshop.example")
    assert f"{rule.id}  In force, used 0×: {covers}." in listed.stdout
    shop.app.revoke(rule, by=shop.noor, why="Prices went up.")
    listed = cli("rules", "--app", APP, "--as", "noor@workshop.example")
    assert (f"{rule.id}  Revoked, used 0×; it said: {covers}. Why it was taken back: Prices "
            "went up.") in listed.stdout


def test_the_worker_reports_a_task_without_a_model_once(shop: SimpleNamespace, tmp_path: Path
                                                        ) -> None:
    """A task started with a model given in code and decided from the command line: the worker
    says once why it cannot go on, `tasks` shows it, and the next pass says nothing."""
    script = ScriptedModel(
        says.tool("Pads.", shop.set_price, repair=shop.repair.id, price=45),
        says.hand_back(shop.Estimate(hours=Decimal(1), summary="Pads.")))
    outcome = shop.app.agent(shop.Estimator).do(shop.PriceFleetRepair(), shop.repair,
                                                for_=shop.mia, model=script)
    (proposal,) = shop.app.proposals(task=outcome.task)
    env = {"WORKSHOP_DATABASE": os.environ["WORKSHOP_DATABASE"],
           "SIGNOFF_PROFILE": os.environ["SIGNOFF_PROFILE"]}
    assert signoff("approve", proposal.id, "--app", APP, "--as", "noor@workshop.example",
                   env=env).returncode == 0
    first = signoff("worker", "--once", "--app", APP, env=env)
    assert first.returncode == 0, first.stderr
    assert first.stderr.count("stays Running") == 1
    assert "It was started with a model given in code" in first.stderr
    assert "Settled 0 interrupted approval(s); passed 0 deadline(s); stepped 0 task(s)." in first.stdout
    again = signoff("worker", "--once", "--app", APP, env=env)
    assert (again.returncode, again.stderr) == (0, "")
    listed = cli("tasks", "--app", APP, "--as", "noor@workshop.example")
    assert f"{outcome.task}  Running" in listed.stdout
    assert "    Stuck: It was started with a model given in code" in listed.stdout


def _estimator_server_script(repair_id: str) -> list[Canned]:
    """What a model answers in the fleet-price task: the parts, the price (proposed to Noor),
    then, once it ran, the estimate."""
    return [
        Canned(body=openai_completion(None, [("c1", "parts_for", json.dumps(
            {"fault": "rear brake does not bite"}))])),
        Canned(body=openai_completion("Pads and a cable.", [("c2", "set_price", json.dumps(
            {"repair": repair_id, "price": 38}))])),
        Canned(body=openai_completion(None, [("c3", "hand_back", json.dumps(
            {"hours": 1, "summary": "Pads and a cable."}))])),
    ]


def _workshop_env() -> dict[str, str]:
    """The environment a `signoff` process of these tests runs the workshop in."""
    return {"WORKSHOP_DATABASE": os.environ["WORKSHOP_DATABASE"],
            "SIGNOFF_PROFILE": os.environ["SIGNOFF_PROFILE"], "SIGNOFF_APP": APP}


def test_run_starts_a_task_the_worker_goes_on_with(shop: SimpleNamespace) -> None:
    """`signoff run … --model SPEC` starts the task, which waits on Noor; she approves in
    another process; `signoff worker --once` makes the same model again and finishes it."""
    env = _workshop_env()
    with serving() as server:
        server.answer(*_estimator_server_script(str(shop.repair.id)))
        started = signoff("run", "estimator", "price_fleet_repair", "--for",
                          "mia@workshop.example", "--subject", "ticket=T-7", "--model",
                          f"openai-compatible:m@{server.url}/v1", "--price", "0,0", env=env)
        assert started.returncode == 0, started.stderr
        assert "waiting, after 2 model calls" in started.stdout
        assert "It waits on a decision from Noor" in started.stdout
        assert "--as noor@workshop.example`, or the inbox" in started.stdout  # (not HANDLE)
        (proposal,) = shop.app.proposals(status=ProposalStatus.WAITING)
        assert signoff("approve", proposal.id, "--as", "noor@workshop.example",
                       env=env).returncode == 0
        worked = signoff("worker", "--once", env=env)
        assert worked.returncode == 0, worked.stderr
        assert "stepped 1 task(s)" in worked.stdout
        assert len(server.received) == 3
    assert shop.app.outcome(proposal.task).status.value == "Done"
    assert shop.app.outcome(proposal.task).result.summary == "Pads and a cable."


def test_run_as_json_names_what_it_waits_on_and_the_receipt_what_it_cost(
        shop: SimpleNamespace) -> None:
    """`signoff run --json` gives the proposals the task waits on (their ids, to decide them),
    and `signoff receipt --json` what the task cost in all, as the REST API does."""
    env = _workshop_env()
    with serving() as server:
        server.answer(*_estimator_server_script(str(shop.repair.id)))
        started = signoff("run", "estimator", "price_fleet_repair", "--for",
                          "mia@workshop.example", "--subject", "ticket=T-7", "--model",
                          f"openai-compatible:m@{server.url}/v1", "--price", "1,1", "--json",
                          env=env)
    assert started.returncode == 0, started.stderr
    told = json.loads(started.stdout)
    (proposal,) = shop.app.proposals(status=ProposalStatus.WAITING)
    assert [(w["proposal"], w["action"], w["decide_by"]) for w in told["waiting"]] == [
        (proposal.id, "set_price", "Noor")]
    receipt = signoff("receipt", told["task"], "--as", "noor@workshop.example", "--json",
                      env=env)
    assert receipt.returncode == 0, receipt.stderr
    assert json.loads(receipt.stdout)["cost_usd"] == pytest.approx(told["spend_usd"])
    assert told["spend_usd"] > 0


def test_a_model_that_cannot_be_reached_is_told_in_sentences(shop: SimpleNamespace) -> None:
    """`signoff run` with a model nobody serves: the task fails (exit 5), and stderr says which
    model and what to check in sentences, once (the loop's log of it is left out: the task's
    problem says it), with none of the traceback the loop logs (that is for `--debug`); without
    its price, the run stops before it starts and names --price."""
    env = _workshop_env()
    nowhere = f"openai-compatible:m@http://127.0.0.1:{_closed_port()}/v1"
    done = signoff("run", "estimator", "price_fleet_repair", "--for", "mia@workshop.example",
                   "--subject", "ticket=T-7", "--model", nowhere, "--price", "0,0", env=env)
    assert done.returncode == 5, done.stderr  # could not be done: the model could not be used
    assert "failed, after 0 model calls" in done.stdout
    assert "Traceback" not in done.stderr
    assert "could not be reached" in done.stderr
    assert done.stderr.count("Check the base URL and the network.") == 1, done.stderr
    debugged = signoff("--debug", "run", "estimator", "price_fleet_repair", "--for",
                       "mia@workshop.example", "--subject", "ticket=T-7", "--model", nowhere,
                       "--price", "0,0", env=env)
    assert "Traceback" in debugged.stderr
    assert "failed in task" not in done.stderr
    assert "failed in task" in debugged.stderr
    listed = signoff("tasks", "--as", "mia@workshop.example", "--status", "Failed", env=env)
    assert listed.returncode == 0, listed.stderr
    assert "    Why: The model failed: " in listed.stdout  # (it was listed with no reason)
    unpriced = signoff("run", "estimator", "price_fleet_repair", "--for", "mia@workshop.example",
                       "--subject", "ticket=T-7", "--model", nowhere, env=env)
    assert unpriced.returncode == 2, unpriced.stderr  # misused: no task is started
    assert "give it with --price IN,OUT" in unpriced.stderr


@pytest.mark.parametrize("args", [["proposals", "show", ""], ["approve", " "],
                                  ["reject", "", "--reason", "No."], ["receipt", ""]])
def test_an_empty_id_is_a_usage_error(shop: SimpleNamespace, args: list[str]) -> None:
    """An id given empty (as an unset shell variable gives it) is told as such, exit 2: not a
    search for a proposal or task with no id."""
    done = cli(*args, "--app", APP, "--as", "noor@workshop.example")
    assert done.exit_code == 2, done.output
    assert "it is empty: give it (an unset shell variable gives an empty one)." in done.output


@pytest.mark.parametrize(("args", "given"), [
    (["proposals", "show", "\udcff", "--as", "noor@workshop.example"], "\udcff"),
    (["receipt", "a\udcff", "--as", "noor@workshop.example"], "a\udcff"),
    (["users", "add", "z\udcff@workshop.example", "Zed"], "z\udcff@workshop.example")])
def test_an_argument_that_is_not_utf8_is_a_usage_error(shop: SimpleNamespace, args: list[str],
                                                       given: str) -> None:
    """Bytes that are not UTF-8 in an id or a handle (Python reads them as lone surrogates) are
    told as such, exit 2: they were "a reason it did not foresee … report it" (exit 1)."""
    done = cli(*args, "--app", APP)
    assert done.exit_code == 2, done.output
    shown = given.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    assert (f"“{shown}” holds bytes that are not UTF-8 text, which signoff can neither keep nor "
            "look up: give it as UTF-8.") in done.output


def test_a_model_that_cannot_be_made_again_is_reported_once(shop: SimpleNamespace) -> None:
    """A task started with openai:gpt-4o-mini goes on in a worker that has no OpenAI key: the
    worker says so once, and `tasks` shows it."""
    from signoff.agents import model_specs

    outcome = price(shop)
    with shop.app.database.connect() as db:
        model_specs.record(db, outcome.task, model_specs.ModelSpec(spec="openai:gpt-4o-mini"))
    (proposal,) = shop.app.proposals(task=outcome.task)
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    decided = subprocess.run(  # in a process of its own, which has no model for the task
        [sys.executable, "-m", "signoff.cli", "reject", proposal.id, "--reason", "Too dear.",
         "--app", APP, "--as", "mia@workshop.example"],
        capture_output=True, text=True, env=env, timeout=120, check=False)
    assert decided.returncode == 0, decided.stderr
    worked = subprocess.run([sys.executable, "-m", "signoff.cli", "worker", "--once", "--app",
                             APP], capture_output=True, text=True, env=env, timeout=120,
                            check=False)
    assert worked.returncode == 0, worked.stderr
    assert worked.stderr.count("Its model openai:gpt-4o-mini cannot be made here: "
                               "openai:gpt-4o-mini needs an API key: set OPENAI_API_KEY.") == 1
    listed = cli("tasks", "--app", APP, "--as", "mia@workshop.example", "--json")
    (task,) = json.loads(listed.stdout)
    assert task["stuck"].startswith("Its model openai:gpt-4o-mini cannot be made here")



def test_a_tasks_problem_counts_until_the_task_is_written_again(shop: SimpleNamespace) -> None:
    """Why a worker cannot step a task counts (for `tasks`' Stuck line, and the outcome of a
    Running task) until the task is written again: another process that has its model stepped
    it. Reported again, it counts again, though it is not told twice."""
    from sqlalchemy import update

    from signoff.agents import model_specs
    from signoff.agents import repository as repo
    from signoff.store.tables import tasks

    task = price(shop).task
    with shop.app.database.connect() as db:
        assert model_specs.report(db, task, "No model here.") is True
    with shop.app.database.connect() as db:
        assert model_specs.problems(db, [task]) == {task: "No model here."}
        db.execute(update(tasks).where(tasks.c.id == task).values(updated_at=repo.now()))
    with shop.app.database.connect() as db:
        assert model_specs.problems(db, [task]) == {}
        assert model_specs.report(db, task, "No model here.") is False
    with shop.app.database.connect() as db:
        assert model_specs.problems(db, [task]) == {task: "No model here."}

@pytest.mark.parametrize(("args", "code", "sentence"), [
    (["run", "nobody", "x"], 2, "There is no agent 'nobody' in this app; its agents are: "
                                "estimator."),
    (["run", "estimator", "x"], 2, "estimator has no skill 'x'; its skills are: "
                                   "estimate_repair, price_fleet_repair."),
    (["run", "estimator", "estimate_repair", "--subject", "ticket=T-7"], 2,
     "estimator declares no model: name one with --model"),
    (["run", "estimator", "estimate_repair", "--subject", "ticket=T-99", "--model",
      "openai-compatible:m@http://127.0.0.1:9/v1", "--price", "0,0"], 3,
     "There is no Repair ticket=T-99 that Estimator may read."),
    (["run", "estimator", "estimate_repair", "--subject", "fault=x", "--model", "openai:m"], 2,
     "fault is not a unique field of Repair"),
    (["run", "estimator", "estimate_repair", "--subject", "ticket=T-7", "--model",
      "openai-compatible:m@http://127.0.0.1:9/v1", "--price", "cheap"], 2,
     "“cheap” is not a price"),
    (["run", "estimator", "estimate_repair", "--for", "zed@x", "--subject", "ticket=T-7",
      "--model", "openai:m"], 3, "There is nobody with the handle 'zed@x' in workshop"),
])
def test_run_refuses_bad_input_in_words(shop: SimpleNamespace, args: list[str], code: int,
                                        sentence: str) -> None:
    """Each wrong `signoff run` is one sentence and its exit code, and starts nothing."""
    result = cli(*args, "--app", APP)
    assert result.exit_code == code, result.output
    assert sentence in result.stderr
    assert shop.app.proposals() == []


def test_a_subject_the_person_may_not_read_is_told_as_one_that_is_not_there(
    shop: SimpleNamespace,
) -> None:
    """`signoff run --subject` for a person who may not read the record says what it says of a
    record that does not exist (exit 3): the command does not tell that it exists, or its name."""
    shop.app.people.add("zed@workshop.example", "Zed")  # no role: may read no repair
    model = ["--model", "openai-compatible:m@http://127.0.0.1:9/v1", "--price", "0,0"]
    for given in ("ticket=T-7", str(shop.repair.id), "ticket=T-99", str(uuid.uuid4())):
        result = cli("run", "estimator", "estimate_repair", "--for", "zed@workshop.example",
                     "--subject", given, *model, "--app", APP)
        assert (result.exit_code, result.stderr.strip()) == (
            3, f"Error: There is no Repair {given} that Zed may read."), given
    assert shop.app.proposals() == []


def test_what_a_model_wrote_reaches_the_terminal_as_escapes(shop: SimpleNamespace) -> None:
    """A receipt line and a proposal's reason hold what the model wrote, control characters and
    a right-to-left override included: `signoff receipt` and `proposals show` print each as an
    escape, never as itself. (A NUL is kept as U+FFFD as the model's reply is read: no
    PostgreSQL text column keeps one.)"""
    evil = "Pads\u202e and\x00 a \x1b[2Jcable."
    outcome = price(shop, why=evil)
    (proposal,) = shop.app.proposals(task=outcome.task)
    shown = cli("receipt", outcome.task, "--app", APP, "--as", "mia@workshop.example")
    told = cli("proposals", "show", proposal.id, "--app", APP, "--as", "mia@workshop.example")
    for result in (shown, told):
        assert result.exit_code == 0, result.output
        assert not any(c in result.output for c in "\u202e\x00\x1b")
    assert "Why: Pads\\u202e and\ufffd a \\x1b[2Jcable." in told.output


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_a_worker_stopped_with_ctrl_c_says_so(shop: SimpleNamespace, stop: int) -> None:
    """`signoff worker` runs until Ctrl-C, as it says; stopped so, or by SIGTERM (a service
    manager's stop: it ended the worker at once, unsaid, whatever step was under way), it says
    "Stopped." and exits 0, with no "Aborted!" and no traceback."""
    env = {**os.environ, "SIGNOFF_APP": APP}
    worker = subprocess.Popen([sys.executable, "-m", "signoff.cli", "worker", "--every", "0.05"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    assert worker.stdout is not None
    first = worker.stdout.readline()          # it says it looks, and how it stops
    assert first.startswith("A worker of workshop looks every 0.05 s for work"), first
    assert first.rstrip().endswith("stop it with Ctrl-C."), first
    worker.send_signal(stop)
    out, err = worker.communicate(timeout=60)
    assert worker.returncode == 0, err
    assert out.strip() == "Stopped."
    assert "Aborted" not in err
    assert "Traceback" not in err


def test_warnings_reach_the_stderr_of_each_command_run() -> None:
    """signoff's warnings reach stderr as it is for each command run in the process (the tests
    run many), as a sentence, or with the traceback under --debug."""
    import contextlib
    import io
    import logging

    from signoff.cli.failures import tell_logs

    said = []
    for debug in (False, False, True):
        stderr = io.StringIO()
        with contextlib.redirect_stderr(stderr):
            tell_logs(debug=debug)
            try:
                raise ValueError("inside")
            except ValueError:
                logging.getLogger("signoff.test").warning("A warning, told.", exc_info=True)
        said.append(stderr.getvalue())
    assert said[0] == said[1] == "A warning, told.\n"
    assert said[2].startswith("A warning, told.\nTraceback")
    assert "ValueError: inside" in said[2]


def test_a_reader_that_stops_reading_ends_the_command_quietly(shop: SimpleNamespace) -> None:
    """`signoff agents … | head -1`: once the reader has stopped reading, the command ends with
    exit 0 and says nothing (it said it failed for a reason it did not foresee, BrokenPipeError,
    exit 5). The reader here closes its end before the command writes a line."""
    command = [sys.executable, "-m", "signoff.cli", "agents", "--app", APP]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env={**os.environ})
    assert process.stdout is not None
    assert process.stderr is not None
    process.stdout.close()
    with process.stderr:
        errors = process.stderr.read().decode()
    assert process.wait(timeout=120) == 0, errors
    assert errors == ""


def test_the_agents_catalogue_of_an_app_whose_routing_raises_is_listed_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`signoff agents` of the workshop whose fleet skill's `decided_by` raises (as the
    example's own did, on a fresh workshop with no manager yet): that line says so, in words
    that name nothing of the failure (they may reach a model, as a served tool's description),
    the warning says which; every other line is listed (the command failed with IndexError as a
    reason it did not foresee, exit 5, and the inbox's Agents page answered 500)."""
    monkeypatch.setenv("WORKSHOP_DATABASE", f"sqlite:///{tmp_path / 'empty.db'}")
    raising = tmp_path / "raising.py"
    raising.write_text(
        "import runpy\n"
        f"found = runpy.run_path({APP!r}, run_name='workshop_raising')\n"
        "app = found['app']\n"
        "found['PriceFleetRepair'].decided_by = lambda self, action: [][0]  # no one to route to\n")
    result = cli("agents", "--app", f"{raising}:app")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert len(lines) == 6
    (fleet,) = [line for line in lines if "price_fleet_repair" in line and "set_price" in line]
    assert ("someone not known now (the skill's routing failed; the app's log has the "
            "details)") in fleet
    assert "IndexError" not in result.stdout  # what failed may reach a model: the log has it
    assert ("PriceFleetRepair.decided_by('set_price') raised IndexError (list index out of "
            "range): who decides its proposals is not known now") in " ".join(
                result.stderr.split())
    assert "Traceback" not in result.output


def test_a_token_that_is_not_there_exits_as_not_found(shop: SimpleNamespace) -> None:
    """`users token --revoke` of an id no token has is told in a sentence and exits 3, not
    found, as the CLI guide says (it exited 2, misused)."""
    revoked = cli("users", "token", "noor@workshop.example", "--revoke", "zzz", "--app", APP)
    assert revoked.exit_code == 3, revoked.output
    assert (f"Noor has no token zzz: `signoff users token noor@workshop.example --list --app "
            f"{APP}` lists theirs.") in " ".join(revoked.stderr.split())


def test_a_research_receipt_is_found_as_research_tells_it_with_an_app_in_the_environment(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With SIGNOFF_APP naming an app (as the README's walk exports it), `signoff research`
    tells its receipt command with the research database, and that command, run as written,
    shows the research task's receipt (it looked in the app, and said there was no such task)."""
    import re
    import shlex

    monkeypatch.setenv("SIGNOFF_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("SIGNOFF_APP", APP)
    monkeypatch.setenv("WORKSHOP_DATABASE", f"sqlite:///{tmp_path / 'workshop.db'}")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "kettles.md").write_text("# Kettles\n\nA kettle boils water for tea.\n")
    asked = cli("research", "What does a kettle boil?", "--corpus", str(corpus))
    assert asked.exit_code == 0, asked.output
    told = re.search(r"See it with: (signoff receipt \S+(?: --database \S+)?)",
                     " ".join(asked.stdout.split()))
    assert told is not None, asked.stdout
    command = shlex.split(told.group(1))
    assert "--database" in command
    shown = cli(*command[1:])
    assert shown.exit_code == 0, shown.output
    assert "search_sources" in shown.stdout


@pytest.mark.parametrize("where", ["above the environment", "elsewhere", "on PATH"])
def test_research_tells_the_receipt_command_as_the_person_can_run_it(tmp_path: Path,
                                                                      where: str) -> None:
    """Run as `.venv/bin/signoff` with the environment not activated (as after `scripts/demo`),
    `signoff research` tells its receipt command with the program's path — relative to the
    current folder when under it — and that command, run as written in a shell, shows the
    receipt; with signoff on PATH it says `signoff` (it always said `signoff`: command not
    found)."""
    import re

    script = Path(sys.executable).parent / "signoff"
    assert script.exists(), "install signoff first: pip install -e ."
    env = {k: v for k, v in os.environ.items() if not k.startswith("SIGNOFF_")}
    env |= {"SIGNOFF_DATA_DIR": str(tmp_path / "data"), "COLUMNS": "300",
            "PATH": "/usr/local/bin:/usr/bin:/bin"}
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "kettles.md").write_text("# Kettles\n\nA kettle boils water for tea.\n")
    if where == "above the environment":  # in the folder holding .venv, as in a clone
        cwd, expected = script.parent.parent.parent, f"{script.parent.parent.name}/bin/signoff"
    elif where == "elsewhere":
        cwd, expected = tmp_path, str(script)
    else:
        cwd, expected = tmp_path, "signoff"
        env["PATH"] = f"{script.parent}:{env['PATH']}"
    asked = subprocess.run([str(script.relative_to(cwd)) if cwd != tmp_path else str(script),
                            "research", "What does a kettle boil?", "--corpus", str(corpus)],
                           cwd=cwd, env=env, capture_output=True, text=True, timeout=300,
                           check=False)
    assert asked.returncode == 0, asked.stderr
    told = re.search(r"See it with: (\S+) receipt (\S+)", " ".join(asked.stdout.split()))
    assert told is not None, asked.stdout
    assert told.group(1) == expected
    shown = subprocess.run(f"{told.group(1)} receipt {told.group(2)}", shell=True, cwd=cwd,
                           env=env, capture_output=True, text=True, timeout=300, check=False)
    assert shown.returncode == 0, shown.stderr
    assert "search_sources" in shown.stdout


@pytest.mark.parametrize(("user", "handle"), [
    ("ada", "ada@localhost"),
    ("Ada Lovelace", "Ada-Lovelace@localhost"),
    ("ada@corp", "ada-corp@localhost"),
])
def test_research_names_the_person_at_the_keyboard_by_an_address_their_user_name_allows(
        monkeypatch: pytest.MonkeyPatch, user: str, handle: str) -> None:
    """`signoff research` acts for the person at the keyboard, known by their user name at
    localhost: a user name with a space or an @ in it (possible on Windows, or in a domain)
    still makes an e-mail address (a person's handle must be one), and the same person is
    found on the next run."""
    from signoff.cli.research import _local_person

    for name in ("LOGNAME", "USER", "LNAME", "USERNAME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LOGNAME", user)
    app = App("research", database="sqlite://")
    me = _local_person(app)
    assert (me.handle, me.name) == (handle, user)
    assert _local_person(app).id == me.id
    assert [p.handle for p in app.people.all()] == [handle]


def test_nobody_found_in_an_app_whose_database_is_named_from_the_folder(tmp_path: Path) -> None:
    """An app whose database URL is a relative SQLite file, run from another folder, opens
    another (new, empty) database there: a person it then does not find is told with which file
    that is, and how to name the app's own."""
    (tmp_path / "app").mkdir()
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "app" / "desk.py").write_text(
        'from signoff import App\napp = App("desk", database="sqlite:///desk.db")\n')
    spec = str(tmp_path / "app" / "desk.py")
    made = subprocess.run([sys.executable, "-m", "signoff.cli", "users", "add", "lee@desk.example",
                           "Lee", "--app", spec], cwd=tmp_path / "app", capture_output=True,
                          text=True, timeout=120, check=False)
    assert made.returncode == 0, made.stderr
    here = subprocess.run([sys.executable, "-m", "signoff.cli", "users", "disable",
                           "lee@desk.example", "--app", spec], cwd=tmp_path / "app",
                          capture_output=True, text=True, timeout=120, check=False)
    assert here.returncode == 0, here.stderr
    away = subprocess.run([sys.executable, "-m", "signoff.cli", "users", "disable",
                           "lee@desk.example", "--app", spec], cwd=tmp_path / "elsewhere",
                          capture_output=True, text=True, timeout=120, check=False)
    assert away.returncode == 3
    told = " ".join(away.stderr.split())
    assert (f"There is nobody with the handle 'lee@desk.example' in desk. Its database is "
            f"{tmp_path / 'elsewhere' / 'desk.db'} here: the app's URL names the file desk.db "
            "from the folder a command runs in. Run it from the app's folder, or give the app "
            "an absolute URL (sqlite:////path/to/desk.db).") in told


def test_a_database_named_from_another_folder_is_noted_as_it_is_made(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An app whose SQLite file is named from the folder a command runs in, with its database
    in the app's folder, run from another folder that has none, works on a new, empty database
    made there: every command now says so (`serve` showed an empty inbox, `worker` stepped
    nothing, in silence). Nothing is said of a first run (no database in either folder, as when
    the examples are run from the clone's root), from the app's own folder, or once the file is
    there."""
    home, elsewhere, first = tmp_path / "app", tmp_path / "elsewhere", tmp_path / "first"
    for folder in (home, elsewhere, first):
        folder.mkdir()
    (home / "shop.py").write_text('from signoff import App\n\napp = App("shop", database='
                                  '"sqlite:///shop.db")\n')
    monkeypatch.chdir(first)
    made_first = cli("worker", "--once", "--app", str(home / "shop.py"))
    assert (made_first.exit_code, made_first.stderr) == (0, "")
    monkeypatch.chdir(home)
    at_home = cli("worker", "--once", "--app", "shop.py")
    assert (at_home.exit_code, at_home.stderr) == (0, "")
    assert (home / "shop.db").exists()
    monkeypatch.chdir(elsewhere)
    made = cli("worker", "--once", "--app", str(home / "shop.py"))
    assert made.exit_code == 0, made.output
    assert " ".join(made.stderr.split()) == (
        f"Note: the app's database is the file shop.db, named from the folder a command runs "
        f"in: there is one in the app's folder ({home}) but none in {elsewhere}, so a new, empty "
        f"one is made here. Run it from the app's folder, or give the app an absolute URL "
        f"(sqlite:////path/to/shop.db).")
    assert (elsewhere / "shop.db").exists()
    again = cli("worker", "--once", "--app", str(home / "shop.py"))
    assert (again.exit_code, again.stderr) == (0, "")
