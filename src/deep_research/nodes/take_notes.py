"""take_notes: a researcher summarizes its step's evidence and judges whether it is enough."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from deep_research.context import Context
from deep_research.engines import Windowed, evidence_key
from deep_research.events import emit
from deep_research.services import Services, context_of
from deep_research.state import (
    Finding,
    ResearcherState,
)
from deep_research.verification.citations import keys_to_markers


async def take_notes(
    state: ResearcherState, runtime: Runtime[Context], *, services: Services
) -> dict[str, Any]:
    """Summarize the step's evidence and judge whether it is enough.

    An engine sized by its window takes every located quote of the step (the notes prompt
    fits what its window holds, the most relevant first); the offline engine its best
    ``spans_per_step * 2``. The finding keeps them all, for the writer.
    """
    engine = services.engine_for(context_of(runtime))
    evidence = sorted(state.evidence, key=lambda e: -e.relevance)
    if not isinstance(engine, Windowed):
        evidence = evidence[: state.config.budget.spans_per_step * 2]
    reply = await engine.notes(state.question, state.step, evidence)
    keys = {evidence_key(i): e.id for i, e in enumerate(evidence)}
    finding = Finding(
        step_id=state.step.id,
        notes=keys_to_markers(reply.value.notes, keys),
        evidence_ids=[e.id for e in evidence],
        queries=state.queries,
        searches=len(state.queries),
        sufficient=reply.value.sufficient,
        missing=reply.value.missing.strip(),
    )
    emit(
        runtime,
        "step_completed",
        step_id=state.step.id,
        sources=len(state.sources),
        evidence=len(evidence),
        sufficient=finding.sufficient,
    )
    return {"findings": [finding], "usage": reply.usage}
