"""An app whose code exits as it is loaded (a script's `sys.exit`, an argument parser run at the
top of its file) is told as a sentence naming its line and what to do, with signoff's exit code
for a misused command, not the app's code in silence."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from signoff.cli import EXIT_USAGE, main


@pytest.mark.parametrize(("name", "code", "said"), [
    ("exits_three", "import sys\nsys.exit(3)\n", "sys.exit(3)"),
    ("parses_arguments", "import argparse\nparser = argparse.ArgumentParser()\n"
                         "parser.add_argument('--db')\nparser.parse_args()\n", "sys.exit(2)"),
    ("exits_told", "from signoff import App\napp = App('x', database='sqlite://')\n"
                   "import sys\nsys.exit('usage: shop.py DAY')\n", "usage: shop.py DAY"),
])
def test_an_app_that_exits_as_it_loads_is_told(tmp_path: Path, name: str, code: str,
                                               said: str) -> None:
    """`signoff actions --app FILE` where FILE exits as it is loaded: a sentence naming the file,
    its line and the `if __name__ == "__main__":` to put it under; exit code 2."""
    app_file = tmp_path / f"{name}.py"
    app_file.write_text(code)
    result = CliRunner().invoke(main, ["actions", "--app", str(app_file)])
    assert result.exit_code == EXIT_USAGE, result.output
    assert f"Error: {name}.py, line {len(code.splitlines())}: the app's code exited" in \
        result.output, result.output
    assert said in result.output
    assert 'if __name__ == "__main__":' in result.output
    assert "Traceback" not in result.output
