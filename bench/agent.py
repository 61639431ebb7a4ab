"""Our agent on the simulation: the graph, the run settings every section uses, one run."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import date
from typing import Any, Literal
from unittest.mock import patch

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph.state import CompiledStateGraph
from langgraph.store.base import BaseStore

from bench.sim.text import QUESTION
from deep_research.context import Context
from deep_research.engines.llm import LLMEngine, ModelLimits
from deep_research.graph import build_graph
from deep_research.sources import SourceProvider
from deep_research.state import DEPTH_BUDGETS

TODAY = date(2025, 6, 2)
"""The date our prompts state, fixed so that runs are comparable."""

DEPTH: Literal["extended"] = "extended"
RESULTS_PER_QUERY = 5
"""Results read per query: open_deep_research's default ``max_results`` for Tavily."""


def context(steps: int, *, allow_clarification: bool = True, verify: bool = True) -> Context:
    """The run settings: one research round, every step researched at once.

    ``verify`` false: the report is not checked (the user's setting for speed).
    """
    return Context(
        depth=DEPTH,
        allow_clarification=allow_clarification,
        max_rounds=1,
        results_per_query=RESULTS_PER_QUERY,
        max_parallel_researchers=min(16, max(1, steps)),
        verify=verify,
    )


@contextmanager
def plan_budget(steps: int) -> Iterator[None]:
    """Let the plan hold ``steps`` steps.

    The named depths cap a plan at 12 steps and no context field raises that, so for larger
    plans the ``extended`` budget is widened for the duration (in this process only).
    """
    base = DEPTH_BUDGETS[DEPTH]
    if steps <= base.max_steps:
        yield
        return
    wider = base.model_copy(update={"max_steps": steps, "max_parallel_researchers": 16})
    with patch.dict(DEPTH_BUDGETS, {DEPTH: wider}):
        yield


def graph_for(
    model: BaseChatModel,
    sources: Sequence[SourceProvider],
    checkpointer: BaseCheckpointSaver[str] | None,
    name: str = "simulated",
    *,
    store: BaseStore | None = None,
    window: int | None = None,
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """Our graph on the LLM engine over ``model`` (with ``store`` as its content store).

    ``window``: the model's context window in tokens, which sizes what the engine reads and
    hands its writer (``None``: unknown, sized as the default window).
    """
    limits = {"writer": ModelLimits(window)} if window else None
    engine = LLMEngine(model, name=name, today=TODAY, limits=limits)
    return build_graph(engine=engine, sources=sources, checkpointer=checkpointer, store=store)


def question_input(question: str = QUESTION) -> dict[str, Any]:
    """The graph input for one question."""
    return {"messages": [HumanMessage(question)]}


def thread_config(thread: str | None = None) -> RunnableConfig:
    """A config naming a thread (a new one by default)."""
    return {"configurable": {"thread_id": thread or uuid.uuid4().hex}}


async def run(
    graph: CompiledStateGraph[Any, Any, Any, Any],
    steps: int,
    *,
    config: RunnableConfig | None = None,
    resume: bool = False,
    durability: Literal["sync", "async", "exit"] | None = None,
    verify: bool = True,
) -> tuple[dict[str, Any], float]:
    """Run the question as the CLI does (streaming progress events); return state and seconds.

    With ``resume``, continue the thread of ``config`` from its last checkpoint instead.
    ``durability`` is LangGraph's (``None``: its default, as the CLI runs). ``verify`` false
    runs without verification.
    """
    config = config or thread_config()
    start = time.perf_counter()
    with plan_budget(steps):
        async for _ in graph.astream(
            None if resume else question_input(),
            config,
            context=context(steps, verify=verify),
            stream_mode=["custom", "updates"],
            subgraphs=True,
            durability=durability,
        ):
            pass
    wall = time.perf_counter() - start
    state = await graph.aget_state(config)
    return dict(state.values), wall
