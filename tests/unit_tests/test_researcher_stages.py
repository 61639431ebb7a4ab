"""A researcher's stages are kept until its step is done, and run at most once per round."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import ExecutionInfo, Runtime
from langgraph.store.memory import InMemoryStore

from deep_research.context import Context, resolve_config
from deep_research.events import emit, take_events
from deep_research.persistence.scratch import drop_round_stages, kept, researcher_namespace
from deep_research.state import (
    EvidenceSpan,
    PlanStep,
    ResearcherState,
    Source,
    TokenUsage,
)

STEP = PlanStep(id="s01", title="Grid batteries")
SPAN = EvidenceSpan(
    id="e1",
    url="https://example.org/a",
    document_id="doc_a",
    step_id="s01",
    quote="Costs fell.",
    start=4,
    end=15,
)


def _runtime(store: InMemoryStore | None, *, attempt: int = 1) -> Runtime[Any]:
    info = ExecutionInfo(
        checkpoint_id="c1",
        checkpoint_ns="researcher:r-1|read_sources:inner-" + str(attempt),
        task_id="inner-" + str(attempt),  # a researcher run again gets new inner task ids
        thread_id="thread-1",
        node_attempt=1,
    )
    return Runtime(context=None, store=store, stream_writer=lambda _: None, execution_info=info)


CONFIG = resolve_config(Context(), depth="light", engine="offline", sources=["local"])


def _state(iteration: int = 1) -> ResearcherState:
    return ResearcherState(step=STEP, question="Why?", config=CONFIG, iteration=iteration)


class ReadStage:
    """A stage that counts its runs and returns one record of each kind."""

    def __init__(self) -> None:
        self.runs = 0
        self.events: list[str] = []

    async def __call__(self, state: ResearcherState, runtime: Runtime[Any]) -> dict[str, Any]:
        self.runs += 1
        emit(runtime, "source_found", step_id=state.step.id, url=SPAN.url)
        self.events += [e.task_id for e in take_events(runtime)]
        return {
            "sources": [Source(url=SPAN.url, title="A", provider="web", document_id="doc_a")],
            "evidence": [SPAN],
            "usage": TokenUsage(prompt_tokens=3, completion_tokens=2, calls=1),
        }


async def test_a_stage_run_again_returns_what_it_returned_the_first_time() -> None:
    store = InMemoryStore()
    stage = ReadStage()
    read = kept(stage, "read_sources")
    first = await read(_state(), _runtime(store))
    again = await read(_state(), _runtime(store, attempt=2))
    assert stage.runs == 1
    assert again == first
    assert again["evidence"] == [SPAN]
    namespace = ("researchers", "thread-1", "r-1")
    assert [i.key for i in await store.asearch(namespace)] == ["1:read_sources"]

    next_round = await read(_state(iteration=2), _runtime(store))
    assert stage.runs == 2 and next_round == first, "each round runs once"


async def test_a_stage_numbers_its_events_by_researcher_round_and_name() -> None:
    """Not by LangGraph's inner task id, which changes when a researcher runs again."""
    stage = ReadStage()
    await kept(stage, "read_sources")(_state(), _runtime(InMemoryStore()))
    assert stage.events == ["r-1/1:read_sources"]


async def test_without_a_store_the_stage_runs_every_time() -> None:
    stage = ReadStage()
    read = kept(stage, "read_sources")
    await read(_state(), _runtime(None))
    await read(_state(), _runtime(None))
    assert stage.runs == 2
    assert stage.events == ["inner-1", "inner-1"]


async def test_the_end_of_a_round_drops_its_threads_stages_and_only_those() -> None:
    store = InMemoryStore()
    await kept(ReadStage(), "read_sources")(_state(), _runtime(store))
    assert researcher_namespace(_runtime(store)) == ("researchers", "thread-1", "r-1")
    await store.aput(("researchers", "thread-1", "r-2"), "1:read_sources", {})
    other_thread = ("researchers", "thread-2", "r-3")
    await store.aput(other_thread, "1:read_sources", {})
    reflect = ExecutionInfo(
        checkpoint_id="c2", checkpoint_ns="reflect:t9", task_id="t9", thread_id="thread-1"
    )
    runtime = Runtime(context=None, store=store, execution_info=reflect)
    assert await drop_round_stages(runtime) == 2
    assert await store.asearch(("researchers", "thread-1")) == []
    assert [i.key for i in await store.asearch(other_thread)] == ["1:read_sources"]
