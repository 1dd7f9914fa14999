"""Each proposal keeps when its deciders were told of it (`signoff_proposals.told_at`: when the
app's handlers of `AgentProposed` took it, for it or for its latest escalation), how often they
were tried (`tell_tries`) and when they are tried next (`tell_next_at`), so that a worker tells
those a crash or a receiver that was down left untold. Proposals made before are taken as told
when they were made (nothing made before is told again).

Taken back, the columns are dropped (a proposal left untold then stays untold).

Revision 0016_proposals_told, after 0015_model_timeouts."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0016_proposals_told'
down_revision = '0015_model_timeouts'
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Bring signoff's tables up to this revision."""
    with op.batch_alter_table('signoff_proposals') as batch:
        batch.add_column(sa.Column('told_at', sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column('tell_tries', sa.Integer(), nullable=False,
                                   server_default='0'))
        batch.add_column(sa.Column('tell_next_at', sa.DateTime(timezone=True), nullable=True))
    op.execute("UPDATE signoff_proposals SET told_at = COALESCE(escalated_at, created_at)")


def downgrade() -> None:
    """Take signoff's tables back to revision 0015_model_timeouts."""
    with op.batch_alter_table('signoff_proposals') as batch:
        batch.drop_column('tell_next_at')
        batch.drop_column('tell_tries')
        batch.drop_column('told_at')
