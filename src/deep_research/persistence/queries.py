"""Reads of the domain store: keyword-only functions on an ``AsyncSession``, scoped by user.

Each takes a ``user_id`` and sees only that user's chats and what hangs off them: another
user's ids read as not found (:class:`~deep_research.errors.NotFoundError`), exactly like ids
that do not exist, so a caller cannot probe for them. Soft-deleted chats are hidden unless
asked for.
"""

from __future__ import annotations

from typing import TypeVar

from sqlalchemy import Select, select
from sqlalchemy.ext.asyncio import AsyncSession

from deep_research.errors import NotFoundError
from deep_research.persistence.tables import (
    Base,
    Chat,
    Message,
    MessageFeedback,
    ResearchIteration,
    ResearchSession,
    ResearchSubStep,
)

M = TypeVar("M", bound=Base)


def _owned_chats(user_id: str, *, include_deleted: bool = False) -> Select[Chat]:
    query = select(Chat).where(Chat.user_id == user_id)
    return query if include_deleted else query.where(Chat.deleted_at.is_(None))


async def list_chats(
    session: AsyncSession, *, user_id: str, include_deleted: bool = False, limit: int = 100
) -> list[Chat]:
    """The user's chats, most recently active first."""
    query = _owned_chats(user_id, include_deleted=include_deleted)
    query = query.order_by(Chat.updated_at.desc(), Chat.id.desc()).limit(limit)
    return list((await session.scalars(query)).all())


async def get_chat(
    session: AsyncSession, *, user_id: str, thread_id: str, include_deleted: bool = False
) -> Chat:
    """The user's chat on ``thread_id``.

    Raises:
        NotFoundError: there is none for this user (or it was deleted).
    """
    query = _owned_chats(user_id, include_deleted=include_deleted)
    chat = await session.scalar(query.where(Chat.thread_id == thread_id))
    if chat is None:
        raise NotFoundError(f"no chat {thread_id!r} for user {user_id!r}")
    return chat


async def is_deleted_chat(session: AsyncSession, *, user_id: str, thread_id: str) -> bool:
    """Whether the user's chat on ``thread_id`` exists and is deleted (closed until restored)."""
    query = _owned_chats(user_id, include_deleted=True).where(
        Chat.thread_id == thread_id, Chat.deleted_at.is_not(None)
    )
    return await session.scalar(query) is not None


async def list_messages(session: AsyncSession, *, user_id: str, thread_id: str) -> list[Message]:
    """The chat's messages in order.

    Raises:
        NotFoundError: the user has no such chat.
    """
    chat = await get_chat(session, user_id=user_id, thread_id=thread_id)
    query = select(Message).where(Message.chat_id == chat.id).order_by(Message.position)
    return list((await session.scalars(query)).all())


async def list_sessions(
    session: AsyncSession, *, user_id: str, thread_id: str
) -> list[ResearchSession]:
    """The chat's research sessions, by question number.

    Raises:
        NotFoundError: the user has no such chat.
    """
    chat = await get_chat(session, user_id=user_id, thread_id=thread_id)
    query = (
        select(ResearchSession)
        .where(ResearchSession.chat_id == chat.id)
        .order_by(ResearchSession.question_nr)
    )
    return list((await session.scalars(query)).all())


async def get_session(session: AsyncSession, *, user_id: str, session_id: int) -> ResearchSession:
    """One research session of the user's.

    Raises:
        NotFoundError: the user has no such session.
    """
    query = (
        select(ResearchSession)
        .join(Chat)
        .where(ResearchSession.id == session_id, Chat.user_id == user_id)
        .where(Chat.deleted_at.is_(None))
    )
    found = await session.scalar(query)
    if found is None:
        raise NotFoundError(f"no research session {session_id} for user {user_id!r}")
    return found


async def list_session_rows(
    session: AsyncSession, *, user_id: str, session_id: int, model: type[M]
) -> list[M]:
    """The rows of ``model`` (Source, Claim, ResearchEvent...) that belong to a session.

    Raises:
        NotFoundError: the user has no such session.
    """
    await get_session(session, user_id=user_id, session_id=session_id)
    column = model.__table__.c
    order = [
        column[name]
        for name in ("iteration_nr", "sub_step_nr", "position_start", "at")
        if name in column
    ]
    query = select(model).where(column.session_id == session_id).order_by(*order, column.id)
    return list((await session.scalars(query)).all())


async def list_iterations(
    session: AsyncSession, *, user_id: str, session_id: int
) -> list[tuple[ResearchIteration, list[ResearchSubStep]]]:
    """The session's research rounds in order, each with its sub-steps in step order.

    Raises:
        NotFoundError: the user has no such session.
    """
    rounds = await list_session_rows(
        session, user_id=user_id, session_id=session_id, model=ResearchIteration
    )
    steps = await list_session_rows(
        session, user_id=user_id, session_id=session_id, model=ResearchSubStep
    )
    return [(r, [s for s in steps if s.iteration_nr == r.iteration_nr]) for r in rounds]


async def get_feedback(session: AsyncSession, *, user_id: str, message_id: int) -> MessageFeedback:
    """The user's feedback on a message of one of their chats.

    Raises:
        NotFoundError: the message is not the user's, or the user gave no feedback on it.
    """
    query = (
        select(MessageFeedback)
        .join(Message, MessageFeedback.message_id == Message.id)
        .join(Chat, Message.chat_id == Chat.id)
        .where(
            MessageFeedback.message_id == message_id,
            MessageFeedback.user_id == user_id,
            Chat.user_id == user_id,
            Chat.deleted_at.is_(None),
        )
    )
    found = await session.scalar(query)
    if found is None:
        raise NotFoundError(f"no feedback of user {user_id!r} on message {message_id}")
    return found
