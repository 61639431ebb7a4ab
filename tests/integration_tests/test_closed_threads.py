"""A deleted or purged chat's thread takes no more writes: recorder, checkpointer, store.

On SQLite and PostgreSQL, through the project's factories: a thread runs; once its chat is
deleted, a run on it is refused by the checkpointer before it writes anything, and the store
refuses its researchers' stages; restoring the chat opens it again (the thread resumes where
it was). Once purged, it stays closed for the recorder too, so nothing can write it back.
"""

from __future__ import annotations

import asyncio
import operator
import uuid
from datetime import timedelta
from typing import Annotated, Any, TypedDict

import pytest
import sqlalchemy as sa
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph

from deep_research.errors import ChatClosedError
from deep_research.persistence import repository as repo
from deep_research.persistence.checkpointer import open_checkpointer
from deep_research.persistence.content import open_store, put_documents
from deep_research.persistence.db import open_database
from deep_research.persistence.namespaces import DOCUMENTS_NAMESPACE
from deep_research.persistence.purge import purge_chats
from deep_research.persistence.recorder import Batch, RunScope, SqlRecorder
from deep_research.persistence.scratch import thread_namespace
from deep_research.state.models import Document

PAGE = Document(
    id="doc_0123456789abcdef", url="https://example.org/lfp", title="LFP", text="LFP is cheap."
)


class Steps(TypedDict, total=False):
    count: Annotated[int, operator.add]


def _graph(saver: BaseCheckpointSaver[str]) -> Any:
    def step(state: Steps) -> dict[str, Any]:
        return {"count": 1}

    builder = StateGraph(Steps)
    builder.add_node("first", step)
    builder.add_node("second", step)
    builder.add_edge(START, "first")
    builder.add_edge("first", "second")
    builder.add_edge("second", END)
    return builder.compile(checkpointer=saver)


async def _checkpoints(url: str, thread: str) -> int:
    engine = sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://"))
    try:
        with engine.connect() as connection:
            return int(
                connection.execute(
                    sa.text("SELECT count(*) FROM checkpoints WHERE thread_id = :t"), {"t": thread}
                ).scalar_one()
            )
    finally:
        engine.dispose()


async def test_a_closed_thread_takes_no_writes_until_restored(database_url: str) -> None:
    user = "closed-user"
    thread = f"closed-{uuid.uuid4().hex[:12]}"
    config = {"configurable": {"thread_id": thread}}
    async with (
        open_database(database_url) as database,
        open_checkpointer(database_url) as saver,
        open_store(database_url) as store,
    ):
        recorder = SqlRecorder(database)
        await recorder.write(RunScope(user_id=user, thread_id=thread, question_nr=1), Batch())
        graph = _graph(saver)
        assert (await graph.ainvoke({"count": 0}, config))["count"] == 2
        written = await _checkpoints(database_url, thread)
        stage = (*thread_namespace(thread), "task-1")

        async with database.session_scope() as session:
            await repo.soft_delete_chat(session, user_id=user, thread_id=thread)
        with pytest.raises(ChatClosedError, match="is deleted"):
            await graph.ainvoke({"count": 0}, config)
        assert await _checkpoints(database_url, thread) == written
        with pytest.raises(ChatClosedError, match="is deleted"):
            await store.aput(stage, "0:read", {"kept": True})
        with pytest.raises(ChatClosedError, match="is deleted"):  # page text and its note
            await put_documents(store, [PAGE], thread_id=thread)
        assert await store.aget(DOCUMENTS_NAMESPACE, PAGE.id) is None
        await put_documents(store, [PAGE], thread_id=None)  # not the thread's: not refused

        async with database.session_scope() as session:
            await repo.restore_chat(
                session, user_id=user, thread_id=thread, window=timedelta(days=7)
            )
        assert (await graph.ainvoke({"count": 0}, config))["count"] == 4  # resumed, not anew
        await store.aput(stage, "0:read", {"kept": True})
        await store.adelete(DOCUMENTS_NAMESPACE, PAGE.id)
        await put_documents(store, [PAGE], thread_id=thread)  # kept; its source not recorded

        await purge_chats(database, saver, store, user_id=user, deleted_before=None)
        assert await _checkpoints(database_url, thread) == 0
        assert await store.aget(stage, "0:read") is None
        assert await store.aget(DOCUMENTS_NAMESPACE, PAGE.id) is None, "its page text went too"
        with pytest.raises(ChatClosedError, match="was purged"):
            await graph.ainvoke({"count": 0}, config)
        with pytest.raises(ChatClosedError, match="was purged"):
            await store.aput(stage, "0:read", {"kept": True})
        with pytest.raises(ChatClosedError, match="was purged"):  # no new chat on the thread
            await recorder.write(RunScope(user_id=user, thread_id=thread, question_nr=1), Batch())
        assert await _checkpoints(database_url, thread) == 0


async def _blocked_or_done(url: str, task: asyncio.Task[Any]) -> None:
    """Wait until ``task`` is done or one of the database's sessions waits for a lock."""
    waiting = sa.text(
        "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
        " WHERE NOT l.granted AND a.datname = current_database()"
    )
    engine = sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://"))
    try:
        for _ in range(200):
            if task.done():
                return
            with engine.connect() as connection:
                if connection.execute(waiting).scalar_one():
                    return
            await asyncio.sleep(0.05)
        raise AssertionError("the purge neither ended nor waited for the writer")
    finally:
        engine.dispose()


@pytest.mark.postgres
@pytest.mark.parametrize("writer", ["checkpointer", "store"])
async def test_a_write_past_its_lookup_when_the_purge_closes_the_thread_does_not_land(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch, writer: str
) -> None:
    """The lookup of a closed thread and the write are one on PostgreSQL (as on SQLite).

    The writer is held between its lookup (the thread still open) and its write while the
    chat is purged by another process (its own checkpointer and store): either the purge waits
    for the write and erases it, or the write waits for the purge and is refused. Before, the
    purge ended and the write landed after it.
    """
    from deep_research.persistence import postgres

    user = "racing-user"
    thread = f"racing-{uuid.uuid4().hex[:12]}"
    stage = (*thread_namespace(thread), "task-1")
    looked_up, resume = asyncio.Event(), asyncio.Event()
    real_lookup = postgres.postgres_closed

    async def held_lookup(cursor: Any, thread_id: str) -> bool | None:
        purged = await real_lookup(cursor, thread_id)
        if thread_id == thread and not looked_up.is_set():
            looked_up.set()
            await resume.wait()
        return purged

    async with (
        open_database(postgres_url) as database,
        open_checkpointer(postgres_url) as saver,
        open_store(postgres_url) as store,
        open_checkpointer(postgres_url) as purging_saver,
        open_store(postgres_url) as purging_store,
    ):
        await SqlRecorder(database).write(
            RunScope(user_id=user, thread_id=thread, question_nr=1), Batch()
        )
        graph = _graph(saver)
        monkeypatch.setattr(postgres, "postgres_closed", held_lookup)
        if writer == "checkpointer":
            write = asyncio.create_task(
                graph.ainvoke({"count": 0}, {"configurable": {"thread_id": thread}})
            )
        else:
            write = asyncio.create_task(store.aput(stage, "0:read", {"kept": True}))
        await asyncio.wait_for(looked_up.wait(), timeout=10)
        purge = asyncio.create_task(
            purge_chats(database, purging_saver, purging_store, user_id=user, deleted_before=None)
        )
        await _blocked_or_done(postgres_url, purge)
        resume.set()
        await asyncio.gather(write, purge, return_exceptions=True)
        assert purge.exception() is None
        assert purge.result().threads == (thread,)

        assert await _checkpoints(postgres_url, thread) == 0, "a checkpoint outlived the purge"
        assert await store.aget(stage, "0:read") is None, "a stage outlived the purge"
