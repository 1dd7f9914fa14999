"""The sessions an agent is served to are leased to the process serving them
(`signoff_servings`: a session's work, its agent, the server and until when), so that once that
process stops, the next server of the agent ends the session's tasks, between turns or waiting
on a decision, which read Running or Waiting for good.

Revision 0011_servings, after 0010_identity."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0011_servings'
down_revision = '0010_identity'
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Bring signoff's tables up to this revision."""
    if not sa.inspect(op.get_bind()).has_table('signoff_servings'):
        op.create_table(
            'signoff_servings',
            sa.Column('work_id', sa.String(36), primary_key=True),
            sa.Column('agent', sa.String(100), nullable=False),
            sa.Column('server', sa.String(200), nullable=False),
            sa.Column('until', sa.DateTime(timezone=True), nullable=False),
        )
        op.create_index('signoff_servings_agent', 'signoff_servings', ['agent'])


def downgrade() -> None:
    """Take signoff's tables back to revision 0010_identity."""
    op.drop_index('signoff_servings_agent', table_name='signoff_servings')
    op.drop_table('signoff_servings')
