"""Each task's model keeps its timeouts (`signoff_task_models.timeout`, `total_timeout`: the
longest wait for an answer or its next piece, and the longest a call may take in all, in
seconds), so that a worker that makes the model again waits as long as the process that started
the task did. Tasks started before keep none, and their models wait as long as their defaults.

Taken back, the columns are dropped (a model made again then waits as long as its defaults).

Revision 0015_model_timeouts, after 0014_rule_effects."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0015_model_timeouts'
down_revision = '0014_rule_effects'
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Bring signoff's tables up to this revision."""
    with op.batch_alter_table('signoff_task_models') as batch:
        batch.add_column(sa.Column('timeout', sa.Float(), nullable=True))
        batch.add_column(sa.Column('total_timeout', sa.Float(), nullable=True))


def downgrade() -> None:
    """Take signoff's tables back to revision 0014_rule_effects."""
    with op.batch_alter_table('signoff_task_models') as batch:
        batch.drop_column('total_timeout')
        batch.drop_column('timeout')
