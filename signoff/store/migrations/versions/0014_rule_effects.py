"""Each standing rule keeps what its tool did when the rule was made
(`signoff_standing_rules.effects`: the identities of the action's effects, as JSON): a rule
stands for a yes to the calls of a tool that did that, and lapses once the tool, deployed again,
does more (sends, spends, reaches outside or changes what it did not). Rules made before keep
no effects, and hold as they did.

Taken back, the column is dropped (the rules then hold whatever their tools do, as before).

Revision 0014_rule_effects, after 0013_token_purposes."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0014_rule_effects'
down_revision = '0013_token_purposes'
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Bring signoff's tables up to this revision."""
    with op.batch_alter_table('signoff_standing_rules') as batch:
        batch.add_column(sa.Column('effects', sa.Text(), nullable=True))


def downgrade() -> None:
    """Take signoff's tables back to revision 0013_token_purposes."""
    with op.batch_alter_table('signoff_standing_rules') as batch:
        batch.drop_column('effects')
