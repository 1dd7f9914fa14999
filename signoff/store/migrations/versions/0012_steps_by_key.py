"""A task's steps are found by their key alone: the index of the journal by model turn
(`signoff_steps_turn`) is dropped. A turn's steps are the last ones of its task (the turn a
step is written in never goes back as its number rises), read from the task's end by the
primary key (`signoff.store.journal.steps_of`); the index was one more page written by every
step's commit, about a quarter of what an alone call's rows cost a SQLite file.

Revision 0012_steps_by_key, after 0011_servings."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0012_steps_by_key'
down_revision = '0011_servings'
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Bring signoff's tables up to this revision."""
    indexes = sa.inspect(op.get_bind()).get_indexes('signoff_steps')
    if any(i['name'] == 'signoff_steps_turn' for i in indexes):
        op.drop_index('signoff_steps_turn', table_name='signoff_steps')


def downgrade() -> None:
    """Take signoff's tables back to revision 0011_servings."""
    op.create_index('signoff_steps_turn', 'signoff_steps', ['task_id', 'turn', 'seq'])
