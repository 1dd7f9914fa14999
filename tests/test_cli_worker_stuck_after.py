"""`signoff worker --stuck-after` of any number of seconds it takes is a look, however large: one
past about two thousand years (a cut-off before year 1) failed "for a reason it did not foresee"
(OverflowError). On a real SQLite file, in this process."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from signoff.cli import main


@pytest.mark.parametrize("seconds", ["0", "86400", "99999999999", "8e13"])
def test_any_stuck_after_taken_is_a_look(tmp_path: Path, seconds: str) -> None:
    """0, a day, about 3,000 years and about 2.5 million years: each a look, exit 0."""
    app_file = tmp_path / "shop.py"
    url = f"sqlite:///{tmp_path / 'shop.db'}"
    app_file.write_text(f"from signoff import App\napp = App('shop', database={url!r})\n")
    result = CliRunner().invoke(main, ["worker", "--once", "--stuck-after", seconds,
                                       "--app", str(app_file)])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("Settled 0 interrupted approval(s)"), result.output
