"""The documentation site: every page's code runs as written, and the site builds strictly."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docs_runner import blocks

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md") if blocks(p))


@pytest.mark.parametrize("page", PAGES)
def test_page_runs_as_written(page: str, tmp_path: Path) -> None:
    """Each page's blocks run in order in an empty folder, printing what their comments say."""
    env = {**os.environ, "HOME": str(tmp_path), "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    env.pop("SIGNOFF_APP", None)
    done = subprocess.run([sys.executable, str(ROOT / "tests" / "docs_runner.py"), str(DOCS / page)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_page_with_code_is_run() -> None:
    """The pages whose code runs are the pages that have code: none is skipped by the collector."""
    with_code = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")
                 if "```python" in p.read_text() or "```sh" in p.read_text()}
    assert with_code == set(PAGES)
    assert "getting-started.md" in PAGES


def test_site_builds_strictly(tmp_path: Path) -> None:
    """``mkdocs build --strict`` passes: no broken link, no missing reference, no warning."""
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                          cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "site" / "getting-started" / "index.html").exists()
