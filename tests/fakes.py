"""Test doubles shared by the unit and integration tests: a counting engine and source.

:class:`CountingEngine` is the offline engine with every call recorded (method and
arguments) and two optional hooks, awaited before and after the real call, through which a
test stops, fails or times a call; ``replies`` replaces a method's answer. :class:`CountingSource`
wraps a provider the same way for searches.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from deep_research.context import Context
from deep_research.engines import ClaimCheck, OfflineEngine, Reply, Turn
from deep_research.engines.base import ProgressCallback, WritingInputs
from deep_research.engines.schemas import (
    ClaimVerdict,
    ClarifyDecision,
    PickedQuote,
    Reflection,
    ResearchPlan,
    Rewrite,
    StepNotes,
)
from deep_research.graph import build_graph
from deep_research.persistence.checkpointer import make_serde
from deep_research.sources import SourceProvider
from deep_research.state import (
    Document,
    EvidenceSpan,
    Finding,
    Passage,
    PlanStep,
    Report,
    SearchResult,
)

Hook = Callable[[str, tuple[Any, ...]], Awaitable[None]]
"""Called with the method's name and its positional arguments."""


def quoted_spans(quotes: Mapping[str, str]) -> list[EvidenceSpan]:
    """Evidence spans by id, each the whole of its quote, on a site of its own."""
    return [
        EvidenceSpan(
            id=key,
            url=f"https://{key}.example/",
            document_id=f"doc_{key}",
            step_id="s01",
            quote=quote,
            start=0,
            end=len(quote),
        )
        for key, quote in quotes.items()
    ]


class CountingEngine(OfflineEngine):
    """The offline engine, recording every call; see the module docstring."""

    def __init__(
        self,
        *,
        before: Hook | None = None,
        after: Hook | None = None,
        replies: Mapping[str, Reply[Any]] | None = None,
    ) -> None:
        super().__init__()
        self.calls: list[tuple[str, tuple[Any, ...]]] = []
        self._before, self._after = before, after
        self._replies = dict(replies or {})

    def called(self, method: str) -> list[tuple[Any, ...]]:
        """The arguments of every call of ``method``, in order."""
        return [args for name, args in self.calls if name == method]

    async def _call(
        self, method: str, args: tuple[Any, ...], real: Callable[..., Awaitable[Any]]
    ) -> Any:
        self.calls.append((method, args))
        if self._before is not None:
            await self._before(method, args)
        reply = self._replies[method] if method in self._replies else await real(*args)
        if self._after is not None:
            await self._after(method, args)
        return reply

    async def title(self, question: str) -> Reply[str]:
        return await self._call("title", (question,), super().title)

    async def clarify(self, question: str, history: Sequence[Turn]) -> Reply[ClarifyDecision]:
        return await self._call("clarify", (question, history), super().clarify)

    async def plan(
        self, question: str, history: Sequence[Turn], max_steps: int
    ) -> Reply[ResearchPlan]:
        return await self._call(
            "plan",
            (question, history, max_steps),
            super().plan,
        )

    async def queries(
        self,
        question: str,
        step: PlanStep,
        previous: Sequence[str],
        n: int,
        *,
        finding: Finding | None = None,
    ) -> Reply[list[str]]:
        args = (question, step, previous, n)
        return await self._call("queries", args, super().queries)

    async def pick_evidence(
        self,
        question: str,
        step: PlanStep,
        queries: Sequence[str],
        passages: Sequence[Passage],
    ) -> Reply[list[PickedQuote]]:
        args = (question, step, queries, passages)
        return await self._call("pick_evidence", args, super().pick_evidence)

    async def notes(
        self, question: str, step: PlanStep, evidence: Sequence[EvidenceSpan]
    ) -> Reply[StepNotes]:
        args = (question, step, evidence)
        return await self._call("notes", args, super().notes)

    async def reflect(
        self,
        question: str,
        plan: Sequence[PlanStep],
        findings: Sequence[Finding],
        room: int,
        *,
        brief: str = "",
    ) -> Reply[Reflection]:
        args = (question, plan, findings, room)
        return await self._call("reflect", args, super().reflect)

    async def write_report(
        self,
        question: str,
        brief: str,
        plan: Sequence[PlanStep],
        evidence: Sequence[EvidenceSpan],
        *,
        on_progress: ProgressCallback | None = None,
        inputs: WritingInputs | None = None,
    ) -> Reply[str]:
        args = (question, brief, plan, evidence)
        return await self._call("write_report", args, super().write_report)

    async def answer(self, question: str, history: Sequence[Turn]) -> Reply[str]:
        args = (question, history)
        return await self._call("answer", args, super().answer)

    async def judge(self, checks: Sequence[ClaimCheck]) -> Reply[list[ClaimVerdict]]:
        return await self._call("judge", (checks,), super().judge)

    async def rewrite(self, check: ClaimCheck) -> Reply[Rewrite]:
        return await self._call("rewrite", (check,), super().rewrite)


class CountingSource:
    """A provider whose searches are recorded, with a hook awaited before each."""

    def __init__(
        self,
        provider: SourceProvider,
        on_search: Callable[[str], Awaitable[None] | None] | None = None,
    ) -> None:
        self._provider = provider
        self.name = provider.name
        self.searches: list[str] = []
        self._on_search = on_search

    async def search(self, query: str, k: int) -> list[SearchResult]:
        self.searches.append(query)
        if self._on_search is not None:
            pending = self._on_search(query)
            if pending is not None:
                await pending
        return await self._provider.search(query, k)

    async def read(self, url: str) -> Document:
        return await self._provider.read(url)


async def offline_report(corpus: SourceProvider, question: str, **context: Any) -> Report:
    """The report of a whole offline run on ``corpus`` (no clarification; in memory)."""
    graph = build_graph(
        engine=OfflineEngine(), sources=[corpus], checkpointer=InMemorySaver(serde=make_serde())
    )
    out = await graph.ainvoke(
        {"messages": [HumanMessage(question)]},
        {"configurable": {"thread_id": uuid.uuid4().hex}},
        context=Context(allow_clarification=False, **context),
    )
    report: Report = out["report"]
    return report
