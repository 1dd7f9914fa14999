"""Traces: a task and a proposal keep the W3C trace context they were made in, so that whoever
goes on with them, in any process, continues the same trace.

Revision 0002_issue16, after 0001."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0002_issue16'
down_revision = '0001'
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Bring signoff's tables up to this revision (a table adopted from a development version
    may have the column already)."""
    for table in ('signoff_tasks', 'signoff_proposals'):
        columns = {c['name'] for c in sa.inspect(op.get_bind()).get_columns(table)}
        if 'trace_context' not in columns:
            with op.batch_alter_table(table) as batch:
                batch.add_column(sa.Column('trace_context', sa.JSON(), nullable=True))


def downgrade() -> None:
    """Take this revision back."""
    with op.batch_alter_table('signoff_proposals') as batch:
        batch.drop_column('trace_context')
    with op.batch_alter_table('signoff_tasks') as batch:
        batch.drop_column('trace_context')
