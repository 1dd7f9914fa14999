"""Fixtures shared by the whole suite."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from signoff.testing import refuse_model_requests

pytest_plugins = ["tests.postgres_server"]


@pytest.fixture(autouse=True, scope="session")
def _no_real_model_requests() -> Iterator[None]:
    """No test reaches a real model provider: every real request is refused."""
    with refuse_model_requests():
        yield


@pytest.fixture(autouse=True, scope="session")
def _workshop_in_memory_unless_told() -> None:
    """examples/workshop.py keeps its data in workshop.db in the working directory; a test that
    loads it without naming a database of its own gets one in memory instead, so that no test
    writes into the checkout (a test that wants a file sets WORKSHOP_DATABASE itself)."""
    import os

    os.environ.setdefault("WORKSHOP_DATABASE", "sqlite://")
