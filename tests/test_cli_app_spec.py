"""An --app that names no file or module before its colon (``:app``, an unset variable in
``$DIR:app``) is told so, with how to name the app; not as " is a folder"."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from signoff.cli import EXIT_USAGE, main


@pytest.mark.parametrize("spec", [":app", " :shop"])
def test_an_app_spec_with_nothing_before_its_colon_is_told(spec: str) -> None:
    """`--app :app`: a sentence saying nothing is named before the colon, and how to name it."""
    result = CliRunner().invoke(main, ["actions", "--app", spec])
    assert result.exit_code == EXIT_USAGE, result.output
    assert "no file or module is named before the colon" in result.output, result.output
    assert "give --app path/to/app.py" in result.output
    assert " is a folder" not in result.output
