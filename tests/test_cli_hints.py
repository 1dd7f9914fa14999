"""The commands signoff's hints tell a person to run next are written as they can run them: the
program's own path when no `signoff` on PATH is it (after `scripts/demo`, only
`.venv/bin/signoff` exists), and each such hint, run as written in a shell, does what it says."""

from __future__ import annotations

import ast
import os
import re
import runpy
import shutil
import subprocess
import sys
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from signoff.cli import invocation, main
from signoff.cli.failures import failure_of
from signoff.cli.invocation import commands_as_run
from signoff.testing import ScriptedModel, says

ROOT = Path(__file__).resolve().parent.parent
APP = f"{ROOT / 'examples' / 'workshop.py'}:app"
SCRIPT = Path(sys.executable).parent / "signoff"
"""The `signoff` program of this environment (`.venv/bin/signoff` in a clone)."""
WHERE = SCRIPT.parent.parent.parent
"""The folder holding the environment (a clone's root), where `scripts/demo` leaves a person."""
PROGRAM = f"{SCRIPT.parent.parent.name}/bin/signoff"
"""How a person in `WHERE` runs `SCRIPT`, with no signoff on PATH."""
PATH = "/usr/local/bin:/usr/bin:/bin"
"""A PATH with no signoff on it (the environment is not activated)."""


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    """A workshop in a file, with one price proposal waiting for Noor (the manager), and a
    profile in a temp dir."""
    return _shop_in(tmp_path, monkeypatch)


def _shop_in(folder: Path, monkeypatch: pytest.MonkeyPatch,
             app: Path = ROOT / "examples" / "workshop.py") -> SimpleNamespace:
    """The workshop of `app`, its database and the profile in `folder`, with one price
    proposal waiting for Noor (the manager)."""
    monkeypatch.setenv("WORKSHOP_DATABASE", f"sqlite:///{folder / 'workshop.db'}")
    monkeypatch.setenv("SIGNOFF_PROFILE", str(folder / "profile.json"))
    for name in ("SIGNOFF_AS", "SIGNOFF_TOKEN", "SIGNOFF_APP"):
        monkeypatch.delenv(name, raising=False)
    ns = runpy.run_path(str(app), run_name="workshop_hints_test")
    shop = SimpleNamespace(**ns, **ns["setup"]())
    script = ScriptedModel(
        says.tool("Pads, a cable and an hour of work.", shop.set_price, repair=shop.repair.id,
                  price=45),
        says.hand_back(shop.Estimate(hours=Decimal(1), summary="Pads and a cable.")),
    )
    shop.app.agent(shop.Estimator).do(shop.EstimateRepair(), shop.repair, for_=shop.mia,
                                      model=script)
    shop.proposal = shop.app.proposals()[0]
    shop.app.database.dispose()  # (the commands below open the file themselves)
    return shop


@pytest.fixture
def as_after_demo(monkeypatch: pytest.MonkeyPatch) -> None:
    """This process as `.venv/bin/signoff` run from the clone's root with no signoff on PATH."""
    assert SCRIPT.exists(), "install signoff first: pip install -e ."
    monkeypatch.setattr(sys, "argv", [str(SCRIPT.relative_to(WHERE))])
    monkeypatch.chdir(WHERE)
    monkeypatch.setenv("PATH", PATH)


def _told(output: str) -> str:
    return " ".join(output.split())


def _commands_told(output: str) -> list[str]:
    """The commands a message names in backticks."""
    return re.findall(r"`([^`]+)`", _told(output))


def test_a_saved_token_and_a_standing_rule_are_told_as_runnable_commands(
        shop: SimpleNamespace, tmp_path: Path) -> None:
    """Run as `.venv/bin/signoff` with no signoff on PATH: the hint to keep a token, and the hint
    to take back the rule `approve --always` made, each name `.venv/bin/signoff …` (they said
    `signoff …`: command not found), and each, run as written in a shell, works."""
    assert SCRIPT.exists(), "install signoff first: pip install -e ."
    env = {k: v for k, v in os.environ.items() if not k.startswith("SIGNOFF_")}
    env |= {"PATH": PATH, "COLUMNS": "300", "SIGNOFF_PROFILE": str(tmp_path / "profile.json")}
    program = str(SCRIPT.relative_to(WHERE))

    def signoff(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([program, *args], cwd=WHERE, env=env, capture_output=True,
                              text=True, timeout=300, check=False)

    def shell(command: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(command, shell=True, cwd=WHERE, env=env, capture_output=True,
                              text=True, timeout=300, check=False)

    asked = signoff("proposals", "--as", "noor@workshop.example", "--app", APP)
    assert asked.returncode == 4, asked.stderr
    (keep,) = _commands_told(asked.stderr)
    assert keep == f"{PROGRAM} users token noor@workshop.example --save --app {APP}"
    kept = shell(keep)
    assert kept.returncode == 0, kept.stderr
    approved = signoff("approve", shop.proposal.id, "--always", "--as", "noor@workshop.example",
                       "--app", APP)
    assert approved.returncode == 0, approved.stderr
    (take_back,) = _commands_told(approved.stdout.split("Take it back with", 1)[1])
    assert take_back.startswith(f"{PROGRAM} rules revoke ")
    taken = shell(f"{take_back} --as noor@workshop.example")
    assert taken.returncode == 0, taken.stderr
    assert "Revoked: estimator proposes set_price again." in taken.stdout


def test_a_hint_quotes_a_program_app_and_config_whose_paths_have_spaces(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run as `'my shop/.venv/bin/signoff'` from the folder above, on an app, a database and a
    guard's config in `my shop/`: each hint quotes the program and each path it names
    (``--app 'my shop/workshop.py:app'``; it wrote ``--app my shop/workshop.py:app``, two
    words), and, run as written in a shell, does what it says."""
    assert SCRIPT.exists(), "install signoff first: pip install -e ."
    folder = tmp_path / "my shop"
    folder.mkdir()
    (folder / ".venv").symlink_to(SCRIPT.parent.parent, target_is_directory=True)
    shutil.copy(ROOT / "examples" / "workshop.py", folder / "workshop.py")
    shop = _shop_in(folder, monkeypatch, folder / "workshop.py")
    assert " " in shop.app.database.file
    app = "my shop/workshop.py:app"
    env = {k: v for k, v in os.environ.items() if not k.startswith("SIGNOFF_")}
    env |= {"PATH": PATH, "COLUMNS": "300", "SIGNOFF_PROFILE": str(folder / "profile.json")}
    program = "my shop/.venv/bin/signoff"

    def signoff(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([program, *args], cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=300, check=False)

    def shell(command: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(command, shell=True, cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=300, check=False)

    asked = signoff("proposals", "--as", "noor@workshop.example", "--app", app)
    assert asked.returncode == 4, asked.stderr
    (keep,) = _commands_told(asked.stderr)
    assert keep == ("'my shop/.venv/bin/signoff' users token noor@workshop.example --save "
                    "--app 'my shop/workshop.py:app'")
    kept = shell(keep)
    assert kept.returncode == 0, kept.stderr
    approved = signoff("approve", shop.proposal.id, "--always", "--as", "noor@workshop.example",
                       "--app", app)
    assert approved.returncode == 0, approved.stderr
    (take_back,) = _commands_told(approved.stdout.split("Take it back with", 1)[1])
    assert take_back.endswith(" --app 'my shop/workshop.py:app'")
    taken = shell(f"{take_back} --as noor@workshop.example")
    assert taken.returncode == 0, taken.stderr
    assert "Revoked: estimator proposes set_price again." in taken.stdout

    config = folder / "guard.toml"
    config.write_text(f'''
database = "sqlite:///{folder / 'guard.db'}"
[[people]]
handle = "noor@example.com"
name = "Noor"
[servers.files]
command = "true"
''')
    refused = signoff("mcp", "token", "my shop/guard.toml", "noor@example.com", "--revoke", "no")
    assert refused.returncode == 3, refused.stderr
    (listing,) = _commands_told(refused.stderr)
    assert listing == ("'my shop/.venv/bin/signoff' mcp token 'my shop/guard.toml' "
                       "noor@example.com --list")
    listed = shell(listing)
    assert listed.returncode == 0, listed.stderr


@pytest.mark.parametrize(("command", "hint"), [
    (["users", "token", "mia@workshop.example", "--revoke", "not-a-token-id", "--app", APP],
     f"users token mia@workshop.example --list --app {APP}"),
    (["users", "password", "mia@workshop.example", "--app", APP],
     f"users password mia@workshop.example --password-stdin --app {APP}"),
    (["proposals", "--as", "nobody@workshop.example", "--app", APP], f"users list --app {APP}"),
    (["proposals", "--app", APP], f"users token HANDLE --save --app {APP}"),
    (["mcp", "serve", "--app", APP, "--agent", "estimator", "--for", "nobody@workshop.example"],
     f"users list --app {APP}"),
    (["research", " "], 'research "What does the with statement do?"'),
])
def test_each_hint_names_the_program_as_it_was_run(shop: SimpleNamespace, as_after_demo: None,
                                                    command: list[str], hint: str) -> None:
    """Each hint that tells a person what to run next begins with the program as they ran it
    (`.venv/bin/signoff`, with no signoff on PATH), not a bare `signoff`."""
    done = CliRunner().invoke(main, command)
    assert done.exit_code != 0, done.output
    told = _told(done.output)
    assert f"{PROGRAM} {hint}" in told
    assert not re.search(r"(^|[\s`|])signoff (users|proposals|research|rules|mcp)\b", told), told


def test_a_list_of_nobody_names_the_program_as_it_was_run(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch,
                                                          as_after_demo: None) -> None:
    """`users list` of an app with nobody tells how to add someone as the program was run."""
    monkeypatch.setenv("WORKSHOP_DATABASE", f"sqlite:///{tmp_path / 'empty.db'}")
    done = CliRunner().invoke(main, ["users", "list", "--app", APP])
    assert done.exit_code == 0, done.output
    assert f"`{PROGRAM} users add HANDLE NAME --app {APP}` does." in _told(done.output)


def _naming() -> re.Pattern[str]:
    """A string's naming a signoff command (`signoff users …`)."""
    commands = "|".join(re.escape(name) for name in [*main.commands, "--debug"])
    return re.compile(rf"(^|[\s`(|]|such as )signoff ({commands})(\s|`|$)")


def _hints_in(path: Path) -> Iterator[tuple[int, str]]:
    """The strings of `path` that name a signoff command, outside docstrings and help texts
    (`help=`, `epilog=`, and the examples they are made of): the hints it prints. An f-string
    is read whole, each value put in it as ``{…}``."""
    tree = ast.parse(path.read_text())
    documentation: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):  # its parts are read with it, not alone
            documentation.update(id(part) for part in node.values)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            documentation.add(id(node.value))  # a docstring (of a module, class, function,
            # or attribute)
        if isinstance(node, ast.keyword) and node.arg in ("help", "epilog"):
            documentation.update(id(sub) for sub in ast.walk(node.value))
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id.endswith("EXAMPLES") for t in node.targets):
            documentation.update(id(sub) for sub in ast.walk(node.value))
    naming = _naming()
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr) and id(node) not in documentation:
            text = "".join(part.value if isinstance(part, ast.Constant) else "{…}"
                           for part in node.values)
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
              and id(node) not in documentation):
            text = node.value
        else:
            continue
        if naming.search(text):
            yield node.lineno, text


def test_no_hint_of_the_command_line_names_a_bare_signoff() -> None:
    """No string the commands print names `signoff COMMAND` itself: each hint is made with
    `runnable`, which names the program as the person can run it."""
    found = [f"{path.relative_to(ROOT)}:{line}: {text!r}"
             for path in sorted((ROOT / "signoff" / "cli").glob("*.py"))
             for line, text in _hints_in(path)]
    assert found == []


def test_no_message_of_the_library_names_a_command_the_command_line_cannot_rewrite(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Outside the command line, each string that names `signoff COMMAND` names it in
    backticks, as ```signoff WORDS```, which the command line writes as the program was run
    (`commands_as_run`) where it prints the library's errors, tasks' problems and log records;
    or it is a command whole (`signoff.mcp.transport.ISSUING`), put in backticks where told.
    (The library cannot name the program: it is not run as a command, or its message is read
    later, by another process.)"""
    monkeypatch.setattr(invocation, "program", lambda: ".venv/bin/signoff")
    naming = _naming()
    found = [f"{path.relative_to(ROOT)}:{line}: {text!r}"
             for path in sorted((ROOT / "signoff").rglob("*.py"))
             if ROOT / "signoff" / "cli" not in path.parents
             for line, text in _hints_in(path)
             if naming.search(commands_as_run(text))  # still a bare signoff, once rewritten
             and not re.fullmatch(r"signoff [^`]+", text)]
    assert found == []


def test_a_command_a_tasks_problem_names_is_told_as_the_program_was_run(
        shop: SimpleNamespace, tmp_path: Path) -> None:
    """A task started with a model given in code, approved at the command line, cannot be gone
    on with by a worker: the problem the library keeps names `signoff run … --model SPEC`. Run
    as `.venv/bin/signoff` with no signoff on PATH, the worker's warning and `tasks`' Stuck
    line name `.venv/bin/signoff run …` (they said `signoff run …`: command not found)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SIGNOFF_")}
    env |= {"PATH": PATH, "COLUMNS": "300", "SIGNOFF_PROFILE": str(tmp_path / "profile.json")}

    def signoff(*args: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run([PROGRAM, *args, "--app", APP], cwd=WHERE, env=env,
                              capture_output=True, text=True, timeout=300, check=False)
        assert done.returncode == 0, done.stderr
        return done

    signoff("users", "token", "noor@workshop.example", "--save")
    signoff("approve", shop.proposal.id, "--as", "noor@workshop.example")
    told = f"Start tasks with `{PROGRAM} run … --model SPEC`"
    worker = signoff("worker", "--once")
    assert told in _told(worker.stderr), worker.stderr
    tasks = signoff("tasks", "--as", "noor@workshop.example")
    assert "Stuck: It was started with a model given in code" in _told(tasks.stdout)
    assert told in _told(tasks.stdout), tasks.stdout
    assert "`signoff " not in worker.stderr + tasks.stdout


def test_a_command_a_failure_names_is_told_as_the_program_was_run(as_after_demo: None) -> None:
    """A failure of the library told at the command line (Temporal's client failing in words it
    cannot tell) names `.venv/bin/signoff --debug …`, as the program was run."""
    from signoff.engine.temporal.runner import Unreachable

    failure = failure_of(Unreachable("127.0.0.1:7233", "Failed client connect: Server "
                                     "connection error: tonic::transport::Error(Transport, X)"))
    assert (f"the connection failed (`{PROGRAM} --debug …` shows the client's report)"
            in failure.message)
