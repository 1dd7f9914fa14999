"""The model each task was started with, named by spec, so that a worker can make it again
(issue 14: `signoff run ... --model SPEC`).

Revision 0005_issue14, after 0004_issue19. A database adopted by `signoff.store.migrate` (made
before migrations) has the table already: it is made only where it is missing."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0005_issue14'
down_revision = '0004_issue19'
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Bring signoff's tables up to this revision."""
    if sa.inspect(op.get_bind()).has_table('signoff_task_models'):
        return
    op.create_table('signoff_task_models',
    sa.Column('task_id', sa.String(length=36), nullable=False),
    sa.Column('spec', sa.String(length=500), nullable=False),
    sa.Column('input_per_mtok', sa.Float(), nullable=True),
    sa.Column('output_per_mtok', sa.Float(), nullable=True),
    sa.Column('problem', sa.Text(), nullable=False),
    sa.Column('reported_at', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['task_id'], ['signoff_tasks.id'], ),
    sa.PrimaryKeyConstraint('task_id')
    )


def downgrade() -> None:
    """Take this revision back."""
    op.drop_table('signoff_task_models')
