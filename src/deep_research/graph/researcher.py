"""The researcher subgraph: one instance per plan step, sent by dispatch.

It keeps no checkpoints of its own: its stages' results wait in the content store until its
round is over (:mod:`deep_research.persistence.scratch`), and the main graph stores what it
returns, once.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, cast

from langgraph.config import get_config
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import RetryPolicy

from deep_research.context import Context
from deep_research.errors import DatabaseUnavailableError
from deep_research.graph.routing import route_after_notes
from deep_research.langgraph_internals import CONFIG_KEY_CHECKPOINTER, CONFIG_KEY_DURABILITY
from deep_research.nodes import generate_queries, read_sources, search_sources, take_notes
from deep_research.persistence.scratch import kept
from deep_research.services import Services, recording
from deep_research.state import (
    ResearcherInput,
    ResearcherOutput,
    ResearcherState,
    ResearcherTask,
)

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
    """Compile the researcher; :func:`researcher_node` runs it without checkpoints.

    It is compiled to inherit a checkpointer rather than with ``checkpointer=False``, which
    would hide its stages from the drawings of the graph that Studio shows.
    """
    builder = StateGraph(
        ResearcherState,
        context_schema=Context,
        input_schema=ResearcherInput,
        output_schema=ResearcherOutput,
    )
    for stage in (generate_queries, search_sources, read_sources, take_notes):
        name = stage.__name__
        builder.add_node(name, kept(recording(stage, services), name), retry_policy=RETRY)

    builder.add_edge(START, "generate_queries")
    builder.add_edge("generate_queries", "search_sources")
    builder.add_edge("search_sources", "read_sources")
    builder.add_edge("read_sources", "take_notes")
    builder.add_conditional_edges("take_notes", route_after_notes, ["generate_queries", END])
    return builder.compile(name="researcher")


def researcher_node(
    services: Services,
) -> Callable[..., Awaitable[dict[str, Any]]]:
    """The main graph's ``researcher`` node: the subgraph run for one plan step.

    Each stage keeps its result in the content store (until reflect, once the round's records
    are the main graph's), so a researcher resumed after a failure or a crash goes on from its
    last finished stage; the main graph stores the records it returns. Without checkpoints of
    its own, a researcher stores each of them once instead of three times (docs/decisions.md).
    """
    subgraph = build_researcher(services)

    async def researcher(task: ResearcherTask) -> dict[str, Any]:
        config = get_config()
        # no checkpointer to inherit; and LangGraph 1.2 would wait for the checkpoint saves
        # of a subgraph without one under durability="sync" (as the command line runs), and fail
        configurable = {
            **{k: v for k, v in config["configurable"].items() if k != CONFIG_KEY_CHECKPOINTER},
            CONFIG_KEY_DURABILITY: "async",
        }
        output = await subgraph.ainvoke(
            ResearcherInput(**task), {**config, "configurable": configurable}
        )
        return cast(dict[str, Any], output)

    return researcher
