"""signoff's own tables, kept in the app's database beside its records."""

from __future__ import annotations

from sqlalchemy import JSON, Boolean, Column, DateTime, MetaData, String, Table

__all__ = ["consents_used", "metadata", "principals"]

metadata = MetaData()
"""The schema of signoff's own tables (the app's records have their own)."""

principals = Table(
    "signoff_principals",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("handle", String(320), nullable=False, unique=True),
    Column("name", String(200), nullable=False),
    Column("kind", String(10), nullable=False),
    Column("roles", JSON, nullable=False),
    Column("disabled", Boolean, nullable=False, default=False),
    Column("sponsor_id", String(36), nullable=True),
)
"""People and agent accounts: who can act, with which roles."""

consents_used = Table(
    "signoff_consents_used",
    metadata,
    Column("nonce", String(64), primary_key=True),
    Column("action", String(200), nullable=False),
    Column("principal_id", String(36), nullable=False),
    Column("used_at", DateTime(timezone=True), nullable=False),
)
"""Each consent token that has been honoured, so that none is honoured twice."""
