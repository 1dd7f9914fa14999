"""`signoff serve --host` naming an address no interface of this machine has, or a name that
resolves to nothing, says what --host takes (it said the socket's words alone: "Cannot assign
requested address")."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from signoff.cli import main

APP = str(Path(__file__).resolve().parent.parent / "examples" / "workshop.py")


@pytest.mark.parametrize(("host", "said"), [
    ("192.0.2.1", "no network interface of this machine has that address: give --host one of "
                  "its own"),   # (TEST-NET-1: documentation's, on no machine)
    ("nosuchhost.invalid", "--host takes an address of this machine, or a name of one"),
])
def test_a_host_signoff_cannot_listen_on_is_told_with_what_host_takes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, host: str, said: str) -> None:
    """The failure names the host and port, and what --host takes; exit 5; nothing served."""
    monkeypatch.setenv("WORKSHOP_DATABASE", f"sqlite:///{tmp_path / 'workshop.db'}")
    result = CliRunner().invoke(main, ["serve", "--app", APP, "--host", host, "--port", "25242"])
    assert result.exit_code == 5, result.output
    assert f"signoff cannot serve on {host}:25242: " in result.output
    assert said in result.output, result.output
