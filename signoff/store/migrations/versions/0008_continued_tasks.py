"""A task may go on with the work of another that waits on a decision (`continues_id`): a
client's calls through a served agent or guard no longer wait behind a proposal.

Revision 0008_continues, after 0007_issue11."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0008_continues'
down_revision = '0007_issue11'
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Bring signoff's tables up to this revision."""
    columns = {c["name"] for c in sa.inspect(op.get_bind()).get_columns('signoff_tasks')}
    if 'continues_id' in columns:
        return
    with op.batch_alter_table('signoff_tasks') as batch:
        batch.add_column(sa.Column('continues_id', sa.String(36), nullable=True))


def downgrade() -> None:
    """Take signoff's tables back to revision 0007_issue11."""
    with op.batch_alter_table('signoff_tasks') as batch:
        batch.drop_column('continues_id')
