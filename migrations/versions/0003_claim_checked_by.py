"""Claims say who judged them: the model, the offline engine, or the offline fallback.

``claims.checked_by`` is ``model``, ``offline`` or ``fallback`` (the offline checker standing in
for a model that gave no usable verdict). Rows written before stay empty.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-24 17:20:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("claims", schema=None) as batch_op:
        batch_op.add_column(sa.Column("checked_by", sa.String(length=20), nullable=True))


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("claims", schema=None) as batch_op:
        batch_op.drop_column("checked_by")
