"""Purging for good over HTTP: one deleted chat, or everything a user left on the server.

The routes (:mod:`deep_research.server.routes`) call these with the authenticated user. They
purge what ``deep-research purge`` purges (:mod:`deep_research.persistence.purge`): the rows,
every checkpoint of the chats' threads (all namespaces) and the page text no other chat refers
to, in the checkpointer and store the served graph writes to, and the runtime's own record of
each thread (its metadata, its runs, its copy of the last values). Where those live depends on
the runtime (langgraph-api: the project's factories on ``DEEP_RESEARCH_DATABASE_URL``; Aegra:
its own database), so they are reached through its adapter
(:mod:`deep_research.server.runtimes.base`).

Purging is final: before anything is purged, the chats' runs still pending or running are
cancelled and waited for (:func:`stop_runs`), so no run in flight writes its checkpoints,
rows or report back after the purge. Deleting a chat stops its runs the same way, after it is
marked deleted (so no new run is admitted on it); and the recorder refuses every write into a
deleted chat (:func:`~deep_research.persistence.repository.upsert_chat`). A user's purge looks
again once it has purged, and goes round again while the user has anything left: a run
admitted as the purge began, on a thread it had not listed, may create a chat meanwhile.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence

import httpx
from sqlalchemy.ext.asyncio import AsyncSession

from deep_research.errors import StoreError
from deep_research.persistence import queries
from deep_research.persistence.db import SQLITE_BUSY_TIMEOUT_MS
from deep_research.persistence.purge import Purged, purge_chats, purge_user_data
from deep_research.server.database import domain_database, in_domain_session
from deep_research.server.runtimes.select import current_runtime

logger = logging.getLogger(__name__)


class ChatNotDeletedError(StoreError):
    """A chat must be deleted (restorable) before it can be purged for good."""


STOP_TIMEOUT = 2 * SQLITE_BUSY_TIMEOUT_MS / 1000
"""Seconds a deletion or a purge waits for the chat's cancelled runs to end (then 409). On
SQLite a cancelled run may first wait out one busy timeout: a statement already waiting for
the file's write lock in aiosqlite's thread cannot be interrupted."""


CANCEL_AGAIN = 0.25
"""Seconds between two cancellations of a busy thread's runs while waiting for it."""


class RunsStillActiveError(StoreError):
    """A chat's cancelled run did not end in time: nothing was purged (409)."""


async def stop_runs(threads: Sequence[str], *, timeout: float = STOP_TIMEOUT) -> None:
    """Cancel the runs of ``threads`` that are pending or running, and wait until they end.

    A cancelled run is marked ``interrupted`` at once, but its task ends a moment later (at
    its next ``await``): the thread stays ``busy`` until then, and that is what is waited for.
    Runs queued on the thread (``multitask_strategy="enqueue"``) may start one after another
    as each ends, and not all of them are cancelled by one call (langgraph-api lets a queued
    run start after its cancellation was asked): the runs are cancelled again every
    :data:`CANCEL_AGAIN` seconds while the thread is busy, so the backlog is cancelled as it
    starts.
    The runtime's adapter cancels and watches the runs (langgraph-api: its API in process, past
    the auth layer; Aegra: its runs table); the caller has checked that the threads are the
    user's.

    Raises:
        RunsStillActiveError: a thread was still busy after ``timeout`` seconds.
    """
    runtime = current_runtime()
    try:
        for thread in dict.fromkeys(threads):
            await runtime.cancel_runs(thread)
            deadline = time.monotonic() + timeout
            while await runtime.busy(thread):
                if time.monotonic() > deadline:
                    raise RunsStillActiveError(
                        f"chat {thread} still has a run in progress; try again in a moment"
                    )
                await asyncio.sleep(CANCEL_AGAIN)
                await runtime.cancel_runs(thread)  # a queued run that started meanwhile
    except httpx.HTTPError as exc:  # not running inside the LangGraph server
        logger.warning("the chats' runs were not stopped: %s", exc)


async def purge_chat(*, user_id: str, thread_id: str) -> Purged:
    """Purge one deleted chat of ``user_id`` for good.

    Raises:
        NotFoundError: the user has no such chat.
        ChatNotDeletedError: the chat is not deleted.
    """

    async def check_deleted(session: AsyncSession) -> None:
        chat = await queries.get_chat(
            session, user_id=user_id, thread_id=thread_id, include_deleted=True
        )
        if chat.deleted_at is None:
            raise ChatNotDeletedError(
                f"chat {thread_id} is not deleted; delete it first (DELETE /chats/{thread_id})"
            )

    await in_domain_session(check_deleted)
    await stop_runs([thread_id])
    runtime = current_runtime()
    await runtime.forget_threads(user_id, [thread_id])
    async with runtime.stores() as stores:
        return await purge_chats(
            await domain_database(),
            stores.checkpointer,
            stores.store,
            user_id=user_id,
            deleted_before=None,
            thread_id=thread_id,
        )


PURGE_ROUNDS = 5
"""How many times a user's purge goes round while new chats or threads keep appearing (then 409)."""


async def _chat_threads(user_id: str) -> list[str]:
    """The threads of the user's chats, deleted or not."""

    async def read(session: AsyncSession) -> list[str]:
        chats = await queries.list_chats(
            session, user_id=user_id, include_deleted=True, limit=1_000_000
        )
        return [chat.thread_id for chat in chats]

    return await in_domain_session(read)


async def purge_user(*, user_id: str) -> Purged:
    """Purge everything ``user_id`` left on the server, deleted chats or not.

    The chats' and the user's threads' runs are stopped first. Once purged, the chats and the
    runtime's threads are listed again, and purged again if a run created one meanwhile,
    until nothing is left.

    Raises:
        RunsStillActiveError: chats or threads still appeared after :data:`PURGE_ROUNDS`
            rounds (the user keeps starting runs); what was found is purged.
    """
    runtime = current_runtime()
    purged = Purged(threads=(), documents=0)
    threads, owned = await _chat_threads(user_id), await runtime.owned_threads(user_id)
    for _ in range(PURGE_ROUNDS):
        await stop_runs([*threads, *owned])
        await runtime.forget_threads(user_id, threads, all_owned=True)
        async with runtime.stores() as stores:
            more = await purge_user_data(
                await domain_database(), stores.checkpointer, stores.store, user_id=user_id
            )
        purged = Purged(
            threads=(*purged.threads, *more.threads),
            documents=purged.documents + more.documents,
            items=purged.items + more.items,
        )
        threads, owned = await _chat_threads(user_id), await runtime.owned_threads(user_id)
        if not threads and not owned:
            return purged
        logger.info("purge of user %s: chats or threads appeared meanwhile; again", user_id)
    raise RunsStillActiveError(
        "new chats kept appearing while your data was purged; stop your runs and try again"
    )
