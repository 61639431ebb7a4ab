"""A follow-up question in the same chat reuses the sources earlier questions read."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore

from deep_research.context import Context
from deep_research.engines import OfflineEngine
from deep_research.graph import build_graph
from deep_research.persistence.checkpointer import make_serde
from deep_research.persistence.content import get_document_text
from deep_research.sources import SAMPLE_CORPUS, LocalCorpus
from deep_research.sources.pool import ChatPool, extend_pool
from deep_research.state import Document, SearchResult, Source

CONTEXT = Context(allow_clarification=False, depth="light")


class GoesQuiet:
    """The sample corpus until ``quiet`` is set; then every search finds nothing."""

    name = "local"

    def __init__(self, corpus: LocalCorpus) -> None:
        self.corpus, self.quiet = corpus, False

    async def search(self, query: str, k: int) -> list[SearchResult]:
        return [] if self.quiet else await self.corpus.search(query, k)

    async def read(self, url: str) -> Document:
        return await self.corpus.read(url)


async def test_a_follow_up_cites_the_sources_of_the_first_question(tmp_path: Path) -> None:
    provider = GoesQuiet(LocalCorpus(SAMPLE_CORPUS, tmp_path / "index.sqlite"))
    graph = build_graph(
        engine=OfflineEngine(),
        sources=[provider],
        checkpointer=InMemorySaver(serde=make_serde()),
        store=InMemoryStore(),
    )
    config: Any = {"configurable": {"thread_id": "pool"}}
    first = await graph.ainvoke(
        {"messages": [HumanMessage("What did Hornsdale Power Reserve cost and do?")]},
        config,
        context=CONTEXT,
    )
    read_first = {s.url for s in first["report"].sources if s.crawl_status == "ok"}
    provider.quiet = True
    second = await graph.ainvoke(
        {"messages": [HumanMessage("How big is Hornsdale Power Reserve?")]},
        config,
        context=CONTEXT,
    )
    report = second["report"]
    state = (await graph.aget_state(config)).values
    assert state["question_nr"] == 2
    assert {s.url for s in state["pool"]} == read_first
    assert report.references, "the follow-up found evidence in the pool"
    assert {r.url for r in report.references} <= read_first
    assert {s.provider for s in report.sources} == {"chat"}


async def test_the_pool_keeps_read_sources_newest_first() -> None:
    old = Source(url="https://a.example/x", title="a", provider="p", document_id="doc_a")
    failed = Source(url="https://b.example/x", title="b", provider="p", crawl_status="failed")
    new = Source(url="https://a.example/x", title="a2", provider="p", document_id="doc_a2")
    assert extend_pool([old], [failed, new]) == [new]
    pool = ChatPool([new], partial(get_document_text, InMemoryStore()))
    assert await pool.search("anything", 3) == []  # no text in the content store
