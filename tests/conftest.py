"""Fixtures shared by the whole suite."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from signoff.testing import refuse_model_requests

pytest_plugins = ["tests.postgres_server"]


@pytest.fixture(autouse=True, scope="session")
def _no_real_model_requests() -> Iterator[None]:
    """No test reaches a real model provider: every real request is refused."""
    with refuse_model_requests():
        yield


@pytest.fixture(params=["sqlite", "postgres"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A SQLite file, or a PostgreSQL database of this test's own (a test on both)."""
    if request.param == "postgres":
        url: str = request.getfixturevalue("postgres_database")
        return url
    return f"sqlite:///{tmp_path / 'test.db'}"
