"""Erasing for good: a purged chat leaves nothing behind in any of the three stores.

A chat lives in three places: the domain store (its rows), LangGraph's checkpointer (every
checkpoint and pending write of its thread, subgraphs' namespaces included) and the content
store (the page text its sessions read, kept by content hash and possibly shared with other
chats). :func:`erase_chats` removes the first two completely and, from the third, the
documents that no remaining chat's sources refer to.

Each stage can be repeated, so a purge interrupted anywhere is finished by running it again:
the chats to erase are read first; their checkpoints go next; their rows last, in one
transaction (until then the chats are still there to be found again); the documents they
referred to that nothing refers to any more are removed after that commit.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.store.base import BaseStore
from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from deep_research.persistence.db import Database
from deep_research.persistence.models import Chat, ResearchSession, Source
from deep_research.persistence.namespaces import DOCUMENTS_NAMESPACE


@dataclass(frozen=True)
class Erased:
    """What a purge removed."""

    threads: tuple[str, ...]
    """The purged chats' thread ids."""
    documents: int
    """Documents removed from the content store (those no other chat refers to)."""


async def _chats(
    session: AsyncSession, *, user_id: str, deleted_before: datetime | None
) -> tuple[list[int], list[str], set[str]]:
    """The user's chats to erase: row ids, thread ids, and the documents they refer to."""
    query = select(Chat.id, Chat.thread_id).where(Chat.user_id == user_id)
    if deleted_before is not None:
        query = query.where(Chat.deleted_at.is_not(None), Chat.deleted_at < deleted_before)
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


async def erase_chats(
    database: Database,
    checkpointer: BaseCheckpointSaver[str],
    store: BaseStore,
    *,
    user_id: str,
    deleted_before: datetime | None,
) -> Erased:
    """Erase a user's chats from the domain store, the checkpointer and the content store.

    Args:
        database: The domain store.
        checkpointer: Where the chats' threads are checkpointed.
        store: The content store.
        user_id: Whose chats.
        deleted_before: Erase the chats soft-deleted before this moment; ``None`` erases all
            the user's chats, deleted or not (``purge --user``).
    """
    async with database.session_scope() as session:
        ids, threads, documents = await _chats(
            session, user_id=user_id, deleted_before=deleted_before
        )
    if not ids:
        return Erased(threads=(), documents=0)
    for thread in threads:
        await checkpointer.adelete_thread(thread)
    async with database.session_scope() as session:
        await session.execute(delete(Chat).where(Chat.id.in_(ids)))
    async with database.session_scope() as session:
        orphans = await _unreferenced(session, documents)
    for document in sorted(orphans):
        await store.adelete(DOCUMENTS_NAMESPACE, document)
    return Erased(threads=tuple(threads), documents=len(orphans))
