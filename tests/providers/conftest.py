"""Fixtures of the provider tests: real model requests are allowed, and only to loopback servers."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from signoff.models import allow_model_requests
from tests.provider_servers import ProviderServer, serving


@pytest.fixture(autouse=True)
def _loopback_requests_allowed() -> Iterator[None]:
    """Real requests are allowed here: every model in these modules points at a loopback server."""
    with allow_model_requests():
        yield


@pytest.fixture
def server() -> Iterator[ProviderServer]:
    """A scripted server on 127.0.0.1."""
    with serving() as running:
        yield running
