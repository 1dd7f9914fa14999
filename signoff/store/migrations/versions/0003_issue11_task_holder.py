"""The task head says who steps it (holder, until when, the fence its writes check) and what is
reserved for a model call not yet answered.

Revision 0003 (issue 11). Tasks stored before it, waiting ones included, read as held by nobody
with nothing reserved: they resume and finish as before."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0003_issue11'
down_revision = '0002_issue16'
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Bring signoff's tables up to this revision."""
    with op.batch_alter_table('signoff_tasks') as batch:
        batch.add_column(sa.Column('holder', sa.String(length=200), nullable=True))
        batch.add_column(sa.Column('held_until', sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column('fence', sa.Integer(), nullable=False, server_default='0'))
        batch.add_column(sa.Column('reserved_usd', sa.Float(), nullable=False,
                                   server_default='0'))


def downgrade() -> None:
    """Take this revision back."""
    with op.batch_alter_table('signoff_tasks') as batch:
        batch.drop_column('reserved_usd')
        batch.drop_column('fence')
        batch.drop_column('held_until')
        batch.drop_column('holder')
