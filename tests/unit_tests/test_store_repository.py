"""The domain store on a SQLite file: idempotent upserts, per-user scoping, limits, soft delete."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore
from sqlalchemy import func, select

from deep_research.engines import OfflineEngine, chat_title
from deep_research.errors import LimitExceededError, NotFoundError
from deep_research.events import RecordedEvent
from deep_research.persistence import Database, SqlRecorder, open_database, queries
from deep_research.persistence import repository as repo
from deep_research.persistence import tables as tables
from deep_research.persistence.purge import purge_chats
from deep_research.persistence.recorder import Batch, RunScope
from deep_research.persistence.records import (
    IterationRecord,
    MessageKind,
    MessageRecord,
    SessionStatus,
    SessionUpdate,
    SubStepRecord,
)
from deep_research.state import Citation, Claim, EvidenceSpan, PlanStep, Source, Verdict

QUOTE = "Hornsdale Power Reserve has a capacity of 150 MW."
SOURCE = Source(url="https://example.org/hornsdale", title="Hornsdale", provider="fake")
SPAN = EvidenceSpan(
    id="ev_1",
    url=SOURCE.url,
    document_id="doc_1",
    step_id="s01",
    quote=QUOTE,
    start=0,
    end=len(QUOTE),
)
CLAIM = Claim(id="cl_1", text=QUOTE, position_start=0, position_end=10, citation_keys=["ev_1"])


STEP = PlanStep(id="s01", title="Costs", intent="what it cost", round=1)


@pytest.fixture
async def database(tmp_path: Path) -> AsyncIterator[Database]:
    async with open_database(f"sqlite:///{tmp_path / 'store.sqlite'}") as db:
        yield db


def full_batch(question: str = "What did Hornsdale cost?") -> Batch:
    return Batch(
        title=chat_title(question),
        session=SessionUpdate(question=question, status=SessionStatus.IN_PROGRESS),
        messages=[MessageRecord(MessageKind.QUESTION, question)],
        iterations=[IterationRecord(1, steps=["s01"])],
        sub_steps=[SubStepRecord(STEP, tool="search")],
        sources=[SOURCE, SOURCE],
        evidence=[SPAN],
        claims=[CLAIM],
        citations=[Citation(claim_id="cl_1", evidence_id="ev_1")],
        events=[RecordedEvent("task-1", 0, "plan", {"type": "plan_created", "data": {}})],
    )


async def counts(database: Database) -> dict[str, int]:
    async with database.session_scope() as session:
        return {
            name: int(await session.scalar(select(func.count()).select_from(table)) or 0)
            for name, table in tables.Base.metadata.tables.items()
        }


async def test_writing_a_batch_twice_duplicates_nothing(database: Database) -> None:
    recorder = SqlRecorder(database)
    scope = RunScope("alice", "thread-1", 1)
    await recorder.write(scope, full_batch())
    first = await counts(database)
    await recorder.write(scope, full_batch())
    assert await counts(database) == first
    assert first["sources"] == 1 and first["citations"] == 1 and first["research_events"] == 1

    final = Batch(
        session=SessionUpdate(status=SessionStatus.COMPLETED),
        claims=[],
        final_claims=True,
        cited_urls=[],
    )
    await recorder.write(scope, final)
    after = await counts(database)
    assert after["claims"] == 0 and after["citations"] == 0, "dropped claims go, with citations"
    async with database.session_scope() as session:
        (research,) = await queries.list_sessions(session, user_id="alice", thread_id="thread-1")
        assert research.status == "completed" and research.completed_at is not None


async def test_reads_are_scoped_by_user(database: Database) -> None:
    await SqlRecorder(database).write(RunScope("alice", "thread-1", 1), full_batch())
    with pytest.raises(NotFoundError):
        await SqlRecorder(database).write(RunScope("mallory", "thread-1", 1), full_batch())
    async with database.session_scope() as session:
        assert [c.thread_id for c in await queries.list_chats(session, user_id="alice")] == [
            "thread-1"
        ]
        assert await queries.list_chats(session, user_id="mallory") == []
        (research,) = await queries.list_sessions(session, user_id="alice", thread_id="thread-1")
        sources = await queries.list_session_rows(
            session, user_id="alice", session_id=research.id, model=tables.Source
        )
        assert [s.url for s in sources] == [SOURCE.url]
        (message,) = await queries.list_messages(session, user_id="alice", thread_id="thread-1")
        await repo.upsert_feedback(session, user_id="alice", message_id=message.id, rating=1)
        for read in (
            queries.get_chat(session, user_id="mallory", thread_id="thread-1"),
            queries.list_messages(session, user_id="mallory", thread_id="thread-1"),
            queries.get_session(session, user_id="mallory", session_id=research.id),
            queries.list_session_rows(
                session, user_id="mallory", session_id=research.id, model=tables.Claim
            ),
            repo.upsert_feedback(session, user_id="mallory", message_id=message.id, rating=-1),
        ):
            with pytest.raises(NotFoundError):
                await read


async def test_limits_are_enforced_with_a_clear_error(database: Database) -> None:
    recorder = SqlRecorder(database, max_chats=1, max_messages=2)
    await recorder.write(RunScope("alice", "thread-1", 1), full_batch())
    await recorder.write(RunScope("alice", "thread-1", 1), full_batch())  # rewrites are free
    with pytest.raises(LimitExceededError, match="DEEP_RESEARCH_MAX_CHATS_PER_USER"):
        await recorder.write(RunScope("alice", "thread-2", 1), full_batch())
    await recorder.write(RunScope("bob", "thread-3", 1), full_batch())  # limits are per user

    answer = Batch(messages=[MessageRecord(MessageKind.REPORT, "report")])
    await recorder.write(RunScope("alice", "thread-1", 1), answer)
    follow_up = Batch(messages=[MessageRecord(MessageKind.QUESTION, "and then?")])
    with pytest.raises(LimitExceededError, match="DEEP_RESEARCH_MAX_MESSAGES_PER_CHAT"):
        await recorder.write(RunScope("alice", "thread-1", 2), follow_up)


async def test_soft_delete_restore_and_purge(database: Database) -> None:
    await SqlRecorder(database).write(RunScope("alice", "thread-1", 1), full_batch())
    window = timedelta(days=30)
    async with database.session_scope() as session:
        await repo.soft_delete_chat(session, user_id="alice", thread_id="thread-1")
        assert await queries.list_chats(session, user_id="alice") == []
        with pytest.raises(NotFoundError):
            await queries.get_chat(session, user_id="alice", thread_id="thread-1")
        await repo.restore_chat(session, user_id="alice", thread_id="thread-1", window=window)
        assert len(await queries.list_chats(session, user_id="alice")) == 1

        await repo.soft_delete_chat(session, user_id="alice", thread_id="thread-1")
        soon = tables.utcnow() + timedelta(days=1)
        with pytest.raises(NotFoundError, match="too long ago"):
            await repo.restore_chat(
                session, user_id="alice", thread_id="thread-1", window=timedelta(0)
            )
    saver, store = InMemorySaver(), InMemoryStore()
    erased = await purge_chats(database, saver, store, user_id="bob", deleted_before=soon)
    assert erased.threads == ()
    erased = await purge_chats(database, saver, store, user_id="alice", deleted_before=soon)
    assert erased.threads == ("thread-1",)
    left = await counts(database)
    assert left.pop("closed_threads") == 1, "the purged thread stays closed"
    assert not any(left.values()), "a purge cascades to every row"
    async with database.session_scope() as session:
        closed = await session.get(tables.ClosedThread, "thread-1")
        assert closed is not None and closed.purged and closed.user_id == "alice"


async def test_preferences_are_one_row_per_user(database: Database) -> None:
    async with database.session_scope() as session:
        assert await repo.get_preferences(session, user_id="alice") == {}
        await repo.upsert_preferences(session, user_id="alice", preferences={"depth": "light"})
        await repo.upsert_preferences(session, user_id="alice", preferences={"depth": "medium"})
        assert await repo.get_preferences(session, user_id="alice") == {"depth": "medium"}
    assert (await counts(database))["user_preferences"] == 1


async def test_offline_titles_are_the_first_question_on_one_short_line() -> None:
    engine = OfflineEngine()
    titled = await engine.title("  What   did\nHornsdale cost? ")
    assert titled.value == "What did Hornsdale cost?" and titled.usage.calls == 0
    long = (await engine.title("word " * 40)).value
    assert long == chat_title("word " * 40)
    assert len(long) <= 80 and long.endswith("…") and "  " not in long


async def test_a_claim_records_who_judged_it(database: Database) -> None:
    judged = CLAIM.model_copy(update={"verdict": Verdict.SUPPORTED, "checked_by": "fallback"})
    batch = Batch(session=SessionUpdate(question="q"), claims=[judged])
    await SqlRecorder(database).write(RunScope("alice", "thread-1", 1), batch)
    async with database.session_scope() as session:
        (research,) = await queries.list_sessions(session, user_id="alice", thread_id="thread-1")
        (row,) = await queries.list_session_rows(
            session, user_id="alice", session_id=research.id, model=tables.Claim
        )
    assert (row.verdict, row.checked_by) == ("SUPPORTED", "fallback")
