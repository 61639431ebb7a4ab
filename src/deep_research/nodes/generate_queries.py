"""generate_queries: a researcher asks the engine for its step's search queries."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from deep_research.context import Context
from deep_research.events import emit
from deep_research.services import Services, context_of
from deep_research.state import (
    ResearcherState,
)


async def generate_queries(
    state: ResearcherState, runtime: Runtime[Context], *, services: Services
) -> dict[str, Any]:
    """Ask the engine for new queries (fewer on a second pass)."""
    engine = services.engine_for(context_of(runtime))
    n = state.config.budget.queries_per_step if state.iteration == 0 else 2
    finding = state.findings[-1] if state.findings else None  # a second pass: aim at the gaps
    reply = await engine.queries(state.question, state.step, state.queries, n, finding=finding)
    for query in reply.value:
        emit(runtime, "query_issued", step_id=state.step.id, query=query)
    return {
        "new_queries": reply.value,
        "queries": [*state.queries, *reply.value],
        "iteration": state.iteration + 1,
        "usage": reply.usage,
    }
