"""The main graph, wired in execution order. Nodes live in ``deep_research.nodes``."""

from __future__ import annotations

from collections.abc import Sequence

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.store.base import BaseStore
from langgraph.types import RetryPolicy

from deep_research.context import Context
from deep_research.engines import Engine
from deep_research.graph.researcher import researcher_node, retry_on
from deep_research.graph.routing import (
    route_after_clarify,
    route_after_dispatch,
    route_after_plan,
    route_after_reflect,
    route_after_synthesize,
    route_after_verify,
)
from deep_research.nodes import (
    ask_clarification,
    clarify,
    dispatch,
    finalize,
    plan,
    reflect,
    review_plan,
    revise,
    synthesize,
    title_chat,
    verify,
    with_progress,
)
from deep_research.persistence import Recorder
from deep_research.services import Services, recording
from deep_research.sources import SourceProvider
from deep_research.state import InputState, OutputState, State

MODEL_RETRY = RetryPolicy(max_attempts=3, initial_interval=1.0, retry_on=retry_on)
"""Retries for nodes that call the engine (transient endpoint errors)."""


def build_graph(
    *,
    engine: Engine | None = None,
    sources: Sequence[SourceProvider] | None = None,
    checkpointer: BaseCheckpointSaver[str] | None = None,
    store: BaseStore | None = None,
    recorder: Recorder | None = None,
    served: bool = False,
) -> CompiledStateGraph[State, Context, InputState, OutputState]:
    """Compile the research graph.

    Args:
        engine: the reasoning engine; ``None`` picks one per run from the context and settings.
        sources: the source providers; ``None`` picks them per run from the context.
        checkpointer: persistence for interrupts and resume (the server brings its own).
        store: the content store for page text (the server brings its own).
        recorder: where the domain store's rows go; ``None`` records only when
            ``DEEP_RESEARCH_DATABASE_URL`` is set (see :mod:`deep_research.services`).
        served: runs come from a server's users, who may read local corpora only inside
            ``DEEP_RESEARCH_CORPUS_ROOTS``.

    Example:
        A question researched offline in the bundled sample corpus (no model, no network):

        >>> import asyncio
        >>> from deep_research.context import Context
        >>> from deep_research.engines import OfflineEngine
        >>> from deep_research.persistence import open_checkpointer
        >>> from deep_research.state import Report
        >>> async def research(question: str) -> Report:
        ...     async with open_checkpointer("memory") as checkpointer:
        ...         graph = build_graph(engine=OfflineEngine(), checkpointer=checkpointer)
        ...         config = {"configurable": {"thread_id": "example"}}
        ...         asked = {"messages": [{"role": "user", "content": question}]}
        ...         result = await graph.ainvoke(asked, config, context=Context(depth="light"))
        ...         return result["report"]
        >>> report = asyncio.run(research("What did Hornsdale Power Reserve cost?"))
        >>> report.markdown.splitlines()[0]
        '# What did Hornsdale Power Reserve cost?'
        >>> report.verification.unsupported, report.verification.total > 0
        (0, True)
    """
    services = Services(engine=engine, sources=sources, recorder=recorder, served=served)
    builder = StateGraph(
        State, context_schema=Context, input_schema=InputState, output_schema=OutputState
    )
    builder.add_node("clarify", recording(clarify, services), retry_policy=MODEL_RETRY)
    builder.add_node("ask_clarification", recording(ask_clarification, services))
    builder.add_node("title_chat", recording(title_chat, services))
    builder.add_node("plan", with_progress(recording(plan, services)), retry_policy=MODEL_RETRY)
    builder.add_node("review_plan", recording(review_plan, services))
    builder.add_node("dispatch", with_progress(recording(dispatch, services)))
    builder.add_node("researcher", researcher_node(services))
    builder.add_node(
        "reflect", with_progress(recording(reflect, services)), retry_policy=MODEL_RETRY
    )
    builder.add_node(
        "synthesize", with_progress(recording(synthesize, services)), retry_policy=MODEL_RETRY
    )
    builder.add_node("verify", with_progress(recording(verify, services)), retry_policy=MODEL_RETRY)
    builder.add_node("revise", with_progress(recording(revise, services)), retry_policy=MODEL_RETRY)
    builder.add_node(
        "finalize", with_progress(recording(finalize, services)), retry_policy=MODEL_RETRY
    )

    builder.add_edge(START, "clarify")
    builder.add_conditional_edges(
        "clarify", route_after_clarify, ["ask_clarification", "plan", "title_chat"]
    )
    builder.add_edge("title_chat", END)
    builder.add_edge("ask_clarification", "plan")
    builder.add_conditional_edges("plan", route_after_plan, ["review_plan", "synthesize"])
    builder.add_edge("review_plan", "dispatch")
    builder.add_conditional_edges("dispatch", route_after_dispatch, ["researcher", "reflect"])
    builder.add_edge("researcher", "reflect")
    builder.add_conditional_edges("reflect", route_after_reflect, ["dispatch", "synthesize"])
    builder.add_conditional_edges("synthesize", route_after_synthesize, ["verify", "finalize"])
    builder.add_conditional_edges("verify", route_after_verify, ["revise", "finalize"])
    builder.add_edge("revise", "verify")
    builder.add_edge("finalize", END)
    return builder.compile(checkpointer=checkpointer, store=store, name="deep_research")
