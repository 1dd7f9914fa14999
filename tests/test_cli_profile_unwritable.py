"""A profile signoff cannot write, or that is no file (``SIGNOFF_PROFILE=/dev/null``), is told in
a sentence, exit 2, and `users token --save` leaves no token made that nobody holds: it failed
"for a reason it did not foresee" (FileExistsError, "File name too long"), exit 5, the new token
kept nowhere and still valid; /dev/null was told "not JSON: fix or delete it", and /dev/full
was read for ever."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from signoff.cli import main

ROOT = Path(__file__).resolve().parent.parent
APP = f"{ROOT / 'examples' / 'workshop.py'}:app"


@pytest.fixture
def workshop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The workshop on a database of its own, with Mia."""
    monkeypatch.setenv("WORKSHOP_DATABASE", f"sqlite:///{tmp_path / 'workshop.db'}")
    monkeypatch.delenv("SIGNOFF_AS", raising=False)
    monkeypatch.delenv("SIGNOFF_TOKEN", raising=False)
    added = CliRunner().invoke(main, ["users", "add", "mia@workshop.example", "Mia", "--app",
                                      APP])
    assert added.exit_code == 0, added.output


@pytest.mark.parametrize("where", ["under-a-file", "name-too-long"])
def test_a_profile_that_cannot_be_written_keeps_no_token_unheld(
        workshop: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    """`users token --save` says the profile cannot be written, or read (exit 2); the token it made is
    revoked, so that none works that nobody holds."""
    (tmp_path / "a-file").write_text("")
    profile = (tmp_path / "a-file" / "profile.json" if where == "under-a-file" else
               tmp_path / f"{'p' * 300}.json")
    monkeypatch.setenv("SIGNOFF_PROFILE", str(profile))
    runner = CliRunner()
    result = runner.invoke(main, ["users", "token", "mia@workshop.example", "--save", "--app",
                                  APP])
    assert result.exit_code == 2, result.output
    assert f"The profile {profile} (SIGNOFF_PROFILE names it) cannot be " in (
        result.output)
    listed = runner.invoke(main, ["users", "token", "mia@workshop.example", "--list", "--app",
                                  APP]).output.splitlines()
    assert len(listed) == 1, listed
    assert listed[0].endswith("  revoked"), listed


@pytest.mark.parametrize("device", ["/dev/null", "/dev/full"])
def test_a_profile_that_is_a_device_is_told_not_to_be_a_file(
        workshop: None, monkeypatch: pytest.MonkeyPatch, device: str) -> None:
    """A command acting as someone, with the profile a device, says to name a file (exit 2)."""
    if not Path(device).exists():
        pytest.skip(f"no {device} on this system")
    monkeypatch.setenv("SIGNOFF_PROFILE", device)
    result = CliRunner().invoke(main, ["proposals", "--app", APP])
    assert result.exit_code == 2, result.output
    assert (f"The profile {device} (SIGNOFF_PROFILE names it) is not a file signoff can keep "
            "tokens in: name a file") in result.output
