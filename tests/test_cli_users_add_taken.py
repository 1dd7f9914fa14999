"""`signoff users add` of a handle someone has already, and of an agent's kind of handle, on the
workshop kept in a SQLite file: the first names who has it and the commands that list everyone
and give them the roles asked for (which then run as written); the second is refused before
the app takes the person for its agent's account."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from signoff.cli import load_app, main
from signoff.security.principals import PrincipalKind

ROOT = Path(__file__).resolve().parent.parent
APP = f"{ROOT / 'examples' / 'workshop.py'}:app"


@pytest.fixture(autouse=True)
def _workshop_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WORKSHOP_DATABASE", f"sqlite:///{tmp_path / 'workshop.db'}")
    monkeypatch.setenv("SIGNOFF_PROFILE", str(tmp_path / "profile.json"))
    monkeypatch.delenv("SIGNOFF_APP", raising=False)


def _signoff(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, [*args, "--app", APP])
    return result.exit_code, result.stdout, result.stderr


def test_a_handle_taken_names_who_has_it_and_the_commands_that_list_and_give_roles() -> None:
    """Added again with a role Ola lacks: exit 2, nothing changed, and the sentence names Ola's
    roles, `users list` and the `users roles … --add` that gives the role — which, run as
    written, does."""
    assert _signoff("users", "add", "ola@workshop.example", "Ola", "--role", "mechanic")[0] == 0
    code, out, err = _signoff("users", "add", "Ola@Workshop.example", "Ola", "--role", "manager",
                              "--role", "mechanic")
    assert code == 2, out + err
    assert out == ""
    app_words = f"--app {shlex.quote(APP)}"
    assert err == (
        "Error: There is already someone with the handle 'Ola@Workshop.example' "
        "('ola@workshop.example': a handle is the same in any case): Ola, person, with roles: "
        f"mechanic. Nothing was changed. `signoff users list {app_words}` lists everyone; "
        f"`signoff users roles ola@workshop.example --add manager {app_words}` gives Ola "
        "manager.\n")
    (giving,) = [c for c in re.findall(r"`signoff ([^`]+)`", err) if c.startswith("users roles")]
    given = CliRunner().invoke(main, shlex.split(giving))
    assert given.exit_code == 0, given.output
    assert given.stdout == "Ola has roles: manager, mechanic.\n"


def test_a_handle_taken_with_the_roles_asked_for_or_none_says_so() -> None:
    """Asked for roles Ola has, it says she has them; asked for none, it names `--add ROLE`."""
    assert _signoff("users", "add", "ola@workshop.example", "Ola", "--role", "mechanic")[0] == 0
    code, _, err = _signoff("users", "add", "ola@workshop.example", "Ola", "--role", "mechanic")
    assert code == 2
    assert err.endswith("lists everyone; Ola has mechanic already.\n"), err
    code, _, err = _signoff("users", "add", "ola@workshop.example", "Ola")
    assert code == 2
    assert err.endswith("lists everyone, and `signoff users roles ola@workshop.example --add "
                        f"ROLE --app {shlex.quote(APP)}` gives Ola a role.\n"), err


def test_an_agents_handle_is_not_a_persons() -> None:
    """`users add estimator@agents` before the estimator's account is made: refused (exit 2),
    and the account the app then makes is the agent's, not a person's with the agent's roles
    (the app took the person added under that handle for its agent's account)."""
    code, out, err = _signoff("users", "add", "Estimator@Agents", "Eve")
    assert code == 2, out + err
    assert "is a handle of the kind an agent's account has" in err
    app = load_app(APP)
    assert app.people.find("estimator@agents") is None
    assert _signoff("agents")[0] == 0
    account = app.people.get("estimator@agents")
    assert account.kind is PrincipalKind.AGENT
    assert account.name == "Estimator"


def test_an_agents_account_taken_names_no_roles_command() -> None:
    """Added again over the estimator's account once it is made: exit 2, and the sentence says
    whose account it is, naming no `users roles` (an agent's roles are its declaration's)."""
    assert _signoff("agents")[0] == 0
    code, _, err = _signoff("users", "add", "estimator@agents", "Eve", "--role", "manager")
    assert code == 2
    assert err.endswith("lists everyone; it is the account of the agent Estimator, whose "
                        "declaration gives its roles.\n"), err
    assert "users roles" not in err
