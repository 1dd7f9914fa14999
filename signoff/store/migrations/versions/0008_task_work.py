"""Tasks may share one piece of work (`work_id`, indexed): what any task of a work has seen,
each of them has seen. A client's session through a served agent or the guard is one work: its
skills' tasks, and the task its calls go on in while another waits on a decision.

Revision 0008_work, after 0007_issue11."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0008_work'
down_revision = '0007_issue11'
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Bring signoff's tables up to this revision."""
    inspector = sa.inspect(op.get_bind())
    if 'work_id' not in {c["name"] for c in inspector.get_columns('signoff_tasks')}:
        with op.batch_alter_table('signoff_tasks') as batch:
            batch.add_column(sa.Column('work_id', sa.String(36), nullable=True))
    if 'signoff_tasks_work' not in {i["name"] for i in inspector.get_indexes('signoff_tasks')}:
        op.create_index('signoff_tasks_work', 'signoff_tasks', ['work_id'])


def downgrade() -> None:
    """Take signoff's tables back to revision 0007_issue11."""
    op.drop_index('signoff_tasks_work', table_name='signoff_tasks')
    with op.batch_alter_table('signoff_tasks') as batch:
        batch.drop_column('work_id')
