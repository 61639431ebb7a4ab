"""Closed threads: a deleted or purged chat takes no more writes, from anything.

Deleting a chat closes its thread; restoring it opens it again; purging it closes it for good
(:class:`~deep_research.persistence.tables.ClosedThread`, kept after the chat is gone). Every
writer of a thread looks it up before it writes and refuses with
:class:`~deep_research.errors.ChatClosedError`:

- the recorder, in the transaction of its rows (:func:`check_open`);
- the checkpointer, in the transaction of each checkpoint and each task's writes
  (:func:`sqlite_closed`; on PostgreSQL,
  :func:`~deep_research.persistence.postgres.open_threads`);
- the content store, for the items a batch puts under a thread's namespace, in the batch's
  transaction: its researchers' stages, and the note of the pages a run keeps, which goes in
  the same batch as their text (:func:`~deep_research.persistence.content.put_documents`), so
  the text is refused too.

The checkpointer's and the content store's lookups and writes are one: a thread cannot be
closed between them. On SQLite the writer's transaction holds the file's write lock from its
lookup on. On PostgreSQL, where transactions run side by side, the writer takes the thread's
advisory lock shared (:data:`POSTGRES_WRITER_LOCK`: writers do not wait for one another) and
the closer takes it exclusive (:func:`close_threads`), each until its transaction ends: a
write already past its lookup is committed before the thread is closed (so the purge, which
deletes the checkpoints after closing, erases it), and a write that comes later sees the
thread closed.

So a run that outlives its chat's deletion or purge (one that escaped cancellation, a late
write, a process on another machine) cannot write the chat back. One lookup by primary key per
write (on PostgreSQL, after the advisory lock); a database without the table (a
checkpointer used without the domain store) has no closed thread.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from sqlalchemy import delete, select, text, update
from sqlalchemy.ext.asyncio import AsyncSession

from deep_research.errors import ChatClosedError
from deep_research.persistence.namespaces import RESEARCHERS_NAMESPACE
from deep_research.persistence.tables import ClosedThread

if TYPE_CHECKING:  # the drivers are imported by the savers and stores that use them
    import aiosqlite
    from langgraph.store.base import Op

SQLITE_QUERY = "SELECT purged FROM closed_threads WHERE thread_id = ?"
POSTGRES_QUERY = "SELECT purged FROM closed_threads WHERE thread_id = %s"
POSTGRES_WRITER_LOCK = (
    "SELECT pg_advisory_xact_lock_shared(%s), to_regclass('closed_threads') IS NOT NULL AS closable"
)
"""A writer's hold on a thread's lock (:func:`thread_lock_key`) until its transaction ends, and
whether the database has closed threads at all (a checkpointer without the domain store)."""


def thread_lock_key(thread_id: str) -> int:
    """The PostgreSQL advisory lock that serialises closing ``thread_id`` with its writes."""
    digest = hashlib.sha256(f"deep-research thread {thread_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def closed_error(thread_id: str, *, purged: bool) -> ChatClosedError:
    """The error a writer raises for a closed thread."""
    state = "was purged" if purged else "is deleted"
    return ChatClosedError(f"chat {thread_id} {state}: nothing more is written into it")


async def close_threads(
    session: AsyncSession, *, user_id: str, thread_ids: Sequence[str], purged: bool
) -> None:
    """Close ``thread_ids`` (for good with ``purged``); closing one twice is harmless.

    On PostgreSQL each thread's lock is taken exclusive first, in order, and held until the
    session's transaction ends: the writes past their lookup end first, and later ones wait
    for the commit and then see the thread closed.
    """
    threads = sorted(set(thread_ids))
    if threads and session.get_bind().dialect.name == "postgresql":
        for thread_id in threads:
            await session.execute(
                text("SELECT pg_advisory_xact_lock(:key)"), {"key": thread_lock_key(thread_id)}
            )
    for thread_id in threads:
        found = await session.get(ClosedThread, thread_id)
        if found is None:
            session.add(ClosedThread(thread_id=thread_id, user_id=user_id, purged=purged))
        elif purged and not found.purged:
            await session.execute(
                update(ClosedThread).where(ClosedThread.thread_id == thread_id).values(purged=True)
            )
    await session.flush()


async def reopen_thread(session: AsyncSession, *, thread_id: str) -> None:
    """Open a deleted chat's thread again (a purged one stays closed)."""
    await session.execute(
        delete(ClosedThread).where(ClosedThread.thread_id == thread_id, ~ClosedThread.purged)
    )


async def check_open(session: AsyncSession, *, thread_id: str) -> None:
    """Refuse a write into a closed thread.

    Raises:
        ChatClosedError: the thread's chat is deleted or was purged.
    """
    purged = await session.scalar(
        select(ClosedThread.purged).where(ClosedThread.thread_id == thread_id)
    )
    if purged is not None:
        raise closed_error(thread_id, purged=bool(purged))


async def is_closed(session: AsyncSession, *, thread_id: str) -> bool:
    """Whether ``thread_id`` is closed: its chat is deleted, or was purged."""
    found = await session.scalar(
        select(ClosedThread.thread_id).where(ClosedThread.thread_id == thread_id)
    )
    return found is not None


async def sqlite_closed(conn: aiosqlite.Connection, thread_id: str) -> bool | None:
    """On a SQLite connection: ``None`` if the thread is open, else whether it was purged."""
    try:
        async with conn.execute(SQLITE_QUERY, (thread_id,)) as cursor:
            row = await cursor.fetchone()
    except sqlite3.OperationalError as exc:
        if "no such table" in str(exc):
            return None  # no domain store in this file, so no closed thread
        raise
    return None if row is None else bool(row[0])


def written_threads(ops: Iterable[Op]) -> tuple[str, ...]:
    """The threads whose namespaces a store batch puts items into (not deletions)."""
    from langgraph.store.base import PutOp

    threads = {
        op.namespace[len(RESEARCHERS_NAMESPACE)]
        for op in ops
        if isinstance(op, PutOp)
        and op.value is not None
        and op.namespace[: len(RESEARCHERS_NAMESPACE)] == RESEARCHERS_NAMESPACE
        and len(op.namespace) > len(RESEARCHERS_NAMESPACE)
    }
    return tuple(sorted(threads))
