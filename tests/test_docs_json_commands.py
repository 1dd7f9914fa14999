"""The command line guide names the commands that take `--json` as the commands have it: a
script's author reads there which commands print JSON (it left out `actions`, `agents`,
`lint`, `users list`, `db revision` and the guard's listings, which take it)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import click

from signoff.cli import main

GUIDE = Path(__file__).resolve().parent.parent / "docs" / "how-to" / "cli.md"


def _with_json(command: click.Command, path: tuple[str, ...] = ()) -> Iterator[str]:
    """The name, as typed after `signoff`, of each command under `command` that takes --json
    (a group's own options too: `signoff proposals` lists as well as holding `show`)."""
    if path and any("--json" in getattr(p, "opts", []) for p in command.params):
        yield " ".join(path)
    if isinstance(command, click.Group):
        for name, sub in command.commands.items():
            yield from _with_json(sub, (*path, name))


def test_the_guide_names_each_command_that_takes_json() -> None:
    """The guide's list of the commands that take `--json` is the set of commands that do."""
    text = " ".join(GUIDE.read_text().split())
    listed = re.search(r"take `--json`, for scripts \((.*?); not ", text)
    assert listed is not None, "the guide's sentence on --json is gone"
    named = set(re.findall(r"`([a-z ]+)`", listed[1]))
    assert named == set(_with_json(main))
