"""The domain store as the server sees it: one unpooled engine per database URL.

The server's custom routes and its auth handlers read the same database the server's runs are
recorded in (``DEEP_RESEARCH_DATABASE_URL``, default the SQLite file in the data directory).
The engine is unpooled, so that any event loop of the server process may use it, and the
schema is upgraded to head before the first use (once per process and URL).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import lru_cache

from sqlalchemy.ext.asyncio import AsyncSession

from deep_research.errors import StoreError
from deep_research.persistence.db import Database, create_engine, ensure_schema
from deep_research.settings import get_settings


class StoreDisabledError(StoreError):
    """The server runs without a domain store (``DEEP_RESEARCH_DATABASE_URL=memory``)."""


def server_database_url() -> str | None:
    """The domain store's URL, or ``None`` when the server keeps nothing (``memory``)."""
    url = get_settings().resolved_database_url
    return None if url == "memory" else url


@lru_cache(maxsize=4)
def _database(url: str) -> Database:
    """The schema upgraded, then the engine (blocking: both may touch the file system)."""
    ensure_schema(url)
    return Database(create_engine(url, pooled=False))


@asynccontextmanager
async def domain_session() -> AsyncIterator[AsyncSession]:
    """One transaction on the server's domain store.

    Raises:
        StoreDisabledError: the server has no domain store.
    """
    url = server_database_url()
    if url is None:
        raise StoreDisabledError(
            "this server keeps no domain store (DEEP_RESEARCH_DATABASE_URL=memory)"
        )
    database = await asyncio.to_thread(_database, url)
    async with database.session_scope() as session:
        yield session
