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
