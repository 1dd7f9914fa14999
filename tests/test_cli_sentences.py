"""A refusal at the command line is its sentence alone on stderr, with its exit code: the
command's usage goes only before what click cannot read (an option it does not know). A yes to
a proposal whose agent the loaded app does not declare is refused as `signoff proposals` lists
it, not fresh. (Found by a new user's trial of the docs.)"""

from __future__ import annotations

import os
import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from signoff import Agent, ProposalStatus
from signoff.cli import main
from signoff.testing import ScriptedModel, says
from tests.workshop_web import open_workshop

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "examples" / "workshop.py")


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    """The workshop in a SQLite file, with Mia, Noor and Ola, Mia's token kept in a profile."""
    monkeypatch.setenv("SIGNOFF_PROFILE", str(tmp_path / "profile.json"))
    for name in ("SIGNOFF_AS", "SIGNOFF_TOKEN", "SIGNOFF_APP", "SIGNOFF_DEBUG"):
        monkeypatch.delenv(name, raising=False)
    shop = open_workshop(tmp_path, monkeypatch)
    saved = CliRunner().invoke(main, ["users", "token", "mia@workshop.example", "--save",
                                      "--app", APP])
    assert saved.exit_code == 0, saved.output
    return shop


def signoff(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The command, run as a person runs it from a script: in a process of its own, its stdin a
    pipe (no terminal)."""
    return subprocess.run([sys.executable, "-m", "signoff.cli", *args], capture_output=True,
                          text=True, input="", cwd=cwd, timeout=120, check=False,
                          env=dict(os.environ))


@pytest.mark.parametrize(("args", "sentence"), [
    (["users", "password", "mia@workshop.example", "--app", APP],
     "No password was given, and there is no terminal to ask for it at"),
    (["users", "token", "mia@workshop.example", "--client", "--save", "--app", APP],
     "--client and --save do not go together"),
    (["tasks", "--app", "nosuch.py:app"], "There is no file nosuch.py."),
    (["users", "add", "ola2@workshop.example", "Ola", "--app", "myapp:app"],
     "myapp:app: there is no module myapp to import"),
])
def test_a_refusal_of_what_was_asked_is_one_sentence(
        shop: SimpleNamespace, tmp_path: Path, args: list[str], sentence: str) -> None:
    """No terminal to ask a password at, --client with --save, an app file or module that is
    not there: one line on stderr, exit 2 (misused), without the command's usage (they were
    told as click tells a command line it cannot read: "Usage: …", "Try '… --help' for help.",
    a blank line, then the sentence)."""
    done = signoff(*args, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [done.stderr.strip()], done.stderr
    assert done.stderr.startswith(f"Error: {sentence}"), done.stderr


def test_an_option_click_cannot_read_is_still_told_with_the_usage(tmp_path: Path) -> None:
    """An unknown option is a command line that cannot be read: click's usage comes first, then
    its sentence, exit 2."""
    done = signoff("tasks", "--app", "nosuch.py:app", "--bogus", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("Usage: ")
    assert done.stderr.strip().endswith("Error: No such option '--bogus'.")


def test_a_yes_to_a_proposal_of_an_agent_the_app_does_not_declare_is_refused_as_not_fresh(
        shop: SimpleNamespace, tmp_path: Path) -> None:
    """A proposal by an agent a script declared beside the app, but not the app's file the
    command loads: `signoff proposals` lists it "Not fresh: …", and `signoff approve` says the
    same words and exits 1, refused (it said "There is no agent 'pricer' in this app" and
    exited 2, as if the command were misused); nothing is decided, and `signoff reject` still
    ends it."""

    class Pricer(Agent):
        purpose = "You price bicycle repairs."
        skills = [shop.EstimateRepair()]
        roles = ["helper"]

    shop.app.add_agent(Pricer)
    model = ScriptedModel(
        says.tool("An hour of work.", shop.set_price, repair=shop.repair.id, price=45),
        says.hand_back(shop.Estimate(hours=Decimal(1), summary="Priced.")),
    )
    outcome = shop.app.agent(Pricer).do(shop.EstimateRepair(), shop.repair, for_=shop.mia,
                                        model=model)
    (proposal,) = shop.app.proposals(task=outcome.task)
    listed = signoff("proposals", "--app", APP, cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    (words,) = [line.strip().removeprefix("Not fresh: ") for line in listed.stdout.splitlines()
                if line.strip().startswith("Not fresh: ")]
    assert words.startswith("pricer or its skill estimate_repair is no longer declared")
    shown = signoff("proposals", "show", proposal.id, "--app", APP, cwd=tmp_path)
    assert f"Stale: {words}" in shown.stdout.splitlines()

    yes = signoff("approve", proposal.id, "--app", APP, cwd=tmp_path)
    assert yes.returncode == 1, yes.stderr
    assert yes.stderr.splitlines() == [yes.stderr.strip()], yes.stderr
    assert yes.stderr.startswith(f"Error: Not fresh: {words} Nothing was decided: declare "
                                 "pricer in the app this command loads, or say no with `"), (
        yes.stderr)
    assert f"reject {proposal.id} --reason TEXT --app {APP}`." in yes.stderr
    assert shop.app.proposal(proposal).status is ProposalStatus.WAITING

    no = signoff("reject", proposal.id, "--reason", "Not by this agent.", "--app", APP,
                 cwd=tmp_path)
    assert no.returncode == 0, no.stderr
    assert shop.app.proposal(proposal).status is ProposalStatus.REJECTED
