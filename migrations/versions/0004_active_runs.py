"""The run cap's shared count: the runs each server replica admitted, with a lease.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-24 20:15:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "active_runs",
        sa.Column("run_id", sa.String(length=64), nullable=False),
        sa.Column("user_id", sa.String(length=255), nullable=False),
        sa.Column("thread_id", sa.String(length=64), nullable=True),
        sa.Column("replica", sa.String(length=100), nullable=False),
        sa.Column("admitted_at", sa.Float(), nullable=False),
        sa.Column("lease_until", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("run_id", name=op.f("pk_active_runs")),
    )
    op.create_index(
        op.f("ix_active_runs_user_id_lease_until"),
        "active_runs",
        ["user_id", "lease_until"],
        unique=False,
    )


def downgrade() -> None:
    """Revert this revision."""
    op.drop_index(op.f("ix_active_runs_user_id_lease_until"), table_name="active_runs")
    op.drop_table("active_runs")
