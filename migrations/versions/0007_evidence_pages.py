"""Evidence spans keep the page (or slide) their quote starts on.

A quote from a PDF names its page and one from a presentation its slide (``p. 12``,
``slide 4``); the report and report.json said so, the store did not. Rows written before stay
empty.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-06 22:30:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("evidence_spans", schema=None) as batch_op:
        batch_op.add_column(sa.Column("page", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("page_kind", sa.String(length=8), nullable=True))


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("evidence_spans", schema=None) as batch_op:
        batch_op.drop_column("page_kind")
        batch_op.drop_column("page")
