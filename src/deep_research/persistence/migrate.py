"""Alembic, driven from code: where the migrations live and which tables they own.

The migrations live in ``migrations/`` at the repository root (shipped inside the wheel as
``deep_research/migrations``). They own the domain store's tables only: LangGraph's checkpointer
and store keep theirs (created by their own ``setup()``), and autogenerate must never propose
to drop them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from alembic.config import Config

from deep_research.errors import ConfigurationError
from deep_research.persistence.db import sync_url

LANGGRAPH_TABLES = frozenset(
    {
        "checkpoints",
        "checkpoint_blobs",
        "checkpoint_writes",
        "checkpoint_migrations",
        "writes",
        "store",
        "store_migrations",
        "store_vectors",
        "vector_migrations",
    }
)
"""Tables of LangGraph's PostgreSQL and SQLite checkpointers and stores."""

_PACKAGE = Path(__file__).resolve().parent.parent


def migrations_dir() -> Path:
    """The Alembic script directory (the wheel's copy, or the repository's).

    Raises:
        ConfigurationError: neither exists (a broken installation).
    """
    for candidate in (_PACKAGE / "migrations", _PACKAGE.parent.parent / "migrations"):
        if (candidate / "env.py").is_file():
            return candidate
    raise ConfigurationError("the package's Alembic migrations are missing")


def include_name(name: str | None, type_: str, _parent_names: Any) -> bool:
    """Leave LangGraph's tables out of Alembic's view."""
    return not (type_ == "table" and name in LANGGRAPH_TABLES)


def alembic_config(url: str) -> Config:
    """An Alembic configuration for the database at ``url`` (any driver spelling)."""
    config = Config()
    config.set_main_option("script_location", str(migrations_dir()))
    config.attributes["url"] = sync_url(url)
    return config
