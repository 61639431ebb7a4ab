"""Alembic, driven from code: where the migrations live and which tables they own.

The migrations live in ``migrations/`` at the repository root (shipped inside the wheel as
``deep_research/migrations``). They own the domain store's tables only: LangGraph's checkpointer
and store keep theirs (created by their own ``setup()``), and autogenerate must never propose
to drop them.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from deep_research.errors import ConfigurationError

if TYPE_CHECKING:
    from alembic.config import Config

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


_REVISION = re.compile(r"^(down_revision|revision)\b[^=\n]*=\s*(.+)$", re.M)
_NAME = re.compile(r"[\"']([^\"']+)[\"']")


@cache
def head_revisions() -> frozenset[str]:
    """The revisions no migration builds on, read from the scripts' text.

    Importing Alembic and its script machinery costs more than a short command's whole run;
    this is all :func:`deep_research.persistence.db.ensure_schema` needs to see that a
    database is already up to date.
    """
    revisions: set[str] = set()
    parents: set[str] = set()
    for script in (migrations_dir() / "versions").glob("*.py"):
        for name, value in _REVISION.findall(script.read_text(encoding="utf-8")):
            found = _NAME.findall(value)
            (revisions if name == "revision" else parents).update(found)
    return frozenset(revisions - parents)


def alembic_config(url: str) -> Config:
    """An Alembic configuration for the database at ``url`` (any driver spelling)."""
    from alembic.config import Config

    from deep_research.persistence.urls import sync_url

    config = Config()
    config.set_main_option("script_location", str(migrations_dir()))
    config.attributes["url"] = sync_url(url)
    return config
