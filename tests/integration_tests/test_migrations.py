"""Alembic: upgrade to head and downgrade to base on empty SQLite and PostgreSQL databases.

LangGraph's checkpointer and store create their own tables in the same database first; the
migrations must leave them alone, and autogenerate must find no difference between the
migrated schema and the models (so neither a forgotten migration nor a ``drop_table`` of
LangGraph's tables).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine, inspect

from deep_research.cli import main
from deep_research.persistence.checkpointer import open_checkpointer
from deep_research.persistence.content import open_store
from deep_research.persistence.db import prepare_engine
from deep_research.persistence.migrate import LANGGRAPH_TABLES, alembic_config, include_name
from deep_research.persistence.tables import Base
from deep_research.persistence.urls import sync_url
from tests.integration_tests.conftest import own_database

DOMAIN_TABLES = set(Base.metadata.tables)


@pytest.fixture
def empty_postgres(postgres_url: str) -> Iterator[str]:
    """A database of its own (the session's is shared with tests that need the schema)."""
    with own_database(postgres_url, "test_migrations") as url:
        yield url


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def empty_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'empty.sqlite'}"
    url: str = request.getfixturevalue("empty_postgres")
    return url


def tables_of(url: str) -> set[str]:
    engine = create_engine(sync_url(url))
    try:
        return set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def differences(url: str) -> list[object]:
    engine = create_engine(sync_url(url))
    prepare_engine(engine)
    try:
        with engine.connect() as connection:
            options = {"include_name": include_name, "compare_type": True}
            context = MigrationContext.configure(connection, opts=options)
            return list(compare_metadata(context, Base.metadata))
    finally:
        engine.dispose()


async def test_upgrade_and_downgrade_leave_langgraph_tables_alone(empty_url: str) -> None:
    async with open_checkpointer(empty_url), open_store(empty_url):
        pass
    langgraph = tables_of(empty_url)
    assert langgraph and langgraph <= LANGGRAPH_TABLES

    command.upgrade(alembic_config(empty_url), "head")
    assert tables_of(empty_url) == langgraph | DOMAIN_TABLES | {"alembic_version"}
    assert differences(empty_url) == []

    command.downgrade(alembic_config(empty_url), "base")
    assert tables_of(empty_url) == langgraph | {"alembic_version"}

    command.upgrade(alembic_config(empty_url), "head")
    assert differences(empty_url) == []


def test_db_upgrade_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite:///{tmp_path / 'cli.sqlite'}"
    monkeypatch.setenv("DEEP_RESEARCH_DATABASE_URL", url)
    assert main(["db", "upgrade"]) == 0
    assert "upgraded to head" in capsys.readouterr().out
    assert DOMAIN_TABLES <= tables_of(url)
    assert differences(url) == []
