"""synthesize: write the report from the evidence, streamed as it is written."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from deep_research.context import Context
from deep_research.engines import WritingInputs, evidence_key
from deep_research.events import emit
from deep_research.report.build import kept_findings, report_evidence, report_plan, shown_title
from deep_research.services import Services, context_of
from deep_research.state import State
from deep_research.verification.citations import keys_to_markers, normalize_draft

PROGRESS_EVERY_CHARS = 400
"""A ``synthesis_progress`` event is emitted each time this many more characters are written."""


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

    inputs = WritingInputs(
        findings=kept_findings(state),
        titles={s.url: shown_title(s.title, s.url) for s in state.sources if s.title},
        depth=state.run_config.depth,
        requirements=state.requirements,
        unmet=state.unmet,
    )
    plan = report_plan(state.plan)
    reply = await engine.write_report(
        state.research_question, state.brief, plan, evidence, on_progress=progress, inputs=inputs
    )
    emit(runtime, "synthesis_progress", characters=len(reply.value), done=True)
    keys = {evidence_key(i): e.id for i, e in enumerate(evidence)}
    return {"draft": normalize_draft(keys_to_markers(reply.value, keys)), "usage": reply.usage}
