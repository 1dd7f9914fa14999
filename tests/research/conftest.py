"""Fixtures of the research tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from signoff import App
from signoff.research import research_app
from signoff.research.corpus import Corpus


@pytest.fixture(autouse=True)
def _own_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Indexes and databases go to this test's own folders, never the user's; the default corpus
    is the help topics (the tests of Python's documentation say otherwise), and no app is named
    from outside."""
    monkeypatch.setenv("SIGNOFF_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("SIGNOFF_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("SIGNOFF_PYTHON_DOCS", "none")
    monkeypatch.delenv("SIGNOFF_APP", raising=False)


@pytest.fixture(scope="module")
def bundled(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    """Python's help topics, indexed once for each module that asks for them."""
    return Corpus.bundled(index=tmp_path_factory.mktemp("index") / "pydoc.sqlite")


@pytest.fixture
def app(bundled: Corpus) -> App:
    """A research app over the bundled corpus, in memory."""
    return research_app(bundled, database="sqlite://")


@pytest.fixture
def kettles(tmp_path: Path) -> Path:
    """A folder whose kettle.md says how often to descale a kettle (a module that needs more
    notes in it makes its own)."""
    root = tmp_path / "kettles"
    root.mkdir()
    (root / "kettle.md").write_text("# Kettles\n\nA kettle should be descaled every month.\n")
    return root
