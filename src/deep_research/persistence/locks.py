"""A lock across processes for the first use of a SQLite file.

Two first runs on a new SQLite file would otherwise both create tables and add columns, and
one fails with ``duplicate column name``. Whoever creates or migrates tables of a SQLite file
(the checkpointer, the content store, the domain store's migrations) holds the lock of that
file for as long as it takes: an exclusive ``flock`` on ``FILE.setup-lock`` beside it.
"""

from __future__ import annotations

import asyncio
import fcntl
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import IO


def _lock_file(database: Path) -> IO[str]:
    """Open and exclusively lock the lock file beside ``database`` (blocking)."""
    database.parent.mkdir(parents=True, exist_ok=True)
    handle = open(database.with_name(database.name + ".setup-lock"), "a")
    fcntl.flock(handle, fcntl.LOCK_EX)
    return handle


@contextmanager
def sqlite_setup_lock(database: Path) -> Iterator[None]:
    """Hold, across processes, the right to create or migrate the tables of ``database``.

    Two first runs on a new SQLite file would otherwise both create tables and add columns
    (``duplicate column name``). Blocking: from async code, use :func:`async_sqlite_setup_lock`.
    """
    handle = _lock_file(database)
    try:
        yield
    finally:
        fcntl.flock(handle, fcntl.LOCK_UN)
        handle.close()


@asynccontextmanager
async def async_sqlite_setup_lock(database: Path) -> AsyncIterator[None]:
    """:func:`sqlite_setup_lock`, waited for in a worker thread."""
    handle = await asyncio.to_thread(_lock_file, database)
    try:
        yield
    finally:
        fcntl.flock(handle, fcntl.LOCK_UN)
        handle.close()
