"""A run that fails in one researcher branch resumes from its checkpoint without redoing work.

The first run fails in step ``s03``'s ``take_notes`` with a ``ValueError`` (which the retry
policy does not retry), but only once the sibling researchers have finished and their writes
are saved, so which branches completed is fixed by construction rather than by scheduling.
The resume runs on a new graph object over a new checkpointer connection and content store
(which holds the pages the evidence quotes), as ``deep-research resume`` in another process
would. Searches are counted per plan step: a branch is identified
by its checkpoint namespace (``researcher:<task id>|...``), which stays the same across the
failure and the resume.
"""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import HumanMessage
from langchain_core.runnables import RunnableConfig
from langgraph.config import get_config
from langgraph.graph.state import CompiledStateGraph

from deep_research.context import Context
from deep_research.events import namespace_path
from deep_research.graph import build_graph
from deep_research.persistence.checkpointer import open_checkpointer
from deep_research.persistence.content import open_store, pages_namespace
from deep_research.persistence.scratch import thread_namespace
from deep_research.settings import get_settings
from deep_research.sources import SAMPLE_CORPUS, LocalCorpus
from deep_research.state import (
    InputState,
    PlanStep,
    Report,
)
from tests.fakes import CountingEngine, CountingSource

QUESTION = (
    "How do LFP and NMC batteries compare for grid storage, "
    "and what did Hornsdale Power Reserve cost?"
)
CONTEXT = Context(allow_clarification=False, depth="light")
FAILING_STEP = "s03"
SIBLINGS_TIMEOUT = 60.0
"""Seconds the failing branch waits for its siblings' writes to be saved."""


class InjectedFailure(ValueError):
    """The failure the test injects; a ``ValueError``, so no retry policy retries it."""


def researcher_branch() -> str | None:
    """The researcher task the caller runs in (``researcher:<task id>``), if any."""
    path = namespace_path(get_config().get("configurable", {}).get("checkpoint_ns", ""))
    if not path or path[0][0] != "researcher":
        return None
    return f"researcher:{path[0][1]}"


@dataclass
class Calls:
    """What the wrapped engine and corpus were asked, per plan step id."""

    step_of_branch: dict[str, str] = field(default_factory=dict)
    queries: Counter[str] = field(default_factory=Counter)
    notes: Counter[str] = field(default_factory=Counter)
    searches: Counter[str] = field(default_factory=Counter)

    def enter(self, step: PlanStep) -> None:
        branch = researcher_branch()
        assert branch is not None, "the engine's step methods run inside a researcher branch"
        self.step_of_branch[branch] = step.id

    def copy(self) -> Calls:
        return Calls(
            dict(self.step_of_branch),
            Counter(self.queries),
            Counter(self.notes),
            Counter(self.searches),
        )


@dataclass
class FailOnceAfterSiblings:
    """Fail ``step_id``'s first notes once every sibling researcher's writes are checkpointed."""

    step_id: str
    config: RunnableConfig
    graph: CompiledStateGraph[Any, Any, Any, Any] | None = None
    fired: bool = False

    async def maybe_fail(self, step_id: str) -> None:
        if step_id != self.step_id or self.fired:
            return
        self.fired = True
        branch = researcher_branch()
        assert branch is not None and self.graph is not None
        await self._wait_for_siblings(branch.partition(":")[2])
        raise InjectedFailure(f"injected failure in the notes of {step_id}")

    async def _wait_for_siblings(self, task_id: str) -> None:
        assert self.graph is not None
        deadline = asyncio.get_running_loop().time() + SIBLINGS_TIMEOUT
        while True:
            tasks = (await self.graph.aget_state(self.config)).tasks
            if any(t.id == task_id for t in tasks):
                siblings = [t for t in tasks if t.id != task_id and t.name == "researcher"]
                if all(t.result is not None for t in siblings):
                    return
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"sibling researchers did not finish: {tasks}")
            await asyncio.sleep(0.05)


def counting_engine(calls: Calls, failure: FailOnceAfterSiblings | None = None) -> CountingEngine:
    """The offline engine, counting step calls and failing where the test said."""

    async def before(method: str, args: tuple[Any, ...]) -> None:
        if method not in ("queries", "notes"):
            return
        step: PlanStep = args[1]
        calls.enter(step)
        (calls.queries if method == "queries" else calls.notes)[step.id] += 1
        if method == "notes" and failure is not None:
            await failure.maybe_fail(step.id)

    return CountingEngine(before=before)


def counting_corpus(corpus: LocalCorpus, calls: Calls) -> CountingSource:
    """The corpus, counting searches per plan step."""

    def searched(query: str) -> None:
        branch = researcher_branch()
        calls.searches[calls.step_of_branch.get(branch or "", "unattributed")] += 1

    return CountingSource(corpus, searched)


async def fail_then_resume(tmp_path: Path) -> None:
    """Fail one branch, resume on a fresh graph and connection, and check what re-ran."""
    url = get_settings().resolved_database_url
    config: RunnableConfig = {"configurable": {"thread_id": f"resume-{uuid.uuid4().hex[:8]}"}}
    calls = Calls()
    index = tmp_path / "index.sqlite"

    failure = FailOnceAfterSiblings(FAILING_STEP, config)
    async with open_checkpointer(url) as checkpointer, open_store(url) as store:
        graph = build_graph(
            engine=counting_engine(calls, failure),
            sources=[counting_corpus(LocalCorpus(SAMPLE_CORPUS, index), calls)],
            checkpointer=checkpointer,
            store=store,
        )
        failure.graph = graph
        with pytest.raises(InjectedFailure):
            await graph.ainvoke(
                InputState(messages=[HumanMessage(QUESTION)]), config, context=CONTEXT
            )
        stopped = await graph.aget_state(config)
        thread_id = config["configurable"]["thread_id"]
        kept = [  # the researchers' stages, not the note of the pages the run kept
            item
            for item in await store.asearch(thread_namespace(thread_id), limit=1000)
            if item.namespace != pages_namespace(thread_id)
        ]

    # the failed branch's finished stages wait in the content store (its siblings' too: the
    # round is not over)
    branches = {item.namespace[-1] for item in kept}
    assert len(branches) == len(stopped.tasks)
    assert {"0:generate_queries", "1:search_sources", "1:read_sources"} <= {i.key for i in kept}

    assert failure.fired
    assert set(stopped.next) == {"researcher"}
    failed = [t for t in stopped.tasks if t.error is not None]
    assert len(failed) == 1 and "injected failure" in str(failed[0].error)
    finished = {
        finding.step_id
        for task in stopped.tasks
        if task.result is not None
        for finding in task.result["findings"]
    }
    planned = {step.id for step in stopped.values["plan"]}
    assert FAILING_STEP in planned and len(planned) >= 3
    assert finished == planned - {FAILING_STEP}, "every sibling branch finished before the failure"
    before = calls.copy()
    assert set(before.searches) == planned, "every search is attributed to its step"
    assert before.notes[FAILING_STEP] == 1

    async with open_checkpointer(url) as checkpointer, open_store(url) as store:
        graph = build_graph(
            engine=counting_engine(calls),
            sources=[counting_corpus(LocalCorpus(SAMPLE_CORPUS, index), calls)],
            checkpointer=checkpointer,
            store=store,
        )
        result = await graph.ainvoke(None, config, context=CONTEXT)
        final = await graph.aget_state(config)
        assert not await store.asearch(thread_namespace(config["configurable"]["thread_id"]))
        evidence = final.values["evidence"]

    assert not final.next
    for step_id in finished:
        assert calls.searches[step_id] == before.searches[step_id], f"{step_id} searched again"
        assert calls.queries[step_id] == before.queries[step_id]
        assert calls.notes[step_id] == before.notes[step_id]
    assert calls.notes[FAILING_STEP] > before.notes[FAILING_STEP], "the failed branch re-ran"
    assert calls.searches[FAILING_STEP] == before.searches[FAILING_STEP], (
        "the failed branch resumed at take_notes, its finished stages read back from the store"
    )
    assert "unattributed" not in calls.searches

    findings = [f.step_id for f in final.values["findings"]]
    assert planned <= set(findings) and len(findings) == len(set(findings))
    resumed = next(f for f in final.values["findings"] if f.step_id == FAILING_STEP)
    spans = {e.id for e in final.values["evidence"] if e.step_id == FAILING_STEP}
    assert resumed.evidence_ids and set(resumed.evidence_ids) <= spans
    report = result["report"]
    assert isinstance(report, Report)
    assert len(report.references) >= 3
    corpus_files = {path.resolve() for path in SAMPLE_CORPUS.iterdir()}
    assert all(Path(ref.location).resolve() in corpus_files for ref in report.references)
    assert f"[{len(report.references)}]" in report.markdown
    quotes = {e.id: e.quote for e in evidence}
    assert report.citations and all(c.quote == quotes[c.evidence_id] for c in report.citations)


@pytest.mark.postgres
async def test_failed_branch_resumes_from_postgres(
    postgres_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEEP_RESEARCH_DATABASE_URL", postgres_url)
    get_settings.cache_clear()
    assert get_settings().resolved_database_url == postgres_url
    await fail_then_resume(tmp_path)


async def test_failed_branch_resumes_from_sqlite_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEEP_RESEARCH_DATABASE_URL", f"sqlite:///{tmp_path / 'checkpoints.db'}")
    get_settings.cache_clear()
    await fail_then_resume(tmp_path)
