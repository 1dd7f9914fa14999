"""`signoff mcp approve`, `mcp reject` and `mcp proposals` tell a wrong token or proposal id
before starting or reaching any of the guard's servers: the help's own example (`--token so_…`,
an id cut short) was answered "The guard could not reach the servers …", exit 5, after
starting each of them — for a caller the guard did not know."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from signoff.cli import main
from tests.mcp_servers import guard_config

UNKNOWN = "3f2c8a8e-5d8b-4d0e-9a57-6b1f0e2c4a11"


@pytest.fixture
def guard(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A guard in front of one server that, when started, leaves a file `started` beside the
    config and stops (so the guard cannot reach it); Noor's own token kept in a profile."""
    monkeypatch.setenv("SIGNOFF_PROFILE", str(tmp_path / "profile.json"))
    for name in ("SIGNOFF_AS", "SIGNOFF_TOKEN", "SIGNOFF_APP"):
        monkeypatch.delenv(name, raising=False)
    started = "open('started', 'w').close()"
    config = guard_config(tmp_path, f'''
[servers.files]
command = "{sys.executable}"
args = ["-c", "{started}"]
''')
    saved = CliRunner().invoke(main, ["mcp", "token", str(config), "noor@example.com", "--save"])
    assert saved.exit_code == 0, saved.output
    return config


@pytest.mark.parametrize(("args", "code", "said"), [
    (["approve", "3f2c8a8e-...", "--token", "so_…", "--always"], 4,
     "This token is unknown, revoked or expired"),
    (["reject", "3f2c8a8e-...", "--reason", "Keep a.txt.", "--token", "so_…"], 4,
     "This token is unknown, revoked or expired"),
    (["proposals", "--token", "so_…"], 4, "This token is unknown, revoked or expired"),
    (["approve", UNKNOWN, "--as", "noor@example.com"], 3,
     f"There is no proposal with id {UNKNOWN} that Noor may see."),
    (["reject", UNKNOWN, "--reason", "No.", "--as", "noor@example.com"], 3,
     f"There is no proposal with id {UNKNOWN} that Noor may see."),
])
def test_a_wrong_token_or_id_is_told_before_any_server_is_started(
        guard: Path, args: list[str], code: int, said: str) -> None:
    """A token the guard does not know, or an id of no proposal, is told as such (exit 4 or 3),
    and no server of the guard is started."""
    command, *rest = args
    result = CliRunner().invoke(main, ["mcp", command, str(guard), *rest])
    assert result.exit_code == code, result.output
    assert said in result.stderr
    assert "could not reach" not in result.stderr
    assert not (guard.parent / "started").exists()
