"""Purging a user's chats from Aegra's own database, from outside Aegra (``deep-research purge``).

Under Aegra the served graph writes its checkpoints and page text to Aegra's checkpointer and
store, and Aegra keeps its own records of threads, runs and crons, all in Aegra's database (the
instances' ``DATABASE_URL``; ``AEGRA_DATABASE_URL`` for ``deploy/cluster.sh`` and for the
command line). The server's purge reaches them in process, through Aegra's own objects
(:mod:`deep_research.server.runtimes.aegra`); :func:`purge_from_aegra` reaches the same data with a
connection of its own, so the command line's purge purges there as well as in our stores.

What it purges, for each chat: every checkpoint and pending write of its thread (LangGraph's
``checkpoints``, ``checkpoint_blobs``, ``checkpoint_writes``), the stages its researchers kept in
the store, Aegra's ``thread`` row and with it (by cascade) the thread's ``runs``, ``crons`` and
``thread_ttl`` rows, and the page text (the store's ``documents``) that the chats referred to
and no other chat does. With ``all_owned`` (``purge --user``) also every other thread Aegra
holds for the user, the user's crons and the items of the user's own store namespaces.

It purges in one transaction, holding Aegra's rows of the chats' threads (``FOR UPDATE``) from
its look at their runs until it commits: while a run of one of them is pending or running it
refuses, purging nothing; a run asked for meanwhile waits for it, then finds its chat gone. So
no worker claims a run that writes a purged chat back.

Only the user's threads are touched: a thread whose row in Aegra is another user's (Aegra's
``thread.user_id``) is left whole, checkpoints included, whatever the domain store's chats
say (a chat recorded by the command line may name any thread id).

It is called before :func:`~deep_research.persistence.purge.purge_chats` purges the chats'
rows (which say which page text the chats referred to), and can be run again: a purge
interrupted anywhere is finished by running it again.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from langgraph.store.postgres.aio import AsyncPostgresStore
from psycopg import AsyncConnection
from psycopg.rows import DictRow, dict_row
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from deep_research.errors import StoreError
from deep_research.persistence.db import Database
from deep_research.persistence.namespaces import DOCUMENTS_NAMESPACE
from deep_research.persistence.scratch import drop_stages, thread_namespace
from deep_research.persistence.tables import Chat, ResearchSession, Source

AEGRA_DATABASE_URL = "AEGRA_DATABASE_URL"
"""The variable naming Aegra's database for the command line (and ``deploy/cluster.sh``)."""

ACTIVE = ("pending", "running")
"""Run statuses of a run an instance may still be executing."""


class AegraRunsActiveError(StoreError):
    """A chat to purge has a run pending or running on an Aegra instance: nothing was purged."""


@dataclass(frozen=True)
class AegraPurged:
    """What :func:`purge_from_aegra` removed from Aegra's database."""

    threads: tuple[str, ...]
    """The threads whose checkpoints, stages and records were purged."""
    records: int
    """Aegra's thread rows deleted (their runs, crons and TTLs with them)."""
    documents: int
    """Documents removed from Aegra's store (those no other chat refers to)."""
    items: int = 0
    """Items removed from the user's own store namespaces (``all_owned``)."""


def aegra_database_url(url: str | None = None) -> str | None:
    """``url``, else ``AEGRA_DATABASE_URL``: Aegra's database, or ``None`` when not served by Aegra.

    A SQLAlchemy URL (``postgresql+psycopg://``) is taken too.
    """
    found = url or os.environ.get(AEGRA_DATABASE_URL) or None
    return found.replace("+psycopg", "", 1) if found else None


async def purge_from_aegra(
    url: str,
    database: Database,
    *,
    user_id: str,
    threads: Sequence[str],
    all_owned: bool = False,
) -> AegraPurged:
    """Purge ``user_id``'s chats ``threads`` (with ``all_owned``, all they left) from Aegra.

    Args:
        url: Aegra's database (a libpq or ``postgresql+psycopg`` URL).
        database: The domain store, which says which page text the chats referred to.
        user_id: Whose chats.
        threads: The chats' thread ids.
        all_owned: Also every other thread of the user in Aegra, their crons and the items of
            their own store namespaces (as
            :func:`~deep_research.persistence.purge.purge_user_data`).

    Raises:
        AegraRunsActiveError: a run of one of the threads is pending or running; an instance
            would write its checkpoints back. Cancel it (or purge over HTTP, which does) first.
    """
    async with (
        await AsyncConnection.connect(
            url.replace("+psycopg", "", 1),
            autocommit=True,
            prepare_threshold=0,
            row_factory=dict_row,
        ) as conn,
        conn.transaction(),
    ):
        owned = (
            await _column(conn, "SELECT thread_id FROM thread WHERE user_id = %s", user_id)
            if all_owned
            else []
        )
        doomed = list(dict.fromkeys([*threads, *owned]))
        first = await _lock_idle(conn, doomed, user_id)
        doomed = [thread for thread in doomed if thread not in first.others]
        documents = await _documents_only_of(database, user_id=user_id, threads=doomed)
        checkpointer = AsyncPostgresSaver(conn)
        async with AsyncPostgresStore(conn) as store:
            for thread in doomed:
                await checkpointer.adelete_thread(thread)
                await drop_stages(store, thread_namespace(thread))
            for document in sorted(documents):
                await store.adelete(DOCUMENTS_NAMESPACE, document)
            items = 0
            if all_owned:
                for namespace in await store.alist_namespaces(prefix=(user_id,), limit=10_000):
                    while found := await store.asearch(namespace, limit=100):
                        for item in found:
                            await store.adelete(item.namespace, item.key)
                        items += len(found)
            # A row Aegra created meanwhile (a run asked for on a chat it then had no row for)
            # was not locked above: lock it and look again (refusing now rolls all of the purge
            # back), and purge what a run on it wrote. Rows created after this look stay.
            locked = await _lock_idle(conn, doomed, user_id)
            for thread in sorted(set(locked.own) - set(first.own) - set(locked.others)):
                await checkpointer.adelete_thread(thread)
                await drop_stages(store, thread_namespace(thread))
        records = await conn.execute(
            "DELETE FROM thread WHERE thread_id = ANY(%s) AND user_id = %s", (locked.own, user_id)
        )
        if all_owned:
            await conn.execute("DELETE FROM crons WHERE user_id = %s", (user_id,))
    return AegraPurged(
        threads=tuple(doomed), records=records.rowcount, documents=len(documents), items=items
    )


@dataclass(frozen=True)
class _Locked:
    """Aegra's rows of the threads to erase, locked: the user's, and other users'."""

    own: list[str]
    others: list[str]


async def _lock_idle(conn: AsyncConnection[DictRow], threads: list[str], user_id: str) -> _Locked:
    """Lock Aegra's rows of ``threads`` (the ids of those it has), unless one has a run in flight.

    The lock (``FOR UPDATE``, held until the purge commits or rolls back) makes a run asked for
    on one of the threads wait: Aegra records a run, before any worker can claim it, in a
    transaction that updates the thread's row and inserts the run's (whose key refers to the
    thread's). So a run is recorded before this looks, and refused here, or after the purge
    has committed, when its thread is gone (Aegra's request then fails, or starts a new chat).
    Rows of another user than ``user_id`` are told apart: those threads are not the user's to
    erase (nor are their runs the user's to wait for).

    Raises:
        AegraRunsActiveError: a run of one of the user's threads is pending or running.
    """
    rows = await (
        await conn.execute(
            "SELECT thread_id, user_id FROM thread WHERE thread_id = ANY(%s)"
            " ORDER BY thread_id FOR UPDATE",
            (threads,),
        )
    ).fetchall()
    others = [str(row["thread_id"]) for row in rows if str(row["user_id"]) != user_id]
    active = await _column(
        conn,
        "SELECT run_id FROM runs WHERE thread_id = ANY(%s) AND status = ANY(%s)",
        [thread for thread in threads if thread not in others],
        list(ACTIVE),
    )
    if active:
        raise AegraRunsActiveError(
            f"{len(active)} run(s) of these chats are still pending or running on Aegra;"
            " cancel them, or purge over HTTP (which cancels them), then purge again"
        )
    own = [str(row["thread_id"]) for row in rows if str(row["user_id"]) == user_id]
    return _Locked(own=own, others=others)


async def _column(conn: AsyncConnection[DictRow], query: str, *params: object) -> list[str]:
    """The first column of ``query``'s rows, as strings."""
    rows = await (await conn.execute(query, params)).fetchall()
    return [str(next(iter(row.values()))) for row in rows]


async def _documents_only_of(database: Database, *, user_id: str, threads: list[str]) -> set[str]:
    """The documents the user's chats ``threads`` refer to and no other chat does."""
    if not threads:
        return set()
    referred = (
        select(Source.document_id, Chat.user_id, Chat.thread_id)
        .join(ResearchSession, Source.session_id == ResearchSession.id)
        .join(Chat, ResearchSession.chat_id == Chat.id)
        .where(Source.document_id.is_not(None))
        .subquery()
    )

    async def read(session: AsyncSession) -> set[str]:
        theirs = await session.scalars(
            select(referred.c.document_id).where(
                referred.c.user_id == user_id, referred.c.thread_id.in_(threads)
            )
        )
        documents = {d for d in theirs if d}
        if not documents:
            return set()
        elsewhere = await session.scalars(
            select(referred.c.document_id).where(
                referred.c.document_id.in_(sorted(documents)),
                (referred.c.user_id != user_id) | referred.c.thread_id.not_in(threads),
            )
        )
        return documents - set(elsewhere)

    return await database.run_transaction(read)
