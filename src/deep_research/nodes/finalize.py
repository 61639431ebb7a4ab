"""finalize: number references by first appearance and assemble the v1 report.

The work is the pure functions of :mod:`deep_research.report`; the node feeds them the state,
announces the result and records it.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from langchain_core.messages import AIMessage
from langgraph.runtime import Runtime

from deep_research.context import Context
from deep_research.events import emit
from deep_research.persistence.recorder import Batch
from deep_research.persistence.records import (
    MessageKind,
    MessageRecord,
    SessionStatus,
    SessionUpdate,
)
from deep_research.report import (
    build_report,
    compute_metrics,
    final_citations,
    number_references,
    render_markdown,
)
from deep_research.services import DEFAULT_SERVICES, Services
from deep_research.settings import get_settings
from deep_research.sources import corpus_roots
from deep_research.state import State


def tool_calls(state: State) -> list[dict[str, Any]]:
    """What the answer used: each step's searches (providers and queries), and verification."""
    providers = sorted({s.provider for s in state.sources})
    calls: list[dict[str, Any]] = [
        {"name": "search", "step_id": f.step_id, "providers": providers, "queries": f.queries}
        for f in state.findings
    ]
    if state.verification.passes:
        calls.append({"name": "verify", "passes": state.verification.passes})
    return calls


async def finalize(
    state: State, runtime: Runtime[Context], *, services: Services = DEFAULT_SERVICES
) -> dict[str, Any]:
    """Render the final Markdown with numbered references and build the report."""
    # resolving the roots touches the disk: off the event loop
    roots = await asyncio.to_thread(corpus_roots, get_settings()) if services.served else []
    numbering = number_references(state.draft, state.evidence, state.sources, roots)
    rendered = render_markdown(
        state.question, state.draft, state.claims, numbering, state.verification
    )
    metrics = compute_metrics(
        usage=state.usage,
        sources=state.sources,
        evidence=state.evidence,
        findings=state.findings,
        references=numbering.references,
        rounds=state.round,
        started_at=state.started_at,
        now=time.time(),
    )
    citations = final_citations(
        state.citations, state.evidence, rendered.claims, numbering.number_of
    )
    report = build_report(
        question=state.question,
        brief=state.brief,
        rendered=rendered,
        numbering=numbering,
        citations=citations,
        sources=state.sources,
        verification=state.verification,
        metrics=metrics,
        config=state.run_config,
    )
    emit(
        runtime,
        "research_completed",
        references=len(report.references),
        claims=len(report.claims),
        supported_ratio=state.verification.supported_ratio,
        verification=state.verification.model_dump(),
    )
    by_id = {e.id: e for e in state.evidence}
    recorded = [c for c in report.citations if c.evidence_id in by_id]
    await services.record(
        runtime,
        state.question_nr,
        Batch(
            session=SessionUpdate(status=SessionStatus.COMPLETED, report=report),
            messages=[
                MessageRecord(
                    MessageKind.REPORT,
                    report.markdown,
                    query_mode=report.config.mode,
                    tool_calls=tool_calls(state),
                )
            ],
            sources=state.sources,
            evidence=[by_id[c.evidence_id] for c in recorded],
            claims=report.claims,
            final_claims=True,
            citations=recorded,
            cited_urls=[r.url for r in report.references],
        ),
    )
    return {"report": report, "messages": [AIMessage(report.markdown)]}
