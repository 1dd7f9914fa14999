"""`signoff help` (as git and pip have it) is no command of signoff's: it says so, and names the
`--help` that tells what was asked for — the commands, or the command the words after it name."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from signoff.cli import main


@pytest.mark.parametrize(("args", "told"), [
    (["help"], "`signoff --help` tells the commands"),
    (["help", "research"], "`signoff research --help` tells that command"),
    (["help", "users", "add", "ola@example.com"], "`signoff users add --help` tells that command"),
    (["help", "nonsense"], "`signoff --help` tells the commands"),
])
def test_help_as_a_command_names_the_help_option(args: list[str], told: str) -> None:
    """Exit 2, the usage, and the sentence; the `--help` it names runs (exit 0)."""
    result = CliRunner().invoke(main, args, prog_name="signoff")
    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines()[-1] == (
        f"Error: There is no command help: {told}, with examples.")
    named = told.split("`")[1].split()[1:]
    assert CliRunner().invoke(main, named, prog_name="signoff").exit_code == 0
