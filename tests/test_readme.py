"""The README's Python examples run as written."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"


def _python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)


@pytest.mark.parametrize("upto", range(1, len(_python_blocks()) + 1))
def test_readme_example_runs(
    upto: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each Python block runs after the ones before it (as a reader goes through the README),
    and what it prints is what its comments say."""
    blocks = _python_blocks()[:upto]
    block = "\n".join(blocks)
    monkeypatch.chdir(tmp_path)
    script = tmp_path / "readme_example.py"
    script.write_text(block)
    runpy.run_path(str(script), run_name="readme_example")
    printed = capsys.readouterr().out
    for said in re.findall(r"print\(.*\)\s*# (.+)", blocks[-1]):
        assert said.strip() in printed


def test_readme_examples_run_again_in_the_same_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Run a second time where the first run left bakery.db, the examples still run and print
    what their comments say (they find the people and records the first run made)."""
    blocks = _python_blocks()
    monkeypatch.chdir(tmp_path)
    script = tmp_path / "readme_example.py"
    script.write_text("\n".join(blocks))
    for _ in range(2):
        runpy.run_path(str(script), run_name="readme_example")
        printed = capsys.readouterr().out
        for said in re.findall(r"print\(.*\)\s*# (.+)", "\n".join(blocks)):
            assert said.strip() in printed
