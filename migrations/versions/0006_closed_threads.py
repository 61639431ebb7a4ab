"""Closed threads: the threads of deleted and purged chats, which take no more writes.

The chats deleted before this revision are closed (not purged) as it is applied.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-27 19:30:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "closed_threads",
        sa.Column("thread_id", sa.String(length=255), nullable=False),
        sa.Column("user_id", sa.String(length=255), nullable=False),
        sa.Column("purged", sa.Boolean(), nullable=False),
        sa.Column("closed_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("thread_id", name=op.f("pk_closed_threads")),
    )
    op.execute(
        "INSERT INTO closed_threads (thread_id, user_id, purged, closed_at)"
        " SELECT thread_id, user_id, false, deleted_at FROM chats"
        " WHERE deleted_at IS NOT NULL"
    )


def downgrade() -> None:
    """Revert this revision."""
    op.drop_table("closed_threads")
