"""Proposals keep the labels of the arguments outside content may have steered (issue 19).

Revision 0004."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0004_issue19'
down_revision = '0003_issue11'
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Bring signoff's tables up to this revision (a database adopted from a development
    version may have the column already)."""
    columns = {c["name"] for c in sa.inspect(op.get_bind()).get_columns('signoff_proposals')}
    if 'labels' in columns:
        return
    with op.batch_alter_table('signoff_proposals') as batch:
        batch.add_column(sa.Column('labels', sa.JSON(), nullable=True))


def downgrade() -> None:
    """Take signoff's tables back to revision 0003_issue11."""
    with op.batch_alter_table('signoff_proposals') as batch:
        batch.drop_column('labels')
