"""Fixtures shared by the whole suite."""

from __future__ import annotations

pytest_plugins = ["tests.postgres_server"]
