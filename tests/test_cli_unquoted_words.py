"""A value of several words given without quotes (`signoff research What does the with
statement do?`): click's "Got unexpected extra arguments (…)" goes on to say that the words are
one value only in quotes, and which value that is, quoted — a password's is not printed back."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from signoff.cli import main

QUOTE = "Words with spaces between them are one value only in quotes: "


@pytest.mark.parametrize(("args", "told"), [
    (["research", "What", "does", "the", "with", "statement", "do?"],
     "Got unexpected extra arguments (does the with statement do?). "
     f"{QUOTE}give QUESTION as one, in quotes: 'What does the with statement do?'."),
    (["research", "--json", "a", "b"],
     f"Got unexpected extra argument (b). {QUOTE}give QUESTION as one, in quotes: 'a b'."),
    (["users", "add", "ola@workshop.example", "Ola", "Smith", "--role", "mechanic"],
     f"Got unexpected extra argument (Smith). {QUOTE}give NAME as one, in quotes: 'Ola Smith'."),
    (["reject", "0b5e", "--reason", "Quote", "the", "cable", "separately."],
     "Got unexpected extra arguments (the cable separately.). "
     f"{QUOTE}give --reason as one, in quotes: 'Quote the cable separately.'."),
    (["users", "password", "noor@workshop.example", "--password", "correct", "horse"],
     f"Got unexpected extra argument (horse). {QUOTE}give --password as one, in quotes."),
])
def test_words_meant_as_one_value_are_told_to_be_quoted(args: list[str], told: str) -> None:
    """Exit 2 with the usage, as click tells a command line it cannot read, and the sentence."""
    result = CliRunner().invoke(main, args, prog_name="signoff")
    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines()[-1] == f"Error: {told}"
    assert result.stderr.startswith("Usage: signoff ")
    assert "correct" not in result.stderr


@pytest.mark.parametrize("args", [
    ["actions", "extra"],                       # a command that takes no argument at all
    ["users", "list", "extra", "words"],
])
def test_words_no_value_takes_are_told_as_click_tells_them(args: list[str]) -> None:
    """Words that follow no value of the command: click's sentence alone."""
    result = CliRunner().invoke(main, args, prog_name="signoff")
    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines()[-1].startswith("Error: Got unexpected extra argument")
    assert QUOTE not in result.stderr
