"""Checkpoints stay small: page text lives in the content store, referenced by id.

The graph runs twice on a fake provider whose pages are generated (12 KB each), once reading
10 sources and once 200. The serialized final state may grow by at most 2 KB per extra
source, although every extra page adds 12 KB of text; the pages are in the content store.

The state is measured as read back (``aget_state``), not as the final checkpoint's blobs:
sources, evidence and findings are ``DeltaChannel``s, stored as the writes that produced them
rather than in each checkpoint, and their records must stay small wherever they are stored.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore

from deep_research.context import Context
from deep_research.engines import OfflineEngine, Reply
from deep_research.engines.schemas import ResearchPlan, StepDraft, StepNotes
from deep_research.graph import build_graph
from deep_research.persistence.checkpointer import make_serde
from deep_research.persistence.namespaces import DOCUMENTS_NAMESPACE
from deep_research.state import Document, PlanStep, SearchResult
from deep_research.state.models import stable_id

PAGE_CHARS = 12_000
MAX_GROWTH_PER_SOURCE = 2048


def page(url: str) -> str:
    """A deterministic page of about ``PAGE_CHARS`` characters, different for every URL."""
    n = int(stable_id("n", url)[2:8], 16)
    sentences = [
        f"Site {n % 97} reported {n % 1000 + i} MWh of storage in {1990 + i % 35}, "
        f"with round-trip efficiency of {80 + i % 15} percent and {i} incidents."
        for i in range(PAGE_CHARS // 100)
    ]
    return f"# Storage site {n}\n\n" + " ".join(sentences)


class GeneratedWeb:
    """A provider answering every query with ``k`` fresh pages on distinct domains."""

    name = "generated"

    async def search(self, query: str, k: int) -> list[SearchResult]:
        slug = stable_id("q", query)
        return [
            SearchResult(
                url=f"https://{slug}-{i}.example.org/report",
                title=f"{query} {i}",
                provider="generated",
            )
            for i in range(k)
        ]

    async def read(self, url: str) -> Document:
        text = page(url)
        return Document(id=stable_id("doc", text), url=url, title=url, text=text)


class ShapedEngine(OfflineEngine):
    """The offline engine with a fixed number of steps and of queries per step."""

    def __init__(self, steps: int, queries: int) -> None:
        super().__init__()
        self.steps, self.per_step = steps, queries

    async def plan(self, question: str, history: Any, max_steps: int) -> Reply[ResearchPlan]:
        drafts = [StepDraft(title=f"storage sites part {i}") for i in range(1, self.steps + 1)]
        return Reply(ResearchPlan(brief=question, complexity="complex", steps=drafts))

    async def queries(
        self, question: str, step: PlanStep, previous: Sequence[str], n: int, **_: Any
    ) -> Reply[list[str]]:
        return Reply([f"{step.id} storage query {i}" for i in range(self.per_step)])

    async def notes(self, question: str, step: PlanStep, evidence: Any) -> Reply[StepNotes]:
        reply = await super().notes(question, step, evidence)
        return Reply(reply.value.model_copy(update={"sufficient": True}), reply.usage)


async def checkpoint_bytes(steps: int, queries: int, results: int) -> tuple[int, int]:
    """Run the graph; return the final state's serialized size and the sources read."""
    saver, store = InMemorySaver(serde=make_serde()), InMemoryStore()
    graph = build_graph(
        engine=ShapedEngine(steps, queries),
        sources=[GeneratedWeb()],
        checkpointer=saver,
        store=store,
    )
    config: Any = {"configurable": {"thread_id": uuid.uuid4().hex}}
    context = Context(
        allow_clarification=False,
        depth="extended",
        max_rounds=1,
        results_per_query=results,
        max_revisions=0,
    )
    await graph.ainvoke(
        {"messages": [HumanMessage("Which storage sites?")]}, config, context=context
    )
    state = (await graph.aget_state(config)).values
    serde = make_serde()
    size = sum(len(serde.dumps_typed(v)[1]) for v in state.values())
    sources = state["sources"]
    assert len(await store.asearch(DOCUMENTS_NAMESPACE, limit=1000)) == len(sources)
    return size, len(sources)


async def test_checkpoint_grows_by_at_most_2_kb_per_source() -> None:
    small, few = await checkpoint_bytes(steps=1, queries=2, results=5)
    large, many = await checkpoint_bytes(steps=5, queries=4, results=10)
    assert (few, many) == (10, 200)
    growth = (large - small) / (many - few)
    assert growth <= MAX_GROWTH_PER_SOURCE, f"{growth:.0f} bytes per source ({small} → {large})"
    assert large < many * PAGE_CHARS / 4, "page text must not be in the state"
