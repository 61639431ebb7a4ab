"""Scholarly sources: identifiers and bibliographic fields on sources.

A source row keeps the work's DOI, PMID, PMC id, NCT id and OpenAlex id, its authors, year,
publication date and venue as columns (the DOI and PMID indexed, to find a work across
sessions), and the whole bibliographic record as JSON. Rows written before stay as they are,
with these columns empty.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-24 16:29:20.827047
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("sources", schema=None) as batch_op:
        batch_op.add_column(sa.Column("doi", sa.String(length=255), nullable=True))
        batch_op.add_column(sa.Column("pmid", sa.String(length=20), nullable=True))
        batch_op.add_column(sa.Column("pmcid", sa.String(length=20), nullable=True))
        batch_op.add_column(sa.Column("nct_id", sa.String(length=20), nullable=True))
        batch_op.add_column(sa.Column("openalex_id", sa.String(length=40), nullable=True))
        batch_op.add_column(
            sa.Column(
                "authors",
                sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
                nullable=True,
            )
        )
        batch_op.add_column(sa.Column("year", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("published", sa.String(length=10), nullable=True))
        batch_op.add_column(sa.Column("venue", sa.Text(), nullable=True))
        batch_op.add_column(
            sa.Column(
                "bibliography",
                sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
                nullable=True,
            )
        )
        batch_op.create_index(batch_op.f("ix_sources_doi"), ["doi"], unique=False)
        batch_op.create_index(batch_op.f("ix_sources_pmid"), ["pmid"], unique=False)


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("sources", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_sources_pmid"))
        batch_op.drop_index(batch_op.f("ix_sources_doi"))
        batch_op.drop_column("bibliography")
        batch_op.drop_column("venue")
        batch_op.drop_column("published")
        batch_op.drop_column("year")
        batch_op.drop_column("authors")
        batch_op.drop_column("openalex_id")
        batch_op.drop_column("nct_id")
        batch_op.drop_column("pmcid")
        batch_op.drop_column("pmid")
        batch_op.drop_column("doi")
