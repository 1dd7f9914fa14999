"""The README's Python examples run as written."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"


def _python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)


@pytest.mark.parametrize("block", _python_blocks())
def test_readme_example_runs(
    block: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each Python block runs, and what it prints is what its comments say."""
    monkeypatch.chdir(tmp_path)
    script = tmp_path / "readme_example.py"
    script.write_text(block)
    runpy.run_path(str(script), run_name="readme_example")
    printed = capsys.readouterr().out
    for said in re.findall(r"print\(.*\)\s*# (.+)", block):
        assert said.strip() in printed
