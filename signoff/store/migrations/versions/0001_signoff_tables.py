"""signoff's own tables, as first released: people, consents, tasks and their messages, tool
calls, proposals, standing rules, receipts, passwords and tokens.

Revision 0001, the first."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0001'
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Bring signoff's tables up to this revision."""
    op.create_table('signoff_consents_used',
    sa.Column('nonce', sa.String(length=64), nullable=False),
    sa.Column('action', sa.String(length=200), nullable=False),
    sa.Column('principal_id', sa.String(length=36), nullable=False),
    sa.Column('used_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('nonce')
    )
    op.create_table('signoff_principals',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('handle', sa.String(length=320), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('kind', sa.String(length=10), nullable=False),
    sa.Column('roles', sa.JSON(), nullable=False),
    sa.Column('disabled', sa.Boolean(), nullable=False),
    sa.Column('sponsor_id', sa.String(length=36), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('handle')
    )
    op.create_table('signoff_standing_rules',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('agent', sa.String(length=100), nullable=False),
    sa.Column('tool', sa.String(length=200), nullable=False),
    sa.Column('skill', sa.String(length=100), nullable=True),
    sa.Column('for_id', sa.String(length=36), nullable=True),
    sa.Column('made_by_id', sa.String(length=36), nullable=False),
    sa.Column('made_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('revoked_by_id', sa.String(length=36), nullable=True),
    sa.Column('revoked_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('why', sa.Text(), nullable=False),
    sa.Column('used', sa.Integer(), nullable=False),
    sa.Column('last_used_at', sa.DateTime(timezone=True), nullable=True),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_table('signoff_tasks',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('agent', sa.String(length=100), nullable=False),
    sa.Column('skill', sa.String(length=100), nullable=False),
    sa.Column('for_id', sa.String(length=36), nullable=True),
    sa.Column('subject_type', sa.String(length=100), nullable=False),
    sa.Column('subject_id', sa.String(length=36), nullable=True),
    sa.Column('subject_json', sa.JSON(), nullable=True),
    sa.Column('status', sa.String(length=10), nullable=False),
    sa.Column('turn', sa.Integer(), nullable=False),
    sa.Column('turn_open', sa.Boolean(), nullable=False),
    sa.Column('message_count', sa.Integer(), nullable=False),
    sa.Column('steps', sa.Integer(), nullable=False),
    sa.Column('spend_usd', sa.Float(), nullable=False),
    sa.Column('max_steps', sa.Integer(), nullable=False),
    sa.Column('budget_usd', sa.Float(), nullable=False),
    sa.Column('model', sa.String(length=200), nullable=False),
    sa.Column('result', sa.JSON(), nullable=True),
    sa.Column('problem', sa.Text(), nullable=False),
    sa.Column('revision', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_table('signoff_messages',
    sa.Column('task_id', sa.String(length=36), nullable=False),
    sa.Column('seq', sa.Integer(), nullable=False),
    sa.Column('data', sa.JSON(), nullable=False),
    sa.ForeignKeyConstraint(['task_id'], ['signoff_tasks.id'], ),
    sa.PrimaryKeyConstraint('task_id', 'seq')
    )
    op.create_table('signoff_passwords',
    sa.Column('principal_id', sa.String(length=36), nullable=False),
    sa.Column('hash', sa.Text(), nullable=False),
    sa.Column('set_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['principal_id'], ['signoff_principals.id'], ),
    sa.PrimaryKeyConstraint('principal_id')
    )
    op.create_table('signoff_receipt_entries',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('task_id', sa.String(length=36), nullable=False),
    sa.Column('at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('kind', sa.String(length=20), nullable=False),
    sa.Column('words', sa.Text(), nullable=False),
    sa.Column('data', sa.JSON(), nullable=False),
    sa.Column('cost_usd', sa.Float(), nullable=False),
    sa.ForeignKeyConstraint(['task_id'], ['signoff_tasks.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('signoff_receipt_entries', schema=None) as batch_op:
        batch_op.create_index('signoff_receipt_entries_task', ['task_id', 'id'], unique=False)

    op.create_table('signoff_tokens',
    sa.Column('id', sa.String(length=16), nullable=False),
    sa.Column('principal_id', sa.String(length=36), nullable=False),
    sa.Column('digest', sa.String(length=64), nullable=False),
    sa.Column('label', sa.String(length=200), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('revoked_at', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['principal_id'], ['signoff_principals.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('signoff_tokens', schema=None) as batch_op:
        batch_op.create_index('signoff_tokens_principal', ['principal_id'], unique=False)

    op.create_table('signoff_tool_calls',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('task_id', sa.String(length=36), nullable=False),
    sa.Column('turn', sa.Integer(), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('call_id', sa.String(length=200), nullable=False),
    sa.Column('tool', sa.String(length=200), nullable=False),
    sa.Column('arguments', sa.Text(), nullable=False),
    sa.Column('why', sa.Text(), nullable=False),
    sa.Column('state', sa.String(length=10), nullable=False),
    sa.Column('leave', sa.String(length=20), nullable=False),
    sa.Column('outcome', sa.String(length=10), nullable=False),
    sa.Column('said', sa.Text(), nullable=False),
    sa.Column('value', sa.JSON(), nullable=True),
    sa.Column('problem', sa.Text(), nullable=False),
    sa.Column('ran_as', sa.JSON(), nullable=True),
    sa.Column('effects', sa.JSON(), nullable=True),
    sa.Column('answer', sa.Text(), nullable=False),
    sa.Column('started_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['task_id'], ['signoff_tasks.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('signoff_tool_calls', schema=None) as batch_op:
        batch_op.create_index('signoff_tool_calls_task', ['task_id', 'turn', 'position'], unique=True)

    op.create_table('signoff_proposals',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('task_id', sa.String(length=36), nullable=False),
    sa.Column('tool_call_id', sa.String(length=36), nullable=False),
    sa.Column('agent', sa.String(length=100), nullable=False),
    sa.Column('skill', sa.String(length=100), nullable=False),
    sa.Column('skill_version', sa.String(length=40), nullable=False),
    sa.Column('action', sa.String(length=200), nullable=False),
    sa.Column('label', sa.String(length=200), nullable=False),
    sa.Column('effects', sa.JSON(), nullable=False),
    sa.Column('arguments', sa.JSON(), nullable=False),
    sa.Column('shown', sa.JSON(), nullable=False),
    sa.Column('why', sa.Text(), nullable=False),
    sa.Column('evidence', sa.JSON(), nullable=False),
    sa.Column('subject_version', sa.String(length=200), nullable=False),
    sa.Column('fingerprint', sa.String(length=64), nullable=False),
    sa.Column('instructions', sa.Text(), nullable=False),
    sa.Column('decide_person_id', sa.String(length=36), nullable=True),
    sa.Column('decide_queue', sa.String(length=100), nullable=True),
    sa.Column('routed', sa.Boolean(), nullable=False),
    sa.Column('for_id', sa.String(length=36), nullable=True),
    sa.Column('status', sa.String(length=10), nullable=False),
    sa.Column('decided_by_id', sa.String(length=36), nullable=True),
    sa.Column('reason', sa.Text(), nullable=False),
    sa.Column('result', sa.JSON(), nullable=True),
    sa.Column('edited', sa.JSON(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('decided_at', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['task_id'], ['signoff_tasks.id'], ),
    sa.ForeignKeyConstraint(['tool_call_id'], ['signoff_tool_calls.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('signoff_proposals', schema=None) as batch_op:
        batch_op.create_index('signoff_proposals_person', ['decide_person_id', 'status', 'created_at'], unique=False)
        batch_op.create_index('signoff_proposals_queue', ['decide_queue', 'status', 'created_at'], unique=False)
        batch_op.create_index('signoff_proposals_status', ['status', 'created_at'], unique=False)
        batch_op.create_index('signoff_proposals_task', ['task_id'], unique=False)



def downgrade() -> None:
    """Take signoff's tables back to the revision before."""
    with op.batch_alter_table('signoff_proposals', schema=None) as batch_op:
        batch_op.drop_index('signoff_proposals_task')
        batch_op.drop_index('signoff_proposals_status')
        batch_op.drop_index('signoff_proposals_queue')
        batch_op.drop_index('signoff_proposals_person')

    op.drop_table('signoff_proposals')
    with op.batch_alter_table('signoff_tool_calls', schema=None) as batch_op:
        batch_op.drop_index('signoff_tool_calls_task')

    op.drop_table('signoff_tool_calls')
    with op.batch_alter_table('signoff_tokens', schema=None) as batch_op:
        batch_op.drop_index('signoff_tokens_principal')

    op.drop_table('signoff_tokens')
    with op.batch_alter_table('signoff_receipt_entries', schema=None) as batch_op:
        batch_op.drop_index('signoff_receipt_entries_task')

    op.drop_table('signoff_receipt_entries')
    op.drop_table('signoff_passwords')
    op.drop_table('signoff_messages')
    op.drop_table('signoff_tasks')
    op.drop_table('signoff_standing_rules')
    op.drop_table('signoff_principals')
    op.drop_table('signoff_consents_used')
