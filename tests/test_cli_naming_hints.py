"""A person or a subject named wrongly on the command line is told with what would name it: the
handle a bare name could mean, the command that lists the people, the unique fields a
--subject can use (found walking the docs as a new user: `--for mia` and `--subject T-7`)."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest
from click.testing import CliRunner

from signoff.cli import main

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "examples" / "workshop.py")


@pytest.fixture
def workshop_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The workshop's demo people and T-7 in workshop.db of the current folder, named from it
    (a relative URL, as the README's walk has it)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("WORKSHOP_DATABASE", "sqlite:///workshop.db")
    monkeypatch.setenv("SIGNOFF_PROFILE", str(tmp_path / "profile.json"))
    for name in ("SIGNOFF_AS", "SIGNOFF_TOKEN", "SIGNOFF_APP"):
        monkeypatch.delenv(name, raising=False)
    runpy.run_path(APP, run_name="workshop_hints")["setup"]()


def told(*args: str) -> tuple[int, str]:
    """The exit code and the sentence on stderr, its lines joined."""
    result = CliRunner().invoke(main, [*args, "--app", APP])
    assert "Traceback" not in result.output
    return result.exit_code, " ".join(result.stderr.split())


@pytest.mark.usefixtures("workshop_here")
@pytest.mark.parametrize("args", [
    ("run", "estimator", "estimate_repair", "--for", "mia", "--subject", "ticket=T-7",
     "--model", "openai-compatible:m@http://127.0.0.1:9/v1", "--price", "0,0"),
    ("users", "disable", "Mia"),
])
def test_a_bare_name_for_a_handle_is_told_the_handle_it_could_mean(args: tuple[str, ...]) -> None:
    """`--for mia` (or `users disable Mia`) names the e-mail address a handle is, and the
    command that lists the people, not the folder of a database that has them."""
    code, sentence = told(*args)
    assert code == 3
    assert "(a handle is an e-mail address: mia@workshop.example?)" in sentence, sentence
    assert f"`signoff users list --app {APP}` lists its people." in sentence, sentence
    assert "Its database is" not in sentence, sentence


@pytest.mark.usefixtures("workshop_here")
def test_a_handle_of_nobody_names_the_command_that_lists_the_people() -> None:
    """An e-mail address that is nobody's, in `users roles`, is told with where the people are
    listed (it said only that there was nobody, then which file the database is)."""
    code, sentence = told("users", "roles", "zed@workshop.example", "--add", "mechanic")
    assert code == 3
    assert sentence == ("Error: There is nobody with the handle 'zed@workshop.example' in "
                        f"workshop. `signoff users list --app {APP}` lists its people.")


@pytest.mark.usefixtures("workshop_here")
@pytest.mark.parametrize(("subject", "said"), [
    ("T-7", "'T-7' is neither the id of a Repair nor FIELD=VALUE with a unique field of it: "
            "give its id or its ticket, as ticket=T-7."),
    ("code=T-7", "code is not a unique field of Repair: give its id or its ticket, as "
                 "ticket=T-7."),
    ("fault=rear brake", "fault is not a unique field of Repair: give its id or its ticket, as "
                         "'ticket=rear brake'."),
])
def test_a_subject_of_no_form_names_the_unique_fields(subject: str, said: str) -> None:
    """`--subject T-7` names the unique field that would find the repair, with the value given
    (it said "a unique field", and left the reader to find which)."""
    code, sentence = told("run", "estimator", "estimate_repair", "--for",
                          "mia@workshop.example", "--subject", subject,
                          "--model", "openai-compatible:m@http://127.0.0.1:9/v1", "--price", "0,0")
    assert code == 2
    assert sentence == f"Error: {said}"
