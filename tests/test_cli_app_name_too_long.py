"""An app named by a path longer than the system looks up (a file name past 255 bytes) is told
as there being no such file, exit 2; it failed "for a reason it did not foresee" (OSError, "File
name too long"), exit 5."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from signoff.cli import main

LONG = "a" * 300


@pytest.mark.parametrize(("app", "said"), [
    (f"{LONG}.py", f"There is no file {LONG}.py."),
    (f"{LONG}/app.py", f"There is no file {LONG}/app.py."),
    (f"{LONG}-shop", f"{LONG}-shop is neither."),
])
def test_a_path_too_long_to_look_up_is_told_as_no_file(app: str, said: str) -> None:
    """One sentence saying what to give, exit 2."""
    result = CliRunner().invoke(main, ["actions", "--app", app])
    assert result.exit_code == 2, result.output
    assert said in result.output, result.output
    assert "did not foresee" not in result.output
