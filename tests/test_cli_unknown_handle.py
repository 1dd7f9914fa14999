"""A handle nobody has is one failure wherever a command is given it: "There is nobody with
the handle …", exit 3 (not found), as the exit codes say of a person. `--as` told it exit 4,
as if a token were at fault, while `users token` and `--for` told it exit 3."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from signoff.cli import main
from signoff.cli.failures import EXIT_NOT_FOUND
from tests.mcp_servers import guard_config
from tests.workshop_web import open_workshop

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "examples" / "workshop.py")
ZED = "zed@workshop.example"


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    """The workshop in a SQLite file, Noor's token kept in a profile (her default there)."""
    monkeypatch.setenv("SIGNOFF_PROFILE", str(tmp_path / "profile.json"))
    for name in ("SIGNOFF_AS", "SIGNOFF_TOKEN", "SIGNOFF_APP", "SIGNOFF_MCP_FOR"):
        monkeypatch.delenv(name, raising=False)
    shop = open_workshop(tmp_path, monkeypatch)
    saved = CliRunner().invoke(main, ["users", "token", "noor@workshop.example", "--save",
                                      "--app", APP])
    assert saved.exit_code == 0, saved.output
    return shop


@pytest.mark.parametrize("args", [
    ["users", "token", ZED],
    ["users", "disable", ZED],
    ["proposals", "--as", ZED],
    ["tasks", "--as", ZED],
    ["approve", "3f2c8a8e-5d8b-4d0e-9a57-6b1f0e2c4a11", "--as", ZED],
    ["run", "estimator", "estimate_repair", "--for", ZED, "--subject", "ticket=T-7",
     "--model", "openai:m"],
    ["mcp", "serve", "--agent", "estimator", "--for", ZED],
])
def test_a_handle_nobody_has_is_not_found_in_every_command(
        shop: SimpleNamespace, args: list[str]) -> None:
    """Each command given a handle nobody has says so, exit 3 (`--as` said it exit 4)."""
    result = CliRunner().invoke(main, [*args, "--app", APP])
    assert result.exit_code == EXIT_NOT_FOUND, result.output
    assert f"There is nobody with the handle '{ZED}' in workshop" in result.stderr


def test_as_nobody_with_a_token_is_not_found(shop: SimpleNamespace) -> None:
    """`--as` a handle nobody has, with a token that is someone's, says there is nobody with
    the handle, exit 3 (it said the token was Noor's, not theirs, exit 4)."""
    token = shop.tokens["Noor"]
    result = CliRunner().invoke(main, ["tasks", "--as", ZED, "--token", token, "--app", APP])
    assert result.exit_code == EXIT_NOT_FOUND, result.output
    assert f"There is nobody with the handle '{ZED}' in workshop" in result.stderr


def test_as_nobody_of_a_guard_is_not_found(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The guard's commands tell `--as` a handle nobody has as `mcp token` does: exit 3."""
    monkeypatch.setenv("SIGNOFF_PROFILE", str(tmp_path / "profile.json"))
    for name in ("SIGNOFF_AS", "SIGNOFF_TOKEN", "SIGNOFF_APP"):
        monkeypatch.delenv(name, raising=False)
    config = str(guard_config(tmp_path, f'''
[servers.files]
command = "{sys.executable}"
args = ["-c", "pass"]
'''))
    for args in (["mcp", "token", config, "zed@example.com"],
                 ["mcp", "tasks", config, "--as", "zed@example.com"]):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == EXIT_NOT_FOUND, (args, result.output)
