"""Proposals with deadlines (issue 15): when a proposal is withdrawn or goes on to another
decider if nobody decides it (`deadline_at`, indexed with the status for the workers' search of
what is due), and how often it went on (`escalations`, `escalated_at`).

Revision 0006_issue15, after 0005_issue14. Every proposal made before has no deadline."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0006_issue15'
down_revision = '0005_issue14'
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Bring signoff's tables up to this revision."""
    with op.batch_alter_table('signoff_proposals') as batch:
        batch.add_column(sa.Column('deadline_at', sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column('escalations', sa.Integer(), nullable=False,
                                   server_default='0'))
        batch.add_column(sa.Column('escalated_at', sa.DateTime(timezone=True), nullable=True))
        batch.create_index('signoff_proposals_deadline', ['status', 'deadline_at'])


def downgrade() -> None:
    """Take signoff's tables back to revision 0005_issue14."""
    with op.batch_alter_table('signoff_proposals') as batch:
        batch.drop_index('signoff_proposals_deadline')
        batch.drop_column('escalated_at')
        batch.drop_column('escalations')
        batch.drop_column('deadline_at')
