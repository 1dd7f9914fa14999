"""Alembic's environment for signoff's own tables: run on the connection signoff hands it."""

from __future__ import annotations

from alembic import context

from signoff.store.migrate import VERSION_TABLE, _signoffs
from signoff.store.tables import metadata

connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=metadata,
    version_table=VERSION_TABLE,
    render_as_batch=connection.dialect.name == "sqlite",
    # A revision made with --autogenerate compares signoff's tables alone, not the app's.
    include_name=_signoffs,
)
with context.begin_transaction():
    context.run_migrations()
