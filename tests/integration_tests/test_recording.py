"""Research is recorded in the domain store while it runs, on SQLite and PostgreSQL.

Two questions in one chat, asked as the server's authenticated user: every entity of the run
is in the store, matching the report; rows appear while the run is in progress; the events
mirror the custom stream; and another user reads none of it.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from deep_research.context import Context
from deep_research.engines import OfflineEngine
from deep_research.errors import NotFoundError
from deep_research.graph import build_graph
from deep_research.persistence import Database, SqlRecorder, open_database, queries
from deep_research.persistence import tables as tables
from deep_research.persistence.checkpointer import make_serde
from deep_research.persistence.recorder import Batch, RunScope
from deep_research.persistence.records import SessionUpdate
from deep_research.settings import get_settings
from deep_research.sources import SAMPLE_CORPUS, LocalCorpus
from deep_research.state import BibRecord, EvidenceSpan, Report, Source
from deep_research.state.reducers import merge_sources

QUESTIONS = (
    "How do LFP and NMC batteries compare for grid storage?",
    "What did Hornsdale Power Reserve cost?",
)
CONTEXT = Context(allow_clarification=False, depth="light")


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
async def database(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Database]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'store.sqlite'}"
    else:
        url = request.getfixturevalue("postgres_url")
    async with open_database(url) as db:
        yield db


def corpus(tmp_path: Path) -> LocalCorpus:
    return LocalCorpus(SAMPLE_CORPUS, tmp_path / "index.sqlite")


async def rows(database: Database, session_id: int, model: Any) -> list[Any]:
    async with database.session_scope() as session:
        return await queries.list_session_rows(
            session, user_id="alice", session_id=session_id, model=model
        )


async def test_a_chat_is_recorded_as_it_runs(database: Database, tmp_path: Path) -> None:
    graph = build_graph(
        engine=OfflineEngine(),
        sources=[corpus(tmp_path)],
        checkpointer=InMemorySaver(serde=make_serde()),
        recorder=SqlRecorder(database),
    )
    thread = f"chat-{uuid.uuid4().hex[:8]}"
    config: Any = {"configurable": {"thread_id": thread, "user_id": "alice"}}
    streamed: list[list[dict[str, Any]]] = []
    for question in QUESTIONS:
        events: list[dict[str, Any]] = []
        async for _ns, mode, chunk in graph.astream(
            {"messages": [HumanMessage(question)]},
            config,
            context=CONTEXT,
            stream_mode=["custom", "updates"],
            subgraphs=True,
        ):
            if mode == "custom":
                events.append(chunk)
            elif "dispatch" in chunk:
                async with database.session_scope() as session:
                    (*_, current) = await queries.list_sessions(
                        session, user_id="alice", thread_id=thread
                    )
                    assert current.status == "in_progress" and current.plan
                iterations = await rows(database, current.id, tables.ResearchIteration)
                assert [i.iteration_nr for i in iterations] == [1], "rows appear as they happen"
        streamed.append(events)
    report: Report = (await graph.aget_state(config)).values["report"]

    async with database.session_scope() as session:
        chat = await queries.get_chat(session, user_id="alice", thread_id=thread)
        assert chat.title == QUESTIONS[0]
        messages = await queries.list_messages(session, user_id="alice", thread_id=thread)
        sessions = await queries.list_sessions(session, user_id="alice", thread_id=thread)
        with pytest.raises(NotFoundError):
            await queries.list_messages(session, user_id="bob", thread_id=thread)
        with pytest.raises(NotFoundError):
            await queries.get_session(session, user_id="bob", session_id=sessions[0].id)
    assert [(m.role, m.content[:40]) for m in messages][::2] == [
        ("user", q[:40]) for q in QUESTIONS
    ]
    assert [m.role for m in messages] == ["user", "assistant"] * 2
    assert messages[-1].content == report.markdown
    assert [(s.question_nr, s.status) for s in sessions] == [(1, "completed"), (2, "completed")]
    last = sessions[-1]
    assert last.question == QUESTIONS[1] and last.depth == "light"
    assert last.report is not None and last.report["markdown"] == report.markdown
    assert last.verification == report.verification.model_dump(mode="json")

    claims = await rows(database, last.id, tables.Claim)
    assert sorted((c.claim_id, c.verdict) for c in claims) == sorted(
        (c.id, c.verdict) for c in report.claims
    )
    citations = await rows(database, last.id, tables.Citation)
    assert {(c.claim_id, c.evidence_id) for c in citations} == {
        (c.claim_id, c.evidence_id) for c in report.citations
    }
    sources = await rows(database, last.id, tables.Source)
    assert sorted(s.url for s in sources) == sorted(s.url for s in report.sources)
    assert {s.url for s in sources if s.is_cited} == {r.url for r in report.references}
    sub_steps = await rows(database, last.id, tables.ResearchSubStep)
    assert [s.step_id for s in sub_steps] == [
        s.id for s in (await graph.aget_state(config)).values["plan"]
    ]
    assert all(s.sub_answer and s.tool == "search:local" for s in sub_steps)
    evidence = {e.evidence_id for e in await rows(database, last.id, tables.EvidenceSpan)}
    assert {c.evidence_id for c in report.citations} <= evidence
    for research, events in zip(sessions, streamed, strict=True):
        recorded = await rows(database, research.id, tables.ResearchEvent)
        assert sorted(e.type for e in recorded) == sorted(e["type"] for e in events)


async def test_a_graph_without_a_recorder_records_when_a_database_url_is_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"sqlite:///{tmp_path / 'env.sqlite'}"
    monkeypatch.setenv("DEEP_RESEARCH_DATABASE_URL", url)
    get_settings.cache_clear()
    graph = build_graph(
        engine=OfflineEngine(),
        sources=[corpus(tmp_path)],
        checkpointer=InMemorySaver(serde=make_serde()),
    )
    config: Any = {"configurable": {"thread_id": "env-thread"}}
    await graph.ainvoke({"messages": [HumanMessage(QUESTIONS[1])]}, config, context=CONTEXT)
    async with open_database(url) as database, database.session_scope() as session:
        (research,) = await queries.list_sessions(session, user_id="local", thread_id="env-thread")
        assert research.status == "completed"


async def test_a_work_two_steps_found_under_two_links_is_one_source_row(
    database: Database,
) -> None:
    bib = BibRecord(pmid="35200044", year=2022, found_by=["pubmed"])
    pubmed = Source(url=bib.link() or "", title="Cohort", provider="pubmed", bib=bib)
    doi = bib.model_copy(update={"doi": "10.4314/x.3", "found_by": ["europepmc"]})
    europepmc = Source(url=doi.link() or "", title="Cohort", provider="europepmc", bib=doi)

    def span(id: str, source: Source) -> EvidenceSpan:
        return EvidenceSpan(
            id=id, url=source.url, document_id="doc_1", step_id=id, quote="Q.", start=0, end=2
        )

    (work,) = merge_sources([pubmed], [europepmc])
    assert work.aliases == [pubmed.url]
    scope = RunScope("alice", "merge-thread", 1)
    batches = [
        Batch(session=SessionUpdate(question="Zinc?")),
        Batch(sources=[pubmed], evidence=[span("ev_1", pubmed)]),  # the first step
        Batch(sources=[europepmc], evidence=[span("ev_2", europepmc)]),  # the second
        Batch(sources=[work], cited_urls=[work.url]),  # finalize
    ]
    for batch in batches:
        await SqlRecorder(database).write(scope, batch)
    async with database.session_scope() as session:
        (research,) = await queries.list_sessions(
            session, user_id="alice", thread_id="merge-thread"
        )
    (row,) = await rows(database, research.id, tables.Source)
    assert (row.url, row.doi, row.pmid, row.is_cited) == (work.url, "10.4314/x.3", "35200044", True)
    spans = await rows(database, research.id, tables.EvidenceSpan)
    assert {(s.evidence_id, s.url) for s in spans} == {("ev_1", work.url), ("ev_2", work.url)}


async def test_evidence_rows_keep_the_page_or_slide_of_their_quote(database: Database) -> None:
    """A PDF quote's page and a deck's slide reach the store; a web page's quote has none."""
    source = Source(url="corpus:///docs/manual.pdf", title="Manual", provider="local")

    def span(id: str, **page: object) -> EvidenceSpan:
        return EvidenceSpan(
            id=id,
            url=source.url,
            document_id="doc_1",
            step_id="s1",
            quote="Q.",
            start=0,
            end=2,
            **page,
        )

    scope = RunScope("alice", "pages-thread", 1)
    evidence = [
        span("ev_1", page=12, page_kind="page"),
        span("ev_2"),
        span("ev_3", page=4, page_kind="slide"),
    ]
    for batch in (
        Batch(session=SessionUpdate(question="Pages?")),
        Batch(sources=[source], evidence=evidence),
    ):
        await SqlRecorder(database).write(scope, batch)
    async with database.session_scope() as session:
        (research,) = await queries.list_sessions(
            session, user_id="alice", thread_id="pages-thread"
        )
    spans = await rows(database, research.id, tables.EvidenceSpan)
    assert {(s.evidence_id, s.page, s.page_kind) for s in spans} == {
        ("ev_1", 12, "page"),
        ("ev_2", None, None),
        ("ev_3", 4, "slide"),
    }
