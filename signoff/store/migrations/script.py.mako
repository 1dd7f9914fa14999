"""${message}

Revision: ${up_revision}, after ${down_revision | comma,n}. Made ${create_date}.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
${imports if imports else ""}

revision = ${repr(up_revision)}
down_revision = ${repr(down_revision)}
branch_labels = ${repr(branch_labels)}
depends_on = ${repr(depends_on)}


def upgrade() -> None:
    """Bring signoff's tables up to this revision."""
    ${upgrades if upgrades else "pass"}


def downgrade() -> None:
    """Take signoff's tables back to the revision before."""
    ${downgrades if downgrades else "pass"}
