"""The journal of steps (issue 11): schema only (the lead's placeholder; the helper's revision
with the conversion of the old tables replaces it)."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0007_issue11'
down_revision = '0006_issue15'
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Bring signoff's tables up to this revision."""
    op.create_table(
        'signoff_steps',
        sa.Column('task_id', sa.String(36), sa.ForeignKey('signoff_tasks.id'), primary_key=True),
        sa.Column('seq', sa.Integer(), primary_key=True),
        sa.Column('turn', sa.Integer(), nullable=False),
        sa.Column('kind', sa.String(20), nullable=False),
        sa.Column('at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('cost_usd', sa.Float(), nullable=False),
        sa.Column('data', sa.JSON(), nullable=False),
    )
    op.create_index('signoff_steps_turn', 'signoff_steps', ['task_id', 'turn', 'seq'])
    with op.batch_alter_table('signoff_tasks') as batch:
        batch.add_column(sa.Column('seq', sa.Integer(), nullable=False, server_default='0'))
    with op.batch_alter_table('signoff_proposals') as batch:
        batch.add_column(sa.Column('call_id', sa.String(200), nullable=False, server_default=''))
    op.drop_table('signoff_messages')
    op.drop_table('signoff_receipt_entries')
    if op.get_bind().dialect.name == 'sqlite':
        from signoff.store.tables import proposals
        with op.batch_alter_table('signoff_proposals', recreate='always',
                                  copy_from=proposals.to_metadata(sa.MetaData())):
            pass
    else:
        op.drop_constraint('signoff_proposals_tool_call_id_fkey', 'signoff_proposals',
                           type_='foreignkey')
    op.drop_table('signoff_tool_calls')


def downgrade() -> None:
    """Not in the placeholder."""
    raise NotImplementedError
