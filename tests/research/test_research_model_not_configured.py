"""`signoff research --model` naming a model that cannot be made here (its key not set) is told
in the sentence of what to set, exit 2, without the command's usage — as `signoff run` tells it:
the command line was read, an environment variable is missing (it printed "Usage: …" and
"Invalid value for --model" first)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from signoff.cli import main


def test_a_model_whose_key_is_not_set_is_told_without_the_usage(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    told = CliRunner().invoke(main, ["research", "What does the with statement do?",
                                     "--model", "openai:gpt-4o-mini"])
    assert told.exit_code == 2, told.output
    assert "openai:gpt-4o-mini needs an API key: set OPENAI_API_KEY." in told.output
    assert "Usage:" not in told.output
