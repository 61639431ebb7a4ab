"""The researcher subgraph: one instance per plan step, sent by dispatch."""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import RetryPolicy

from deep_research.context import Context
from deep_research.errors import DatabaseUnavailableError
from deep_research.graph.routing import route_after_notes
from deep_research.nodes import generate_queries, read_sources, search_sources, take_notes
from deep_research.services import Services, recording
from deep_research.state import ResearcherInput, ResearcherOutput, ResearcherState

_LANGGRAPH_RETRY_ON = cast("Callable[[Exception], bool]", RetryPolicy().retry_on)


def retry_on(exc: Exception) -> bool:
    """LangGraph's default rule, but a lost database is not retried.

    Retrying the node would wait out the database's timeouts again; the run ends at once
    instead, resumable once the database is back.
    """
    return not isinstance(exc, DatabaseUnavailableError) and _LANGGRAPH_RETRY_ON(exc)


RETRY = RetryPolicy(max_attempts=3, initial_interval=0.5, retry_on=retry_on)


def build_researcher(
    services: Services,
) -> CompiledStateGraph[ResearcherState, Context, ResearcherInput, ResearcherOutput]:
    """Compile the researcher; it inherits the parent's checkpointer."""
    builder = StateGraph(
        ResearcherState,
        context_schema=Context,
        input_schema=ResearcherInput,
        output_schema=ResearcherOutput,
    )
    builder.add_node("generate_queries", recording(generate_queries, services), retry_policy=RETRY)
    builder.add_node("search_sources", recording(search_sources, services), retry_policy=RETRY)
    builder.add_node("read_sources", recording(read_sources, services), retry_policy=RETRY)
    builder.add_node("take_notes", recording(take_notes, services), retry_policy=RETRY)

    builder.add_edge(START, "generate_queries")
    builder.add_edge("generate_queries", "search_sources")
    builder.add_edge("search_sources", "read_sources")
    builder.add_edge("read_sources", "take_notes")
    builder.add_conditional_edges("take_notes", route_after_notes, ["generate_queries", END])
    return builder.compile(name="researcher")
