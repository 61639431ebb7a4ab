"""verify: split the draft into claims and judge each against the evidence it cites.

The work is :func:`deep_research.report.verify.verify_draft`: claims unchanged since the last
pass keep their verdicts, the others are judged in batches; a claim its citations do not
support is judged again against the best uncited spans, and an alternate that supports it
becomes a non-primary citation that revise re-cites to. Each judged claim is a
``claim_verified`` event; the pass ends with a ``verification_summary`` event.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from langgraph.runtime import Runtime

from deep_research.context import Context
from deep_research.engines import OfflineEngine
from deep_research.events import emit, emit_verdict
from deep_research.nodes._ahead import rewrites_ahead
from deep_research.report.judging import draft_key
from deep_research.report.verify import verify_draft
from deep_research.services import Services, ahead_scope, context_of
from deep_research.state import Claim, State, TokenUsage, Verdict, VerificationSummary
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
    overlap = not isinstance(engine, OfflineEngine)  # the offline engine answers at once
    passes = state.verification.passes + 1
    reported = 0

    def report(claims: list[Claim]) -> None:
        nonlocal reported
        for claim in claims:
            reported += 1
            emit_verdict(runtime, claim, passes=passes, total=reported)

    writing = services.in_flight.take(draft_key(ahead_scope(runtime), state.draft))
    ahead = rewrites_ahead(state, runtime, engine, services)
    previous, usage = list(state.claims), TokenUsage()
    if writing is not None:  # judgements synthesize left running: the rest is judged meanwhile
        rest = asyncio.create_task(
            verify_draft(
                engine,
                state.draft,
                state.evidence,
                state.claims,
                memo=services.memo,
                overlap=overlap,
                judge_from=writing.judged_up_to,
                ahead=ahead,
            )
        )
        try:
            early, early_usage = await writing.rest(report)
            later = await rest
        finally:
            rest.cancel()
            writing.cancel()
        report(later.judged)
        previous += [*early, *later.claims]
        usage = early_usage + later.usage
    result = await verify_draft(
        engine,
        state.draft,
        state.evidence,
        previous,
        memo=services.memo,
        overlap=overlap,
        ahead=ahead,
    )
    report(result.judged)
    summary = summarize(result.claims, state.verification)
    budget = state.run_config.budget.max_revisions
    final = not revision_due(result.claims, state.revisions, budget)
    emit(runtime, "verification_summary", **summary.model_dump(), final=final)
    update: dict[str, Any] = {"verification": summary, "usage": usage + result.usage}
    # each write is kept in the checkpoints: a pass after a revision that changed nothing
    # finds the same claims and writes none
    if result.claims != state.claims:
        update["claims"] = result.claims
    return update
