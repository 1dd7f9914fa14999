"""An approved call that runs apart from its claim (it reaches outside, or it is a query) is
leased to whoever runs it: `run_by` names that thread of that process of that machine, and
`run_until` how long it is known to run it (renewed while it runs). Recovery settles it only
once its runner is gone.

Revision 0009_runs, after 0008_work."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0009_runs'
down_revision = '0008_work'
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Bring signoff's tables up to this revision."""
    inspector = sa.inspect(op.get_bind())
    have = {c["name"] for c in inspector.get_columns('signoff_proposals')}
    with op.batch_alter_table('signoff_proposals') as batch:
        if 'run_by' not in have:
            batch.add_column(sa.Column('run_by', sa.String(200), nullable=True))
        if 'run_until' not in have:
            batch.add_column(sa.Column('run_until', sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    """Take signoff's tables back to revision 0008_work."""
    with op.batch_alter_table('signoff_proposals') as batch:
        batch.drop_column('run_until')
        batch.drop_column('run_by')
