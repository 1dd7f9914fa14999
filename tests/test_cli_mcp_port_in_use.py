"""`signoff mcp guard --http`/`--inbox` at a port another process listens on is told as
`signoff serve` tells it: one sentence, exit 5, no usage (it printed the usage and "Invalid
value for '--http'", exit 2, which docs/how-to/cli.md keeps for a command line that cannot be
read); an address that is no HOST:PORT is still a usage error."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from click.testing import CliRunner

from signoff.cli import main
from signoff.cli.failures import EXIT_FAILED, EXIT_USAGE
from tests.test_mcp_cli import _noors_guard

pytest.importorskip("mcp")


@pytest.mark.parametrize("option", ["--http", "--inbox"])
def test_the_guard_at_a_port_in_use_fails_without_usage(tmp_path: Path, option: str) -> None:
    with socket.create_server(("127.0.0.1", 0)) as listening:
        port = listening.getsockname()[1]
        done = CliRunner().invoke(main, ["mcp", "guard", str(_noors_guard(tmp_path)), option,
                                         f"127.0.0.1:{port}"])
    assert done.exit_code == EXIT_FAILED, done.output
    assert " ".join(done.output.split()) == (
        f"Error: signoff cannot serve on 127.0.0.1:{port}: another process listens there: "
        f"stop it, or give {option} another port.")


def test_an_address_that_is_no_host_and_port_is_still_a_usage_error(tmp_path: Path) -> None:
    done = CliRunner().invoke(main, ["mcp", "guard", str(_noors_guard(tmp_path)), "--http",
                                     "127.0.0.1:99999"])
    assert done.exit_code == EXIT_USAGE, done.output
    assert "Usage:" in done.output
