"""A local profile signoff cannot use — a folder, JSON of another shape — is told in one sentence
that names the file and what to do, exit code 2 (a setting that cannot be used), never as a
failure signoff did not foresee; and a profile of that shape is never written over unread."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.workshop_web import open_workshop

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "examples" / "workshop.py")


def _signoff(profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The command, in a process of its own, with SIGNOFF_PROFILE naming `profile`."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("SIGNOFF_AS", "SIGNOFF_TOKEN", "SIGNOFF_APP")}
    return subprocess.run([sys.executable, "-m", "signoff.cli", *args], capture_output=True,
                          text=True, timeout=120, check=False,
                          env={**env, "SIGNOFF_PROFILE": str(profile)})


@pytest.mark.parametrize("kept", ["[]", '{"tokens": 5}', '{"databases": []}',
                                  '{"databases": {"sqlite:///x.db": {"tokens": {"a@b.c": 1}}}}'])
def test_a_profile_of_another_shape_is_told_and_kept(
        kept: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """JSON that is not a profile: `tasks --as` says so (not "say who you are", not an
    unforeseen failure), and `users token --save` does not write over it."""
    open_workshop(tmp_path, monkeypatch)
    profile = tmp_path / "profile.json"
    profile.write_text(kept)
    for args in (("tasks", "--as", "mia@workshop.example"), ("users", "token",
                                                             "mia@workshop.example", "--save")):
        done = _signoff(profile, *args, "--app", APP)
        assert done.returncode == 2, done.stderr
        assert done.stderr.strip() == (
            f"Error: The profile {profile} (SIGNOFF_PROFILE names it) is JSON, but not a "
            "profile signoff keeps (an object of tokens by database): fix or delete it.")
    assert profile.read_text() == kept


def test_a_profile_that_is_a_folder_is_told(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """SIGNOFF_PROFILE naming a folder: said so, with a file to name instead."""
    open_workshop(tmp_path, monkeypatch)
    done = _signoff(tmp_path, "tasks", "--app", APP)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == (
        f"Error: The profile {tmp_path} (SIGNOFF_PROFILE names it) is a folder, not a file: "
        f"name a file, such as {tmp_path / 'profile.json'}.")


def test_a_profile_that_is_not_json_is_a_setting_that_cannot_be_used(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Not JSON: exit code 2, as for any setting that cannot be used."""
    open_workshop(tmp_path, monkeypatch)
    profile = tmp_path / "profile.json"
    profile.write_text("{broken")
    done = _signoff(profile, "tasks", "--app", APP)
    assert done.returncode == 2, done.stderr
    assert "is not JSON: fix or delete it." in done.stderr
