"""Each database has an identity of its own (`signoff_database`: one row, a random id made the
first time anything asks for it), so that what lives outside it — a Temporal task queue — can
tell two databases apart that hold the same app by name.

Revision 0010_identity, after 0009_runs."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0010_identity'
down_revision = '0009_runs'
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Bring signoff's tables up to this revision."""
    if not sa.inspect(op.get_bind()).has_table('signoff_database'):
        op.create_table(
            'signoff_database',
            sa.Column('slot', sa.Integer(), primary_key=True, autoincrement=False),
            sa.Column('id', sa.String(36), nullable=False),
            sa.Column('made_at', sa.DateTime(timezone=True), nullable=False),
        )


def downgrade() -> None:
    """Take signoff's tables back to revision 0009_runs."""
    op.drop_table('signoff_database')
