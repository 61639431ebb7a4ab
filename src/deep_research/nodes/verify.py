"""verify: split the draft into claims and judge each against the evidence it cites.

The work is :func:`deep_research.report.verify.verify_draft`: claims unchanged since the last
pass keep their verdicts, the others are judged in batches; a claim its citations do not
support is judged again against the best uncited spans, and an alternate that supports it
becomes a non-primary citation that revise re-cites to. Each judged claim is a
``claim_verified`` event; the pass ends with a ``verification_summary`` event.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langgraph.runtime import Runtime

from deep_research.context import Context
from deep_research.engines import OfflineEngine
from deep_research.events import emit, emit_verdict
from deep_research.report.verify import verify_draft
from deep_research.services import Services, context_of
from deep_research.state import Claim, State, Verdict, VerificationSummary
from deep_research.state.revision import revision_due


def summarize(claims: Sequence[Claim], previous: VerificationSummary) -> VerificationSummary:
    """Verdict counts of ``claims``, with revision counts carried over and one more pass."""
    counts = {v: sum(1 for c in claims if c.verdict is v) for v in Verdict}
    return previous.model_copy(
        update={
            "supported": counts[Verdict.SUPPORTED],
            "partial": counts[Verdict.PARTIAL],
            "unsupported": counts[Verdict.UNSUPPORTED],
            "contradicted": counts[Verdict.CONTRADICTED],
            "fallback": sum(1 for c in claims if c.verdict and c.checked_by == "fallback"),
            "passes": previous.passes + 1,
        }
    )


async def verify(state: State, runtime: Runtime[Context], *, services: Services) -> dict[str, Any]:
    """Judge the draft's claims; record and report each verdict and the pass's summary."""
    engine = services.engine_for(context_of(runtime))
    evidence = state.evidence
    result = await verify_draft(
        engine,
        state.draft,
        evidence,
        state.claims,
        memo=services.memo,
        overlap=not isinstance(engine, OfflineEngine),  # the offline engine answers at once
    )
    summary = summarize(result.claims, state.verification)
    for claim in result.judged:
        emit_verdict(runtime, claim, passes=summary.passes, total=len(result.judged))
    budget = state.run_config.budget.max_revisions
    final = not revision_due(result.claims, state.revisions, budget)
    emit(runtime, "verification_summary", **summary.model_dump(), final=final)
    update: dict[str, Any] = {"verification": summary, "usage": result.usage}
    # each write is kept in the checkpoints: a pass after a revision that changed nothing
    # finds the same claims and writes none
    if result.claims != state.claims:
        update["claims"] = result.claims
    return update
