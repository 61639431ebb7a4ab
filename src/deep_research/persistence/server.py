"""Persistence factories for the LangGraph server, named in ``langgraph.json``.

The server enters each factory once per event loop and closes it on shutdown. Both use the
project's own factories on ``DEEP_RESEARCH_DATABASE_URL`` (default: the SQLite file in the data
directory), so the server, the command line and ``deep-research resume`` share checkpoints;
with a database URL set, runs are also recorded in the domain store, whose schema the
checkpointer factory upgrades at startup.

With a checkpoint retention (``checkpoint_retention`` in ``persistence/purge.py``:
``DEEP_RESEARCH_CHECKPOINT_TTL_MINUTES``, else ``checkpointer.ttl`` of ``langgraph.json``) the
checkpointer factory deletes the checkpoints of idle chats when the server starts and then
periodically while it runs; with a store retention (``store_ttl`` in ``persistence/content.py``:
``DEEP_RESEARCH_STORE_TTL_MINUTES``, else ``store.ttl``) the store expires page text. LangGraph
itself applies neither to these factories under ``langgraph dev``: its in-memory runtime
ignores thread TTLs (its ``Threads.sweep_ttl`` is "not implemented for inmem server" and never
called) and skips the TTL sweeper of a custom store.

LangGraph loads this file by path, under a module name ``sys.modules`` does not hold, so it
defines no dataclass (``@dataclass`` looks its module up there): those live in the package.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.store.base import BaseStore
from langgraph.store.postgres.aio import AsyncPostgresStore
from langgraph.store.sqlite.aio import AsyncSqliteStore

from deep_research.errors import DatabaseUnavailableError
from deep_research.persistence.checkpointer import open_checkpointer
from deep_research.persistence.content import open_store
from deep_research.persistence.db import ensure_schema, open_database
from deep_research.persistence.purge import checkpoint_retention, expire_checkpoints
from deep_research.settings import get_settings

logger = logging.getLogger(__name__)


async def sweep_checkpoints(
    url: str, saver: BaseCheckpointSaver[str], *, ttl_minutes: float, every_minutes: float
) -> None:
    """Every ``every_minutes``, delete the checkpoints of idle chats, until cancelled.

    A database that does not answer skips one sweep (logged); the next one tries again.
    """
    while True:
        await asyncio.sleep(every_minutes * 60)
        try:
            async with open_database(url) as database:
                expired = await expire_checkpoints(database, saver, ttl_minutes=ttl_minutes)
            if expired:
                logger.info("expired the checkpoints of %d idle chat(s)", len(expired))
        except DatabaseUnavailableError as exc:
            logger.warning("checkpoint retention sweep skipped: %s", exc)


@asynccontextmanager
async def checkpointer() -> AsyncIterator[BaseCheckpointSaver[str]]:
    """The server's checkpointer (and, with a database URL, the domain store's schema)."""
    settings = get_settings()
    url = settings.resolved_database_url
    if settings.database_url is not None and url != "memory":
        await asyncio.to_thread(ensure_schema, url)
    retention = checkpoint_retention()
    async with open_checkpointer(url) as saver:
        if retention is None or url == "memory":
            yield saver
            return
        async with open_database(url) as database:  # before the first run, as at every start
            expired = await expire_checkpoints(database, saver, ttl_minutes=retention.ttl_minutes)
        logger.info(
            "checkpoints of chats idle for %g min are deleted (%d now), every %g min",
            retention.ttl_minutes,
            len(expired),
            retention.sweep_minutes,
        )
        sweeper = asyncio.create_task(
            sweep_checkpoints(
                url,
                saver,
                ttl_minutes=retention.ttl_minutes,
                every_minutes=retention.sweep_minutes,
            )
        )
        try:
            yield saver
        finally:
            sweeper.cancel()
            with suppress(asyncio.CancelledError):
                await sweeper


@asynccontextmanager
async def store() -> AsyncIterator[BaseStore]:
    """The server's store: the content store for page text, swept hourly with a retention."""
    async with open_store(get_settings().resolved_database_url) as content:
        if not isinstance(content, AsyncSqliteStore | AsyncPostgresStore) or not content.ttl_config:
            yield content
            return
        await content.start_ttl_sweeper()
        try:
            yield content
        finally:
            await content.stop_ttl_sweeper(timeout=5)
