"""The domain store as the server sees it: one pooled engine per event loop and database URL.

The server's custom routes, its auth handlers (the ``threads.create_run`` handler reads the
user's preferences) and the recorder of the server's graph (:mod:`deep_research.server.graph`)
all use the same database (``DEEP_RESEARCH_DATABASE_URL``, default the SQLite file in the data
directory). Under ``langgraph dev`` and langgraph-api they run on the server's one event loop,
uvicorn's (with ``BG_JOB_ISOLATED_LOOPS``, runs get loops of their own, and so engines of their
own).

A connection opened for each request doubled a route's latency under ``langgraph dev`` (TCP
and authentication on PostgreSQL; a thread, the file and three pragmas for each aiosqlite
connection), so the engines are pooled. A psycopg or aiosqlite connection, and SQLAlchemy's
async pool, belong to the event loop that created them, so each
running loop gets its own engine per URL: created on first use (after upgrading the schema to
head, once per process and URL), then kept until that loop ends. The engines of a loop are
disposed by :func:`close_domain_stores`, which the routes' lifespan calls at server shutdown,
or else when the loop shuts down its async generators, as ``asyncio.run``, ``asyncio.Runner``,
uvicorn and pytest-asyncio do before closing a loop. A loop closed without that step should
call :func:`close_domain_stores` first, or its pooled connections outlive it (an idle
aiosqlite connection is a non-daemon thread, which would keep the process from exiting).

SQLite keeps its WAL journal and busy timeout (:mod:`deep_research.persistence.db`), and a
pooled connection is rolled back when it returns to the pool, so an idle one holds no lock
and the routes read while the recorder writes. Each transaction runs to its end even when its
request is cancelled (:func:`in_domain_session`), as the recorder's do: interrupted in the
middle of a statement, a SQLite connection would keep the file's write lock.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from sqlalchemy.ext.asyncio import AsyncSession

from deep_research.errors import StoreError
from deep_research.persistence.db import Database, create_engine, ensure_schema
from deep_research.settings import get_settings

T = TypeVar("T")


class StoreDisabledError(StoreError):
    """The server runs without a domain store (``DEEP_RESEARCH_DATABASE_URL=memory``)."""


def server_database_url() -> str | None:
    """The domain store's URL, or ``None`` when the server keeps nothing (``memory``)."""
    url = get_settings().resolved_database_url
    return None if url == "memory" else url


@dataclass(frozen=True)
class _LoopStores:
    """The engines of one event loop, by URL, and the generator that disposes them."""

    databases: dict[str, Database]
    guard: AsyncGenerator[None]


class DomainStores:
    """The pooled engines of each event loop that uses the domain store, by URL.

    The server process holds one (:data:`domain_stores`): its routes, auth handlers and graph
    are module-level functions that the runtime calls, so they share the process's.
    """

    def __init__(self) -> None:
        self._loops: dict[asyncio.AbstractEventLoop, _LoopStores] = {}
        """The loops that use the store now; an entry goes when its engines are disposed."""

    async def database(self, url: str) -> Database:
        """The running loop's database on ``url``."""
        database = (await self._loop_stores()).databases.get(url)
        if database is None:
            opened = await asyncio.to_thread(_open, url)
            # Another request of this loop may have opened it meanwhile, or the loop's stores
            # may have been closed: look again, and keep the first one.
            database = (await self._loop_stores()).databases.setdefault(url, opened)
            if database is not opened:
                await opened.dispose()
        return database

    async def close(self) -> None:
        """Dispose the running loop's engines, closing their pooled connections.

        The next request on the same loop opens a new engine.
        """
        stores = self._loops.get(asyncio.get_running_loop())
        if stores is not None:
            await stores.guard.aclose()

    async def _loop_stores(self) -> _LoopStores:
        """The running loop's entry, created (with its guard started) on first use."""
        loop = asyncio.get_running_loop()
        stores = self._loops.get(loop)
        if stores is None:
            databases: dict[str, Database] = {}
            stores = self._loops[loop] = _LoopStores(databases, self._dispose_at_exit(databases))
            await anext(stores.guard)  # registers it with the loop; runs to its yield at once
        return stores

    async def _dispose_at_exit(self, databases: dict[str, Database]) -> AsyncGenerator[None]:
        """Wait, suspended, for the loop to close this generator; then dispose its engines.

        The loop closes every async generator still suspended when it shuts down
        (``loop.shutdown_asyncgens()``); :meth:`close` closes this one earlier.
        """
        try:
            yield
        finally:
            self._loops.pop(asyncio.get_running_loop(), None)
            for database in list(databases.values()):
                await database.dispose()


def _open(url: str) -> Database:
    """The schema upgraded, then a pooled engine (blocking: both may touch the file system)."""
    ensure_schema(url)
    return Database(create_engine(url, pooled=True, pool_sqlite=True))


domain_stores = DomainStores()
"""The server process's engines."""


async def close_domain_stores() -> None:
    """Dispose the running loop's engines; the routes' lifespan calls it at server shutdown."""
    await domain_stores.close()


async def domain_database() -> Database:
    """The server's domain store on this loop's pooled engine.

    Raises:
        StoreDisabledError: the server has no domain store.
    """
    url = server_database_url()
    if url is None:
        raise StoreDisabledError(
            "this server keeps no domain store (DEEP_RESEARCH_DATABASE_URL=memory)"
        )
    return await domain_stores.database(url)


async def in_domain_session(work: Callable[[AsyncSession], Awaitable[T]]) -> T:
    """Run ``work`` in one transaction on the server's domain store, to its end.

    On a pooled connection of this loop; a cancellation of the caller (its request's) waits
    for the transaction to commit or roll back, then is raised
    (:meth:`~deep_research.persistence.db.Database.run_transaction`).

    Raises:
        StoreDisabledError: the server has no domain store.
    """
    database = await domain_database()
    return await database.run_transaction(work)
