"""Retention: checkpoints and page text expire after their configured time to live."""

from __future__ import annotations

import asyncio
import sys
import uuid
from datetime import timedelta

import pytest
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import empty_checkpoint
from sqlalchemy import update

from deep_research.cli.main import main
from deep_research.persistence.checkpointer import open_checkpointer
from deep_research.persistence.content import get_document_text, open_store, put_document
from deep_research.persistence.db import open_database
from deep_research.persistence.models import Chat, utcnow
from deep_research.persistence.repository import upsert_chat
from deep_research.settings import get_settings
from deep_research.state.models import Document

IDLE, ACTIVE = "idle-thread", "active-thread"


def _config(thread: str) -> RunnableConfig:
    return {"configurable": {"thread_id": thread, "checkpoint_ns": ""}}


async def _two_chats(url: str, user: str) -> None:
    """An idle chat (last active two hours ago) and an active one, each checkpointed."""
    async with open_checkpointer(url) as checkpointer:
        for thread in (IDLE, ACTIVE):
            await checkpointer.aput(_config(thread), empty_checkpoint(), {}, {})
    async with open_database(url) as database, database.session_scope() as session:
        for thread in (IDLE, ACTIVE):
            await upsert_chat(session, user_id=user, thread_id=thread, title=thread, max_chats=10)
        await session.execute(
            update(Chat)
            .where(Chat.thread_id == IDLE)
            .values(updated_at=utcnow() - timedelta(hours=2))
        )


async def _checkpointed(url: str) -> set[str]:
    async with open_checkpointer(url) as checkpointer:
        return {
            thread
            for thread in (IDLE, ACTIVE)
            if await checkpointer.aget_tuple(_config(thread)) is not None
        }


def test_purge_expires_the_checkpoints_of_idle_chats(
    database_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    asyncio.run(_two_chats(database_url, get_settings().user_id))
    assert main(["purge"]) == 0  # no retention set: nothing expires
    assert asyncio.run(_checkpointed(database_url)) == {IDLE, ACTIVE}

    monkeypatch.setenv("DEEP_RESEARCH_CHECKPOINT_TTL_MINUTES", "60")
    get_settings.cache_clear()
    capsys.readouterr()
    assert main(["purge"]) == 0
    assert "expired the checkpoints of 1 idle chat(s)" in capsys.readouterr().out
    assert asyncio.run(_checkpointed(database_url)) == {ACTIVE}


async def _put_and_read_back(url: str, pause: float) -> str | None:
    document = Document(id="doc_retention01", url="https://example.com/a", title="a", text="x")
    async with open_store(url) as store:
        await put_document(store, document)
    await asyncio.sleep(pause)
    async with open_store(url) as store:  # opening sweeps what expired
        return await get_document_text(store, document.id)


def test_page_text_expires_after_the_store_ttl(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert asyncio.run(_put_and_read_back(database_url, 0.5)) == "x"  # no retention set

    monkeypatch.setenv("DEEP_RESEARCH_STORE_TTL_MINUTES", "0.005")  # 0.3 s
    get_settings.cache_clear()
    assert asyncio.run(_put_and_read_back(database_url, 2.5)) is None  # SQLite keeps whole seconds


async def _idle(url: str, thread: str) -> None:
    async with open_database(url) as database, database.session_scope() as session:
        await session.execute(
            update(Chat)
            .where(Chat.thread_id == thread)
            .values(updated_at=utcnow() - timedelta(hours=2))
        )


async def _server_sweeps(url: str, user: str) -> tuple[set[str], set[str]]:
    """What the server's checkpointer keeps at start, and after a chat fell idle while it ran."""
    from deep_research.persistence import server

    await _two_chats(url, user)
    async with server.checkpointer():
        at_start = await _checkpointed(url)
        await _idle(url, ACTIVE)  # the other chat falls idle while the server runs
        for _ in range(50):
            await asyncio.sleep(0.1)
            if not await _checkpointed(url):
                break
        return at_start, await _checkpointed(url)


def test_the_server_sweeps_idle_chats_checkpoints_at_start_and_while_it_runs(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEEP_RESEARCH_CHECKPOINT_TTL_MINUTES", "60")
    monkeypatch.setenv("DEEP_RESEARCH_CHECKPOINT_SWEEP_MINUTES", "0.005")  # 0.3 s
    get_settings.cache_clear()
    # thread ids of their own: the PostgreSQL database is shared with the other tests
    suffix = uuid.uuid4().hex[:8]
    active = f"{ACTIVE}-{suffix}"
    monkeypatch.setattr(sys.modules[__name__], "IDLE", f"{IDLE}-{suffix}")
    monkeypatch.setattr(sys.modules[__name__], "ACTIVE", active)
    at_start, later = asyncio.run(_server_sweeps(database_url, get_settings().user_id))
    assert at_start == {active}
    assert later == set()
