"""The model each task was started with, named by spec, so that a worker can make it again
(issue 14: `signoff run ... --model SPEC`).

Revision 0002_issue14, after 0002_issue16."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0002_issue14'
down_revision = '0002_issue16'
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Bring signoff's tables up to this revision."""
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
