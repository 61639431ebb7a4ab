"""dispatch: choose the next batch of open steps; the router sends one researcher per step."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from deep_research.context import Context
from deep_research.events import emit
from deep_research.services import Services
from deep_research.state import State


async def dispatch(
    state: State, runtime: Runtime[Context], *, services: Services
) -> dict[str, Any]:
    """Mark up to ``max_parallel_researchers`` open steps as sent, in plan order."""
    limit = state.run_config.budget.max_parallel_researchers
    batch = [s for s in state.plan if s.id not in state.dispatched][:limit]
    for step in batch:
        emit(runtime, "step_started", step_id=step.id, title=step.title, round=step.round)
    round = max([state.round, *(s.round for s in batch)])
    return {
        "dispatched": [*state.dispatched, *(s.id for s in batch)],
        "active": [s.id for s in batch],
        "round": round,
    }
