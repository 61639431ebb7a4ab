"""Writes to the domain store: keyword-only functions on an ``AsyncSession`` that never commit.

The caller owns the transaction (:meth:`Database.session_scope`). Writes are bulk upserts on
natural keys, so running one twice leaves the same rows; the ones a user asks for (delete,
restore, feedback) are scoped by user id like the reads in
:mod:`deep_research.persistence.queries`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, TypeVar

from sqlalchemy import delete, func, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from deep_research.errors import ChatClosedError, LimitExceededError, NotFoundError
from deep_research.persistence.closed import check_open, close_threads, reopen_thread
from deep_research.persistence.queries import get_chat
from deep_research.persistence.tables import (
    Base,
    Chat,
    Claim,
    EvidenceSpan,
    Message,
    MessageFeedback,
    ResearchSession,
    Source,
    UserPreferences,
    utcnow,
)

M = TypeVar("M", bound=Base)


def _insert(session: AsyncSession, model: type[Base]) -> Any:
    dialect = session.get_bind().dialect.name
    module = postgresql if dialect == "postgresql" else sqlite
    return module.insert(model)


async def upsert_rows(
    session: AsyncSession,
    *,
    model: type[Base],
    rows: Sequence[Mapping[str, Any]],
    keys: Sequence[str],
) -> None:
    """Insert ``rows`` in one statement; a row whose ``keys`` exist updates the given columns.

    Rows with the same key collapse to the last one (one statement may not touch a row twice).
    """
    if not rows:
        return
    unique = list({tuple(row[k] for k in keys): dict(row) for row in rows}.values())
    columns = {name for row in unique for name in row}
    unique = [{name: row.get(name) for name in sorted(columns)} for row in unique]
    statement = _insert(session, model)
    changes = {c: statement.excluded[c] for c in columns if c not in keys}
    if "updated_at" in model.__table__.c:
        changes["updated_at"] = utcnow()
    await session.execute(
        statement.on_conflict_do_update(index_elements=list(keys), set_=changes), unique
    )


async def upsert_chat(
    session: AsyncSession, *, user_id: str, thread_id: str, title: str, max_chats: int
) -> int:
    """Return the id of the chat on ``thread_id``, creating it for ``user_id`` if new.

    Raises:
        NotFoundError: the thread belongs to another user.
        ChatClosedError: the chat is deleted or was purged (a run still in flight writes
            nothing more: :mod:`~deep_research.persistence.closed`).
        LimitExceededError: the user already has ``max_chats`` chats.
    """
    await check_open(session, thread_id=thread_id)  # before any write: nothing to roll back
    existing = (
        await session.execute(
            select(Chat.id, Chat.user_id, Chat.deleted_at).where(Chat.thread_id == thread_id)
        )
    ).one_or_none()
    if existing is not None and existing.deleted_at is not None and existing.user_id == user_id:
        raise ChatClosedError(f"chat {thread_id} is deleted: nothing more is recorded into it")
    if existing is None:
        live = await session.scalar(
            select(func.count())
            .select_from(Chat)
            .where(Chat.user_id == user_id, Chat.deleted_at.is_(None))
        )
        if (live or 0) >= max_chats:
            raise LimitExceededError(
                f"user {user_id!r} already has {live} chats, the limit"
                " (DEEP_RESEARCH_MAX_CHATS_PER_USER); delete some or raise the limit"
            )
    statement = _insert(session, Chat).values(user_id=user_id, thread_id=thread_id, title=title)
    statement = statement.on_conflict_do_update(
        index_elements=["thread_id"], set_={"updated_at": utcnow()}
    ).returning(Chat.id, Chat.user_id)
    chat_id, owner = (await session.execute(statement)).one()
    if owner != user_id:
        raise NotFoundError(f"no chat with thread id {thread_id!r} for user {user_id!r}")
    # again, now that the write holds the lock: a purge since the first look (on SQLite those
    # lookups take no lock) has deleted the chat, and this insert created it again, maybe
    # under the same id (SQLite reuses the highest rowid once it is deleted)
    await check_open(session, thread_id=thread_id)
    if title:
        await session.execute(
            update(Chat).where(Chat.id == chat_id, Chat.title == "").values(title=title)
        )
    return int(chat_id)


async def upsert_session(
    session: AsyncSession, *, chat_id: int, question_nr: int, values: Mapping[str, Any]
) -> int:
    """Return the id of the chat's session for question ``question_nr``, updating ``values``."""
    row = {"chat_id": chat_id, "question_nr": question_nr, **values}
    statement = _insert(session, ResearchSession).values(**row)
    changes = {k: statement.excluded[k] for k in values} | {"updated_at": utcnow()}
    statement = statement.on_conflict_do_update(
        index_elements=["chat_id", "question_nr"], set_=changes
    ).returning(ResearchSession.id)
    return int((await session.execute(statement)).scalar_one())


async def upsert_messages(
    session: AsyncSession,
    *,
    chat_id: int,
    rows: Sequence[Mapping[str, Any]],
    max_messages: int,
) -> None:
    """Write messages by their position in the chat.

    Raises:
        LimitExceededError: the new messages would take the chat past ``max_messages``.
    """
    if not rows:
        return
    positions = {int(r["position"]) for r in rows}
    known = set(
        (
            await session.scalars(
                select(Message.position).where(
                    Message.chat_id == chat_id, Message.position.in_(positions)
                )
            )
        ).all()
    )
    if new := positions - known:
        count = await session.scalar(
            select(func.count()).select_from(Message).where(Message.chat_id == chat_id)
        )
        if (count or 0) + len(new) > max_messages:
            raise LimitExceededError(
                f"this chat already holds {count} messages, the limit is {max_messages} "
                "(DEEP_RESEARCH_MAX_MESSAGES_PER_CHAT); start a new chat"
            )
    await upsert_rows(
        session,
        model=Message,
        rows=[{"chat_id": chat_id, **r} for r in rows],
        keys=["chat_id", "position"],
    )


async def get_message_id(session: AsyncSession, *, chat_id: int, position: int) -> int | None:
    """The id of the chat's message at ``position``, if there is one."""
    return await session.scalar(
        select(Message.id).where(Message.chat_id == chat_id, Message.position == position)
    )


async def get_run_ids(
    session: AsyncSession, *, user_id: str, thread_id: str, question_nr: int, position: int
) -> tuple[int, int | None] | None:
    """The ids of a question's research session and of its message at ``position``."""
    row = (
        await session.execute(
            select(ResearchSession.id, Message.id)
            .join(Chat, Chat.id == ResearchSession.chat_id)
            .outerjoin(Message, (Message.chat_id == Chat.id) & (Message.position == position))
            .where(
                Chat.user_id == user_id,
                Chat.thread_id == thread_id,
                ResearchSession.question_nr == question_nr,
            )
        )
    ).first()
    return None if row is None else (int(row[0]), row[1])


async def mark_cited(session: AsyncSession, *, session_id: int, urls: Iterable[str]) -> None:
    """Flag the session's sources whose URL the report cites (and clear the others)."""
    cited = list(urls)
    await session.execute(
        update(Source)
        .where(Source.session_id == session_id)
        .values(is_cited=Source.url.in_(cited) if cited else False)
    )


async def merge_source_rows(
    session: AsyncSession, *, session_id: int, aliases: Mapping[str, tuple[str, str]]
) -> None:
    """Fold the rows of a merged source's other URLs into its row.

    ``aliases``: an other URL -> (its ``url_hash``, the URL the source is known by). Their
    source rows are deleted, and the evidence quoted under them moves to the kept URL.
    """
    if not aliases:
        return
    await session.execute(
        delete(Source).where(
            Source.session_id == session_id,
            Source.url_hash.in_([url_hash for url_hash, _ in aliases.values()]),
        )
    )
    for alias, (_, kept) in aliases.items():
        await session.execute(
            update(EvidenceSpan)
            .where(EvidenceSpan.session_id == session_id, EvidenceSpan.url == alias)
            .values(url=kept)
        )


async def keep_only_claims(
    session: AsyncSession, *, session_id: int, claim_ids: Iterable[str]
) -> None:
    """Delete the session's claims (and their citations) that the final report dropped."""
    await session.execute(
        delete(Claim).where(Claim.session_id == session_id, Claim.claim_id.not_in(list(claim_ids)))
    )


async def soft_delete_chat(session: AsyncSession, *, user_id: str, thread_id: str) -> None:
    """Hide the chat and close its thread to writes; it can be restored until it is purged.

    Raises:
        NotFoundError: the user has no such chat.
    """
    chat = await get_chat(session, user_id=user_id, thread_id=thread_id)
    chat.deleted_at = utcnow()
    await close_threads(session, user_id=user_id, thread_ids=[thread_id], purged=False)


async def rename_chat(session: AsyncSession, *, user_id: str, thread_id: str, title: str) -> Chat:
    """Set the title of the user's chat; returns it.

    Raises:
        NotFoundError: the user has no such chat.
    """
    chat = await get_chat(session, user_id=user_id, thread_id=thread_id)
    chat.title = title
    return chat


async def restore_chat(
    session: AsyncSession, *, user_id: str, thread_id: str, window: timedelta
) -> None:
    """Bring back a chat deleted less than ``window`` ago, its thread open to writes again.

    Raises:
        NotFoundError: the user has no such chat, or it was deleted too long ago.
    """
    chat = await get_chat(session, user_id=user_id, thread_id=thread_id, include_deleted=True)
    if chat.deleted_at is not None and _aware(chat.deleted_at) < utcnow() - window:
        raise NotFoundError(f"chat {thread_id!r} was deleted too long ago to be restored")
    chat.deleted_at = None
    await reopen_thread(session, thread_id=thread_id)


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=utcnow().tzinfo)


async def get_preferences(session: AsyncSession, *, user_id: str) -> dict[str, Any]:
    """The user's preferences (empty when none were saved)."""
    query = select(UserPreferences.preferences).where(UserPreferences.user_id == user_id)
    return dict(await session.scalar(query) or {})


async def upsert_preferences(
    session: AsyncSession, *, user_id: str, preferences: Mapping[str, Any]
) -> None:
    """Save the user's preferences, replacing the previous ones."""
    await upsert_rows(
        session,
        model=UserPreferences,
        rows=[{"user_id": user_id, "preferences": dict(preferences)}],
        keys=["user_id"],
    )


async def upsert_feedback(
    session: AsyncSession,
    *,
    user_id: str,
    message_id: int,
    rating: int,
    text: str | None = None,
    trace_id: str | None = None,
) -> None:
    """Record the user's rating (1 or -1) of a message in one of their chats.

    Raises:
        NotFoundError: the message is not in one of the user's chats.
    """
    owned = await session.scalar(
        select(Message.id)
        .join(Chat)
        .where(Message.id == message_id, Chat.user_id == user_id, Chat.deleted_at.is_(None))
    )
    if owned is None:
        raise NotFoundError(f"no message {message_id} for user {user_id!r}")
    row = {
        "message_id": message_id,
        "user_id": user_id,
        "rating": rating,
        "text": text,
        "trace_id": trace_id,
    }
    await upsert_rows(session, model=MessageFeedback, rows=[row], keys=["message_id", "user_id"])
