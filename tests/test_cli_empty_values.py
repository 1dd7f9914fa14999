"""An option or argument given an empty value (``--as "$WHO"`` with WHO unset) is told as
empty, as an empty id is: ``--as ""`` acted as whoever the profile's token was saved for last (a
yes said by the wrong person), ``serve --host ""`` listened on every interface of the machine,
``mcp serve --for ""`` served the work for nobody, ``mcp … ""`` read the folder it ran in as the
guard's config. A command that reads stdin, run with stdin closed, says what to give."""

from __future__ import annotations

import json
import os
import runpy
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest
from click.testing import CliRunner

from signoff import ProposalStatus
from signoff.cli import main
from signoff.testing import ScriptedModel, says
from tests.ports import free_port

ROOT = Path(__file__).resolve().parent.parent
APP = f"{ROOT / 'examples' / 'workshop.py'}:app"


@pytest.mark.parametrize("empty", ["", "   "])
def test_an_empty_as_decides_nothing_as_the_profiles_person(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, empty: str) -> None:
    """Noor's token saved (so commands act as her without --as): `approve ID --as ""` is a
    usage error saying the value is empty (exit 2), and the proposal still waits; so do the
    commands that list, and --token "" alike."""
    monkeypatch.setenv("WORKSHOP_DATABASE", f"sqlite:///{tmp_path / 'workshop.db'}")
    monkeypatch.setenv("SIGNOFF_PROFILE", str(tmp_path / "profile.json"))
    monkeypatch.delenv("SIGNOFF_AS", raising=False)
    monkeypatch.delenv("SIGNOFF_TOKEN", raising=False)
    ns = runpy.run_path(str(ROOT / "examples" / "workshop.py"), run_name="workshop_empty_as")
    people = ns["setup"]()
    app, repair = ns["app"], people["repair"]
    script = ScriptedModel(
        says.tool("Pads and a cable.", ns["set_price"], repair=repair.id, price=45),
        says.hand_back(ns["Estimate"](hours=Decimal(1), summary="Pads and a cable.")),
    )
    app.agent(ns["Estimator"]).do(ns["EstimateRepair"](), repair, for_=people["mia"],
                                  model=script)
    proposal = app.proposals()[0]
    runner = CliRunner()
    saved = runner.invoke(main, ["users", "token", "noor@workshop.example", "--save",
                                 "--app", APP])
    assert saved.exit_code == 0, saved.output
    for args in (["approve", proposal.id, "--as", empty],
                 ["approve", proposal.id, "--token", empty],
                 ["proposals", "--as", empty]):
        result = runner.invoke(main, [*args, "--app", APP])
        assert result.exit_code == 2, (args, result.output)
        assert "it is empty: give it" in result.output, result.output
    assert app.proposal(proposal.id).status is ProposalStatus.WAITING


def test_an_empty_host_to_serve_on_is_told_and_nothing_listens(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`serve --host ""` is a usage error saying the value is empty (exit 2), before anything
    listens (it served the inbox on every interface of the machine)."""
    monkeypatch.setenv("WORKSHOP_DATABASE", f"sqlite:///{tmp_path / 'workshop.db'}")
    command = [sys.executable, "-m", "signoff.cli", "serve", "--app", APP, "--host", "",
               "--port", str(free_port())]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=60,
                              check=False)
    except subprocess.TimeoutExpired as served:
        pytest.fail(f"It served: {served.stderr!r}")
    assert done.returncode == 2, done.stderr
    assert "Invalid value for '--host': it is empty: give it" in done.stderr, done.stderr
    assert "Uvicorn running" not in done.stderr


def _stdin_closed() -> None:
    """In the child, before it runs: close its stdin (as ``<&-`` in a shell)."""
    os.close(0)


@pytest.mark.parametrize(("args", "said"), [
    (["users", "password", "mia@workshop.example"],
     "No password was given, and there is no terminal to ask for it at"),
    (["users", "password", "mia@workshop.example", "--password-stdin"],
     "No password came on stdin: pipe it in"),
    (["db", "downgrade", "0014_rule_effects"],
     "Taking the tables back asks first, and no answer came"),
])
def test_a_closed_stdin_is_told_as_no_answer_and_nothing_changes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], said: str) -> None:
    """A command that reads stdin, run with stdin closed (``<&-``), says what to give (exit 2;
    it failed "for a reason it did not foresee", exit 5), and changes nothing."""
    monkeypatch.setenv("WORKSHOP_DATABASE", f"sqlite:///{tmp_path / 'workshop.db'}")
    monkeypatch.setenv("SIGNOFF_PROFILE", str(tmp_path / "profile.json"))
    runner = CliRunner()
    added = runner.invoke(main, ["users", "add", "mia@workshop.example", "Mia", "--app", APP])
    assert added.exit_code == 0, added.output
    done = subprocess.run([sys.executable, "-m", "signoff.cli", *args, "--app", APP],
                          capture_output=True,
                          text=True, timeout=120, check=False, preexec_fn=_stdin_closed)
    assert done.returncode == 2, done.stderr
    assert said in done.stderr, done.stderr
    assert "did not foresee" not in done.stderr
    revision = json.loads(runner.invoke(main, ["db", "revision", "--json", "--app", APP]).output)
    assert revision["revision"] == revision["newest"]


@pytest.mark.parametrize("command", ["guard", "proposals", "tasks", "rules", "token"])
def test_an_empty_guard_config_is_told_as_empty(tmp_path: Path, command: str) -> None:
    """`signoff mcp … ""` (an unset variable for the config) is told as empty, exit 2 (it was
    read as the folder the command runs in: " is a folder: name the guard's config file in
    it")."""
    args = ["mcp", command, "", *(["noor@workshop.example"] if command == "token" else [])]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    assert "Invalid value for 'CONFIG': it is empty: give the guard's config file" in (
        result.output)


@pytest.mark.parametrize("args", [
    ["run", "estimator", "estimate_repair", "--subject", "ticket=T-7", "--model",
     "openai-compatible:llama@http://127.0.0.1:9/v1", "--price", "0,0"],
    ["mcp", "serve", "--agent", "estimator", "--subject", "ticket=T-7"],
])
def test_an_empty_for_is_told_as_empty_not_taken_as_nobody(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str]) -> None:
    """`--for ""` is told as empty, exit 2, before anything starts (`run` said there was
    nobody with the handle '', exit 3; `mcp serve` served the work for nobody)."""
    monkeypatch.setenv("WORKSHOP_DATABASE", f"sqlite:///{tmp_path / 'workshop.db'}")
    done = subprocess.run([sys.executable, "-m", "signoff.cli", *args, "--for", "", "--app",
                           APP], capture_output=True, text=True, timeout=60, check=False,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 2, done.stderr
    assert "Invalid value for '--for': it is empty: give it" in done.stderr, done.stderr
