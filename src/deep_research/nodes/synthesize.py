"""synthesize: write the report from the evidence, streamed as it is written."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from deep_research.context import Context
from deep_research.engines import evidence_key
from deep_research.events import emit
from deep_research.services import Services, context_of
from deep_research.state import EvidenceSpan, State
from deep_research.verification.citations import keys_to_markers, normalize_draft

PROGRESS_EVERY_CHARS = 400
"""A ``synthesis_progress`` event is emitted each time this many more characters are written."""


def report_evidence(state: State) -> list[EvidenceSpan]:
    """The evidence the findings selected, in state order (what the writer may cite)."""
    chosen = {i for f in state.findings for i in f.evidence_ids}
    return [e for e in state.evidence if e.id in chosen]


async def synthesize(
    state: State, runtime: Runtime[Context], *, services: Services
) -> dict[str, Any]:
    """Write the draft with ``[E#]`` keys, then store it with evidence-id markers."""
    context = context_of(runtime)
    engine = services.engine_for(context)
    if context.mode == "simple":
        reply = await engine.answer(state.research_question, state.turns)
        return {"draft": normalize_draft(reply.value), "usage": reply.usage}
    evidence = report_evidence(state)
    written = 0
    reported = 0

    def progress(piece: str) -> None:
        nonlocal written, reported
        written += len(piece)
        if written - reported >= PROGRESS_EVERY_CHARS:
            reported = written
            emit(runtime, "synthesis_progress", characters=written)

    reply = await engine.write_report(
        state.research_question, state.brief, state.plan, evidence, on_progress=progress
    )
    emit(runtime, "synthesis_progress", characters=len(reply.value), done=True)
    keys = {evidence_key(i): e.id for i, e in enumerate(evidence)}
    return {"draft": normalize_draft(keys_to_markers(reply.value, keys)), "usage": reply.usage}
