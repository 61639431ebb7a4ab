"""revise: re-cite, correct or remove what verify did not support; verify runs again after.

For each claim that needs it (:func:`deep_research.verification.verifier.needs_revision`):

* supported only by an uncited alternate: re-cited to that alternate;
* unsupported or contradicted: the engine rewrites it from its cited evidence and the best
  alternates (a correction, a hedge or a narrower claim), or removes it (empty text);
  a claim with no evidence at all is removed.

The budget is ``max_revisions`` such passes. When it is spent and claims still need revision,
one last pass re-cites what an alternate supports and removes the rest without asking the
engine, so the loop always ends and what the budget could not fix is removed.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from langgraph.runtime import Runtime

from deep_research.context import Context
from deep_research.engines import ClaimCheck, Engine
from deep_research.services import Services, context_of
from deep_research.state import Claim, EvidenceSpan, State, TokenUsage
from deep_research.verification.checks import Analyses, clean_claim
from deep_research.verification.citations import (
    CitedSentence,
    drop_empty,
    locate_sentences,
    normalize_draft,
)
from deep_research.verification.verifier import GOOD, key_index, needs_revision, rank_alternates

Outcome = Literal["recited", "corrected", "removed", "unchanged"]

__all__ = ["needs_revision", "revise", "revise_claim"]


async def revise_claim(
    engine: Engine,
    claim: Claim,
    evidence: Sequence[EvidenceSpan],
    *,
    final: bool,
    analyses: Analyses | None = None,
) -> tuple[CitedSentence | None, Outcome, TokenUsage]:
    """The sentence that replaces ``claim`` (``None`` removes it), what was done, and its cost.

    Args:
        engine: Rewrites unsupported claims.
        claim: A claim that needs revision, with its verdict.
        evidence: All the session's evidence.
        final: The budget is spent: re-cite or remove, never rewrite.
        analyses: Shared by the claims of one pass, so that each span is analysed once.
    """
    if claim.verdict in GOOD and claim.evidence_id:
        return CitedSentence(claim.text, (claim.evidence_id,), "."), "recited", TokenUsage()
    if final:
        return None, "removed", TokenUsage()
    by_id: Mapping[str, EvidenceSpan] = {e.id: e for e in evidence}
    shown = [by_id[k] for k in claim.citation_keys if k in by_id]
    shown += rank_alternates(claim, evidence, analyses=analyses)
    if not shown:
        return None, "removed", TokenUsage()
    reply = await engine.rewrite(ClaimCheck(claim, shown))
    text = clean_claim(" ".join(reply.value.text.split()))
    if not text:
        return None, "removed", reply.usage
    position = key_index(reply.value.evidence_key, len(shown))
    ids = (shown[position].id,) if position is not None else tuple(claim.citation_keys)
    unchanged = text == claim.text and ids == tuple(claim.citation_keys)
    return CitedSentence(text, ids, "."), "unchanged" if unchanged else "corrected", reply.usage


async def revise(state: State, runtime: Runtime[Context], *, services: Services) -> dict[str, Any]:
    """Edit the draft claim by claim, from the last to the first so offsets stay valid."""
    engine = services.engine_for(context_of(runtime))
    budget = state.run_config.budget.max_revisions
    targets = {c.position_start: c for c in state.claims if needs_revision(c)}
    located = [s for s in locate_sentences(state.draft) if s.start in targets]
    final, analyses = state.revisions >= budget, Analyses()
    # every rewrite is an independent request: send them together, then edit last to first
    results = await asyncio.gather(
        *(
            revise_claim(engine, targets[s.start], state.evidence, final=final, analyses=analyses)
            for s in located
        )
    )
    draft, usage, outcomes = state.draft, TokenUsage(), Counter[Outcome]()
    for located_sentence, (sentence, outcome, spent) in reversed(
        list(zip(located, results, strict=True))
    ):
        usage, outcomes[outcome] = usage + spent, outcomes[outcome] + 1
        rendered = ""
        if sentence is not None:
            punct = located_sentence.sentence.punct
            rendered = CitedSentence(sentence.body, sentence.ids, punct).render()
        draft = draft[: located_sentence.start] + rendered + draft[located_sentence.full_end :]
    summary = state.verification.model_copy(
        update={
            "removed": state.verification.removed + outcomes["removed"],
            "corrected": state.verification.corrected + outcomes["corrected"],
            "recited": state.verification.recited + outcomes["recited"],
        }
    )
    return {
        "draft": normalize_draft(drop_empty(draft)),
        "revisions": state.revisions + 1,
        "verification": summary,
        "usage": usage,
    }
