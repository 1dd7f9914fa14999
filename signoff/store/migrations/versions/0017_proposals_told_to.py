"""Each proposal keeps which of the app's handlers of `AgentProposed` took its latest notice
(`signoff_proposals.told_to`: JSON of the notice's escalations and the handlers' names), so that
a try after the first calls only the handlers that did not take it (`signoff.agents.telling`).
Proposals made before keep none: one told is told (its `told_at`), and one left untold is told
again to every handler, as it was before.

Taken back, the column is dropped (a try then calls every handler again).

Revision 0017_proposals_told_to, after 0016_proposals_told."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0017_proposals_told_to'
down_revision = '0016_proposals_told'
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Bring signoff's tables up to this revision."""
    with op.batch_alter_table('signoff_proposals') as batch:
        batch.add_column(sa.Column('told_to', sa.Text(), nullable=True))


def downgrade() -> None:
    """Take signoff's tables back to revision 0016_proposals_told."""
    with op.batch_alter_table('signoff_proposals') as batch:
        batch.drop_column('told_to')
