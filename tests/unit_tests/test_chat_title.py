"""A new chat is titled by the engine, beside the plan, once per chat."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from deep_research.context import Context
from deep_research.engines import OfflineEngine, Reply, Turn
from deep_research.engines.schemas import ResearchPlan
from deep_research.graph import build_graph
from deep_research.persistence.checkpointer import make_serde
from deep_research.persistence.recorder import Batch, RunScope
from deep_research.sources import SAMPLE_CORPUS, LocalCorpus
from deep_research.sources.local import default_index_path
from deep_research.state import TokenUsage
from tests.fakes import CountingEngine

TITLE_USAGE = TokenUsage(prompt_tokens=7, completion_tokens=2, calls=1)


class CapturingRecorder:
    """Keeps every batch the graph records."""

    def __init__(self) -> None:
        self.batches: list[tuple[RunScope, Batch]] = []

    async def write(self, scope: RunScope, batch: Batch) -> None:
        self.batches.append((scope, batch))

    async def load_run_ids(self, scope: RunScope) -> None:
        pass

    def titles(self) -> list[str]:
        return [batch.title for _, batch in self.batches if batch.title]


class RendezvousEngine(OfflineEngine):
    """Its title and plan calls each wait for the other to start: only together do they end."""

    def __init__(self) -> None:
        self.started = {"title": asyncio.Event(), "plan": asyncio.Event()}

    async def _meet(self, me: str, other: str) -> None:
        self.started[me].set()
        await asyncio.wait_for(self.started[other].wait(), timeout=5)

    async def title(self, question: str) -> Reply[str]:
        await self._meet("title", "plan")
        return Reply("Grid batteries", TITLE_USAGE)

    async def plan(
        self, question: str, history: Sequence[Turn], max_steps: int
    ) -> Reply[ResearchPlan]:
        await self._meet("plan", "title")
        return await super().plan(question, history, max_steps)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> LocalCorpus:
    data: Path = tmp_path_factory.mktemp("data")
    return LocalCorpus(SAMPLE_CORPUS, default_index_path(data, SAMPLE_CORPUS))


def _config() -> dict[str, Any]:
    return {"configurable": {"thread_id": uuid.uuid4().hex}}


async def test_the_title_is_written_beside_the_plan_and_counted_in_the_usage(
    corpus: LocalCorpus,
) -> None:
    # Run one after the other, the engine's title and plan calls would wait for each other
    # until their timeout: the graph must run them in the same step.
    recorder = CapturingRecorder()
    graph = build_graph(
        engine=RendezvousEngine(),
        sources=[corpus],
        checkpointer=InMemorySaver(serde=make_serde()),
        recorder=recorder,
    )
    config = _config()
    question = "How did Hornsdale Power Reserve change grid battery costs?"

    out = await graph.ainvoke(
        {"messages": [HumanMessage(question)]},
        config,
        context=Context(depth="light", allow_clarification=False),
    )

    assert out["report"] is not None
    assert recorder.titles() == ["Grid batteries"]
    usage = (await graph.aget_state(config)).values["usage"]
    assert usage == TITLE_USAGE  # the offline engine's own calls cost no tokens


async def test_only_the_first_question_of_a_chat_is_titled(corpus: LocalCorpus) -> None:
    engine = CountingEngine(replies={"title": Reply("A title", TITLE_USAGE)})
    recorder = CapturingRecorder()
    graph = build_graph(
        engine=engine,
        sources=[corpus],
        checkpointer=InMemorySaver(serde=make_serde()),
        recorder=recorder,
    )
    config = _config()
    context = Context(mode="simple", allow_clarification=False)

    for question in ("What is Hornsdale Power Reserve?", "And what did it cost?"):
        await graph.ainvoke({"messages": [HumanMessage(question)]}, config, context=context)

    assert engine.called("title") == [("What is Hornsdale Power Reserve?",)]
    assert recorder.titles() == ["A title"]
    assert {scope.question_nr for scope, _ in recorder.batches} == {1, 2}
