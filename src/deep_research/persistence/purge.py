"""Purging for good: a purged chat leaves nothing behind in any of the three stores.

A chat lives in three places: the domain store (its rows), LangGraph's checkpointer (every
checkpoint and pending write of its thread, subgraphs' namespaces included) and the content
store (the page text its sessions read, kept by content hash and possibly shared with other
chats, and the stages of a researcher that stopped inside its step, kept for its resume).
:func:`purge_chats` removes the first two completely and, from the third, the stages and the
documents that no remaining chat's sources refer to.

Each stage can be repeated, so a purge interrupted anywhere is finished by running it again:
the chats to purge are read first and their threads closed for good
(:mod:`~deep_research.persistence.closed`: from then on no recorder, checkpointer or content
store writes under them, so a run still in flight cannot write them back); their checkpoints
go next; their rows last, in one
transaction (until then the chats are still there to be found again); the documents they
referred to that nothing refers to any more are removed after that commit.

Retention is purging on a clock: :func:`expire_checkpoints` deletes the checkpoints of idle
chats, after the time :func:`checkpoint_retention` gives the server.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.store.base import BaseStore
from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from deep_research.errors import ConfigurationError
from deep_research.persistence.closed import close_threads
from deep_research.persistence.content import kept_documents
from deep_research.persistence.db import Database
from deep_research.persistence.namespaces import DOCUMENTS_NAMESPACE
from deep_research.persistence.scratch import drop_stages, thread_namespace
from deep_research.persistence.tables import (
    ActiveRun,
    Chat,
    MessageFeedback,
    ResearchSession,
    Source,
    UserPreferences,
    utcnow,
)
from deep_research.settings import get_settings

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Purged:
    """What a purge removed."""

    threads: tuple[str, ...]
    """The purged chats' thread ids."""
    documents: int
    """Documents removed from the content store (those no other chat refers to)."""
    items: int = 0
    """Items removed from the user's own store namespaces (:func:`purge_user_data`)."""


async def _chats(
    session: AsyncSession,
    *,
    user_id: str,
    deleted_before: datetime | None,
    thread_id: str | None = None,
) -> tuple[list[int], list[str], set[str]]:
    """The user's chats to purge: row ids, thread ids, and the documents they refer to."""
    query = select(Chat.id, Chat.thread_id).where(Chat.user_id == user_id)
    if deleted_before is not None:
        query = query.where(Chat.deleted_at.is_not(None), Chat.deleted_at < deleted_before)
    if thread_id is not None:
        query = query.where(Chat.thread_id == thread_id)
    chats = (await session.execute(query)).all()
    if not chats:
        return [], [], set()
    ids = [row.id for row in chats]
    documents = await session.scalars(
        select(Source.document_id)
        .join(ResearchSession, Source.session_id == ResearchSession.id)
        .where(ResearchSession.chat_id.in_(ids), Source.document_id.is_not(None))
        .distinct()
    )
    return ids, [row.thread_id for row in chats], {d for d in documents if d}


async def _unreferenced(session: AsyncSession, document_ids: set[str]) -> set[str]:
    """The documents of ``document_ids`` that no source row of any chat refers to."""
    if not document_ids:
        return set()
    still = await session.scalars(
        select(Source.document_id).where(Source.document_id.in_(sorted(document_ids))).distinct()
    )
    return document_ids - set(still)


async def purge_chats(
    database: Database,
    checkpointer: BaseCheckpointSaver[str],
    store: BaseStore,
    *,
    user_id: str,
    deleted_before: datetime | None,
    thread_id: str | None = None,
) -> Purged:
    """Purge a user's chats from the domain store, the checkpointer and the content store.

    Args:
        database: The domain store.
        checkpointer: Where the chats' threads are checkpointed.
        store: The content store.
        user_id: Whose chats.
        deleted_before: Purge the chats soft-deleted before this moment; ``None`` purges all
            the user's chats, deleted or not (``purge --user``).
        thread_id: Purge only this chat (if it is the user's and matches ``deleted_before``).
    """

    async def close(session: AsyncSession) -> tuple[list[int], list[str], set[str]]:
        found = await _chats(
            session, user_id=user_id, deleted_before=deleted_before, thread_id=thread_id
        )
        await close_threads(session, user_id=user_id, thread_ids=found[1], purged=True)
        return found

    ids, threads, documents = await database.run_transaction(close)
    if not ids:
        return Purged(threads=(), documents=0)
    for thread in threads:
        await checkpointer.adelete_thread(thread)
        documents |= await kept_documents(store, thread)  # kept before their sources' rows
        await drop_stages(store, thread_namespace(thread))  # of a researcher never resumed

    async def delete_rows(session: AsyncSession) -> None:
        await session.execute(delete(Chat).where(Chat.id.in_(ids)))
        # the run cap's leases of their runs (stopped by now) go with them, not at expiry
        await session.execute(delete(ActiveRun).where(ActiveRun.thread_id.in_(threads)))

    await database.run_transaction(delete_rows)
    orphans = await database.run_transaction(lambda session: _unreferenced(session, documents))
    for document in sorted(orphans):
        await store.adelete(DOCUMENTS_NAMESPACE, document)
    return Purged(threads=tuple(threads), documents=len(orphans))


async def purge_user_data(
    database: Database,
    checkpointer: BaseCheckpointSaver[str],
    store: BaseStore,
    *,
    user_id: str,
) -> Purged:
    """Purge everything a user left behind.

    That is every chat (as :func:`purge_chats` does), their preferences and feedback, and the
    items of their own store namespaces (those whose first element is their user id).
    """
    purged = await purge_chats(database, checkpointer, store, user_id=user_id, deleted_before=None)

    async def delete_rows(session: AsyncSession) -> None:
        await session.execute(delete(MessageFeedback).where(MessageFeedback.user_id == user_id))
        await session.execute(delete(UserPreferences).where(UserPreferences.user_id == user_id))

    await database.run_transaction(delete_rows)
    items = 0
    for namespace in await store.alist_namespaces(prefix=(user_id,), limit=10_000):
        while found := await store.asearch(namespace, limit=100):
            for item in found:
                await store.adelete(item.namespace, item.key)
            items += len(found)
    return replace(purged, items=items)


async def expire_checkpoints(
    database: Database, checkpointer: BaseCheckpointSaver[str], *, ttl_minutes: float
) -> tuple[str, ...]:
    """Delete the checkpoints of every chat idle for longer than ``ttl_minutes``.

    A chat's last activity is its row's ``updated_at`` (every recorded step touches it). Its
    rows stay, so it can still be read, but its thread cannot be resumed any more. Deleting a
    thread twice is harmless, so a sweep can be repeated.

    Returns:
        The thread ids whose checkpoints were deleted.
    """
    cutoff = utcnow() - timedelta(minutes=ttl_minutes)
    async with database.session_scope() as session:
        threads = tuple(
            (await session.scalars(select(Chat.thread_id).where(Chat.updated_at < cutoff))).all()
        )
    for thread in threads:
        await checkpointer.adelete_thread(thread)
    return threads


@dataclass(frozen=True)
class CheckpointRetention:
    """How long the server keeps the checkpoints of idle chats, and how often it looks."""

    ttl_minutes: float
    """Minutes a chat's checkpoints are kept after its last activity."""

    sweep_minutes: float
    """Minutes between two sweeps while the server runs."""


def checkpoint_retention() -> CheckpointRetention | None:
    """The server's checkpoint retention, if one is set.

    ``DEEP_RESEARCH_CHECKPOINT_TTL_MINUTES`` wins (swept every
    ``DEEP_RESEARCH_CHECKPOINT_SWEEP_MINUTES``); else ``checkpointer.ttl`` of ``langgraph.json``
    (which the server hands to its process as ``LANGGRAPH_CHECKPOINTER``): its ``default_ttl``,
    swept every ``sweep_interval_minutes`` (else ``DEEP_RESEARCH_CHECKPOINT_SWEEP_MINUTES``).
    Only its ``delete`` strategy (the default) is applied: ``keep_latest`` is logged and left
    to LangGraph.

    Raises:
        ConfigurationError: ``checkpointer.ttl`` has a ``default_ttl`` or
            ``sweep_interval_minutes`` that is not a positive number.
    """
    settings = get_settings()
    if settings.checkpoint_ttl_minutes is not None:
        return CheckpointRetention(
            settings.checkpoint_ttl_minutes, settings.checkpoint_sweep_minutes
        )
    config = settings.langgraph_checkpointer or {}
    ttl = config.get("ttl")
    if not isinstance(ttl, dict) or ttl.get("default_ttl") is None:
        return None
    if ttl.get("strategy", "delete") != "delete":
        logger.warning(
            "checkpointer.ttl strategy %r is not applied by deep-research (only 'delete' is)",
            ttl["strategy"],
        )
        return None
    sweep_minutes = settings.checkpoint_sweep_minutes
    if ttl.get("sweep_interval_minutes") is not None:
        sweep_minutes = _minutes(ttl, "sweep_interval_minutes")
    return CheckpointRetention(_minutes(ttl, "default_ttl"), sweep_minutes)


def _minutes(ttl: dict[str, Any], key: str) -> float:
    """``ttl[key]`` as a positive number of minutes."""
    value = ttl[key]
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise ConfigurationError(
            f"checkpointer.ttl.{key} in langgraph.json must be a positive number of minutes,"
            f" not {value!r}"
        )
    return float(value)
