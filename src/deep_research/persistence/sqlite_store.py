"""LangGraph's SQLite content store, with transactions that take the write lock first.

``AsyncSqliteStore`` runs each batch of operations (LangGraph gathers the gets, searches and
puts that concurrent tasks issue in one turn of the event loop) in a deferred transaction:
it reads first and writes last. In WAL mode, when another connection to the file (the
checkpointer, the domain store) commits between the two, SQLite cannot upgrade the stale read
to a write and fails at once with "database is locked", without waiting; and the store then
commits what is left of the failed transaction. Parallel researchers reading and keeping
their stages (:mod:`deep_research.persistence.scratch`) met it under load.

:class:`ImmediateSqliteStore` begins every transaction ``IMMEDIATE`` (it waits for the write
lock, up to the busy timeout, before it reads), rolls a failed or cancelled one back (a run
cancelled while it waited for the lock would otherwise leave the file locked for every other
connection), and waits as long as the domain store does for a busy file. A batch that puts
items under a closed thread's namespace (a deleted or purged chat's researchers' stages,
:mod:`~deep_research.persistence.closed`) is refused inside its transaction, after the lock.
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager, suppress
from contextvars import ContextVar

import aiosqlite
from langgraph.store.base import Op, Result, TTLConfig
from langgraph.store.sqlite.aio import AsyncSqliteStore

from deep_research.persistence.closed import closed_error, sqlite_closed, written_threads
from deep_research.persistence.db import SQLITE_BUSY_TIMEOUT_MS

_written: ContextVar[tuple[str, ...]] = ContextVar("threads the batch writes under", default=())
"""The threads whose namespaces the batch in progress (in this task) puts items into."""


class ImmediateSqliteStore(AsyncSqliteStore):
    """An ``AsyncSqliteStore`` whose transactions hold the write lock from their start."""

    @classmethod
    @asynccontextmanager
    async def open(
        cls, path: str, *, ttl: TTLConfig | None = None
    ) -> AsyncIterator[ImmediateSqliteStore]:
        """The store on the SQLite file at ``path``."""
        async with aiosqlite.connect(path, isolation_level=None) as conn:
            await conn.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
            yield cls(conn, ttl=ttl)

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """Run a batch of operations, refused if it puts items under a closed thread."""
        ops = list(ops)
        token = _written.set(written_threads(ops))
        try:
            return await super().abatch(ops)
        finally:
            _written.reset(token)

    @asynccontextmanager
    async def _cursor(self, *, transaction: bool = True) -> AsyncIterator[aiosqlite.Cursor]:
        if not self.is_setup:
            await self.setup()
        async with self.lock:
            if not transaction:
                async with self.conn.cursor() as cur:
                    yield cur
                return
            committed = False
            try:
                # inside the try: cancelled while it waits for the lock, BEGIN may still run
                # (in aiosqlite's thread), and the ROLLBACK below must then end it
                await self.conn.execute("BEGIN IMMEDIATE")
                for thread_id in _written.get():
                    purged = await sqlite_closed(self.conn, thread_id)
                    if purged is not None:
                        raise closed_error(thread_id, purged=purged)
                async with self.conn.cursor() as cur:
                    yield cur
                await self.conn.execute("COMMIT")
                committed = True
            finally:
                if not committed:  # an error or a cancellation: keep nothing of the batch
                    with suppress(sqlite3.OperationalError):  # no transaction had begun
                        await self.conn.execute("ROLLBACK")
