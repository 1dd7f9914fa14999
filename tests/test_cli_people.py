"""The people's commands, through Click's runner, on a workshop kept in a SQLite file."""

from __future__ import annotations

import json
import os
import runpy
import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from signoff import App, ProposalStatus
from signoff.cli import load_app, main
from signoff.testing import ScriptedModel, says

ROOT = Path(__file__).resolve().parent.parent
APP = f"{ROOT / 'examples' / 'workshop.py'}:app"


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    """A workshop in a file, with one price proposal waiting, and a profile in a temp dir."""
    monkeypatch.setenv("WORKSHOP_DATABASE", f"sqlite:///{tmp_path / 'workshop.db'}")
    monkeypatch.setenv("SIGNOFF_PROFILE", str(tmp_path / "profile.json"))
    monkeypatch.delenv("SIGNOFF_AS", raising=False)
    monkeypatch.delenv("SIGNOFF_TOKEN", raising=False)
    ns = runpy.run_path(str(ROOT / "examples" / "workshop.py"), run_name="workshop_cli_test")
    shop = SimpleNamespace(**ns, **ns["setup"]())
    script = ScriptedModel(
        says.tool("Pads, a cable and an hour of work.", shop.set_price, repair=shop.repair.id,
                  price=45),
        says.hand_back(shop.Estimate(hours=Decimal(1), summary="Pads and a cable.")),
    )
    shop.outcome = shop.app.agent(shop.Estimator).do(shop.EstimateRepair(), shop.repair,
                                                     for_=shop.mia, model=script)
    shop.proposal = shop.app.proposals()[0]
    return shop


def cli(*args: str) -> tuple[int, str]:
    """Run the command; (exit code, what it printed)."""
    result = CliRunner().invoke(main, [*args, "--app", APP] if args[0] not in (
        "proposals", "rules", "users") else [args[0], "--app", APP, *args[1:]])
    return result.exit_code, result.output


def _login(handle: str) -> None:
    result = CliRunner().invoke(main, ["users", "token", handle, "--save", "--app", APP])
    assert result.exit_code == 0, result.output


def test_users_add_list_roles_disable(shop: SimpleNamespace) -> None:
    """users add, list (--json), roles, disable and enable act on the app's directory."""
    runner = CliRunner()
    out = runner.invoke(main, ["users", "add", "ola@workshop.example", "Ola", "--role",
                               "mechanic", "--app", APP])
    assert out.exit_code == 0, out.output
    assert out.output.strip() == "Added Ola (ola@workshop.example) with roles: mechanic."
    listed = json.loads(runner.invoke(main, ["users", "list", "--json", "--app", APP]).output)
    assert {p["handle"] for p in listed} >= {"mia@workshop.example", "ola@workshop.example",
                                             "estimator@agents"}
    out = runner.invoke(main, ["users", "roles", "ola@workshop.example", "--add", "manager",
                               "--app", APP])
    assert "Ola has roles: manager, mechanic." in out.output
    assert runner.invoke(main, ["users", "disable", "ola@workshop.example", "--app", APP]
                         ).exit_code == 0
    assert shop.app.people.find("ola@workshop.example").disabled
    missing = runner.invoke(main, ["users", "disable", "nobody@x", "--app", APP])
    assert missing.exit_code == 3
    assert "There is nobody with the handle 'nobody@x' in workshop" in missing.output


def test_disabling_twice_says_she_was_disabled_already(shop: SimpleNamespace) -> None:
    """`users disable` of someone disabled already says so (it said "Mia is disabled." again,
    as if it had done something), as `users enable` of someone not disabled does; exit 0, as
    `roles --remove` of a role not held: what was asked for holds."""
    def users(*args: str) -> tuple[int, str]:
        result = CliRunner().invoke(main, ["users", *args, "--app", APP])
        return result.exit_code, result.output.strip()

    assert users("disable", "mia@workshop.example") == (0, "Mia is disabled.")
    assert users("disable", "mia@workshop.example") == (
        0, "Mia was disabled already: nothing changed.")
    assert shop.app.people.find("mia@workshop.example").disabled
    assert users("enable", "mia@workshop.example") == (0, "Mia is enabled.")
    assert users("enable", "mia@workshop.example") == (0, "Mia was not disabled: nothing changed.")
    assert not shop.app.people.find("mia@workshop.example").disabled


def test_a_role_no_policy_names_is_told_and_a_role_not_held_is_not_taken(
        shop: SimpleNamespace) -> None:
    """A misspelt role was taken silently: Ola had "mechnic", which no policy names, and so no
    rights, and nothing said so. It is still given (a queue's name, or a role a `where` test
    reads, is not seen), with a note that names the roles the policies use and the closest;
    taking away a role she does not hold says that nothing was taken."""
    assert shop.app.roles_named() >= {"mechanic", "manager"}
    def users(*args: str) -> tuple[int, str]:
        result = CliRunner().invoke(main, ["users", *args, "--app", APP])
        return result.exit_code, result.output

    code, out = users("add", "ola@workshop.example", "Ola", "--role", "mechnic")
    assert code == 0
    assert "Added Ola (ola@workshop.example) with roles: mechnic." in out
    assert "no policy of this app names the role mechnic" in out
    assert "Did you mean mechanic?" in out
    code, out = users("roles", "ola@workshop.example", "--add", "mechanic", "--remove", "manager")
    assert code == 0
    assert "no policy" not in out
    assert "Ola did not have manager: nothing to take away." in out


def test_a_fleet_price_names_the_repair_by_its_ticket(shop: SimpleNamespace) -> None:
    """The fleet skill's proposal reads "Ticket T-7", as the estimate skill's does, in
    `signoff proposals` and `proposals show` (it showed the repair's raw id)."""
    script = ScriptedModel(
        says.tool("Fleet rate.", shop.set_price, repair=shop.repair.id, price=40),
        says.hand_back(shop.Estimate(hours=Decimal(1), summary="Pads.")))
    fleet = shop.app.agent(shop.Estimator).do(shop.PriceFleetRepair(), shop.repair,
                                              for_=shop.mia, model=script)
    (proposal,) = shop.app.proposals(task=fleet.task)
    assert proposal.shown == {"repair": "Ticket T-7", "price": "40"}
    _login("noor@workshop.example")
    code, out = cli("proposals", "--as", "noor@workshop.example")
    assert code == 0, out
    (line,) = [line for line in out.splitlines() if line.startswith(proposal.id)]
    assert "repair=Ticket T-7, price=40" in line
    code, out = cli("proposals", "--as", "noor@workshop.example", "show", proposal.id)
    assert code == 0, out
    assert "Ticket T-7" in out
    assert str(shop.repair.id) not in out


def test_proposals_show_and_approve_as_noor(shop: SimpleNamespace) -> None:
    """Noor lists what she may decide, reads the proposal whole, and approves it."""
    _login("noor@workshop.example")
    code, out = cli("proposals", "--as", "noor@workshop.example")
    assert code == 0
    assert f"{shop.proposal.id}  Waiting   estimator: Set the price" in out
    assert "repair=Ticket T-7, price=45" in out
    code, out = cli("proposals", "--as", "noor@workshop.example", "show", shop.proposal.id)
    assert code == 0
    assert "Why: Pads, a cable and an hour of work." in out
    assert ("What it does:\n  - reads a Repair (set_price -> repair: Repair)\n"
            "  - changes the `price` of a Repair (set_price -> repair.price = …)\n") in out
    assert "Fresh: yes." in out
    code, out = cli("proposals", "--as", "noor@workshop.example", "--json")
    assert json.loads(out)[0]["id"] == shop.proposal.id
    for written in ("waiting", "WAITING"):  # a status in any case (lower case was refused)
        code, out = cli("proposals", "--as", "noor@workshop.example", "--status", written, "--json")
        assert code == 0, out
        assert [p["id"] for p in json.loads(out)] == [shop.proposal.id]
    code, out = cli("approve", shop.proposal.id, "--as", "noor@workshop.example")
    # (the task was started with a model given in code: this process has none to go on with)
    assert (code, out.strip()) == (0, "Noor approved set_price; it ran as Noor and the agent together.\n"
                                      "The task is still Running: It goes on only where its model is at "
                                      "hand: it was started with a model given in code, which no worker can "
                                      "make, and its agent declares none. Go on with it in code, with the "
                                      "model made again: app.agent(...).resume(task, model=...).")
    code, out = cli("approve", shop.proposal.id, "--as", "noor@workshop.example")
    assert code == 1
    assert "already decided" in out


def test_a_proposal_approved_with_changes_says_what_it_ran_with(shop: SimpleNamespace) -> None:
    """`proposals show` and `proposals --all` say the values a yes changed beside the proposed
    ones (they showed only the proposed price, and Done)."""
    _login("noor@workshop.example")
    code, out = cli("approve", shop.proposal.id, "--set", "price=40", "--as",
                    "noor@workshop.example")
    assert code == 0, out
    code, out = cli("proposals", "--as", "noor@workshop.example", "show", shop.proposal.id)
    assert code == 0, out
    assert "Decided by: Noor. Status: Done.\nApproved with changes: price 40 (proposed 45)." in out
    code, out = cli("proposals", "--as", "noor@workshop.example", "--all")
    assert code == 0, out
    assert "— decided by Noor, approved with changes: price 40 (proposed 45)" in out


@pytest.mark.parametrize("command", [["proposals", "--as", "noor@workshop.example", "show"],
                                     ["approve"], ["reject", "--reason", "No."]])
def test_a_proposal_named_by_part_of_its_id_is_told_the_whole_id_is_needed(
        shop: SimpleNamespace, command: list[str]) -> None:
    """A prefix of a proposal's id is told that the whole id is needed and where it is listed;
    a whole id that names nothing is not; the whole id in upper case names the proposal."""
    _login("noor@workshop.example")
    asked = [*command, "--as", "noor@workshop.example"] if command[0] != "proposals" else command
    hint = "A proposal is named by its whole id (36 characters), as"
    prefix = shop.proposal.id[:8]
    code, out = cli(*asked, prefix)
    assert code == 3, out
    assert f"There is no proposal with id {prefix} that Noor may see." in out
    assert hint in " ".join(out.split())
    assert "proposals --all --app" in " ".join(out.split())
    code, out = cli(*asked, "0572ac3e-5f1d-4c2b-9a8e-3b7d1f2e6a90")
    assert code == 3, out
    assert "There is no proposal with id 0572ac3e-5f1d-4c2b-9a8e-3b7d1f2e6a90" in out
    assert "whole id" not in out
    code, out = cli(*asked, shop.proposal.id.upper())
    assert code == 0, out
    decided = shop.app.proposal(shop.proposal.id).status is not ProposalStatus.WAITING
    assert decided is (command[0] != "proposals")


def test_a_task_or_rule_named_by_part_of_its_id_is_told_the_whole_id_is_needed(
        shop: SimpleNamespace) -> None:
    """`receipt` and `rules revoke` given a prefix of an id say the whole id is needed and which
    command lists it (they said only that there was none); in upper case, the id names it."""
    _login("noor@workshop.example")
    code, out = cli("approve", shop.proposal.id, "--always", "--as", "noor@workshop.example")
    assert code == 0, out
    (rule,) = shop.app.rules()
    for asked, kind, none, listed_by, whole in (
            (["receipt", "--as", "noor@workshop.example"], "task", "task", "tasks --app",
             shop.proposal.task),
            (["rules", "--as", "noor@workshop.example", "revoke"], "rule", "standing rule",
             "rules --app", rule.id)):
        code, out = cli(*asked, whole[:8])
        assert code == 3, out
        said = " ".join(out.split())
        assert f"There is no {none} with id {whole[:8]}" in said
        assert f"A {kind} is named by its whole id (36 characters), as" in said
        assert listed_by in said
        code, out = cli(*asked, whole.upper())
        assert code == 0, out
    assert shop.app.rules(active_only=True) == []


def test_a_stale_proposal_is_shown_stale(shop: SimpleNamespace) -> None:
    """After the repair is revised, the listing and `proposals show` say it is stale."""
    _login("noor@workshop.example")
    shop.revise(shop.repair.id, "rear brake and gears")
    code, out = cli("proposals", "--as", "noor@workshop.example")
    assert code == 0
    assert ("    Not fresh: What this acts on has changed since it was proposed (it was r1, it is "
            "now r2): a yes will not run it") in out
    code, out = cli("proposals", "--as", "noor@workshop.example", "show", shop.proposal.id)
    assert code == 0
    assert "Stale: What this acts on has changed since it was proposed (it was r1, it is now r2)" in out


def test_reject_needs_a_reason_and_is_told(shop: SimpleNamespace) -> None:
    """reject --reason tells the agent; Mia may reject a proposal of work for her."""
    _login("mia@workshop.example")
    for blank in ("", "   ", "\u200b"):  # a wrong value, as a --set that does not fit (exit 1)
        code, out = cli("reject", shop.proposal.id, "--reason", blank, "--as",
                        "mia@workshop.example")
        assert (code, out.strip()) == (
            2, "Error: Say why: a no needs a reason, and the agent is told it."), blank
    code, out = cli("reject", shop.proposal.id, "--reason", "Too dear.", "--as",
                    "mia@workshop.example", "--json")
    assert code == 0
    assert json.loads(out)["told_agent"] == "Mia said no to set_price: Too dear."
    code, out = cli("reject", shop.proposal.id, "--as", "mia@workshop.example")
    assert code == 2  # --reason is required


def test_someone_else_neither_sees_nor_decides(shop: SimpleNamespace) -> None:
    """Ola, a mechanic, sees no proposal, cannot show it, and cannot decide it: both answers
    are that there is none she may see."""
    shop.app.people.add("ola@workshop.example", "Ola", roles=["mechanic"])
    _login("ola@workshop.example")
    code, out = cli("proposals", "--as", "ola@workshop.example")
    assert (code, out.strip()) == (0, "0 proposals.")
    code, out = cli("proposals", "--as", "ola@workshop.example", "show", shop.proposal.id)
    assert code == 3
    code, out = cli("approve", shop.proposal.id, "--as", "ola@workshop.example")
    assert code == 3
    assert f"There is no proposal with id {shop.proposal.id} that Ola may see." in out


def test_tokens_are_checked(shop: SimpleNamespace) -> None:
    """No token, a wrong token, or a disabled person's token: exit 4 with what to do."""
    code, out = cli("proposals")
    assert code == 4
    assert "Say who you are" in out
    code, out = cli("proposals", "--token", "sgn_nonsense")
    assert code == 4
    _login("mia@workshop.example")
    shop.app.people.disable(shop.mia)
    code, out = cli("proposals", "--as", "mia@workshop.example")
    assert code == 4  # a new token would not mend it (it said to keep one, which was refused)
    assert ("Mia (mia@workshop.example) is disabled in workshop, and may do nothing until "
            "enabled again: `signoff users enable mia@workshop.example --app") in out
    shop.app.people.enable(shop.mia)
    for kept in shop.app.credentials.tokens(shop.mia):  # revoked: a new token would mend it
        shop.app.credentials.revoke_token(kept.id)
    code, out = cli("proposals", "--as", "mia@workshop.example")
    assert code == 4
    assert "not valid" in out
    # the profile's token is named, with the person it was kept for and how to keep another
    profile = os.environ["SIGNOFF_PROFILE"]
    assert f"The token the profile ({profile}) keeps for mia@workshop.example is not valid" in (
        " ".join(out.split()))
    assert "signoff users token mia@workshop.example --save" in out


def test_saving_a_token_says_commands_now_act_as_its_person(shop: SimpleNamespace,
                                                            tmp_path: Path) -> None:
    """`users token X --save` says that commands on the app's database, named by its path (the
    profile keeps tokens by database: it said "on this app"), now act as X when no --as is
    given (it said only where the token is kept), and they do."""
    result = CliRunner().invoke(main, ["users", "token", "mia@workshop.example", "--save",
                                       "--app", APP])
    assert result.exit_code == 0, result.output
    assert (f"commands on this app's database ({tmp_path.resolve() / 'workshop.db'}) now act as "
            "Mia when no --as (nor SIGNOFF_AS) is given." in " ".join(result.output.split()))
    code, out = cli("tasks", "--json")
    assert code == 0, out
    assert [t["id"] for t in json.loads(out)] == [shop.outcome.task]


def test_rules_tasks_receipt_agents(shop: SimpleNamespace) -> None:
    """Approve --always makes a rule that `rules` lists and `rules revoke` takes back; tasks and
    receipt show the work; agents shows the catalogue."""
    _login("noor@workshop.example")
    code, out = cli("approve", shop.proposal.id, "--always", "--set", "price=40", "--as",
                    "noor@workshop.example")
    assert code == 2, out  # a rule follows a yes to the values as proposed
    assert "A yes with changed values cannot also make a standing rule" in out
    code, out = cli("approve", shop.proposal.id, "--always", "--as", "noor@workshop.example")
    assert code == 0, out
    code, out = cli("rules", "--as", "noor@workshop.example", "--json")
    (rule,) = json.loads(out)
    assert (rule["tool"], rule["used"]) == ("set_price", 0)
    code, out = cli("rules", "--as", "noor@workshop.example", "revoke", rule["id"], "--why",
                    "Enough.")
    assert (code, out.strip()) == (0, "Revoked: estimator proposes set_price again.")
    code, out = cli("tasks", "--as", "noor@workshop.example")
    assert shop.outcome.task in out
    code, out = cli("receipt", shop.outcome.task, "--as", "noor@workshop.example")
    assert "Noor approved set_price; it ran as Noor and the agent together." in out
    code, out = cli("receipt", shop.outcome.task, "--as", "noor@workshop.example", "--json")
    assert json.loads(out)["status"] == "Running"  # decided here; a worker with the model goes on
    code, out = cli("agents", "--json")
    assert {"agent": "estimator", "skill": "estimate_repair", "tool": "scrap_repair",
            "leave": "Never", "decided_by": "nobody"} in json.loads(out)


def test_the_receipt_of_an_apps_task_without_app_says_to_name_the_app(
        shop: SimpleNamespace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`signoff receipt TASK` without --app looks in the research database; for an app's task
    it says how to name the app (it said only that research has no such task)."""
    monkeypatch.delenv("SIGNOFF_APP", raising=False)
    monkeypatch.setenv("SIGNOFF_DATA_DIR", str(tmp_path / "data"))
    (tmp_path / "data").mkdir()
    research_db = f"sqlite:///{tmp_path / 'data' / 'research.db'}"
    App("research", database=research_db).database.ensure_schema()  # as research leaves it
    result = CliRunner().invoke(main, ["receipt", shop.outcome.task])
    assert result.exit_code == 3, result.output
    told = " ".join(result.output.split())
    assert f"There is no research task {shop.outcome.task} in sqlite:///" in told
    assert ("Without --app, this shows a task of signoff research; to show a task of an app, "
            "give --app path/to/app.py (a file)") in told
    named = CliRunner().invoke(main, ["receipt", "nope", "--database", research_db])
    assert named.exit_code == 3, named.output
    assert "Without --app" not in named.output


@pytest.mark.parametrize("asked", [["--list", "--revoke", "TOKEN"], ["--revoke", "TOKEN", "--list"],
                                   ["--list", "--save"], ["--revoke", "TOKEN", "--save"],
                                   ["--list", "--label", "ci"], ["--revoke", "TOKEN", "--label", "ci"],
                                   ["--list", "--revoke", "TOKEN", "--save"]])
def test_a_token_command_asked_two_things_at_once_does_neither(shop: SimpleNamespace,
                                                              asked: list[str]) -> None:
    """`users token` with --list and --revoke (or either with --save or --label, which go with a
    new token) is a usage error, exit 2, that says to give one of them; no token is revoked,
    issued or kept (--list with --revoke only listed, and the token stayed good)."""
    _login("mia@workshop.example")
    (kept,) = shop.app.credentials.tokens(shop.mia)
    profile = Path(os.environ["SIGNOFF_PROFILE"])
    before = profile.read_text()
    done = CliRunner().invoke(main, ["users", "token", "mia@workshop.example", "--app", APP,
                                     *[kept.id if word == "TOKEN" else word for word in asked]])
    assert done.exit_code == 2, done.output
    assert "give one of them" in " ".join(done.output.split())
    assert [(t.id, t.revoked_at) for t in shop.app.credentials.tokens(shop.mia)] == [
        (kept.id, None)]
    assert profile.read_text() == before


def test_an_empty_token_id_to_revoke_is_a_usage_error(shop: SimpleNamespace) -> None:
    """`users token HANDLE --revoke ""` (an unset shell variable) is told as empty, exit 2; it
    issued and printed a new token."""
    done = CliRunner().invoke(main, ["users", "token", "mia@workshop.example", "--revoke", "",
                                     "--app", APP])
    assert done.exit_code == 2, done.output
    assert "it is empty" in done.output
    assert shop.app.credentials.tokens(shop.mia) == []


@pytest.mark.parametrize("command", [["proposals"], ["approve"], ["reject"], ["rules"],
                                     ["tasks"], ["receipt"], ["agents"], ["users"],
                                     ["users", "token"]])
def test_each_help_has_an_example(command: list[str]) -> None:
    """Every people's command shows an example in its --help."""
    result = CliRunner().invoke(main, [*command, "--help"])
    assert result.exit_code == 0
    assert "Example" in result.output


def test_users_list_of_an_app_with_nobody_says_so(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """On a workshop whose setup never ran, `users list` says there is nobody yet and how to
    add someone (it printed nothing at all)."""
    monkeypatch.setenv("WORKSHOP_DATABASE", f"sqlite:///{tmp_path / 'empty.db'}")
    result = CliRunner().invoke(main, ["users", "list", "--app", APP])
    assert result.exit_code == 0, result.output
    assert " ".join(result.output.split()) == (
        "Nobody yet: the app adds its people (app.people.add), or "
        f"`signoff users add HANDLE NAME --app {APP}` does.")


def test_users_list_from_another_folder_names_the_file_it_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An app whose URL names its SQLite file from the current folder, listed from another
    folder, reads another (new, empty) database: `users list` said only "Nobody yet"; it
    names the file it read, and why."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("WORKSHOP_DATABASE", "sqlite:///relative.db")
    result = CliRunner().invoke(main, ["users", "list", "--app", APP])
    assert result.exit_code == 0, result.output
    assert (f"Its database is {tmp_path / 'relative.db'} here: the app's URL names the file "
            "relative.db from the folder a command runs in.") in " ".join(result.output.split())


def test_users_add_refuses_a_handle_that_is_not_an_e_mail_address(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`users add notanemail "Some Name"` is refused with exit 2 and a sentence naming the
    handle and what a handle is, and adds nobody; an e-mail address is added."""
    monkeypatch.setenv("WORKSHOP_DATABASE", f"sqlite:///{tmp_path / 'w.db'}")
    refused = CliRunner().invoke(main, ["users", "add", "notanemail", "Some Name", "--app", APP])
    assert refused.exit_code == 2, refused.output
    assert refused.stderr == ("Error: 'notanemail' is not an e-mail address: a person's handle "
                              "is their e-mail address (name@domain, such as noor@example.com).\n")
    listed = CliRunner().invoke(main, ["users", "list", "--json", "--app", APP])
    assert json.loads(listed.stdout) == []
    added = CliRunner().invoke(main, ["users", "add", "some@workshop.example", "Some Name",
                                      "--app", APP])
    assert added.exit_code == 0, added.output
    listed = CliRunner().invoke(main, ["users", "list", "--json", "--app", APP])
    assert [p["handle"] for p in json.loads(listed.stdout)] == ["some@workshop.example"]


PASSWORD = "a long password"

AT_A_TERMINAL = r"""
import os, pty, select, sys, time
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.executable, [sys.executable, "-m", "signoff.cli", *sys.argv[2:]])
said, deadline = b"", time.monotonic() + 60
for prompt in (b"Password: ", b"confirmation: ", None):
    while (prompt is None or prompt not in said) and time.monotonic() < deadline:
        if select.select([fd], [], [], 1)[0]:
            try:
                chunk = os.read(fd, 1024)
            except OSError:  # the command ended, and closed the terminal
                chunk = b""
            if not chunk:
                break
            said += chunk
    if prompt is not None:
        os.write(fd, sys.argv[1].encode() + b"\r")
sys.stdout.write(said.decode())
sys.exit(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
"""
"""Runs ``signoff ARGS`` at a terminal of its own (a pseudo-terminal it controls), answering
each prompt for the password with argv[1]; prints what the terminal showed."""


@pytest.fixture
def noor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """A fresh workshop in a file, with only Noor (added as `users add` adds her); the
    environment to run the command in."""
    monkeypatch.setenv("WORKSHOP_DATABASE", f"sqlite:///{tmp_path / 'w.db'}")
    added = CliRunner().invoke(main, ["users", "add", "noor@workshop.example", "Noor",
                                      "--app", APP])
    assert added.exit_code == 0, added.output
    return {**os.environ}


def _password_works(password: str) -> bool:
    """Whether Noor logs in with `password` (and so has one set)."""
    return load_app(APP).credentials.check_password("noor@workshop.example", password) is not None


def test_users_password_with_no_terminal_says_to_pipe_it_in(noor: dict[str, str]) -> None:
    """Run from a script or CI (stdin a pipe, and no terminal), `users password` without a
    password sets none and says how to pipe it in, exit 2 (it took the first line as the
    password, after Python's warning that it may be echoed, then asked for it again and ended
    "Aborted!", exit 1); with --password-stdin the line piped in is the password."""
    command = [sys.executable, "-m", "signoff.cli", "users", "password", "noor@workshop.example",
               "--app", APP]
    done = subprocess.run(command, input=f"{PASSWORD}\n", capture_output=True, text=True,
                          timeout=120, check=False, env=noor, start_new_session=True)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines()[-1] == (
        "Error: No password was given, and there is no terminal to ask for it at (stdin is not "
        "one): pipe it in with --password-stdin, as in `printf '%s\\n' \"$PASSWORD\" | signoff "
        f"users password noor@workshop.example --password-stdin --app {APP}`, or give "
        "--password.")
    assert "Warning" not in done.stderr
    assert not _password_works(PASSWORD)
    done = subprocess.run([*command, "--password-stdin"], input=f"{PASSWORD}\n",
                          capture_output=True, text=True, timeout=120, check=False, env=noor,
                          start_new_session=True)
    assert (done.returncode, done.stdout, done.stderr) == (0, "Noor's password is set.\n", "")
    assert _password_works(PASSWORD)
    assert not _password_works(PASSWORD + "\n")


@pytest.mark.parametrize(("stdin", "extra", "code", "says"), [
    (f"{PASSWORD}\r\n", [], 0, "Noor's password is set."),
    (PASSWORD, [], 0, "Noor's password is set."),
    ("", [], 2, "Error: No password came on stdin: pipe it in, as in `printf '%s\\n' "
                "\"$PASSWORD\" | signoff users password noor@workshop.example --password-stdin "
                f"--app {APP}`."),
    ("\n", [], 2, "Error: No password came on stdin"),
    (f"{PASSWORD}\n{PASSWORD}\n", [], 2, "Error: The password on stdin is more than one line: "
                                         "give it once, on one line."),
    (f"{PASSWORD}\n", ["--password", PASSWORD], 2,
     "Error: Give the password with --password or with --password-stdin, not both."),
])
def test_users_password_stdin(noor: dict[str, str], stdin: str, extra: list[str], code: int,
                              says: str) -> None:
    """--password-stdin takes one line (its line ending, LF or CRLF, not part of the
    password); nothing, more than one line, or --password too are refused, and nothing is set."""
    done = CliRunner().invoke(main, ["users", "password", "noor@workshop.example",
                                     "--password-stdin", *extra, "--app", APP], input=stdin)
    assert done.exit_code == code, done.output
    assert says in " ".join(done.output.split())
    assert _password_works(PASSWORD) is (code == 0)


def test_users_password_at_a_terminal_is_asked_for_twice_hidden(noor: dict[str, str]) -> None:
    """At a terminal, `users password` asks for the password, then again, showing neither, and
    sets it."""
    done = subprocess.run([sys.executable, "-c", AT_A_TERMINAL, PASSWORD, "users", "password",
                           "noor@workshop.example", "--app", APP], capture_output=True,
                          text=True, timeout=120, check=False, env=noor, start_new_session=True)
    assert done.returncode == 0, done.stdout + done.stderr
    shown = done.stdout.replace("\r", "").splitlines()
    assert shown == ["Password: ", "Repeat for confirmation: ", "Noor's password is set."]
    assert _password_works(PASSWORD)
