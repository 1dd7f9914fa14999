"""Each token says what it is for (`signoff_tokens.purpose`): a person's own (``person``), which
decides proposals, or an MCP client's (``client``), which calls an agent's tools and nothing
else. Every token made before is a person's own, as it was: people's tokens, saved profiles and
scripts go on working; only an MCP endpoint refuses them from now on, since a client holding
one could approve what it proposed.

Taken back, the column is dropped, and the clients' tokens are revoked first: a version that
cannot tell them apart would take them for people's own, and let a client decide.

Revision 0013_token_purposes, after 0012_steps_by_key."""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision = '0013_token_purposes'
down_revision = '0012_steps_by_key'
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Bring signoff's tables up to this revision (a database adopted from a development
    version may have the column already)."""
    columns = {c["name"] for c in sa.inspect(op.get_bind()).get_columns('signoff_tokens')}
    if 'purpose' in columns:
        return
    with op.batch_alter_table('signoff_tokens') as batch:
        batch.add_column(sa.Column('purpose', sa.String(20), nullable=False,
                                   server_default='person'))


def downgrade() -> None:
    """Take signoff's tables back to revision 0012_steps_by_key, the clients' tokens revoked."""
    tokens = sa.table('signoff_tokens', sa.column('purpose', sa.String(20)),
                      sa.column('revoked_at', sa.DateTime(timezone=True)))
    op.execute(tokens.update().where(tokens.c.purpose != 'person',
                                     tokens.c.revoked_at.is_(None))
               .values(revoked_at=datetime.now(UTC)))
    with op.batch_alter_table('signoff_tokens') as batch:
        batch.drop_column('purpose')
