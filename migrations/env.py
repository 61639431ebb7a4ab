"""Alembic environment of the domain store (sync drivers; LangGraph's tables excluded)."""

from __future__ import annotations

import math
from logging.config import fileConfig

from alembic import context
from sqlalchemy import create_engine, pool, text

from deep_research.persistence.db import prepare_engine
from deep_research.persistence.migrate import include_name
from deep_research.persistence.tables import Base
from deep_research.persistence.urls import sync_url
from deep_research.settings import get_settings

config = context.config
if config.config_file_name is not None:
    fileConfig(config.config_file_name, disable_existing_loggers=False)

MIGRATION_LOCK = 7_348_201_155
"""PostgreSQL advisory lock id, so that two workers starting at once migrate one at a time."""


def _url() -> str:
    url = config.attributes.get("url")
    return str(url) if url else sync_url(get_settings().resolved_database_url)


def _configure(**kwargs: object) -> None:
    context.configure(
        target_metadata=Base.metadata,
        include_name=include_name,
        compare_type=True,
        render_as_batch=True,
        **kwargs,
    )


def run_migrations_offline() -> None:
    """Emit SQL for the migrations without a database."""
    _configure(url=_url(), literal_binds=True, dialect_opts={"paramstyle": "named"})
    with context.begin_transaction():
        context.run_migrations()


def _connect_timeout() -> int:
    """Seconds to wait for a PostgreSQL connection (``DEEP_RESEARCH_DATABASE_CONNECT_TIMEOUT``)."""
    return max(2, math.ceil(get_settings().database_connect_timeout))


def run_migrations_online() -> None:
    """Run the migrations against the database, in one transaction."""
    url = _url()
    # Only a connect timeout: a migration may wait for another process's migration lock.
    waits = {} if url.startswith("sqlite") else {"connect_timeout": _connect_timeout()}
    engine = create_engine(url, poolclass=pool.NullPool, connect_args=waits)
    prepare_engine(engine)
    with engine.connect() as connection:
        _configure(connection=connection)
        with context.begin_transaction():
            if connection.dialect.name == "postgresql":
                connection.execute(text(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK})"))
            context.run_migrations()
    engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
