"""Persistence factories for the LangGraph server, named in ``langgraph.json``.

The server enters each factory once per event loop and closes it on shutdown. Both use the
project's own factories on ``DEEP_RESEARCH_DATABASE_URL`` (default: the SQLite file in the data
directory), so the server, the command line and ``deep-research resume`` share checkpoints;
with a database URL set, runs are also recorded in the domain store, whose schema the
checkpointer factory upgrades at startup.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.store.base import BaseStore

from deep_research.persistence.checkpointer import open_checkpointer
from deep_research.persistence.content import open_store
from deep_research.persistence.db import ensure_schema
from deep_research.settings import get_settings


@asynccontextmanager
async def checkpointer() -> AsyncIterator[BaseCheckpointSaver[str]]:
    """The server's checkpointer (and, with a database URL, the domain store's schema)."""
    settings = get_settings()
    url = settings.resolved_database_url
    if settings.database_url is not None and url != "memory":
        await asyncio.to_thread(ensure_schema, url)
    async with open_checkpointer(url) as saver:
        yield saver


@asynccontextmanager
async def store() -> AsyncIterator[BaseStore]:
    """The server's store: the content store for page text."""
    async with open_store(get_settings().resolved_database_url) as content:
        yield content
