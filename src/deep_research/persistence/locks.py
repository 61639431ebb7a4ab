"""Locks across processes: the first use of a SQLite file, and a chat's run.

Two first runs on a new SQLite file would otherwise both create tables and add columns, and
one fails with ``duplicate column name``. Whoever creates or migrates tables of a SQLite file
(the checkpointer, the content store, the domain store's migrations) holds the lock of that
file for as long as it takes: an exclusive ``flock`` on ``FILE.setup-lock`` beside it.

A command-line run holds its chat's run lock (:func:`chat_run_lock`, a ``flock`` on a file
under ``DATA_DIR/runs``) from its start to its end; ``delete`` and ``purge`` take the locks of
the chats they change, and refuse a chat whose lock another process holds: a run in flight
would otherwise write its checkpoints and rows back after the purge. The system releases a
killed process's locks.
"""

from __future__ import annotations

import asyncio
import fcntl
import hashlib
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import IO

from deep_research.errors import ChatClosedError


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


@contextmanager
def chat_run_lock(data_dir: Path, thread_id: str) -> Iterator[None]:
    """Hold the run lock of chat ``thread_id`` (see the module docstring), without waiting.

    Raises:
        ChatClosedError: another process holds it (a run is in progress on the chat).
    """
    folder = data_dir / "runs"
    folder.mkdir(parents=True, exist_ok=True)
    name = hashlib.sha256(thread_id.encode()).hexdigest()[:32]
    handle = open(folder / f"{name}.lock", "a")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        raise ChatClosedError(
            f"chat {thread_id} has a run in progress in another process; stop it (Ctrl-C)"
            " or wait for it to end, then try again"
        ) from None
    try:
        yield
    finally:
        fcntl.flock(handle, fcntl.LOCK_UN)
        handle.close()
