"""Claims keep the verifier's reason as a code with its values, not only as English words.

``claims.reason`` is ``{"code": ..., "params": {...}}`` (see deep_research.verification.reasons),
from which report.md and report.html word the reason in the report's language. A model's own
reasoning has none, and rows written before stay empty: their ``reasoning`` is what they show.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-27 19:30:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    json = sa.JSON().with_variant(JSONB(), "postgresql")
    with op.batch_alter_table("claims", schema=None) as batch_op:
        batch_op.add_column(sa.Column("reason", json, nullable=True))


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("claims", schema=None) as batch_op:
        batch_op.drop_column("reason")
