"""Purge erases: rows, checkpoints (every namespace) and page text, on SQLite and PostgreSQL.

Two chats research overlapping questions through the command line; the first is deleted and
purged. Every table is counted before and after: the purged chat has no row left anywhere
but its closed thread (which refuses any later write), its thread cannot be resumed, and the
other chat keeps every row and every document it reads.
"""

from __future__ import annotations

import asyncio

import pytest
import sqlalchemy as sa

from deep_research.cli import main
from deep_research.persistence import tables as tables
from deep_research.persistence.content import open_store
from deep_research.persistence.db import open_database
from deep_research.persistence.namespaces import RESEARCHERS_NAMESPACE
from deep_research.persistence.scratch import thread_namespace

GONE, KEPT = "erase-gone", "erase-kept"
ASKED = {
    GONE: "What did Hornsdale Power Reserve cost, and what caused the South Korea ESS fires?",
    KEPT: "How large is Hornsdale Power Reserve and what does it earn?",
}


def _counts(url: str, thread: str) -> dict[str, int]:
    """Rows that belong to ``thread`` in every table: checkpoints, store and domain store."""
    engine = sa.create_engine(url)
    counts: dict[str, int] = {}
    try:
        metadata = sa.MetaData()
        metadata.reflect(engine)
        with engine.connect() as connection:
            chat = connection.execute(
                sa.select(tables.Chat.id).where(tables.Chat.thread_id == thread)
            ).scalar()
            sessions = [
                row[0]
                for row in connection.execute(
                    sa.select(tables.ResearchSession.id).where(
                        tables.ResearchSession.chat_id == chat
                    )
                )
            ]
            for name, table in sorted(metadata.tables.items()):
                columns = table.columns
                if "thread_id" in columns:
                    where = columns["thread_id"] == thread
                elif "session_id" in columns:
                    where = columns["session_id"].in_(sessions or [-1])
                elif "chat_id" in columns:
                    where = columns["chat_id"] == (chat or -1)
                else:
                    continue
                counts[name] = connection.execute(
                    sa.select(sa.func.count()).select_from(table).where(where)
                ).scalar_one()
    finally:
        engine.dispose()
    return counts


async def _documents(url: str, thread: str, *, other_chats: bool = False) -> set[str]:
    """Documents the thread's sources refer to (or, with ``other_chats``, any other chat's)."""
    async with open_database(url) as database, database.session_scope() as session:
        chat = tables.Chat.thread_id != thread if other_chats else tables.Chat.thread_id == thread
        query = (
            sa.select(tables.Source.document_id)
            .join(tables.ResearchSession, tables.Source.session_id == tables.ResearchSession.id)
            .join(tables.Chat, tables.ResearchSession.chat_id == tables.Chat.id)
            .where(chat, tables.Source.document_id.is_not(None))
        )
        return {d for d in await session.scalars(query) if d}


async def _stages(url: str, *, plant: bool = False) -> dict[str, int]:
    """Researcher stages kept per thread (``plant``: first leave one per chat, as a researcher
    killed inside its step does)."""
    async with open_store(url) as store:
        if plant:
            for thread in ASKED:
                await store.aput((*thread_namespace(thread), "task"), "1:read_sources", {})
        kept = await store.asearch(RESEARCHERS_NAMESPACE, limit=1000)
        return {thread: sum(i.namespace[1] == thread for i in kept) for thread in ASKED}


async def _stored(url: str, documents: set[str]) -> set[str]:
    async with open_store(url) as store:
        found = [await store.aget(("documents",), d) for d in sorted(documents)]
    return {item.key for item in found if item is not None}


def test_purge_erases_every_row_checkpoint_and_unshared_document(
    database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    for thread, question in ASKED.items():
        assert main(["ask", question, "--thread", thread, "--quiet", "--no-clarify"]) == 0
    before = {thread: _counts(database_url, thread) for thread in ASKED}
    for table in ("checkpoints", "chats", "messages", "sources", "claims", "research_events"):
        assert before[GONE][table] > 0, table
    documents = {thread: asyncio.run(_documents(database_url, thread)) for thread in ASKED}
    elsewhere = asyncio.run(_documents(database_url, GONE, other_chats=True))  # shared database
    shared = documents[GONE] & elsewhere
    only_gone = documents[GONE] - elsewhere
    assert documents[GONE] & documents[KEPT] and only_gone
    assert asyncio.run(_stored(database_url, documents[GONE])) == documents[GONE]
    assert asyncio.run(_stages(database_url)) == {GONE: 0, KEPT: 0}, "finished steps keep none"
    assert asyncio.run(_stages(database_url, plant=True)) == {GONE: 1, KEPT: 1}

    assert main(["delete", GONE]) == 0
    capsys.readouterr()
    assert main(["purge", "--older-than-days", "0"]) == 0
    assert capsys.readouterr().out == f"purged 1 chat(s): {GONE}\n"

    after = {thread: _counts(database_url, thread) for thread in ASKED}
    assert (before[GONE].pop("closed_threads"), after[GONE].pop("closed_threads")) == (0, 1)
    assert after[GONE] == dict.fromkeys(before[GONE], 0)  # but the closed thread: no more writes
    assert after[KEPT] == before[KEPT]
    assert asyncio.run(_stored(database_url, documents[GONE])) == shared
    assert asyncio.run(_stored(database_url, documents[KEPT])) == documents[KEPT]
    assert asyncio.run(_stages(database_url)) == {GONE: 0, KEPT: 1}
    capsys.readouterr()
    assert main(["resume", GONE]) == 2
    assert f"no run with thread id {GONE!r}" in capsys.readouterr().err
